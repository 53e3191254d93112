#!/usr/bin/env python3
"""The cost of saving a session as it runs: the same simulated session with and without
the store, whole process, and the difference per stored sample (one a second).

Usage: measure_save.py RUNS INTERVALPRO DATABASE
"""
import json
import os
import statistics
import subprocess
import sys
import time


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def main():
    runs, binary, database = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    session = [binary, "run", "Benchmarks/one-hour.json", "--simulate", "--seed", "3", "--fast", "--json"]
    unsaved, saved = [], []
    for _ in range(runs):
        unsaved.append(timed(session + ["--no-save"]))
        saved.append(timed(session + ["--db", database]))
    shown = subprocess.run([binary, "show", "last", "--json", "--samples", "--db", database],
                           capture_output=True, text=True, check=True)
    samples = len(json.loads(shown.stdout)["samples"])
    extra = statistics.median(saved) - statistics.median(unsaved)
    print(f"  --no-save: median {statistics.median(unsaved):.1f} ms; saved: median {statistics.median(saved):.1f} ms "
          f"(over {runs} runs each)")
    print(f"  {samples} samples (and their notifications, one commit a second): "
          f"{extra:.1f} ms more, {extra * 1000 / samples:.1f} µs per sample")
    size = os.path.getsize(database) / runs / 1024
    print(f"  store growth: {size:.0f} kB per 70-minute session")


if __name__ == "__main__":
    sys.exit(main())
