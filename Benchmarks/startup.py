#!/usr/bin/env python3
"""Runs commands in turn, RUNS rounds of one run each (so a busy moment of the machine falls on
all of them alike); prints each one's median and minimum wall time, its ratio to the first
command's median, and its peak RSS.

Usage: startup.py RUNS "COMMAND ARG..." ... (words split on spaces). The first is the floor.
"""
import os
import statistics
import subprocess
import sys
import time


def run(words):
    """Wall ms and peak RSS (MiB, from wait4's rusage) of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(words, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(words)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_maxrss / 1024


def main():
    rounds = int(sys.argv[1])
    commands = [c.split(" ") for c in sys.argv[2:]]
    walls = [[] for _ in commands]
    peaks = [0.0 for _ in commands]
    for command in commands:  # once each to warm the page cache
        run(command)
    for _ in range(rounds):
        for i, command in enumerate(commands):
            wall, peak = run(command)
            walls[i].append(wall)
            peaks[i] = max(peaks[i], peak)
    floor = statistics.median(walls[0])
    print(f"  {'command':<48} {'median ms':>9} {'min ms':>7} {'× floor':>8} {'peak RSS MiB':>13}")
    for command, times, peak in zip(commands, walls, peaks):
        name = " ".join([os.path.basename(command[0])] + command[1:])
        median = statistics.median(times)
        print(f"  {name[:48]:<48} {median:>9.2f} {min(times):>7.2f} {median / floor:>8.2f} {peak:>13.1f}")
    print(f"  ({rounds} rounds; each round runs every command once, in this order)")


if __name__ == "__main__":
    main()
