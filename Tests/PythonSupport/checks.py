"""What the Python checks of the built binary share: the repository root, a pass/fail tally,
and running intervalpro."""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def home_within(folder):
    """The environment with a home folder (and its XDG config and cache) inside `folder`: for
    programs that write under the home whatever their options say (Chromium's crash reports
    and caches), so that a check leaves nothing in the user's."""
    home = os.path.join(folder, "home")
    os.makedirs(home, exist_ok=True)
    return dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                XDG_CACHE_HOME=os.path.join(home, ".cache"))


def keep_matplotlib_out_of_home():
    """matplotlib (which NeuroKit2 imports) keeps settings and a font cache under ~/.config and
    ~/.cache: a folder of this run's instead. Call before importing it."""
    folder = tempfile.TemporaryDirectory(prefix="intervalpro-matplotlib-")
    os.environ.setdefault("MPLCONFIGDIR", folder.name)
    return folder


def one_thread_for_numpy():
    """NumPy's OpenBLAS starts a thread per core that spins while it waits for work: on two
    cores, beside a build, the alpha 1 check used 86 s of processor time for 60 s, against 23 s
    for 26 s with one thread. Call before importing NumPy."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


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
