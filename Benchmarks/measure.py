#!/usr/bin/env python3
"""Runs a command N times; prints wall time (min / median / max) and peak RSS.

Usage: measure.py N COMMAND [ARG...]
       measure.py N COMMAND [ARG...] --versus REFERENCE [ARG...]

Output of the commands is discarded; a non-zero exit is reported and fails the measurement.
With --versus, the two commands take turns, one run of each a round, and the ratio of the
reference's time to the command's is printed too: on a shared host whose speed drifts from
minute to minute, runs of one after all runs of the other compare two different hosts.
"""
import os
import statistics
import subprocess
import sys
import time


def run_once(command: list[str]) -> tuple[float, float]:
    """Wall ms and peak RSS (MB) of one run; exits on failure."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"{command[0]} failed with {os.waitstatus_to_exitcode(status)}", file=sys.stderr)
        sys.exit(1)
    return wall, usage.ru_maxrss / 1024


def report(walls: list[float], peaks: list[float], label: str = "") -> None:
    runs = len(walls)
    print(f"  {label}wall time over {runs} runs: min {min(walls):.1f} ms, median {statistics.median(walls):.1f} ms, "
          f"max {max(walls):.1f} ms")
    print(f"  {label}peak RSS: max {max(peaks):.1f} MB")


def main() -> int:
    runs = int(sys.argv[1])
    arguments = sys.argv[2:]
    if "--versus" not in arguments:
        walls, peaks = [], []
        for _ in range(runs):
            wall, peak = run_once(arguments)
            walls.append(wall)
            peaks.append(peak)
        report(walls, peaks)
        return 0
    split = arguments.index("--versus")
    command, reference = arguments[:split], arguments[split + 1:]
    results = {"command": ([], []), "reference": ([], [])}
    for _ in range(runs):
        for name, argv in (("command", command), ("reference", reference)):
            wall, peak = run_once(argv)
            results[name][0].append(wall)
            results[name][1].append(peak)
    for name, argv in (("command", command), ("reference", reference)):
        # "intervalpro replay", "python3 reference_replay.py": the program and what it runs.
        report(*results[name], label=" ".join(os.path.basename(word) for word in argv[:2]) + ": ")
    medians = [statistics.median(results[name][0]) for name in ("command", "reference")]
    minimums = [min(results[name][0]) for name in ("command", "reference")]
    print(f"  side by side, {runs} rounds: the reference takes {medians[1] / medians[0]:.1f}x the command's median "
          f"time ({minimums[1] / minimums[0]:.1f}x its minimum)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
