"""What the Python checks of the built binary share: the repository root, a pass/fail tally,
and running intervalpro."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Tally:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, condition, message):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {message}")

    def report(self):
        """Prints the tally; returns the exit status."""
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def run(binary, env, *arguments):
    result = subprocess.run([binary, *arguments], cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"intervalpro {' '.join(arguments)} exited {result.returncode}: {result.stderr}")
    return result.stdout
