#!/usr/bin/env python3
"""Live-sensor benchmarks (not tests): intervalpro against the fake org.bluez on a private bus,
side by side in one run with bleak, the Python BLE library most Linux fitness tools use.

1. Marginal CPU per notification at HR 10 Hz + RSC 50 Hz: a 60 s recording minus a 5 s one
   (so start-up and connecting cancel out), whole process (all threads, user + system), for
   `intervalpro record` on the AcquireNotify and StartNotify paths and for a bleak script
   recording the same characteristics with bleak's default (StartNotify) and with
   AcquireNotify. The bus daemon's CPU per notification is shown beside each, and each long
   run's peak RSS with, sampled once a second, its file-backed and anonymous parts and PSS.
2. A 60 s live `run` at HR 1 Hz + RSC 4 Hz, saving the session to the history as `run` does
   by default (one commit a second, each synced to disk), on both notification paths, then
   once with --no-save: CPU as a share of one core, peak RSS (and its parts, as above),
   wake-ups per second (voluntary context switches of all threads, from /proc, over the
   steady part), and notification received -> handed to the engine latency, p50 and p99.

Usage: live.py BINARY [PYTHON_WITH_BLEAK]. Prints figures; asserts nothing. Run by
`make bench-live`. LIVE_BENCH_SECONDS changes the long run (default 60).
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICE = "C8:3A:35:11:22:33"
LONG = float(os.environ.get("LIVE_BENCH_SECONDS", "60"))
SHORT = 5.0
HR = "168c9a01"
RSC = "05d002aa6200"


def scenario(hr_hz, rsc_hz):
    notifications = [[round(i / hr_hz, 4), "2a37", HR] for i in range(hr_hz)]
    notifications += [[round(i / rsc_hz, 4), "2a53", RSC] for i in range(rsc_hz)]
    notifications.sort(key=lambda n: n[0])
    return {
        "adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": True}],
        "devices": [{
            "address": DEVICE, "name": "HRM-Pro Plus:123456", "rssi": -55, "services": ["180d", "1814"],
            "appears_after": 0.1, "resolve_delay": 0.1, "gatt_before_resolved": True,
            "notifications": notifications, "loop": True, "loop_period": 1.0,
        }],
    }


def process_cpu(pid):
    """utime + stime of a live process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid):
    """MiB of a live process: its RSS, file-backed and anonymous, and its PSS."""
    kib = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":")[0]
            if key in ("VmRSS", "RssFile", "RssAnon"):
                kib[key] = int(line.split()[1])
    with open(f"/proc/{pid}/smaps_rollup") as f:
        kib["Pss"] = next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
    return {key: value / 1024 for key, value in kib.items()}


def largest(samples):
    """Of (t, {"memory": ...}) samples, the memory figures where the RSS was largest."""
    figures = [s["memory"] for _, s in samples if "memory" in s]
    return max(figures, key=lambda m: m["VmRSS"]) if figures else None


def described(rss, at_largest):
    text = f"peak RSS {rss:.1f} MB"
    if at_largest:
        text += (f" (sampled each second, at the largest: {at_largest['VmRSS']:.1f} MiB = file-backed "
                 f"{at_largest['RssFile']:.1f} + anonymous {at_largest['RssAnon']:.1f}; PSS {at_largest['Pss']:.1f})")
    return text


def memory_only(pid):
    return {"memory": memory(pid)}


def switches_and_memory(pid):
    return {"switches": voluntary_switches(pid), "memory": memory(pid)}


def voluntary_switches(pid):
    """Voluntary context switches of every thread of a live process."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


class Fake:
    """A private dbus-daemon and the fake org.bluez on it, for one measured run."""

    def __init__(self, folder, scenario_value):
        self.folder = folder
        bus_path = os.path.join(folder, "bus")
        if os.path.exists(bus_path):
            os.unlink(bus_path)
        self.daemon = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address=unix:path={bus_path}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        scenario_path = os.path.join(folder, "scenario.json")
        with open(scenario_path, "w") as f:
            json.dump(scenario_value, f)
        while not os.path.exists(bus_path):
            time.sleep(0.02)
        ready = os.path.join(folder, "ready")
        if os.path.exists(ready):
            os.unlink(ready)
        self.fake = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(ROOT, "Tests/FakeBlueZ/fake_bluez.py"), "--bus", f"unix:path={bus_path}",
             "--scenario", scenario_path, "--call-log", os.path.join(folder, "calls.jsonl"), "--ready-file", ready])
        while not os.path.exists(ready):
            time.sleep(0.02)
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={bus_path}", XDG_CONFIG_HOME=folder,
                        XDG_DATA_HOME=folder)

    def daemon_cpu(self):
        return process_cpu(self.daemon.pid)

    def close(self):
        self.fake.terminate()
        self.fake.wait()
        self.daemon.kill()
        self.daemon.wait()


def measured_rusage(command, env, sample=None):
    """As `measured`, with the child's rusage (all threads): (cpu, wall, rss MB, nvcsw, out, samples)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    samples = []
    stop = threading.Event()
    if sample:
        def sampler():
            while not stop.is_set():
                try:
                    samples.append((time.perf_counter() - start, sample(process.pid)))
                except (FileNotFoundError, ProcessLookupError, OSError):
                    return
                stop.wait(1)
        threading.Thread(target=sampler, daemon=True).start()
    out = process.stdout.read()
    err = process.stderr.read()
    stop.set()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{os.path.basename(command[0])} {command[1]} failed with {code}: {err.decode()[-800:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, out, err, samples


def count_notifications(path):
    with open(path) as f:
        return sum(1 for line in f if '"2a37"' in line or '"2a53"' in line)


def per_notification(folder, label, command_for):
    """Marginal CPU per notification: a LONG run minus a SHORT run."""
    results = []
    for seconds in (SHORT, LONG):
        fake = Fake(folder, scenario(10, 50))
        try:
            out = os.path.join(folder, "out.jsonl")
            # `record` never writes over a recording: each run writes a new one.
            if os.path.exists(out):
                os.remove(out)
            daemon_before = fake.daemon_cpu()
            cpu, wall, rss, _, _, samples = measured_rusage(command_for(seconds, out), fake.env, sample=memory_only)
            daemon = fake.daemon_cpu() - daemon_before
            results.append((cpu, daemon, count_notifications(out), described(rss, largest(samples))))
        finally:
            fake.close()
    (short_cpu, short_daemon, short_n, _), (long_cpu, long_daemon, long_n, memory_text) = results
    n = long_n - short_n
    marginal = (long_cpu - short_cpu) / n * 1e6
    daemon = (long_daemon - short_daemon) / n * 1e6
    print(f"  {label:<42} {marginal:7.1f} µs/notification  (bus daemon {daemon:5.1f} µs; "
          f"{long_n} in {LONG:.0f} s, {short_n} in {SHORT:.0f} s; {memory_text})", flush=True)
    return marginal


def main():
    binary = sys.argv[1]
    python = sys.argv[2] if len(sys.argv) > 2 else sys.executable
    bleak_script = os.path.join(ROOT, "Benchmarks/bleak_record.py")
    print(f"1. CPU per notification, HR 10 Hz + RSC 50 Hz, {LONG:.0f} s run minus {SHORT:.0f} s run, whole process")
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for method in ("auto", "start"):
            figures[method] = per_notification(
                folder, f"intervalpro record --notify {method}" + (" (AcquireNotify)" if method == "auto" else ""),
                lambda seconds, out, method=method: [binary, "record", out, "--duration", str(seconds), "--hr", DEVICE,
                                                     "--cadence", DEVICE, "--notify", method])
        figures["bleak"] = per_notification(
            folder, "bleak (its default: StartNotify)",
            lambda seconds, out: [python, bleak_script, DEVICE, str(seconds), out])
        figures["bleak-acquire"] = per_notification(
            folder, "bleak with use_start_notify=False (AcquireNotify)",
            lambda seconds, out: [python, bleak_script, DEVICE, str(seconds), out, "--acquire"])
    print(f"  ratio bleak (default) / intervalpro (AcquireNotify): {figures['bleak'] / figures['auto']:.1f}x; "
          f"bleak (AcquireNotify) / intervalpro (AcquireNotify): {figures['bleak-acquire'] / figures['auto']:.1f}x; "
          f"bleak (default) / intervalpro (StartNotify): {figures['bleak'] / figures['start']:.1f}x")

    print(f"2. a live run of a {LONG:.0f} s plan at HR 1 Hz + RSC 4 Hz (5 notifications/s)")
    with tempfile.TemporaryDirectory() as folder:
        plan = os.path.join(folder, "plan.json")
        with open(plan, "w") as f:
            json.dump({"name": "Bench", "steps": [{"kind": "work", "duration": LONG, "cadence": 170}]}, f)
        for method, saving in (("auto", True), ("start", True), ("auto", False)):
            fake = Fake(folder, scenario(1, 4))
            probe = os.path.join(folder, "latency.json")
            # Each run writes its own figures: intervalpro writes no file over another, so a
            # file left by the run before would be read as this run's.
            if os.path.exists(probe):
                os.remove(probe)
            env = dict(fake.env, INTERVALPRO_LATENCY_PROBE=probe)
            try:
                cpu, wall, rss, _, _, samples = measured_rusage(
                    [binary, "run", plan, "--require-sensor", "--json", "--hr", DEVICE, "--cadence", DEVICE,
                     "--notify", method] + ([] if saving else ["--no-save"]), env, sample=switches_and_memory)
            finally:
                fake.close()
            # Steady state: from 10 s in (connected, subscribed) to 5 s before the end.
            steady = [(t, s["switches"]) for t, s in samples if 10 <= t <= wall - 5]
            rate = (steady[-1][1] - steady[0][1]) / (steady[-1][0] - steady[0][0]) if len(steady) > 1 else float("nan")
            with open(probe) as f:
                latency = json.load(f)
            print(f"  --notify {method:<5}{'' if saving else ' --no-save'}: wall {wall:.1f} s, CPU {cpu * 1000:.0f} ms = {cpu / wall * 100:.3f} % of one "
                  f"core, {described(rss, largest(samples))}, {rate:.1f} wake-ups/s (5 notifications/s), latency received -> engine "
                  f"p50 {latency['p50_us']} µs, p99 {latency['p99_us']} µs, max {latency['max_us']} µs "
                  f"({latency['count']} notifications)", flush=True)


if __name__ == "__main__":
    main()
