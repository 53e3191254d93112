#!/usr/bin/env python3
"""Writes packaging/symbol-order.txt: the functions a live session runs, which the release link
places side by side (lld's --symbol-ordering-file; RELEASE_FLAGS compiles each function into a
section of its own, which it needs).

A live `run` holds its code in memory for hours, and pages, not functions, are what it holds:
the kernel maps up to 16 pages around each one touched. With the functions a session calls
scattered through 26 MB of code, a live run held 13.3 MB of the binary; side by side, 9.6 MB
(docs/dev/benchmarks.md, "Live sensors").

Usage: packaging/symbol_order.py BINARY [OUT]   (`make symbol-order` builds BINARY and runs it)
BINARY is a release build whose debug information valgrind can read (without packed relative
relocations, debug sections stripped). It runs two live sessions of 130 s, StartNotify and
AcquireNotify, on the fake org.bluez (Benchmarks/live.py's), each under valgrind's callgrind,
and lists every function either ran, in the order callgrind first names them. Names that a
later change renames are placed as the linker likes, as before: the file can only be stale,
never wrong.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks"))
import live  # noqa: E402

SECONDS = 130  # past the first alpha 1 window (120 s), so that its code is listed too


def profile(binary, method, folder):
    plan = os.path.join(folder, "plan.json")
    with open(plan, "w") as f:
        json.dump({"name": "Order", "steps": [{"kind": "work", "duration": SECONDS, "cadence": 170}]}, f)
    out = os.path.join(folder, f"callgrind.{method}.out")
    fake = live.Fake(folder, live.scenario(1, 4))
    try:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--demangle=no", binary, "run", plan,
             "--require-sensor", "--json", "--hr", live.DEVICE, "--cadence", live.DEVICE, "--notify", method],
            env=fake.env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        fake.close()
    return out


def functions(paths):
    """Every function the profiles name (fn= and cfn= lines, names compressed as (N))."""
    names, seen = [], set()
    for path in paths:
        table = {}
        with open(path, errors="replace") as f:
            for line in f:
                m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if not m:
                    continue
                if m.group(2):
                    table[m.group(1)] = m.group(2)
                name = table.get(m.group(1))
                if name and name not in seen and not name.startswith("0x"):
                    seen.add(name)
                    names.append(name)
    return names


def main():
    binary = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "packaging", "symbol-order.txt")
    folder = tempfile.mkdtemp()
    try:
        names = functions([profile(binary, method, folder) for method in ("start", "auto")])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    with open(target, "w") as f:
        f.write("\n".join(names) + "\n")
    print(f"{len(names)} functions written to {target}")


if __name__ == "__main__":
    main()
