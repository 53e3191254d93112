#!/usr/bin/env python3
"""The web page's cost (a benchmark, not a test): a real-time simulated session served with
`run --web` on loopback, watched for 60 s by 20 WebSocket clients on /api/live, and for
comparison by none; then `serve` idle (no session, no client) for as long.

For each: states each client received and the states it missed (gaps in `seq`); the server
process's CPU as a share of one core over the measured window (utime + stime of all its
threads, from /proc/PID/stat); its peak and end RSS (VmHWM, VmRSS); and its wake-ups per
second (voluntary + involuntary context switches summed over /proc/PID/task/*/status; a
thread that ends inside the window takes its count with it).

Usage: web.py BINARY. Prints figures; exits non-zero only when something fails to run.
Run by `make bench-web`. WEB_BENCH_SECONDS changes the window (default 60), WEB_BENCH_CLIENTS
the number of clients (default 20).
"""
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECONDS = float(os.environ.get("WEB_BENCH_SECONDS", "60"))
CLIENTS = int(os.environ.get("WEB_BENCH_CLIENTS", "20"))
# Longer than the window: an 8-minute warm-up, then 2-minute steps.
PLAN = "Plans/first-cadence-session.json"
SETTLE = 2.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_cpu(pid):
    """utime + stime of every thread of a live process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def context_switches(pid):
    """Voluntary and involuntary context switches of every thread of a live process."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def start_server(folder, idle=False):
    """`run --web` of the simulated session, or with `idle` a `serve` with nothing running."""
    port = free_port()
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"), XDG_DATA_HOME=os.path.join(folder, "data"))
    if idle:
        command = [BINARY, "serve", "--listen", f"127.0.0.1:{port}"]
    else:
        command = [BINARY, "run", PLAN, "--simulate", "--web", f"127.0.0.1:{port}",
                   "--metronome", "off", "--no-voice", "--no-save"]
    command += ["--allow-root"] if os.geteuid() == 0 else []
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    lines = []
    threading.Thread(target=lambda: [lines.append(raw.decode("utf-8", "replace")) for raw in process.stderr],
                     daemon=True).start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"intervalpro {command[1]} exited {process.returncode}: {''.join(lines)[-1500:]}")
        if any(re.search(r"intervalpro: web page at http://", line) for line in lines):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return process, port
            except OSError:
                pass
        time.sleep(0.05)
    process.kill()
    sys.exit(f"intervalpro {command[1]} did not start listening in 30 s: {''.join(lines)[-1500:]}")


def stop_server(process):
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def follow(port, connected, stop):
    """A client: (seq, arrival on the monotonic clock, session position) of every state
    received until `stop` is set."""
    from websockets.asyncio.client import connect
    seqs = []

    def note(text):
        state = json.loads(text)
        seqs.append((state["seq"], time.monotonic(), state.get("position")))

    async with connect(f"ws://127.0.0.1:{port}/api/live", open_timeout=30, ping_interval=None,
                       max_size=2 ** 22) as ws:
        note(await asyncio.wait_for(ws.recv(), 30))
        connected.append(1)
        while not stop.is_set():
            receiving = asyncio.ensure_future(ws.recv())
            stopping = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if receiving in done:
                note(receiving.result())
                stopping.cancel()
            else:
                receiving.cancel()
    return seqs


def measure(clients):
    """One run: the figures with `clients` clients watching for SECONDS."""
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_server(folder)
        try:
            async def window():
                connected, stop = [], asyncio.Event()
                tasks = [asyncio.create_task(follow(port, connected, stop)) for _ in range(clients)]
                deadline = time.monotonic() + 30
                while len(connected) < clients and time.monotonic() < deadline:
                    if any(t.done() for t in tasks):
                        break
                    await asyncio.sleep(0.05)
                if len(connected) < clients:
                    stop.set()
                    failures = [t.exception() for t in tasks if t.done() and t.exception()]
                    sys.exit(f"only {len(connected)} of {clients} clients connected: {failures[:3]}")
                await asyncio.sleep(SETTLE)
                cpu, switches, wall = process_cpu(process.pid), context_switches(process.pid), time.monotonic()
                await asyncio.sleep(SECONDS)
                figures = {
                    "cpu": process_cpu(process.pid) - cpu,
                    "switches": context_switches(process.pid) - switches,
                    "wall": time.monotonic() - wall,
                    "peak_rss": status_kib(process.pid, "VmHWM") / 1024,
                    "end_rss": status_kib(process.pid, "VmRSS") / 1024,
                    "threads": threads(process.pid),
                }
                stop.set()
                results = await asyncio.gather(*tasks, return_exceptions=True)
                return figures, results

            if process.poll() is not None:
                sys.exit(f"intervalpro run --web exited {process.returncode} early")
            figures, results = asyncio.run(window())
            if process.poll() is not None:
                sys.exit(f"intervalpro run --web exited {process.returncode} during the window")
            errors = [r for r in results if isinstance(r, BaseException)]
            if errors:
                sys.exit(f"{len(errors)} clients failed: {errors[:3]}")
            figures["latency"] = latencies(results)
            results = [[seq for seq, _, _ in states] for states in results]
            figures["received"] = [len(seqs) for seqs in results]
            figures["missed"] = [sum(b - a - 1 for a, b in zip(seqs, seqs[1:]) if b > a + 1) for seqs in results]
            figures["disorder"] = sum(sum(1 for a, b in zip(seqs, seqs[1:]) if b <= a) for seqs in results)
            return figures
        finally:
            stop_server(process)


def latencies(results):
    """How long after the engine's event each state arrived, in ms: at real time a state's
    position is the session time of its event, so arrival minus position is the event's
    wall time plus the delay; the smallest such offset over all states stands for the
    session's start (its delay, one loopback write, is taken as nil)."""
    offsets = [arrived - position for states in results for _, arrived, position in states if position is not None]
    if not offsets:
        return None
    start = min(offsets)
    delays = sorted(1000 * (offset - start) for offset in offsets)
    return {"p50": delays[len(delays) // 2], "p99": delays[int(len(delays) * 0.99)], "max": delays[-1]}


def memory(pid):
    """MiB: peak and current RSS, the current RSS's file-backed and anonymous parts, and PSS."""
    figures = {key: status_kib(pid, key) / 1024 for key in ("VmHWM", "VmRSS", "RssFile", "RssAnon")}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        figures["Pss"] = next(int(line.split()[1]) for line in f if line.startswith("Pss:")) / 1024
    return figures


def measure_idle():
    """`serve` with no session and no client for SECONDS: wake-ups, CPU and memory."""
    with tempfile.TemporaryDirectory() as folder:
        process, _ = start_server(folder, idle=True)
        try:
            time.sleep(SETTLE)
            cpu, switches, wall = process_cpu(process.pid), context_switches(process.pid), time.monotonic()
            time.sleep(SECONDS)
            figures = {"cpu": process_cpu(process.pid) - cpu, "switches": context_switches(process.pid) - switches,
                       "wall": time.monotonic() - wall, "threads": threads(process.pid)}
            figures.update(memory(process.pid))
            return figures
        finally:
            stop_server(process)


def main():
    global BINARY
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    BINARY = os.path.abspath(sys.argv[1])
    print(f"Web page: `run {PLAN} --simulate --web` at real time, {SECONDS:.0f} s measured after {SETTLE:.0f} s, "
          f"{os.cpu_count()} cores; {os.path.relpath(BINARY, ROOT) if BINARY.startswith(ROOT) else BINARY}")
    rows = []
    for clients in (0, CLIENTS):
        figures = measure(clients)
        rows.append((clients, figures))
        if clients:
            print(f"  {clients} clients, states received each (connected {SETTLE + SECONDS:.0f} s): "
                  f"{' '.join(map(str, figures['received']))}")
            print(f"  {clients} clients, states missed each: {' '.join(map(str, figures['missed']))}"
                  + (f" (out of order: {figures['disorder']})" if figures["disorder"] else ""))
            if figures["latency"]:
                lat = figures["latency"]
                print(f"  engine event to page, over every state every client received: p50 {lat['p50']:.1f} ms, "
                      f"p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms")
    header = f"{'clients':>7}  {'states/client':>13}  {'missed':>6}  {'CPU % core':>10}  {'peak RSS MB':>11}  " \
             f"{'end RSS MB':>10}  {'wake-ups/s':>10}  {'threads':>7}"
    print()
    print(header)
    print("-" * len(header))
    for clients, f in rows:
        received = f"{min(f['received'])}-{max(f['received'])}" if clients else "-"
        missed = str(sum(f["missed"])) if clients else "-"
        print(f"{clients:>7}  {received:>13}  {missed:>6}  {100 * f['cpu'] / f['wall']:>10.2f}  {f['peak_rss']:>11.1f}  "
              f"{f['end_rss']:>10.1f}  {f['switches'] / f['wall']:>10.1f}  {f['threads']:>7}")
    (_, idle), (_, watched) = rows
    quiet = measure_idle()
    print(f"\n`serve` with no session and no client, {quiet['wall']:.0f} s: {quiet['switches'] / quiet['wall']:.2f} wake-ups/s, "
          f"{100 * quiet['cpu'] / quiet['wall']:.3f} % of a core, {quiet['threads']} threads; RSS {quiet['VmRSS']:.1f} MiB "
          f"(peak {quiet['VmHWM']:.1f}; file-backed {quiet['RssFile']:.1f}, anonymous {quiet['RssAnon']:.1f}), "
          f"PSS {quiet['Pss']:.1f} MiB")
    extra_cpu = 100 * (watched["cpu"] / watched["wall"] - idle["cpu"] / idle["wall"])
    print(f"\n{CLIENTS} clients cost {extra_cpu:+.2f} % of a core and "
          f"{watched['end_rss'] - idle['end_rss']:+.1f} MB RSS over none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
