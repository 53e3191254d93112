"""Virtual Bluetooth LE devices for the end-to-end suite, built on bumble.

One controller ("the adapter") is served to the VM over an H4 stream on a unix socket: QEMU
wires it to the guest's second serial port, where the kernel's hci_uart makes it hci0.
Every virtual device is a further controller on the same in-process link, with a bumble
host and GATT server on top. The adapter lives for the whole suite; devices are created
and removed between scenarios, so bluetoothd and the kernel keep one controller while
each scenario gets fresh peripherals.

A device plays a timeline, one event a line (`#` starts a comment):

    # seconds  what        payload-hex (spaces allowed)
    0.0        hr          06 8c          heart rate 140 bpm, skin contact
    0.5        rsc         07 00 03 a8 d6 00 fe 2e 00 00
    1.0        battery     55
    1.5        2a37        16 8c b6 01    any 16-bit UUID of a NOTIFY characteristic
    20.0       disconnect                 drop the link; advertise again at once
    30.0       leave                      drop the link and stop advertising (out of range)
    45.0       return                     advertise again
    60.0       end                        stop playing (the device stays)

Times count from the central's first subscription to 0x2A37 or 0x2A53 on the device
(bluetoothd's own Battery Level subscription does not start it) and run on across
disconnects. With notify_on_subscribe, a later subscription also gets the measurement's
latest value at once. A notification goes to every connection subscribed to it at that moment;
each one sent, and each one that found no subscriber, is logged with its bytes, which is
what the scenarios compare the recordings against.
"""

from __future__ import annotations

import asyncio
import json
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path

from bumble import core, hci
from bumble.controller import Controller
from bumble.device import Device, DeviceConfiguration
from bumble.gatt import Characteristic, Service
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport import open_transport

HEART_RATE_SERVICE = 0x180D
RSC_SERVICE = 0x1814
FITNESS_SERVICES = {"hr": HEART_RATE_SERVICE, "rsc": RSC_SERVICE}
MEASUREMENTS = ("2a37", "2a53")
PAYLOAD_EVENTS = {"hr": "2a37", "rsc": "2a53", "battery": "2a19"}
LINK_EVENTS = ("disconnect", "leave", "return", "end")


class TimelineError(ValueError):
    pass


@dataclass(frozen=True)
class TimelineEvent:
    seconds: float
    what: str  # a characteristic's 16-bit UUID in lowercase hex, or one of LINK_EVENTS
    payload: bytes = b""


def parse_timeline(text: str, source: str) -> list[TimelineEvent]:
    events = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        where = f"{source}:{number}"
        try:
            seconds = float(words[0])
        except ValueError:
            raise TimelineError(f"{where}: '{words[0]}' is not a number of seconds") from None
        if len(words) < 2:
            raise TimelineError(f"{where}: an event needs what happens after the time")
        what = words[1].lower()
        if what in LINK_EVENTS:
            if len(words) > 2:
                raise TimelineError(f"{where}: '{what}' takes no payload")
            events.append(TimelineEvent(seconds, what))
            continue
        what = PAYLOAD_EVENTS.get(what, what)
        if len(what) != 4 or any(c not in "0123456789abcdef" for c in what):
            raise TimelineError(f"{where}: unknown event '{words[1]}'")
        try:
            payload = bytes.fromhex("".join(words[2:]))
        except ValueError:
            raise TimelineError(f"{where}: the payload is not hex bytes") from None
        if not payload:
            raise TimelineError(f"{where}: '{words[1]}' needs a payload")
        events.append(TimelineEvent(seconds, what, payload))
    return sorted(events, key=lambda e: e.seconds)


@dataclass
class DeviceSpec:
    """What a scenario asks for: a name, an address and what the device offers."""

    name: str
    address: str
    services: tuple[str, ...] = ("hr", "rsc")  # fitness services: "hr", "rsc"
    advertised_uuids: tuple[int, ...] | None = None  # None: the fitness services
    timeline: list[TimelineEvent] = field(default_factory=list)
    battery_percent: int = 90
    appearance: int = 0x00C1  # a sports watch
    # Send a measurement's latest value as soon as a central subscribes to it, as many
    # sensors do (from the second subscription on: the first one starts the timeline).
    notify_on_subscribe: bool = False


class EventLog:
    """Every device's events for one scenario, as JSON lines, in the order they happened."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: list[dict] = []
        self.file = path.open("w")

    def write(self, **entry) -> None:
        entry = {"t": round(time.monotonic(), 6), **entry}
        self.entries.append(entry)
        self.file.write(json.dumps(entry) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()

    def sent(self, device: str) -> list[tuple[str, str]]:
        """(characteristic, hex) of the HR and RSC notifications a device delivered, in order."""
        return [(e["char"], e["hex"]) for e in self.entries
                if e["event"] == "notify" and e["device"] == device and e["char"] in MEASUREMENTS
                and e["subscribers"] > 0]


class FixedLocalLink(LocalLink):
    """bumble's LocalLink stamps LE ACL data with the sender's *current random address*.
    The kernel scans with a fresh non-resolvable random address and then connects with its
    public one, so the device would find no connection for that source and drop every ATT
    request (Connect works, services never resolve). The address of the connection the data
    travels on is the right source."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport == core.PhysicalTransport.LE:
            connection = sender_controller.le_connections.get(destination_address)
            destination = self.find_le_controller(destination_address)
            if connection is not None and destination is not None:
                source = connection.self_address
                asyncio.get_running_loop().call_soon(
                    lambda: destination.on_link_acl_data(source, transport, data))
                return
        super().send_acl_data(sender_controller, destination_address, transport, data)


def advertising_data(spec: DeviceSpec) -> bytes:
    def structure(kind: int, payload: bytes) -> bytes:
        return bytes([len(payload) + 1, kind]) + payload

    uuids = spec.advertised_uuids
    if uuids is None:
        uuids = tuple(FITNESS_SERVICES[s] for s in spec.services)
    data = structure(0x01, bytes([0x06]))  # LE general discoverable, no BR/EDR
    if uuids:
        data += structure(0x03, b"".join(struct.pack("<H", u) for u in uuids))
    data += structure(0x19, struct.pack("<H", spec.appearance))
    name = spec.name.encode()
    room = 31 - len(data) - 2
    data += structure(0x09, name) if len(name) <= room else structure(0x08, name[:room])
    return data


class VirtualDevice:
    def __init__(self, spec: DeviceSpec, link: LocalLink, log: EventLog):
        self.spec = spec
        self.log = log
        self.present = True
        self.playback: asyncio.Task | None = None
        self.controller = Controller(spec.name, link=link)
        host = Host()
        host.controller = self.controller
        config = DeviceConfiguration()
        config.load_from_dict({"name": spec.name, "address": spec.address,
                               "advertising_data": advertising_data(spec).hex(),
                               "advertising_interval": 100.0})
        self.device = Device(config=config, host=host)
        self.characteristics: dict[str, Characteristic] = {}
        services = []
        if "hr" in spec.services:
            services.append(Service("180D", [
                self.characteristic("2A37", Characteristic.Properties.NOTIFY, bytes([0x06, 0])),
                self.characteristic("2A38", Characteristic.Properties.READ, bytes([0x02])),  # wrist
            ]))
        if "rsc" in spec.services:
            services.append(Service("1814", [
                self.characteristic("2A53", Characteristic.Properties.NOTIFY, bytes(4)),
                # features: stride length, total distance, walking or running
                self.characteristic("2A54", Characteristic.Properties.READ, struct.pack("<H", 7)),
                self.characteristic("2A5D", Characteristic.Properties.READ, bytes([0x01])),
            ]))
        services.append(Service("180A", [
            self.characteristic("2A29", Characteristic.Properties.READ, b"IntervalPro e2e"),
            self.characteristic("2A24", Characteristic.Properties.READ, spec.name.encode()),
        ]))
        services.append(Service("180F", [self.characteristic(
            "2A19", Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
            bytes([spec.battery_percent]))]))
        self.device.add_services(services)
        self.device.on("connection", self.on_connection)
        self.device.on("characteristic_subscription", self.on_subscription)

    def characteristic(self, uuid: str, properties, value: bytes) -> Characteristic:
        c = Characteristic(uuid, properties, Characteristic.READABLE, value)
        self.characteristics[uuid.lower()] = c
        return c

    @property
    def address(self) -> str:
        return self.spec.address

    async def start(self) -> None:
        await self.device.power_on()
        await self.device.start_advertising()
        self.log.write(device=self.address, event="advertising", name=self.spec.name)

    async def stop(self) -> None:
        """Ends playback, drops every link and leaves the air, so the next scenario's
        devices are the only ones the adapter can see."""
        self.present = False
        if self.playback is not None:
            self.playback.cancel()
        for connection in list(self.device.connections.values()):
            try:
                await asyncio.wait_for(connection.disconnect(), 5)
            except (asyncio.TimeoutError, core.BaseBumbleError):
                pass
        try:
            await self.device.stop_advertising()
        except core.BaseBumbleError:
            pass
        self.controller.link.remove_controller(self.controller)
        self.log.write(device=self.address, event="removed")

    def on_connection(self, connection) -> None:
        self.log.write(device=self.address, event="connected", peer=str(connection.peer_address))
        connection.on("disconnection", lambda reason: self.on_disconnection(reason))

    def on_disconnection(self, reason) -> None:
        self.log.write(device=self.address, event="disconnected", reason=f"0x{int(reason):02x}")
        if self.present:
            asyncio.get_running_loop().create_task(self.advertise())

    async def advertise(self) -> None:
        if self.present and not self.device.is_advertising:
            await self.device.start_advertising()

    def on_subscription(self, connection, characteristic, notify, indicate) -> None:
        uuid = characteristic.uuid.to_hex_str().lower()
        self.log.write(device=self.address, event="subscription", char=uuid, notify=notify)
        if notify and uuid in MEASUREMENTS and self.playback is None:
            self.playback = asyncio.get_running_loop().create_task(self.play())
        elif notify and uuid in MEASUREMENTS and self.spec.notify_on_subscribe:
            latest = TimelineEvent(0, uuid, bytes(characteristic.value))
            asyncio.get_running_loop().create_task(self.perform(latest))

    async def play(self) -> None:
        start = time.monotonic()
        self.log.write(device=self.address, event="playback-start")
        for event in self.spec.timeline:
            delay = start + event.seconds - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if event.what == "end":
                break
            await self.perform(event)
        self.log.write(device=self.address, event="playback-end")

    async def perform(self, event: TimelineEvent) -> None:
        if event.what in ("disconnect", "leave"):
            if event.what == "leave":
                self.present = False
                await self.device.stop_advertising()
            self.log.write(device=self.address, event=event.what)
            for connection in list(self.device.connections.values()):
                await connection.disconnect()
        elif event.what == "return":
            self.present = True
            self.log.write(device=self.address, event="return")
            await self.advertise()
        else:
            characteristic = self.characteristics.get(event.what)
            if characteristic is None:
                self.log.write(device=self.address, event="error", detail=f"no characteristic {event.what}")
                return
            characteristic.value = event.payload
            subscribers = [c for c in self.device.connections.values() if self.subscribed(c, characteristic)]
            for connection in subscribers:
                await self.device.notify_subscriber(connection, characteristic, event.payload)
            self.log.write(device=self.address, event="notify", char=event.what,
                           hex=event.payload.hex(), subscribers=len(subscribers))

    def subscribed(self, connection, characteristic: Characteristic) -> bool:
        cccd = self.device.gatt_server.subscribers.get(connection, {}).get(characteristic.handle)
        return bool(cccd) and cccd[0] & 0x01 != 0


class VirtualAir:
    """The adapter the VM drives and the devices around it, for the whole suite."""

    def __init__(self):
        self.link = FixedLocalLink()
        self.transport = None
        self.devices: list[VirtualDevice] = []
        self.log: EventLog | None = None

    async def open(self, socket_path: str) -> None:
        self.transport = await open_transport(f"unix-server:{socket_path}")
        adapter = Controller("adapter", host_source=self.transport.source, host_sink=self.transport.sink,
                             link=self.link, public_address="00:1B:DC:F0:00:01")
        # Present the adapter as a plain LE controller. bumble claims extended advertising
        # and LL privacy, so Linux waits for an LE *Enhanced* Connection Complete that
        # bumble never sends; it then cancels the connection attempt after about 4 s and
        # its connection state goes wrong: later disconnects never reach the link, the
        # device stays "connected", stops advertising, and reconnects fail.
        adapter.le_features &= ~(hci.LeFeatureMask.LL_PRIVACY
                                 | hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
                                 | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING)

    async def populate(self, specs: list[DeviceSpec], log_path: Path) -> EventLog:
        await self.clear()
        self.log = EventLog(log_path)
        for spec in specs:
            device = VirtualDevice(spec, self.link, self.log)
            await device.start()
            self.devices.append(device)
        return self.log

    async def clear(self) -> None:
        for device in self.devices:
            await device.stop()
        self.devices = []
        if self.log is not None:
            self.log.close()
            self.log = None

    async def close(self) -> None:
        await self.clear()
        if self.transport is not None:
            await self.transport.close()
