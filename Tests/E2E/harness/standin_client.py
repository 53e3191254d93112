"""A stand-in for `intervalpro scan` and `intervalpro record`, talking to org.bluez over D-Bus,
so the harness itself (VM, virtual devices, assertions) can be checked independently of
the program under test: `Tests/E2E/run.sh --client standin` runs the scan and record
scenarios with it. It follows the same command-line contract and writes the same recording
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
                     "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties'"):
            await self.bus.call(Message(
                destination="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                interface="org.freedesktop.DBus", member="AddMatch", signature="s", body=[rule]))
        (objects,) = await self.call("/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        self.objects = {p: plain(i) for p, i in objects.items()}

    def on_message(self, message: Message) -> None:
        if message.message_type != MessageType.SIGNAL:
            return
        if message.member == "InterfacesAdded":
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


async def record(arguments) -> int:
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    central = Central(bus, arguments.adapter)
    await central.start()
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
    if not chosen:
        print("record: no heart rate or cadence sensor found", file=sys.stderr)
        return 69
    await central.call(central.adapter_path, "org.bluez.Adapter1", "StopDiscovery")
    out = open(arguments.output, "w")
    started = time.monotonic()
    devices = [{"id": d["Address"], "name": d.get("Name")} for d in chosen.values()]
    out.write(json.dumps({"intervalpro_recording": 1, "devices": devices}) + "\n")
    out.flush()

    def on_value(path: str, value: bytes) -> None:
        characteristic = central.objects.get(path, {}).get("org.bluez.GattCharacteristic1", {})
        device_path = path.split("/service")[0]
        address = central.devices().get(device_path, {}).get("Address", device_path)
        char = MEASUREMENTS.get(characteristic.get("UUID"), characteristic.get("UUID"))
        out.write(json.dumps({"t": round(time.monotonic() - started, 6), "dev": address,
                              "char": char, "hex": value.hex()}) + "\n")
        out.flush()

    central.on_value = on_value
    for path in chosen:
        await central.call(path, "org.bluez.Device1", "Connect")
    for path in chosen:
        while not central.devices().get(path, {}).get("ServicesResolved"):
            await central.wait(0.5)
        for char_path, interfaces in list(central.objects.items()):
            c = interfaces.get("org.bluez.GattCharacteristic1")
            if c and char_path.startswith(path + "/") and c.get("UUID") in MEASUREMENTS:
                await central.call(char_path, "org.bluez.GattCharacteristic1", "StartNotify")
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), max(0.0, arguments.duration - (time.monotonic() - started)))
    except asyncio.TimeoutError:
        pass
    out.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="standin")
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
    arguments = parser.parse_args()
    return asyncio.run(scan(arguments) if arguments.command == "scan" else record(arguments))


if __name__ == "__main__":
    sys.exit(main())
