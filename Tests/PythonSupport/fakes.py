"""What the fakes share (standard library only: they run with Debian's python3): the
sysexits codes they exit with, and a command line that answers a mistake with 64."""
import argparse
import sys

EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_UNAVAILABLE, EX_IOERR = 64, 65, 66, 69, 74


class Usage(argparse.ArgumentParser):
    """argparse, except that a bad command line prints `NAME: message` and exits 64."""

    def __init__(self, name, **options):
        super().__init__(**options)
        self.name = name

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.name}: {message}", file=sys.stderr)
        sys.exit(EX_USAGE)
