#!/usr/bin/env python3
"""Live-sensor benchmarks (not tests): intervalpro against the fake org.bluez on a private bus.

1. CPU per 1,000 notifications: `record` while the fake streams as fast as it can.
2. A 60 s live `run` at HR 1 Hz + RSC 4 Hz: CPU as a share of one core, and peak RSS.

Usage: live.py BINARY. Prints figures; asserts nothing. Run by `make bench-live`.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICE = "C8:3A:35:11:22:33"


def scenario(period, notifications):
    return {
        "adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": True}],
        "devices": [{
            "address": DEVICE, "name": "HRM-Pro Plus:123456", "rssi": -55, "services": ["180d", "1814"],
            "appears_after": 0.1, "resolve_delay": 0.1, "characteristics_delay": 0.1,
            "notifications": notifications, "loop": True, "loop_period": period,
        }],
    }


def run_measured(binary, arguments, env):
    """Runs the binary, returns (cpu seconds, wall seconds, peak RSS MB, stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen([binary] + arguments, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{arguments[0]} failed with {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, out


def with_fake(folder, scenario_value, body):
    bus_path = os.path.join(folder, "bus")
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address=unix:path={bus_path}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scenario_path = os.path.join(folder, "scenario.json")
    with open(scenario_path, "w") as f:
        json.dump(scenario_value, f)
    while not os.path.exists(bus_path):
        time.sleep(0.02)
    ready = os.path.join(folder, "ready")
    fake = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "Tests/FakeBlueZ/fake_bluez.py"),
                             "--bus", f"unix:path={bus_path}", "--scenario", scenario_path,
                             "--call-log", os.path.join(folder, "calls.jsonl"), "--ready-file", ready])
    while not os.path.exists(ready):
        time.sleep(0.02)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={bus_path}", XDG_CONFIG_HOME=folder,
               XDG_DATA_HOME=folder)
    try:
        return body(env)
    finally:
        fake.terminate()
        fake.wait()
        daemon.kill()
        daemon.wait()


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        # 1. As fast as the fake goes: an RSC notification every millisecond.
        burst = scenario(0.002, [[0.0, "2a37", "168c9a01"], [0.001, "2a53", "05d002aa6200"]])
        out = os.path.join(folder, "burst.jsonl")

        def record(seconds):
            def body(env):
                result = run_measured(binary, ["record", out, "--duration", str(seconds), "--hr", DEVICE,
                                               "--cadence", DEVICE], env)
                with open(out) as f:
                    return result, sum(1 for line in f if '"char"' in line)
            return with_fake(folder, burst, body)

        # Two lengths, so start-up and connecting cancel out of the per-notification cost.
        (short_cpu, *_), short_count = record(2)
        (cpu, wall, rss, _), count = record(12)
        marginal = (cpu - short_cpu) / (count - short_count) * 1000
        print(f"record, fake streaming flat out: {count} notifications in 12 s ({count / 12:.0f}/s), "
              f"CPU {cpu * 1000:.0f} ms in all; {short_count} in 2 s, CPU {short_cpu * 1000:.0f} ms")
        print(f"  CPU per 1,000 notifications over D-Bus (received, decoded, written): {marginal * 1000:.1f} ms")

    with tempfile.TemporaryDirectory() as folder:
        # 2. A real session's rates: HR 1 Hz, RSC 4 Hz, for a 60 s plan.
        realistic = scenario(1.0, [[0.0, "2a37", "168c9a01"], [0.0, "2a53", "05d002aa6200"],
                                   [0.25, "2a53", "05d002aa6200"], [0.5, "2a53", "05d002aa6200"],
                                   [0.75, "2a53", "05d002aa6200"]])
        plan = os.path.join(folder, "plan.json")
        with open(plan, "w") as f:
            json.dump({"name": "Bench", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}, f)

        def run(env):
            return run_measured(binary, ["run", plan, "--require-sensor", "--json", "--no-save", "--hr", DEVICE,
                                         "--cadence", DEVICE], env)

        try:
            cpu, wall, rss, _ = with_fake(folder, realistic, run)
        except SystemExit:
            # Before session history exists there is no --no-save.
            def run_plain(env):
                return run_measured(binary, ["run", plan, "--require-sensor", "--json", "--hr", DEVICE,
                                             "--cadence", DEVICE], env)
            cpu, wall, rss, _ = with_fake(folder, realistic, run_plain)
        print(f"live run of a 60 s plan at HR 1 Hz + RSC 4 Hz: wall {wall:.1f} s, CPU {cpu * 1000:.0f} ms "
              f"= {cpu / wall * 100:.2f} % of one core, peak RSS {rss:.1f} MB")


if __name__ == "__main__":
    main()
