"""Scenario files for the fake org.bluez: reading, checking and defaults.

A scenario describes the radios around the test: adapters, the devices they
can see, what each device sends and when things go wrong. See README.md in
this folder for the format. Every error names the JSON path of the bad value.
"""

import json
import re

BASE_UUID_SUFFIX = "-0000-1000-8000-00805f9b34fb"

# Which GATT service a characteristic lives in, for the characteristics the
# project reads or subscribes to. Anything else goes in the device's first
# advertised service.
SERVICE_OF_CHARACTERISTIC = {
    "2a37": "180d", "2a38": "180d", "2a39": "180d",
    "2a53": "1814", "2a54": "1814", "2a55": "1814", "2a5d": "1814",
    "2a19": "180f",
    "2a24": "180a", "2a25": "180a", "2a26": "180a", "2a27": "180a",
    "2a28": "180a", "2a29": "180a",
}

ADDRESS_PATTERN = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")
ADAPTER_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_]+$")
SHORT_UUID_PATTERN = re.compile(r"^[0-9A-Fa-f]{4}$")
LONG_UUID_PATTERN = re.compile(
    r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
ERROR_NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")

# Messages bluetoothd uses for its errors when it has nothing more specific.
DEFAULT_ERROR_MESSAGES = {
    "org.bluez.Error.Failed": "Operation failed",
    "org.bluez.Error.InProgress": "In Progress",
    "org.bluez.Error.NotReady": "Resource Not Ready",
    "org.bluez.Error.AlreadyConnected": "Already Connected",
    "org.bluez.Error.NotConnected": "Not Connected",
    "org.bluez.Error.DoesNotExist": "Does Not Exist",
    "org.bluez.Error.AlreadyExists": "Already Exists",
    "org.bluez.Error.InvalidArguments": "Invalid arguments in method call",
    "org.bluez.Error.NotSupported": "Operation is not supported",
    "org.bluez.Error.NotPermitted": "Operation Not Permitted",
    "org.bluez.Error.NotAuthorized": "Operation Not Authorized",
    "org.bluez.Error.InvalidOffset": "Invalid offset",
    "org.bluez.Error.AuthenticationFailed": "Authentication Failed",
}


class ScenarioError(Exception):
    """A scenario file that cannot be used; the message names the JSON path."""


def full_uuid(uuid):
    """A 16-bit UUID ("180d") as BlueZ exports it; 128-bit ones lower-cased."""
    text = uuid.lower()
    if len(text) == 4:
        return "0000" + text + BASE_UUID_SUFFIX
    return text


def short_uuid(uuid):
    """The 16-bit form of a Bluetooth base UUID, else the full string."""
    text = uuid.lower()
    if len(text) == 36 and text.startswith("0000") and text.endswith(BASE_UUID_SUFFIX):
        return text[4:8]
    return text


def split_error(text):
    """"org.bluez.Error.Failed: reason" -> (name, message)."""
    name, _, message = text.partition(":")
    name = name.strip()
    message = message.strip() or DEFAULT_ERROR_MESSAGES.get(name, name.rsplit(".", 1)[-1])
    return name, message


class Reader:
    """Typed access to one JSON object, with paths in every complaint."""

    def __init__(self, value, path, known_keys):
        if not isinstance(value, dict):
            raise ScenarioError(f"{path}: expected an object, found {type_name(value)}")
        unknown = sorted(set(value) - set(known_keys))
        if unknown:
            raise ScenarioError(f"{path}: unknown key {unknown[0]!r} "
                                f"(known: {', '.join(sorted(known_keys))})")
        self.value = value
        self.path = path

    def at(self, key):
        return f"{self.path}.{key}"

    def get(self, key, kind, default=None, required=False):
        if key not in self.value:
            if required:
                raise ScenarioError(f"{self.path}: missing key {key!r}")
            return default
        return expect(self.value[key], kind, self.at(key))


def type_name(value):
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(value), "a value")


def expect(value, kind, path):
    """Check value against kind: bool, int, number, str, list, dict, str_or_null."""
    ok = {
        "bool": isinstance(value, bool),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "str": isinstance(value, str),
        "str_or_null": value is None or isinstance(value, str),
        "list": isinstance(value, list),
        "dict": isinstance(value, dict),
    }[kind]
    if not ok:
        wanted = {"bool": "a boolean", "int": "an integer", "number": "a number",
                  "str": "a string", "str_or_null": "a string or null", "list": "an array",
                  "dict": "an object"}[kind]
        raise ScenarioError(f"{path}: expected {wanted}, found {type_name(value)}")
    return value


def seconds(value, path):
    expect(value, "number", path)
    if value < 0:
        raise ScenarioError(f"{path}: a time in seconds cannot be negative ({value})")
    return float(value)


def uuid_text(value, path):
    expect(value, "str", path)
    if not (SHORT_UUID_PATTERN.match(value) or LONG_UUID_PATTERN.match(value)):
        raise ScenarioError(f"{path}: {value!r} is not a 16-bit (\"180d\") or 128-bit UUID")
    return short_uuid(value.lower())


def hex_bytes(value, path):
    expect(value, "str", path)
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ScenarioError(f"{path}: {value!r} is not an even-length hex string") from None


def error_text(value, path):
    expect(value, "str", path)
    name, _ = split_error(value)
    if not ERROR_NAME_PATTERN.match(name):
        raise ScenarioError(f"{path}: {value!r} does not start with a D-Bus error name "
                            "such as org.bluez.Error.Failed")
    return value


class AdapterSpec:
    def __init__(self, raw, path):
        r = Reader(raw, path, {"name", "address", "powered", "blocked", "alias"})
        self.name = r.get("name", "str", required=True)
        if not ADAPTER_NAME_PATTERN.match(self.name):
            raise ScenarioError(f"{r.at('name')}: {self.name!r} cannot be part of an object path")
        self.address = r.get("address", "str", "00:11:22:33:44:55").upper()
        if not ADDRESS_PATTERN.match(self.address):
            raise ScenarioError(f"{r.at('address')}: {self.address!r} is not a Bluetooth address")
        self.blocked = r.get("blocked", "bool", False)
        self.powered = r.get("powered", "bool", not self.blocked)
        if self.blocked and self.powered:
            raise ScenarioError(f"{path}: an rfkill-blocked adapter cannot be powered")
        self.alias = r.get("alias", "str", "intervalpro-test")


class DeviceSpec:
    KEYS = {"adapter", "address", "address_type", "name", "rssi", "services", "appears_after",
            "connect_failures", "resolve_delay", "characteristics_delay", "reads",
            "notifications", "loop", "loop_period", "events", "removed_when_discovery_stops",
            "removal_delay", "known", "paired", "trusted", "appearance", "acquire_notify", "hang_up_after",
            "sockets_close_after", "gatt_before_resolved", "connected_unsignalled"}

    def __init__(self, raw, path, adapters):
        r = Reader(raw, path, self.KEYS)
        default_adapter = adapters[0].name if adapters else None
        self.adapter = r.get("adapter", "str", default_adapter)
        if self.adapter is None:
            raise ScenarioError(f"{path}: a device needs an adapter, and the scenario has none")
        if self.adapter not in [a.name for a in adapters]:
            raise ScenarioError(f"{r.at('adapter')}: no adapter named {self.adapter!r}")
        self.address = r.get("address", "str", required=True).upper()
        if not ADDRESS_PATTERN.match(self.address):
            raise ScenarioError(f"{r.at('address')}: {self.address!r} is not a Bluetooth address")
        self.address_type = r.get("address_type", "str", "random")
        if self.address_type not in ("public", "random"):
            raise ScenarioError(f"{r.at('address_type')}: expected \"public\" or \"random\"")
        self.name = r.get("name", "str_or_null", None)
        self.rssi = r.get("rssi", "int", -60)
        if not -127 <= self.rssi <= 20:
            raise ScenarioError(f"{r.at('rssi')}: {self.rssi} is outside -127...20 dBm")
        self.services = [uuid_text(u, f"{r.at('services')}[{i}]")
                         for i, u in enumerate(r.get("services", "list", []))]
        self.appears_after = seconds(r.get("appears_after", "number", 0.0), r.at("appears_after"))
        self.connect_failures = [error_text(e, f"{r.at('connect_failures')}[{i}]")
                                 for i, e in enumerate(r.get("connect_failures", "list", []))]
        self.resolve_delay = seconds(r.get("resolve_delay", "number", 0.1), r.at("resolve_delay"))
        self.characteristics_delay = seconds(r.get("characteristics_delay", "number", 0.0),
                                             r.at("characteristics_delay"))
        self.reads = {}
        for key, value in r.get("reads", "dict", {}).items():
            uuid = uuid_text(key, f"{r.at('reads')}.{key}")
            self.reads[uuid] = hex_bytes(value, f"{r.at('reads')}.{key}")
        self.notifications = []
        for i, entry in enumerate(r.get("notifications", "list", [])):
            at = f"{r.at('notifications')}[{i}]"
            if not isinstance(entry, list) or len(entry) != 3:
                raise ScenarioError(f"{at}: expected [seconds, \"uuid\", \"hex\"]")
            self.notifications.append((seconds(entry[0], at + "[0]"), uuid_text(entry[1], at + "[1]"),
                                       hex_bytes(entry[2], at + "[2]")))
        # Stable sort: entries at the same time keep their file order.
        self.notifications.sort(key=lambda entry: entry[0])
        self.loop = r.get("loop", "bool", False)
        self.loop_period = r.get("loop_period", "number", None)
        if self.loop_period is not None:
            self.loop_period = seconds(self.loop_period, r.at("loop_period"))
        if self.loop:
            if not self.notifications:
                raise ScenarioError(f"{r.at('loop')}: looping needs at least one notification")
            if self.loop_period is None:
                times = [t for t, _, _ in self.notifications]
                step = times[-1] - times[-2] if len(times) > 1 and times[-1] > times[-2] else 1.0
                self.loop_period = times[-1] + step
            span = self.notifications[-1][0] - self.notifications[0][0]
            if self.loop_period <= 0 or self.loop_period < span:
                raise ScenarioError(f"{r.at('loop_period')}: must be positive and at least the "
                                    f"span of the notifications ({span} s)")
        self.events = []
        for i, entry in enumerate(r.get("events", "list", [])):
            at = f"{r.at('events')}[{i}]"
            if not isinstance(entry, list) or len(entry) != 2 \
                    or entry[1] not in ("disconnect", "return"):
                raise ScenarioError(f"{at}: expected [seconds, \"disconnect\"] or "
                                    "[seconds, \"return\"]")
            self.events.append((seconds(entry[0], at + "[0]"), entry[1]))
        self.events.sort(key=lambda entry: entry[0])
        self.removed_when_discovery_stops = r.get("removed_when_discovery_stops", "bool", False)
        self.removal_delay = seconds(r.get("removal_delay", "number", 0.2), r.at("removal_delay"))
        self.paired = r.get("paired", "bool", False)
        self.known = r.get("known", "bool", self.paired)
        self.trusted = r.get("trusted", "bool", False)
        self.appearance = r.get("appearance", "int", None)
        # AcquireNotify, as BlueZ 5.47 and later offer it: "ok"; "refused" (NotifyAcquired is
        # exported, the call fails with NotPermitted, as when another client holds it);
        # "absent" (no NotifyAcquired, NotSupported: an older bluetoothd).
        self.acquire_notify = r.get("acquire_notify", "str", "ok")
        if self.acquire_notify not in ("ok", "refused", "absent"):
            raise ScenarioError(f"{r.at('acquire_notify')}: expected \"ok\", \"refused\" or \"absent\"")
        # Export the GATT objects before ServicesResolved turns true, as bluetoothd does when
        # discovery finishes normally (clients such as bleak read them at ServicesResolved).
        self.gatt_before_resolved = r.get("gatt_before_resolved", "bool", False)
        # bluetoothd 5.66's race (src/device.c): att_connect_cb marks the device connected and
        # answers Connect before the kernel's connection event, which then finds it connected
        # already ("Device ... is already connected") and returns without signalling
        # Connected. The property reads true; no PropertiesChanged says so.
        self.connected_unsignalled = r.get("connected_unsignalled", "bool", False)
        # Seconds after the first AcquireNotify at which bluetoothd hangs up the acquired
        # sockets while the link stays up (once).
        self.hang_up_after = r.get("hang_up_after", "number", None)
        if self.hang_up_after is not None:
            self.hang_up_after = seconds(self.hang_up_after, r.at("hang_up_after"))
        # Seconds after the link's end at which bluetoothd closes the acquired sockets: its
        # signals (ServicesResolved, Connected) reach the client first.
        self.sockets_close_after = seconds(r.get("sockets_close_after", "number", 0), r.at("sockets_close_after"))

        # Characteristics: present iff read or notified.
        notified = {uuid for _, uuid, _ in self.notifications}
        self.characteristics = {}
        for uuid in list(self.reads) + sorted(notified - set(self.reads)):
            flags = []
            if uuid in self.reads:
                flags.append("read")
            if uuid in notified:
                flags.append("notify")
            service = SERVICE_OF_CHARACTERISTIC.get(uuid)
            if service is None:
                if not self.services:
                    raise ScenarioError(f"{path}: characteristic {uuid} is not one the fake knows "
                                        "the service of, and the device advertises no service to "
                                        "put it in")
                service = self.services[0]
            self.characteristics[uuid] = (service, flags)

    @property
    def object_name(self):
        return "dev_" + self.address.replace(":", "_")


class Scenario:
    def __init__(self, raw):
        r = Reader(raw, "$", {"adapters", "devices", "events"})
        self.adapters = [AdapterSpec(a, f"$.adapters[{i}]")
                         for i, a in enumerate(r.get("adapters", "list", []))]
        names = [a.name for a in self.adapters]
        if len(set(names)) != len(names):
            raise ScenarioError("$.adapters: two adapters share a name")
        self.devices = [DeviceSpec(d, f"$.devices[{i}]", self.adapters)
                        for i, d in enumerate(r.get("devices", "list", []))]
        addresses = [(d.adapter, d.address) for d in self.devices]
        if len(set(addresses)) != len(addresses):
            raise ScenarioError("$.devices: two devices share an address on one adapter")
        self.events = []
        for i, entry in enumerate(r.get("events", "list", [])):
            at = f"$.events[{i}]"
            if not isinstance(entry, list) or len(entry) < 2:
                raise ScenarioError(f"{at}: expected [seconds, \"kind\", ...]")
            when = seconds(entry[0], at + "[0]")
            kind = entry[1]
            if kind == "restart_bluez":
                if len(entry) != 3:
                    raise ScenarioError(f"{at}: expected [seconds, \"restart_bluez\", downtime]")
                self.events.append((when, kind, seconds(entry[2], at + "[2]"), None))
            elif kind == "adapter_power":
                if len(entry) not in (3, 4):
                    raise ScenarioError(f"{at}: expected [seconds, \"adapter_power\", true|false"
                                        "(, \"hci0\")]")
                powered = expect(entry[2], "bool", at + "[2]")
                adapter = None
                if len(entry) == 4:
                    adapter = expect(entry[3], "str", at + "[3]")
                    if adapter not in names:
                        raise ScenarioError(f"{at}[3]: no adapter named {adapter!r}")
                self.events.append((when, kind, powered, adapter))
            else:
                raise ScenarioError(f"{at}[1]: unknown event {kind!r} "
                                    "(known: restart_bluez, adapter_power)")
        self.events.sort(key=lambda entry: entry[0])


def load_scenario(path):
    """Read and check a scenario file; raises OSError or ScenarioError."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError(f"line {error.lineno} column {error.colno}: {error.msg}") from None
    return Scenario(raw)
