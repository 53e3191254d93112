#!/usr/bin/env python3
"""ANT+ through a stick (not a test): CPU per data message, wake-ups and peak RSS of
`intervalpro run --cadence ant:0 --hr ant:0` against openant (PyPI) reading the same fake
stick (Benchmarks/ant_stick.py on a pseudo-terminal), side by side in one run.

Usage: ant.py INTERVALPRO PYTHON [RATE]

The stick broadcasts RATE pages a second on each of two channels (a foot pod, a strap; a real
one sends 4). Each reader runs twice, 10 s and 30 s of pages; the marginal cost, (CPU of the
long run - CPU of the short) / (pages of the long - pages of the short), leaves out start-up.
Wake-ups are voluntary context switches of the whole process (all threads) per second,
marginal in the same way. Every run has its own XDG folders.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stick(rate):
    process = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "Benchmarks/ant_stick.py"), "2", str(rate)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, process.stdout.readline().strip()


def measured(command, env):
    """Runs `command` under /usr/bin/time; returns (CPU seconds, voluntary context switches,
    peak RSS kB, wall s): the process alone, not the fake stick beside it."""
    with tempfile.NamedTemporaryFile("r") as figures:
        result = subprocess.run(
            ["/usr/bin/time", "-o", figures.name, "-f", "%U %S %w %M %e"] + command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"{command[0]} exited {result.returncode}: {result.stderr[-2000:]}")
        user, system, switches, rss, wall = figures.read().split()[-5:]
    return float(user) + float(system), int(switches), int(rss), float(wall)


def run(reader, seconds, rate, env):
    process, path = stick(rate)
    try:
        figures = measured(reader(path, seconds), env)
    finally:
        process.terminate()
        _, err = process.communicate()
    sent = int(err.split("sent ")[-1]) if "sent " in err else 0
    return figures, sent


def main():
    intervalpro, python = sys.argv[1], sys.argv[2]
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 50
    scratch = tempfile.mkdtemp()
    env = dict(os.environ, XDG_DATA_HOME=os.path.join(scratch, "data"), XDG_CONFIG_HOME=os.path.join(scratch, "config"))
    plans = {}
    for seconds in (10, 30):
        path = os.path.join(scratch, f"plan-{seconds}.json")
        with open(path, "w") as out:
            json.dump({"name": "ANT bench", "steps": [{"kind": "work", "duration": seconds, "cadence": 170}]}, out)
        plans[seconds] = path

    def ours(path, seconds):
        return [intervalpro, "run", plans[seconds], "--cadence", "ant:0", "--hr", "ant:0", "--ant-stick", path,
                "--no-save", "--json", "--metronome", "off", "--no-voice"]

    def openant(path, seconds):
        return [python, os.path.join(ROOT, "Benchmarks/ant_openant.py"), path, str(seconds)]

    print(f"two channels at {rate:g} pages/s each ({2 * rate:g} messages/s), 10 s and 30 s runs:")
    results = {}
    for name, reader in (("intervalpro", ours), ("openant", openant)):
        (short, short_sent), (long, long_sent) = run(reader, 10, rate, env), run(reader, 30, rate, env)
        marginal = (long[0] - short[0]) / max(1, long_sent - short_sent)
        # Marginal too, so that setting up the stick is left out.
        wakeups = (long[1] - short[1]) / max(1e-9, long[3] - short[3])
        # /usr/bin/time counts CPU in 10 ms steps: a marginal cost below one step per message
        # count reads as zero, and is at most that step.
        results[name] = (marginal, 0.01 / max(1, long_sent - short_sent))
        print(f"  {name:12s} {marginal * 1e6:8.1f} µs CPU per message (marginal), "
              f"{long[0]:.2f} s CPU in {long[3]:.1f} s, {wakeups:.1f} wake-ups/s (marginal; {long[1] / long[3]:.1f} over "
              f"the whole run), peak RSS {long[2] / 1024:.1f} MB, "
              f"{long_sent} messages sent")
    (ours, step), (theirs, _) = results["intervalpro"], results["openant"]
    if ours > 0:
        print(f"  openant / intervalpro: {theirs / ours:.1f}x")
    else:
        print(f"  openant / intervalpro: at least {theirs / step:.0f}x (intervalpro's marginal CPU is below "
              f"/usr/bin/time's 10 ms step, {step * 1e6:.0f} µs a message here)")


if __name__ == "__main__":
    main()
