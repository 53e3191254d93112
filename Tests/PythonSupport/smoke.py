"""What the fakes' own smoke tests share (standard library only: they run with Debian's
python3): one line per check, `ok` or `FAIL` with what was seen, and the counts."""


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
            print(f"ok    {what}")
        else:
            self.failed += 1
            print(f"FAIL  {what}" + (f": {detail}" if detail else ""))
        return condition
