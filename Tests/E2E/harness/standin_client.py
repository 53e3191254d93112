"""A stand-in for `intervalpro scan`, `record` and `run`, talking to org.bluez over D-Bus,
so the harness itself (VM, virtual devices, assertions) can be checked independently of
the program under test: `Tests/E2E/run.sh --client standin` runs the scenarios with it.
Its `run` records for the plan's length and prints the replay's summary, so its live and
replayed figures agree by construction. It follows the same command-line contract and writes the same recording
format, version 1; it is not a second implementation to maintain beyond that.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time

from dbus_fast import BusType, Message, MessageType, Variant
from dbus_fast.aio import MessageBus

BLUEZ = "org.bluez"
FITNESS = {"0000180d-0000-1000-8000-00805f9b34fb": "180d", "00001814-0000-1000-8000-00805f9b34fb": "1814"}
MEASUREMENTS = {"00002a37-0000-1000-8000-00805f9b34fb": "2a37", "00002a53-0000-1000-8000-00805f9b34fb": "2a53"}


def plain(value):
    if isinstance(value, Variant):
        return plain(value.value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class Central:
    def __init__(self, bus: MessageBus, adapter: str):
        self.bus = bus
        self.adapter_path = f"/org/bluez/{adapter}"
        self.objects: dict[str, dict[str, dict]] = {}
        self.changed = asyncio.Event()
        self.on_value = None
        bus.add_message_handler(self.on_message)

    async def call(self, path, interface, member, signature="", body=()):
        reply = await self.bus.call(Message(destination=BLUEZ, path=path, interface=interface,
                                            member=member, signature=signature, body=list(body)))
        if reply.message_type == MessageType.ERROR:
            raise RuntimeError(f"{member} on {path}: {reply.error_name} {reply.body}")
        return reply.body

    async def start(self) -> None:
        for rule in ("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'",
                     "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties'",
                     "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'"):
            await self.bus.call(Message(
                destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                interface="org.freedesktop.DBus", member="AddMatch", signature="s", body=[rule]))
        (objects,) = await self.call("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        self.objects = {p: plain(i) for p, i in objects.items()}

    def on_message(self, message: Message) -> None:
        if message.message_type != MessageType.SIGNAL:
            return
        if message.member == "NameOwnerChanged":
            self.objects = {}  # bluetoothd went away (or came back): its objects are gone
        elif message.member == "InterfacesAdded":
            path, interfaces = message.body
            self.objects.setdefault(path, {}).update(plain(interfaces))
        elif message.member == "InterfacesRemoved":
            path, names = message.body
            for name in names:
                self.objects.get(path, {}).pop(name, None)
        elif message.member == "PropertiesChanged":
            interface, changed, _ = message.body
            self.objects.setdefault(message.path, {}).setdefault(interface, {}).update(plain(changed))
            if interface == "org.bluez.GattCharacteristic1" and "Value" in changed and self.on_value:
                self.on_value(message.path, bytes(plain(changed["Value"])))
        self.changed.set()

    def devices(self) -> dict[str, dict]:
        return {p: i["org.bluez.Device1"] for p, i in self.objects.items()
                if "org.bluez.Device1" in i and p.startswith(self.adapter_path + "/")}

    async def discover(self) -> None:
        await self.call(self.adapter_path, "org.bluez.Adapter1", "SetDiscoveryFilter", "a{sv}",
                        [{"Transport": Variant("s", "le"), "DuplicateData": Variant("b", False)}])
        await self.call(self.adapter_path, "org.bluez.Adapter1", "StartDiscovery")

    async def wait(self, seconds: float) -> None:
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), seconds)
        except asyncio.TimeoutError:
            pass


def fitness(device: dict) -> list[str]:
    return [FITNESS[u] for u in device.get("UUIDs", []) if u in FITNESS]


async def scan(arguments) -> int:
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    central = Central(bus, arguments.adapter)
    await central.start()
    await central.discover()
    deadline = time.monotonic() + arguments.timeout
    while time.monotonic() < deadline:
        await central.wait(deadline - time.monotonic())
    found = [{"address": d["Address"], "name": d.get("Name"), "rssi": d.get("RSSI"),
              "services": fitness(d), "battery_percent": None}
             for d in central.devices().values() if fitness(d)]
    print(json.dumps({"adapter": arguments.adapter, "devices": found}))
    return 0


async def adapter_present(central: Central) -> bool:
    try:
        await central.start()
    except RuntimeError:
        return False
    return "org.bluez.Adapter1" in central.objects.get(central.adapter_path, {})


async def choose(central: Central, arguments) -> dict[str, dict]:
    """Devices by path: the --hr and --cadence ones (address or name), else every fitness device."""
    await central.discover()
    wanted = [w for w in (arguments.hr, arguments.cadence) if w]
    deadline = time.monotonic() + arguments.scan_timeout
    chosen: dict[str, dict] = {}
    while time.monotonic() < deadline:
        for path, device in central.devices().items():
            if fitness(device) and (not wanted or device["Address"] in wanted or device.get("Name") in wanted):
                chosen[path] = device
        if chosen and (not wanted or len(chosen) >= len(wanted)):
            break
        await central.wait(0.5)
    return chosen


class Recorder:
    """Writes the recording and keeps each chosen device connected and subscribed: after a
    dropped link, and after bluetoothd itself went away and came back."""

    def __init__(self, central: Central, chosen: dict[str, dict], path: str):
        self.central = central
        self.addresses = {p: d["Address"] for p, d in chosen.items()}
        self.out = open(path, "w")
        self.started = time.monotonic()
        devices = [{"id": d["Address"], "name": d.get("Name")} for d in chosen.values()]
        self.write({"intervalpro_recording": 1, "devices": devices})
        central.on_value = self.on_value

    def write(self, line: dict) -> None:
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()

    def now(self) -> float:
        return round(time.monotonic() - self.started, 6)

    def on_value(self, path: str, value: bytes) -> None:
        characteristic = self.central.objects.get(path, {}).get("org.bluez.GattCharacteristic1", {})
        address = self.addresses.get(path.split("/service")[0])
        if address is None:
            return
        char = MEASUREMENTS.get(characteristic.get("UUID"), characteristic.get("UUID"))
        self.write({"t": self.now(), "dev": address, "char": char, "hex": value.hex()})

    async def keep(self, path: str, stop: asyncio.Event) -> None:
        connected_once = False
        while not stop.is_set():
            try:
                if path not in self.central.devices():
                    await self.central.discover()
                    await self.central.wait(1)
                    continue
                await self.central.call(path, "org.bluez.Device1", "Connect")
                while not self.central.devices().get(path, {}).get("ServicesResolved"):
                    await self.central.wait(0.5)
                for char_path, interfaces in list(self.central.objects.items()):
                    c = interfaces.get("org.bluez.GattCharacteristic1")
                    if c and char_path.startswith(path + "/") and c.get("UUID") in MEASUREMENTS:
                        await self.central.call(char_path, "org.bluez.GattCharacteristic1", "StartNotify")
                if connected_once:
                    self.write({"t": self.now(), "dev": self.addresses[path], "event": "connected"})
                connected_once = True
                while self.central.devices().get(path, {}).get("Connected") and not stop.is_set():
                    await self.central.wait(0.5)
                if not stop.is_set():
                    self.write({"t": self.now(), "dev": self.addresses[path], "event": "disconnected"})
            except RuntimeError:
                # bluetoothd gone (or not ready): start over from its object tree
                await asyncio.sleep(1)
                await adapter_present(self.central)


async def session(arguments, duration: float) -> int:
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    central = Central(bus, arguments.adapter)
    if not await adapter_present(central):
        print(f"intervalpro: no Bluetooth adapter {arguments.adapter}", file=sys.stderr)
        return 69
    chosen = await choose(central, arguments)
    if not chosen:
        print("intervalpro: no heart rate or cadence sensor found", file=sys.stderr)
        return 69
    recorder = Recorder(central, chosen, arguments.output)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    keepers = [asyncio.create_task(recorder.keep(path, stop)) for path in chosen]
    try:
        await asyncio.wait_for(stop.wait(), duration)
    except asyncio.TimeoutError:
        stop.set()
    for keeper in keepers:
        keeper.cancel()
    central.on_value = None
    recorder.out.close()
    return 0


async def record(arguments) -> int:
    return await session(arguments, arguments.duration)


async def run(arguments) -> int:
    """Records for the plan's length, then prints what `intervalpro replay` scores of it:
    the live and replayed figures agree by construction, so this checks the harness only."""
    plan = json.load(open(arguments.plan))

    def length(steps) -> float:
        return sum(length(s["steps"]) * s["repeat"] if "repeat" in s else float(s["duration"]) for s in steps)

    arguments.output = arguments.record or "/tmp/standin-run.jsonl"
    status = await session(arguments, length(plan["steps"]))
    if status != 0:
        return status
    process = await asyncio.create_subprocess_exec(
        arguments.intervalpro, "replay", arguments.output, "--plan", arguments.plan, "--fast", "--json",
        stdout=asyncio.subprocess.PIPE)
    out, _ = await process.communicate()
    if process.returncode == 0:
        summary = json.loads(out)
        summary["source"] = "live"  # what a live session says; the figures are the replay's
        print(json.dumps(summary))
    return process.returncode


def main() -> int:
    parser = argparse.ArgumentParser(prog="standin")
    parser.add_argument("--intervalpro", help="the binary whose replay scores a `run`")
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("scan")
    s.add_argument("--timeout", type=float, default=10)
    s.add_argument("--adapter", default="hci0")
    s.add_argument("--json", action="store_true")
    r = commands.add_parser("record")
    r.add_argument("output")
    r.add_argument("--duration", type=float, default=3600)
    r.add_argument("--hr")
    r.add_argument("--cadence")
    r.add_argument("--adapter", default="hci0")
    r.add_argument("--scan-timeout", type=float, default=20)
    u = commands.add_parser("run")
    u.add_argument("plan")
    u.add_argument("--require-sensor", action="store_true")
    u.add_argument("--json", action="store_true")
    u.add_argument("--record")
    u.add_argument("--hr")
    u.add_argument("--cadence")
    u.add_argument("--adapter", default="hci0")
    u.add_argument("--scan-timeout", type=float, default=20)
    arguments = parser.parse_args()
    command = {"scan": scan, "record": record, "run": run}[arguments.command]
    return asyncio.run(command(arguments))


if __name__ == "__main__":
    sys.exit(main())
