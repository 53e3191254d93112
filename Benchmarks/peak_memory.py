#!/usr/bin/env python3
"""Runs a command and prints its peak resident memory, anonymous and file-backed apart
(sampled from /proc/PID/status every 2 ms): a mapped file's pages count in RSS, but the kernel
may drop them again, where memory the program allocated stays. Prints figures; asserts nothing.

Usage: peak_memory.py COMMAND [ARGUMENT ...]"""
import subprocess
import sys
import time

started = time.monotonic()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = {"RssAnon": 0, "RssFile": 0}
while process.poll() is None:
    try:
        with open(f"/proc/{process.pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in peak:
                    peak[key] = max(peak[key], int(value.split()[0]))
    except OSError:
        pass
    time.sleep(0.002)
print(f"  {time.monotonic() - started:.2f} s wall, exit {process.returncode}; peak RSS anonymous "
      f"{peak['RssAnon'] / 1024:.0f} MiB, file-backed {peak['RssFile'] / 1024:.0f} MiB")
