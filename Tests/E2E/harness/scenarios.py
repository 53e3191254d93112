"""The scenarios: each sets up virtual devices, runs the client in the VM, and asserts on
what it produced (the recording's bytes against the bytes the devices sent, the JSON
summary's figures against a replay of the recording, exit codes), not only that it ran."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable

from timelines import resting_strap_timeline, rr_intervals_sent, run_timeline, session_cadence, steady_cadence
from virtual_devices import DeviceSpec, EventLog, VirtualAir, parse_timeline
from vm import GuestVM

E2E_DIR = Path(__file__).resolve().parent.parent
WATCH = "F0:F1:F2:F3:F4:F5"
FOOTPOD = "E8:E9:EA:EB:EC:ED"
SPEAKER = "D0:D1:D2:D3:D4:D5"
STRAP = "A0:9E:1A:12:34:56"
SCORING_FIELDS = ("in_zone_s", "below_s", "above_s", "no_signal_s", "avg_cadence_spm")
EX_UNAVAILABLE = 69


class Failed(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


@dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str

    def json(self, what: str) -> dict:
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as error:
            raise Failed(f"{what}: stdout is not one JSON document ({error}): {self.stdout[:300]!r}") from None


class Context:
    """One scenario's view of the suite: its folder, the VM, the virtual air, the client."""

    def __init__(self, name: str, folder: Path, vm: GuestVM, air: VirtualAir, client: list[str],
                 binary: Path | None, standin: bool = False):
        self.name = name
        self.folder = folder
        self.vm = vm
        self.air = air
        self.client = client
        self.binary = binary  # the intervalpro binary, for host-side replays
        self.standin = standin  # the stand-in client (a harness check) keeps no session history
        self.log: EventLog | None = None
        self.commands = 0

    def path(self, name: str) -> str:
        return str(self.folder / name)

    async def devices(self, *specs: DeviceSpec) -> EventLog:
        """A fresh bluetoothd (no devices remembered from an earlier scenario), then these
        devices on the air."""
        await self.air.clear()
        status = await self.vm.run(f"{E2E_DIR}/vm/bluez.sh restart", timeout=90, name=f"{self.name}-bluez")
        check(status == 0, f"bluetoothd did not restart before the scenario (exit {status})")
        self.log = await self.air.populate(list(specs), self.folder / "devices.jsonl")
        return self.log

    def command_line(self, arguments: list[str]) -> str:
        return " ".join(shlex.quote(a) for a in self.client + arguments)

    async def guest(self, script: str, timeout: float) -> Outcome:
        """Runs a script in the guest with this scenario's own configuration and data
        folders, so scenarios do not see each other's remembered devices."""
        self.commands += 1
        stem = self.path(f"command-{self.commands}")
        # The session store (SQLite in WAL mode) needs shared memory maps, which the 9p share
        # cannot give: the data folder lives in the guest's tmpfs and is copied out after.
        data = f"/tmp/intervalpro-e2e/{self.name}/data"
        environment = (f"export XDG_CONFIG_HOME={shlex.quote(self.path('config'))}"
                       f" XDG_DATA_HOME={shlex.quote(data)}"
                       f" XDG_STATE_HOME={shlex.quote(self.path('state'))}\n")
        Path(stem + ".sh").write_text(script + "\n")
        status = await self.vm.run(
            environment + f"( {script}\n) >{shlex.quote(stem + '.out')} 2>{shlex.quote(stem + '.err')}\n"
            f"status=$?\nmkdir -p {shlex.quote(self.path('data'))}\n"
            f"cp -a {shlex.quote(data)}/. {shlex.quote(self.path('data'))}/ 2>/dev/null\nexit $status",
            timeout=timeout + 30, name=self.name)
        return Outcome(status, Path(stem + ".out").read_text(errors="replace"),
                       Path(stem + ".err").read_text(errors="replace"))

    async def client_run(self, arguments: list[str], timeout: float) -> Outcome:
        return await self.guest(f"timeout -k 5 {timeout:.0f} {self.command_line(arguments)}", timeout)

    async def host(self, arguments: list[str]) -> Outcome:
        """Runs a command on the host with this scenario's own configuration and data
        folders: a host-side replay saves its session there, never in the user's."""
        environment = dict(os.environ, XDG_CONFIG_HOME=self.path("host-config"), XDG_DATA_HOME=self.path("host-data"))
        process = await asyncio.create_subprocess_exec(
            *arguments, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=environment)
        out, err = await process.communicate()
        return Outcome(process.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


# ---- what the assertions read ------------------------------------------------------

def read_recording(path: str) -> tuple[dict, list[dict]]:
    try:
        lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    except FileNotFoundError:
        raise Failed(f"no recording was written at {path}") from None
    except json.JSONDecodeError as error:
        raise Failed(f"{path}: a line is not JSON ({error})") from None
    check(bool(lines), f"{path} is empty")
    header, entries = lines[0], lines[1:]
    check(header.get("intervalpro_recording") == 1, f"{path}: the header is not a version 1 recording header")
    times = [e["t"] for e in entries]
    check(times == sorted(times), f"{path}: times go backwards")
    return header, entries


def short_uuid(uuid: str) -> str:
    """A recording's `char` is the 16-bit or the full 128-bit UUID; compare 16-bit ones."""
    uuid = uuid.lower()
    return uuid[4:8] if len(uuid) == 36 and uuid.endswith("-0000-1000-8000-00805f9b34fb") else uuid


def recorded(entries: list[dict], device: str) -> list[tuple[str, str]]:
    """(characteristic, hex) of the HR and RSC notifications recorded from a device, in order."""
    notifications = [(short_uuid(e["char"]), e["hex"].lower()) for e in entries
                     if e.get("dev", "").upper() == device and "hex" in e]
    return [n for n in notifications if n[0] in ("2a37", "2a53")]


def same_bytes(got: list[tuple[str, str]], sent: list[tuple[str, str]], what: str, prefix: bool = False) -> None:
    """The recorded notifications are the sent ones, byte for byte, each characteristic's in
    the order the device sent them; with `prefix`, the first of them, as many as were recorded.
    Between characteristics the order is that of arrival: each measurement reaches the client
    on a socket (or in signals) of its own, and around a reconnect on a loaded host an HR value
    was read ahead of an RSC value the device had sent 70 ms before it."""
    if got == sent:
        return
    for char in sorted({c for c, _ in got} | {c for c, _ in sent}):
        mine = [value for c, value in got if c == char]
        theirs = [value for c, value in sent if c == char]
        if prefix:
            theirs = theirs[:len(mine)]
        for i, (a, b) in enumerate(zip(mine, theirs)):
            if a != b:
                raise Failed(f"{what}: {char} notification {i} differs: recorded {a}, the device sent {b}")
        if len(mine) != len(theirs):
            raise Failed(f"{what}: recorded {len(mine)} {char} notifications, the device sent {len(theirs)}")


def header_device(header: dict, address: str) -> dict:
    for device in header.get("devices", []):
        if device.get("id", "").upper() == address:
            return device
    raise Failed(f"the recording's header does not list {address}: {header.get('devices')}")


async def scores_as_replay(ctx: Context, summary: dict, recording: str, plan: str) -> dict:
    """The live summary's scoring figures equal those of a replay of its own recording."""
    replay = await ctx.host([str(ctx.binary), "replay", recording, "--plan", plan, "--fast", "--json"])
    (ctx.folder / "replay.json").write_text(replay.stdout)
    check(replay.status == 0, f"replaying the recording exited {replay.status}: {replay.stderr.strip()[:300]}")
    replayed = replay.json("replay --json")
    check(len(summary["steps"]) == len(replayed["steps"]),
          f"live summary has {len(summary['steps'])} steps, the replay {len(replayed['steps'])}")
    for live, again in zip(summary["steps"], replayed["steps"]):
        for name in SCORING_FIELDS:
            check(live.get(name) == again.get(name),
                  f"step {live['index']} {name}: live {live.get(name)}, replay of its recording {again.get(name)}")
    return replayed


def zone_sums_add_up(summary: dict) -> None:
    for step in summary["steps"]:
        if step.get("in_zone_s") is None:
            continue
        total = step["in_zone_s"] + step["below_s"] + step["above_s"] + step["no_signal_s"]
        check(abs(total - step["duration_s"]) < 0.0015,
              f"step {step['index']}: in zone + below + above + no signal = {total:.3f} s, duration {step['duration_s']}")


def summary_of(outcome: Outcome, what: str) -> dict:
    check(outcome.status == 0, f"{what} exited {outcome.status}: {outcome.stderr.strip()[-400:]}")
    summary = outcome.json(what)
    check(summary.get("summary_version") == 1, f"{what}: not a version 1 summary")
    check(summary.get("completed") is True, f"{what}: the session did not complete")
    check(summary.get("source") == "live", f"{what}: the source is {summary.get('source')!r}, not live sensors")
    return summary


def watch(timeline: str, services=("hr", "rsc"), name="Forerunner 265", address=WATCH) -> DeviceSpec:
    return DeviceSpec(name=name, address=address, services=tuple(services),
                      timeline=parse_timeline(timeline, name))


def speaker() -> DeviceSpec:
    # A Bluetooth speaker: advertises the Audio Sink service class, no fitness service.
    return DeviceSpec(name="JBL Flip 6", address=SPEAKER, services=(), advertised_uuids=(0x110B,),
                      appearance=0x0841)


def write_timeline(ctx: Context, name: str, text: str) -> str:
    (ctx.folder / name).write_text(text)
    return text


# ---- the scenarios --------------------------------------------------------------------

async def scan_lists_fitness_devices_only(ctx: Context) -> None:
    timeline = (E2E_DIR / "timelines" / "forerunner-10s.txt").read_text()
    await ctx.devices(watch(timeline), speaker())
    # An unfiltered discovery beside the scan (bluetoothctl's) puts the speaker on the bus
    # too, so leaving it out is the client's own doing, not only its discovery filter's.
    scan = ctx.command_line(["scan", "--timeout", "8", "--json"])
    outcome = await ctx.guest(
        f"bluetoothctl --timeout 11 scan on >/dev/null 2>&1 &\nother=$!\nsleep 1\n"
        f"timeout -k 5 40 {scan}\nstatus=$?\nwait $other\nexit $status", timeout=50)
    check(outcome.status == 0, f"scan exited {outcome.status}: {outcome.stderr.strip()[-300:]}")
    found = outcome.json("scan --json")
    check(found.get("adapter") == "hci0", f"adapter is {found.get('adapter')!r}, not hci0")
    devices = {d.get("address", "").upper(): d for d in found.get("devices", [])}
    check(SPEAKER not in devices and not any("JBL" in (d.get("name") or "") for d in devices.values()),
          "scan listed the speaker, which has no fitness service")
    check(WATCH in devices, f"scan did not find the watch {WATCH}: {found}")
    device = devices[WATCH]
    check(device.get("name") == "Forerunner 265", f"the watch's name is {device.get('name')!r}")
    check(sorted(device.get("services", [])) == ["180d", "1814"], f"the watch's services are {device.get('services')}")
    check(isinstance(device.get("rssi"), int), f"rssi {device.get('rssi')!r} is not a number")
    check(device.get("battery_percent") in (90, None), f"battery_percent {device.get('battery_percent')!r}")
    check(len(devices) == 1, f"scan listed more than the watch: {sorted(devices)}")
    # The speaker was on the air all along: bluetoothd saw it, the client left it out.
    known = await ctx.guest("bluetoothctl devices", timeout=20)
    check(SPEAKER in known.stdout.upper(), f"bluetoothd never saw the speaker: {known.stdout.strip()!r}")


async def record_captures_bytes(ctx: Context) -> None:
    timeline = (E2E_DIR / "timelines" / "forerunner-10s.txt").read_text()
    log = await ctx.devices(watch(timeline))
    out = ctx.path("recording.jsonl")
    outcome = await ctx.client_run(["record", out, "--duration", "25", "--scan-timeout", "20"], timeout=60)
    check(outcome.status == 0, f"record exited {outcome.status}: {outcome.stderr.strip()[-300:]}")
    header, entries = read_recording(out)
    device = header_device(header, WATCH)
    check(device.get("name") == "Forerunner 265", f"header name {device.get('name')!r}")
    sent = log.sent(WATCH)
    expected = [(e.what, e.payload.hex()) for e in parse_timeline(timeline, "timeline") if e.what in ("2a37", "2a53")]
    check(sent == expected, f"the watch delivered {len(sent)} of its {len(expected)} notifications "
                            "(the central subscribed late or dropped the link)")
    same_bytes(recorded(entries, WATCH), sent, "HR and RSC")
    check(any(c == "2a37" and h.startswith("16") for c, h in recorded(entries, WATCH)),
          "no heart rate with RR intervals was recorded")


async def start_notify_path(ctx: Context) -> None:
    """The StartNotify path, which a refused AcquireNotify falls back to: values as
    PropertiesChanged signals, byte for byte the same."""
    timeline = (E2E_DIR / "timelines" / "forerunner-10s.txt").read_text()
    log = await ctx.devices(watch(timeline))
    out = ctx.path("recording.jsonl")
    arguments = ["record", out, "--duration", "25", "--scan-timeout", "20"]
    outcome = await ctx.client_run(arguments if ctx.standin else arguments + ["--notify", "start"], timeout=60)
    check(outcome.status == 0, f"record exited {outcome.status}: {outcome.stderr.strip()[-300:]}")
    _, entries = read_recording(out)
    sent = log.sent(WATCH)
    check(len(sent) >= 20, f"the watch delivered only {len(sent)} notifications")
    same_bytes(recorded(entries, WATCH), sent, "HR and RSC over StartNotify")
    if not ctx.standin:
        for uuid in ("2a37", "2a53"):
            check(f"{uuid} through StartNotify" in outcome.stderr,
                  f"the log does not say {uuid} went through StartNotify: {outcome.stderr.strip()[-400:]!r}")


async def remembered_sensor_absent(ctx: Context) -> None:
    """sensors.json remembers an HRM-Pro that is not in range; the watch that is there is
    taken after a few seconds, the session runs, and the memory is corrected."""
    timeline = write_timeline(ctx, "watch.txt", run_timeline(80, steady_cadence))
    await ctx.devices(watch(timeline))
    absent = "C8:3A:35:11:22:33"
    memory = Path(ctx.path("config")) / "intervalpro" / "sensors.json"
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text(json.dumps({"version": 1, "heart_rate": {"address": absent, "name": "HRM-Pro Plus"},
                                  "cadence": {"address": absent, "name": "HRM-Pro Plus", "cadence_unit": "auto"}}))
    plan = str(E2E_DIR / "plans" / "e2e-steady.json")
    out = ctx.path("recording.jsonl")
    outcome = await ctx.client_run(["run", plan, "--require-sensor", "--json", "--record", out,
                                    "--scan-timeout", "20"], timeout=120)
    check(outcome.status == 0, f"run exited {outcome.status} with a remembered sensor away: "
                               f"{outcome.stderr.strip()[-400:]!r}")
    _, entries = read_recording(out)
    check(len(recorded(entries, WATCH)) >= 10, "the watch in range was not recorded")
    if ctx.standin:
        return
    check(f"the remembered {absent} is not in range" in outcome.stderr,
          f"the run does not say the remembered sensor was replaced: {outcome.stderr.strip()[-400:]!r}")
    kept = json.loads(memory.read_text())
    check(kept.get("cadence", {}).get("address") == WATCH and kept.get("heart_rate", {}).get("address") == WATCH,
          f"sensors.json was not corrected to the watch: {kept}")


async def two_devices_hr_and_footpod(ctx: Context) -> None:
    watch_timeline = write_timeline(ctx, "watch.txt", run_timeline(12, steady_cadence, cadence=False))
    pod_timeline = write_timeline(ctx, "footpod.txt", run_timeline(12, steady_cadence, hr=False))
    log = await ctx.devices(
        watch(watch_timeline, services=("hr",)),
        DeviceSpec(name="Stryd", address=FOOTPOD, services=("rsc",), appearance=0x0443,  # running sensor
                   timeline=parse_timeline(pod_timeline, "Stryd")))
    out = ctx.path("recording.jsonl")
    outcome = await ctx.client_run(["record", out, "--duration", "25", "--hr", "Forerunner 265",
                                    "--cadence", "Stryd", "--scan-timeout", "20"], timeout=60)
    check(outcome.status == 0, f"record exited {outcome.status}: {outcome.stderr.strip()[-300:]}")
    header, entries = read_recording(out)
    header_device(header, WATCH)
    header_device(header, FOOTPOD)
    for address, char, count in ((WATCH, "2a37", 12), (FOOTPOD, "2a53", 12)):
        sent = log.sent(address)
        check(len(sent) == count and all(c == char for c, _ in sent),
              f"{address} delivered {len(sent)} notifications, not its {count} {char}")
        same_bytes(recorded(entries, address), sent, f"{address} {char}")


async def run_scores_as_its_replay(ctx: Context) -> None:
    timeline = write_timeline(ctx, "watch.txt", run_timeline(100, session_cadence))
    log = await ctx.devices(watch(timeline))
    plan = str(E2E_DIR / "plans" / "e2e-run.json")
    out = ctx.path("recording.jsonl")
    outcome = await ctx.client_run(["run", plan, "--require-sensor", "--json", "--record", out,
                                    "--scan-timeout", "20"], timeout=150)
    (ctx.folder / "summary.json").write_text(outcome.stdout)
    summary = summary_of(outcome, "run --json")
    check(len(summary["steps"]) == 3, f"{len(summary['steps'])} steps, the plan has 3")
    zone_sums_add_up(summary)
    _, entries = read_recording(out)
    got = recorded(entries, WATCH)
    sent = log.sent(WATCH)
    check(len(got) >= 120, f"only {len(got)} notifications recorded in a 70 s session at 2 a second")
    same_bytes(got, sent, "HR and RSC", prefix=True)
    warmup, work = summary["steps"][0], summary["steps"][1]
    check(warmup["in_zone_s"] > 10, f"warmup in zone {warmup['in_zone_s']} s; the runner was mostly in it")
    check(work["below_s"] > 0 and work["above_s"] > 0 and work["in_zone_s"] > 0,
          f"work step figures {work} do not show the runner below, in and above the zone")
    await scores_as_replay(ctx, summary, out, plan)
    if ctx.standin:
        return
    # The session went into the history with the summary's figures.
    history = await ctx.client_run(["history", "--json"], timeout=30)
    check(history.status == 0, f"history --json exited {history.status}: {history.stderr.strip()[-300:]}")
    sessions = history.json("history --json").get("sessions", [])
    check(len(sessions) == 1, f"the history holds {len(sessions)} sessions, not the one that ran")
    stored = sessions[0]
    check(stored.get("source") == "live" and stored.get("plan") == "E2E short session",
          f"the stored session is {stored}")
    check(stored.get("in_zone_pct") == summary["totals"]["in_zone_pct"],
          f"stored in-zone {stored.get('in_zone_pct')} %, the summary says {summary['totals']['in_zone_pct']} %")


async def readiness_from_a_resting_strap(ctx: Context) -> None:
    """A morning readiness measurement on a chest strap (the Heart Rate service alone) through
    bluetoothd: the intervals scored are the strap's own, in order, from 30 s after its first
    value, and the figures follow from them."""
    if ctx.standin:
        return  # the stand-in speaks scan, record and run only
    timeline = write_timeline(ctx, "strap.txt", resting_strap_timeline(115))
    log = await ctx.devices(DeviceSpec(name="Polar H10 12345678", address=STRAP, services=("hr",), appearance=0x0341,
                                       timeline=parse_timeline(timeline, "Polar H10")))
    outcome = await ctx.client_run(["readiness", "--duration", "1", "--json", "--no-save", "--scan-timeout", "20"],
                                   timeout=150)
    (ctx.folder / "readiness.json").write_text(outcome.stdout)
    check(outcome.status == 0, f"readiness exited {outcome.status}: {outcome.stderr.strip()[-400:]}")
    measured = outcome.json("readiness --json")
    check(measured.get("source") == "live", f"source {measured.get('source')!r}")
    check(str(measured.get("device", "")).upper() == STRAP, f"device {measured.get('device')!r}, not the strap")
    segments = measured.get("rr_segments")
    check(isinstance(segments, list) and len(segments) == 1, f"rr_segments {segments!r}: one stretch of contact expected")
    scored = segments[0]
    sent = rr_intervals_sent([payload for char, payload in log.sent(STRAP) if char == "2a37"])
    starts = [i for i in range(len(sent) - len(scored) + 1) if sent[i:i + len(scored)] == scored]
    check(len(scored) >= 55 and starts, f"the {len(scored)} intervals scored are not a run of the {len(sent)} the strap sent")
    # About 30 beats of a second each go by settling, a beat more or less as the first value
    # lands (33 while the client waited 5 s for a footpod it was not asked for, the strap's
    # first values unread). The beats repeat every 10: the run is found at each place the
    # cycle allows, one of them in that window.
    check(any(29 <= start <= 32 for start in starts),
          f"scoring began at the strap's beat {' or '.join(map(str, starts))}, not 30 s after its first value")
    check(measured.get("artifacts_corrected") == 0, f"{measured.get('artifacts_corrected')!r} beats corrected in a clean morning")
    intervals = [units * 1000 / 1024 for units in scored]
    differences = [b - a for a, b in zip(intervals, intervals[1:])]
    rmssd = (sum(d * d for d in differences) / len(differences)) ** 0.5
    check(abs(measured.get("rmssd_ms", 0) - rmssd) < 0.01, f"rMSSD {measured.get('rmssd_ms')!r}, the scored intervals give {rmssd:.3f}")
    mean_hr = 60000 / (sum(intervals) / len(intervals))
    check(abs(measured.get("mean_hr_bpm", 0) - mean_hr) < 0.01, f"mean HR {measured.get('mean_hr_bpm')!r}, the scored intervals give {mean_hr:.2f}")


async def link_drop_and_return(ctx: Context) -> None:
    # Leaves and returns between two notifications (they come at whole and half seconds).
    # Back, the watch sends its latest values the moment notifications are enabled again.
    # bluetoothd re-enables them by itself on reconnecting, before it reports
    # ServicesResolved, so those values reach the client early; they must be recorded too.
    timeline = write_timeline(ctx, "watch.txt", run_timeline(90, steady_cadence, extra={20.25: "leave", 32.25: "return"}))
    device = watch(timeline)
    device.notify_on_subscribe = True
    log = await ctx.devices(device)
    plan = str(E2E_DIR / "plans" / "e2e-steady.json")
    out = ctx.path("recording.jsonl")
    outcome = await ctx.client_run(["run", plan, "--require-sensor", "--json", "--record", out,
                                    "--scan-timeout", "20"], timeout=150)
    (ctx.folder / "summary.json").write_text(outcome.stdout)
    summary = summary_of(outcome, "run --json")
    zone_sums_add_up(summary)
    connections = [e for e in log.entries if e["event"] == "connected"]
    check(len(connections) >= 2, f"the watch was connected {len(connections)} time(s): no reconnect after it came back")
    _, entries = read_recording(out)
    events = [e["event"] for e in entries if "event" in e and e.get("dev", "").upper() == WATCH]
    check("disconnected" in events, f"the recording has no disconnected event (events: {events})")
    check("connected" in events[events.index("disconnected"):],
          f"the recording has no connected event after the drop (events: {events})")
    got = recorded(entries, WATCH)
    sent = log.sent(WATCH)
    same_bytes(got, sent, "HR and RSC across the drop", prefix=True)
    reconnected = [i for i, e in enumerate(log.entries) if e["event"] == "connected"][1]
    check(any(e["event"] == "notify" and e["subscribers"] for e in log.entries[reconnected:]),
          "the central did not subscribe again after the reconnect: nothing was delivered")
    step = summary["steps"][0]
    # Away 12 s plus the reconnect, less the 3 s a reading stays current.
    check(7 <= step["no_signal_s"] <= 40, f"no signal for {step['no_signal_s']} s across a 12 s drop")
    await scores_as_replay(ctx, summary, out, str(E2E_DIR / "plans" / "e2e-steady.json"))


async def bluetoothd_killed_and_restarted(ctx: Context) -> None:
    timeline = write_timeline(ctx, "watch.txt", run_timeline(95, steady_cadence))
    log = await ctx.devices(watch(timeline))
    plan = str(E2E_DIR / "plans" / "e2e-steady.json")
    out = ctx.path("recording.jsonl")
    run = ctx.command_line(["run", plan, "--require-sensor", "--json", "--record", out, "--scan-timeout", "20"])
    bluez = f"{E2E_DIR}/vm/bluez.sh"
    marks = ctx.path("marks.txt")
    outcome = await ctx.guest(
        f"timeout -k 5 150 {run} &\nclient=$!\n"
        # Wait for the session to be under way (notifications being recorded), then crash
        # bluetoothd; a loaded host may take a minute to connect. A client that gave up ends the
        # wait at once: the scenario then fails on its exit, not on the request's time limit.
        f"for _ in $(seq 1 900); do [ $(wc -l <{shlex.quote(out)} 2>/dev/null || echo 0) -gt 20 ] && break; "
        f"kill -0 $client 2>/dev/null || break; sleep 0.1; done\n"
        f"echo killed $(cut -d' ' -f1 /proc/uptime) >{marks}\n{bluez} kill\nsleep 2\n"
        f"{bluez} start >&2\necho started $(cut -d' ' -f1 /proc/uptime) >>{marks}\nwait $client",
        timeout=180)
    (ctx.folder / "summary.json").write_text(outcome.stdout)
    summary = summary_of(outcome, "run --json")
    zone_sums_add_up(summary)
    _, entries = read_recording(out)
    got = recorded(entries, WATCH)
    sent = log.sent(WATCH)
    # Whatever reached the kernel while no bluetoothd was there is lost to every client;
    # the rest must arrive, in order: the recording is the sent sequence with one gap.
    check(len(got) >= 20, f"only {len(got)} notifications recorded")
    split = next((i for i, (a, b) in enumerate(zip(got, sent)) if a != b), len(got))
    rest = got[split:]
    if rest:
        later = sent.index(rest[0], split) if rest[0] in sent[split:] else -1
        check(later >= 0, f"recorded notification {split} {rest[0]} was never sent after the gap")
        same_bytes(rest, sent[later:later + len(rest)], "HR and RSC after bluetoothd came back")
    connections = [e for e in log.entries if e["event"] == "connected"]
    check(len(connections) >= 2, "the watch was never connected again after bluetoothd restarted")
    events = [e["event"] for e in entries if "event" in e and e.get("dev", "").upper() == WATCH]
    check("disconnected" in events and "connected" in events[events.index("disconnected"):],
          f"the recording does not show the link lost and back (events: {events})")
    times = [e["t"] for e in entries if e.get("dev", "").upper() == WATCH and "hex" in e]
    check(max(b - a for a, b in zip(times, times[1:])) >= 2,
          "no gap of 2 s or more in the recording while bluetoothd was down")
    check(len(rest) >= 20, f"only {len(rest)} notifications recorded after bluetoothd restarted")
    await scores_as_replay(ctx, summary, out, plan)


async def require_sensor_without_one(ctx: Context) -> None:
    await ctx.devices(speaker())
    plan = str(E2E_DIR / "plans" / "e2e-steady.json")
    outcome = await ctx.client_run(["run", plan, "--require-sensor", "--json", "--scan-timeout", "6"], timeout=60)
    check(outcome.status == EX_UNAVAILABLE, f"run --require-sensor exited {outcome.status}, not 69")
    message = outcome.stderr.strip()
    check("sensor" in message.lower(), f"stderr does not say that no sensor was found: {message[-300:]!r}")
    check("Fatal error" not in message and "Stack dump" not in message, "the error is a crash, not a message")
    check("summary_version" not in outcome.stdout, "a summary was printed for a session that never ran")
    missing = await ctx.client_run(["record", ctx.path("none.jsonl"), "--adapter", "hci7", "--scan-timeout", "3"],
                                   timeout=30)
    check(missing.status == EX_UNAVAILABLE, f"record on a missing adapter exited {missing.status}, not 69")
    check("hci7" in missing.stderr, f"the error does not name the adapter: {missing.stderr.strip()[-300:]!r}")


# ---- ANT+ through a virtual stick -------------------------------------------------------

async def ant_stick(ctx: Context, timeline: str) -> tuple[str, str]:
    """Starts the virtual ANT stick (harness/ant_gadget.py) in the guest; returns its serial
    device and the log of the pages it sends."""
    log = ctx.path("stick.jsonl")
    Path(log).unlink(missing_ok=True)  # a stick started before in this scenario left its READY there
    gadget = E2E_DIR / "harness" / "ant_gadget.py"
    started = await ctx.guest(f"setsid python3 {gadget} {shlex.quote(log)} {timeline} </dev/null "
                              f">{shlex.quote(ctx.path('gadget.err'))} 2>&1 &", timeout=10)
    check(started.status == 0, f"the virtual stick did not start: {started.stderr.strip()[-300:]}")
    # The gadget waits up to 60 s for the host side to enable it and 30 s for the serial
    # device: a guest under TCG beside two busy cores enumerates slowly.
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            text = Path(log).read_text() if Path(log).exists() else ""
            if text.startswith("READY"):
                tty = text.split()[1]
                check(tty.startswith("/dev/ttyUSB"), f"the kernel made no serial device of the stick: {text.splitlines()[0]}")
                return tty, log
            await asyncio.sleep(0.1)
        err = Path(ctx.path("gadget.err"))
        raise Failed(f"the virtual stick was not ready in 120 s: {err.read_text()[-500:] if err.exists() else ''}")
    except BaseException:
        # A gadget left running holds FunctionFS's ep0 as set up: the next scenario's stick in
        # this guest would be refused (ESRCH on writing its descriptors).
        await remove_ant_stick(ctx)
        raise


async def remove_ant_stick(ctx: Context) -> None:
    """Stops the virtual stick and unbinds its gadget; waits until the gadget's process is gone,
    so that FunctionFS is free for the next stick."""
    await ctx.guest("pkill -f ant_gadget.py; "
                    "for _ in $(seq 50); do pgrep -f ant_gadget.py >/dev/null || break; sleep 0.2; done; "
                    "pkill -9 -f ant_gadget.py; sleep 0.2; "
                    "echo '' > /sys/kernel/config/usb_gadget/ant/UDC 2>/dev/null; true",
                    timeout=30)


def stick_pages(log: str, device: str) -> list[str]:
    pages = [json.loads(line) for line in Path(log).read_text().splitlines()[1:] if line.startswith("{")]
    return [p["hex"] for p in pages if p.get("device") == device]


def recorded_pages(entries: list[dict], device: str, char: str) -> list[str]:
    return [e["hex"].lower() for e in entries if e.get("dev") == device and e.get("char") == char]


async def ant_footpod_silent_and_back(ctx: Context) -> None:
    """A session on an ANT+ foot pod and strap through the virtual stick, the pod silent for
    10 s in the middle: no signal, then back by itself; the recording holds every page the
    devices sent, byte for byte, and replays to the session's figures."""
    await ctx.air.clear()
    tty, log = await ant_stick(ctx, "pod=4321,hr=12345,silent=15-25")
    try:
        plan = ctx.path("plan.json")
        Path(plan).write_text(json.dumps({"name": "ANT e2e", "steps": [{"kind": "work", "duration": 40, "cadence": 170}]}))
        out = ctx.path("recording.jsonl")
        # The stick found as a runner's is: through libusb, the kernel's serial driver detached.
        outcome = await ctx.client_run(["run", plan, "--cadence", "ant:0", "--hr", "ant:0",
                                        "--require-sensor", "--json", "--record", out, "--scan-timeout", "20",
                                        "--metronome", "off", "--no-voice"], timeout=120)
        (ctx.folder / "summary.json").write_text(outcome.stdout)
        summary = summary_of(outcome, "run --json on ANT+")
    finally:
        await remove_ant_stick(ctx)
    step = summary["steps"][0]
    check(step["avg_cadence_spm"] == 171, f"average cadence {step['avg_cadence_spm']}, the pod sends 85.5 strides/min")
    check(5 <= step["no_signal_s"] <= 11,
          f"{step['no_signal_s']} s without signal; the pod was silent for 10 s (no signal after 3 s)")
    check(summary["totals"]["avg_hr_bpm"] == 61, f"heart rate {summary['totals']['avg_hr_bpm']}, the strap sends 61")
    header, entries = read_recording(out)
    devices = {d.get("id"): d for d in header.get("devices", [])}
    check(devices.get("ant:4321", {}).get("cadence_unit") == "steps", f"the header's devices: {header.get('devices')}")
    for device, char in (("ant:4321", "ant-sdm"), ("ant:12345", "ant-hr")):
        got, sent = recorded_pages(entries, device, char), stick_pages(log, device)
        check(len(got) >= 80, f"only {len(got)} {char} pages recorded from {device}")
        check(got == sent[:len(got)], f"{device}: the recording's pages are not the bytes the stick sent, in order")
    pod_times = [e["t"] for e in entries if e.get("dev") == "ant:4321" and "event" not in e]
    check(any(b - a >= 9 for a, b in zip(pod_times, pod_times[1:])), "no 10 s gap in the pod's pages while it was silent")
    await scores_as_replay(ctx, summary, out, plan)


async def ant_footpod_with_bluetooth_strap(ctx: Context) -> None:
    """Heart rate from a Bluetooth watch and cadence from an ANT+ foot pod in one session; the
    stick read through the serial device the kernel made of it (`--ant-stick /dev/ttyUSBn`)."""
    timeline = write_timeline(ctx, "watch.txt", run_timeline(80, steady_cadence, cadence=False))
    log_bt = await ctx.devices(watch(timeline, services=("hr",)))
    tty, log = await ant_stick(ctx, "pod=4321,hr=12345")
    try:
        plan = str(E2E_DIR / "plans" / "e2e-steady.json")
        out = ctx.path("recording.jsonl")
        outcome = await ctx.client_run(["run", plan, "--hr", "Forerunner 265", "--cadence", "ant:0", "--ant-stick", tty,
                                        "--require-sensor", "--json", "--record", out, "--scan-timeout", "20",
                                        "--metronome", "off", "--no-voice"], timeout=150)
        (ctx.folder / "summary.json").write_text(outcome.stdout)
        summary = summary_of(outcome, "run --json on Bluetooth and ANT+")
    finally:
        await remove_ant_stick(ctx)
    _, entries = read_recording(out)
    check(recorded(entries, WATCH) and all(c == "2a37" for c, _ in recorded(entries, WATCH)),
          "no heart rate recorded from the Bluetooth watch")
    got, sent = recorded_pages(entries, "ant:4321", "ant-sdm"), stick_pages(log, "ant:4321")
    check(got and got == sent[:len(got)], "the ANT+ pod's pages are not recorded as sent")
    same_bytes(recorded(entries, WATCH), log_bt.sent(WATCH), "the watch's 2a37", prefix=True)
    check(summary["totals"]["avg_cadence_spm"] == 171, f"cadence {summary['totals']['avg_cadence_spm']}: not the ANT+ pod's")


async def ant_stick_pulled_out_and_back(ctx: Context) -> None:
    """The stick unbound from the controller mid-session (as pulling it out does) and bound
    again 6 s later: the session goes on, the stick is opened and set up again by itself."""
    await ctx.air.clear()
    tty, log = await ant_stick(ctx, "pod=4321,hr=12345,replug=12-18")
    try:
        plan = ctx.path("plan.json")
        Path(plan).write_text(json.dumps({"name": "ANT replug", "steps": [{"kind": "work", "duration": 40, "cadence": 170}]}))
        out = ctx.path("recording.jsonl")
        # Through libusb: back on the bus, the stick has a new address.
        outcome = await ctx.client_run(["run", plan, "--cadence", "ant:0", "--hr", "ant:0",
                                        "--require-sensor", "--json", "--record", out, "--scan-timeout", "20",
                                        "--metronome", "off", "--no-voice"], timeout=120)
        (ctx.folder / "summary.json").write_text(outcome.stdout)
        summary = summary_of(outcome, "run --json with the stick pulled out")
    finally:
        await remove_ant_stick(ctx)
    check("gone" in outcome.stderr and "back" in outcome.stderr,
          f"stderr does not say the stick went and came back: {outcome.stderr.strip()[-500:]!r}")
    _, entries = read_recording(out)
    pod_times = [e["t"] for e in entries if e.get("dev") == "ant:4321" and "event" not in e]
    gap = max((b - a for a, b in zip(pod_times, pod_times[1:])), default=0)
    # As a Bluetooth sensor's dropout is: the pod lost with the stick, and found again.
    events = [e["event"] for e in entries if "event" in e and e.get("dev") == "ant:4321"]
    check("disconnected" in events and "connected" in events[events.index("disconnected"):],
          f"the recording does not show the pod lost with the stick and back (events: {events})")
    check(5 <= gap <= 15, f"the longest gap in the pod's pages is {gap:.1f} s; the stick was out for 6 s")
    check(len([t for t in pod_times if t > pod_times[0] + 25]) >= 20, "too few pages after the stick came back")
    step = summary["steps"][0]
    check(step["avg_cadence_spm"] == 171 and step["no_signal_s"] >= 3, f"step figures {step}")
    await scores_as_replay(ctx, summary, out, plan)


async def ant_record_and_remembered(ctx: Context) -> None:
    """`record` on ANT+ keeps every page byte for byte, and remembers the devices; a following
    `run` naming no sensor reads them from the stick again (a Bluetooth watch in range is not
    taken instead), the remembered pod's number first."""
    await ctx.air.clear()
    await ctx.devices(watch(write_timeline(ctx, "watch.txt", run_timeline(90, steady_cadence))))
    _, log = await ant_stick(ctx, "pod=4321,hr=12345")
    try:
        out = ctx.path("recording.jsonl")
        recorded_run = await ctx.client_run(["record", out, "--cadence", "ant:0", "--hr", "ant:0", "--duration", "12",
                                             "--scan-timeout", "20"], timeout=90)
        check(recorded_run.status == 0, f"record exited {recorded_run.status}: {recorded_run.stderr.strip()[-400:]!r}")
        plan = ctx.path("plan.json")
        Path(plan).write_text(json.dumps({"name": "ANT again", "steps": [{"kind": "work", "duration": 15, "cadence": 170}]}))
        again = ctx.path("again.jsonl")
        outcome = await ctx.client_run(["run", plan, "--require-sensor", "--json", "--record", again, "--scan-timeout", "20",
                                        "--metronome", "off", "--no-voice"], timeout=90)
        summary = summary_of(outcome, "run with the remembered ANT+ devices")
    finally:
        await remove_ant_stick(ctx)
    header, entries = read_recording(out)
    check({d.get("id") for d in header.get("devices", [])} == {"ant:4321", "ant:12345"}, f"the header's devices: {header}")
    for device, char in (("ant:4321", "ant-sdm"), ("ant:12345", "ant-hr")):
        got, sent = recorded_pages(entries, device, char), stick_pages(log, device)
        check(len(got) >= 30, f"only {len(got)} {char} pages recorded from {device} in 12 s")
        check(got == sent[:len(got)], f"{device}: record's pages are not the bytes the stick sent, in order")
    memory = json.loads(Path(ctx.path("config/intervalpro/sensors.json")).read_text())
    check(memory.get("cadence", {}).get("address") == "ant:4321" and memory.get("heart_rate", {}).get("address") == "ant:12345",
          f"the remembered sensors: {memory}")
    again_header, _ = read_recording(again)
    check({d.get("id") for d in again_header.get("devices", [])} == {"ant:4321", "ant:12345"},
          f"run without sensor options did not read the remembered ANT+ devices: {again_header.get('devices')}")
    check(summary["totals"]["avg_cadence_spm"] == 171, f"cadence {summary['totals']['avg_cadence_spm']}: not the ANT+ pod's")


async def ant_scan(ctx: Context) -> None:
    """`scan` lists the ANT+ devices the stick hears beside the Bluetooth ones: each as the
    ant:NUMBER that --hr and --cadence take, with its profile and who made it."""
    await ctx.air.clear()
    await ctx.devices(watch(write_timeline(ctx, "watch.txt", run_timeline(30, steady_cadence)), services=("hr",)))
    _, log = await ant_stick(ctx, "pod=4321,hr=12345")
    try:
        outcome = await ctx.client_run(["scan", "--json", "--timeout", "6"], timeout=60)
    finally:
        await remove_ant_stick(ctx)
    check(outcome.status == 0, f"scan exited {outcome.status}: {outcome.stderr.strip()[-300:]!r}")
    devices = {d["address"]: d for d in json.loads(outcome.stdout)["devices"]}
    check(any(d.get("transport") == "bluetooth" for d in devices.values()), f"no Bluetooth device beside the ANT+ ones: {devices}")
    pod, strap = devices.get("ant:4321"), devices.get("ant:12345")
    check(pod is not None and strap is not None, f"the ANT+ devices are not listed: {sorted(devices)}")
    check(pod["services"] == ["ant-sdm"] and pod["ant_device_type"] == 124 and pod["manufacturer"] == "Garmin",
          f"the foot pod: {pod}")
    check(strap["services"] == ["ant-hr"] and strap["ant_device_type"] == 120 and strap["manufacturer"] == "Garmin",
          f"the strap: {strap}")


async def ant_no_stick(ctx: Context) -> None:
    outcome = await ctx.client_run(["run", str(E2E_DIR / "plans" / "e2e-steady.json"), "--cadence", "ant:0",
                                    "--require-sensor", "--json"], timeout=60)
    check(outcome.status == EX_UNAVAILABLE, f"run --cadence ant:0 without a stick exited {outcome.status}, not 69")
    check("no ANT stick found" in outcome.stderr, f"stderr does not say so: {outcome.stderr.strip()[-300:]!r}")


Scenario = Callable[[Context], Awaitable[None]]
SCENARIOS: list[tuple[str, Scenario]] = [
    ("scan", scan_lists_fitness_devices_only),
    ("record", record_captures_bytes),
    ("start-notify", start_notify_path),
    ("stale-memory", remembered_sensor_absent),
    ("two-devices", two_devices_hr_and_footpod),
    ("run-vs-replay", run_scores_as_its_replay),
    ("readiness", readiness_from_a_resting_strap),
    ("link-drop", link_drop_and_return),
    ("bluetoothd-restart", bluetoothd_killed_and_restarted),
    ("no-sensor", require_sensor_without_one),
    ("ant-footpod", ant_footpod_silent_and_back),
    ("ant-with-bluetooth", ant_footpod_with_bluetooth_strap),
    ("ant-replug", ant_stick_pulled_out_and_back),
    ("ant-scan", ant_scan),
    ("ant-record", ant_record_and_remembered),
    ("ant-no-stick", ant_no_stick),
]


# ---- benchmarks: run only when named (make bench-ant-usb) ---------------------------------

async def ant_usb_benchmark(ctx: Context) -> None:
    """CPU per ANT message through libusb on the virtual stick (and, as "serial", through the
    kernel's serial driver), against openant's USB driver (pyusb) reading the same stick in
    the same guest and the floor (Benchmarks/ant_floor.c: blocking reads in C, nothing else), at 100 and at 8 messages a second (50 and
    4 pages a second from each of two devices): each reader 10 s and 30 s, the marginal cost
    between the two; wake-ups (voluntary switches, all threads) per second, marginal in the same
    way, and peak RSS of the long run. Figures go to stdout and figures.txt; the guest is emulated (TCG), so only ratios
    mean much."""
    await ctx.air.clear()
    python = E2E_DIR.parent.parent / ".build" / "test-venv" / "bin" / "python"
    check(python.exists(), f"{python} is missing: make deps-test makes it")
    reader_script = E2E_DIR.parent.parent / "Benchmarks" / "ant_openant.py"
    # The floor: Benchmarks/ant_floor.c, blocking reads and nothing else (built beside the binary).
    floor = Path(ctx.binary).parent / "ant_floor"
    check(floor.exists(), f"{floor} is missing: make bench-ant-usb builds it")

    async def measured(arguments: list[str], timeout: float) -> tuple[float, int, int, float, str]:
        figures = ctx.path("time.txt")
        command = " ".join(shlex.quote(a) for a in arguments)
        outcome = await ctx.guest(f"/usr/bin/time -o {shlex.quote(figures)} -f '%U %S %w %M %e' {command}", timeout)
        check(outcome.status == 0, f"{arguments[0]} exited {outcome.status}: {outcome.stderr.strip()[-400:]}")
        user, system, switches, rss, wall = Path(figures).read_text().split()[-5:]
        return float(user) + float(system), int(switches), int(rss), float(wall), outcome.stdout

    results = {}
    lines = []
    readers = (("intervalpro", 50), ("intervalpro", 4), ("serial", 50), ("serial", 4), ("openant", 50), ("openant", 4),
               ("floor", 50), ("floor", 4))
    for name, rate in readers:
        runs = []
        for seconds in (10, 30):
            tty, _ = await ant_stick(ctx, f"pod=4321,hr=12345,rate={rate}")
            try:
                if name in ("intervalpro", "serial"):
                    plan = ctx.path(f"plan-{seconds}.json")
                    Path(plan).write_text(json.dumps({"name": "bench", "steps": [{"kind": "work", "duration": seconds, "cadence": 170}]}))
                    # Recorded in the guest's memory (its root is a tmpfs overlay), as a Pi records to
                    # its card through the page cache: a write to the shared run folder would be a
                    # 9p round trip to the host, and a wake-up, for every message. Copied out after.
                    recorded = f"/run/ant-bench-{name}-{seconds}.jsonl"
                    cpu, switches, rss, wall, _ = await measured(
                        [str(ctx.binary), "run", plan, "--cadence", "ant:0", "--hr", "ant:0", "--no-save", "--json",
                         "--record", recorded, "--metronome", "off", "--no-voice"] + (["--ant-stick", tty] if name == "serial" else []),
                        timeout=seconds + 90)
                    out = ctx.path(f"bench-{name}-{seconds}.jsonl")
                    copied = await ctx.guest(f"cp {recorded} {shlex.quote(out)} && rm {recorded}", 60)
                    check(copied.status == 0, f"the recording was not copied out: {copied.stderr.strip()[-300:]}")
                    _, entries = read_recording(out)
                    received = len([e for e in entries if e.get("char") in ("ant-sdm", "ant-hr")])
                else:
                    reader = [str(floor), str(seconds)] if name == "floor" else [str(python), str(reader_script), "usb", str(seconds)]
                    cpu, switches, rss, wall, stdout = await measured(reader, timeout=seconds + 90)
                    received = int(stdout.split("received ")[-1].split()[0])
            finally:
                await remove_ant_stick(ctx)
            runs.append((cpu, switches, rss, wall, received))
        (short, long) = runs
        marginal = (long[0] - short[0]) / max(1, long[4] - short[4])
        results[(name, rate)] = marginal
        # Wake-ups are marginal too: the long run's less the short one's over the extra time, so
        # that setting up the stick (commands and their answers, each a wait) is left out.
        wakeups = (long[1] - short[1]) / max(1e-9, long[3] - short[3])
        lines.append(f"{name:12s} {2 * rate:3d} messages/s: {marginal * 1e6:9.1f} µs CPU per message (marginal), {long[0]:.2f} s CPU in {long[3]:.1f} s, "
                     f"{wakeups:.1f} wake-ups/s (marginal; {long[1] / long[3]:.1f} over the whole run), peak RSS {long[2] / 1024:.1f} MB, "
                     f"{long[4]} messages received")
    for rate in (50, 4):
        lines.append(f"openant / intervalpro at {2 * rate} messages/s: "
                     f"{results[('openant', rate)] / max(results[('intervalpro', rate)], 1e-9):.1f}x; "
                     f"openant / the floor: {results[('openant', rate)] / max(results[('floor', rate)], 1e-9):.1f}x")
    (ctx.folder / "figures.txt").write_text("\n".join(lines) + "\n")
    for line in lines:
        print(f"      {line}", flush=True)


BENCHMARKS: list[tuple[str, Scenario]] = [
    ("ant-usb-bench", ant_usb_benchmark),
]

