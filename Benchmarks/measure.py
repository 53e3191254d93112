#!/usr/bin/env python3
"""Runs a command N times; prints wall time (min / median / max) and peak RSS.

Usage: measure.py N COMMAND [ARG...]. Output of the command is discarded; a non-zero exit
is reported and fails the measurement.
"""
import os
import statistics
import subprocess
import sys
import time


def main() -> int:
    runs = int(sys.argv[1])
    command = sys.argv[2:]
    walls, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        walls.append((time.perf_counter() - start) * 1000)
        peaks.append(usage.ru_maxrss / 1024)
        if os.waitstatus_to_exitcode(status) != 0:
            print(f"command failed with {os.waitstatus_to_exitcode(status)}", file=sys.stderr)
            return 1
    print(f"  wall time over {runs} runs: min {min(walls):.1f} ms, median {statistics.median(walls):.1f} ms, "
          f"max {max(walls):.1f} ms")
    print(f"  peak RSS: max {max(peaks):.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
