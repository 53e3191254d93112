#!/usr/bin/python3
"""A fake bluetoothd (org.bluez) for IntervalPro's live-sensor tests.

Runs on a private dbus-daemon that the test started, plays a scenario file
(adapters, sensors, their notifications and faults) and writes every method
call it receives to a JSON-lines call log. Built on python-dbusmock's bluez5
template, which provides the ObjectManager at / and the manager object at
/org/bluez; this file adds adapters, devices, GATT services and
characteristics, Battery1 and the timing of a real radio.

Usage (see README.md in this folder):
  /usr/bin/python3 fake_bluez.py --bus ADDRESS --scenario FILE.json \
      --call-log CALLS.jsonl [--ready-file PATH] [--debug-log PATH]
"""

import json
import os
import signal
import socket
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from dbusmock import mockobject
from dbusmock.mockobject import OBJECT_MANAGER_IFACE, DBusMockObject
from gi.repository import GLib

# scenario.py sits beside this file; no __pycache__ left in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenario import (DEFAULT_ERROR_MESSAGES, ScenarioError, full_uuid,  # noqa: E402
                      load_scenario, split_error)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from fakes import EX_DATAERR, EX_IOERR, EX_NOINPUT, EX_UNAVAILABLE, EX_USAGE, Usage  # noqa: E402

BUS_NAME = "org.bluez"
ADAPTER_IFACE = "org.bluez.Adapter1"
DEVICE_IFACE = "org.bluez.Device1"
BATTERY_IFACE = "org.bluez.Battery1"
SERVICE_IFACE = "org.bluez.GattService1"
CHARACTERISTIC_IFACE = "org.bluez.GattCharacteristic1"
PROPERTIES_IFACE = dbus.PROPERTIES_IFACE
INTROSPECTABLE_IFACE = dbus.INTROSPECTABLE_IFACE
# bluetoothd lists these (with no properties) for every object in GetManagedObjects,
# InterfacesAdded and InterfacesRemoved; a client has to skip them.
STANDARD_IFACES = (INTROSPECTABLE_IFACE, PROPERTIES_IFACE)

# GATT services every LE device has; bluetoothd lists them in UUIDs once
# resolved but does not export them as objects.
GAP_AND_GATT = ["1800", "1801"]

DISCOVERY_FILTER_TYPES = {
    "UUIDs": "as", "RSSI": "n", "Pathloss": "q", "Transport": "s",
    "DuplicateData": "b", "Discoverable": "b", "Pattern": "s",
}


def bluez_error(name, message=None):
    if "." not in name:
        name = "org.bluez.Error." + name
    if message is None:
        message = DEFAULT_ERROR_MESSAGES.get(name, name.rsplit(".", 1)[-1])
    return dbus.exceptions.DBusException(message, name=name)


def variant(value, signature=None):
    """A property value as dbusmock stores them: one variant level."""
    if isinstance(value, bool):
        return dbus.Boolean(value, variant_level=1)
    if isinstance(value, (bytes, bytearray)):
        return dbus.Array([dbus.Byte(b) for b in value], signature="y", variant_level=1)
    if signature == "n":
        return dbus.Int16(value, variant_level=1)
    if signature == "q":
        return dbus.UInt16(value, variant_level=1)
    if signature == "y":
        return dbus.Byte(value, variant_level=1)
    if signature == "o":
        return dbus.ObjectPath(value, variant_level=1)
    if signature in ("as", "ao"):
        return dbus.Array(value, signature=signature[1], variant_level=1)
    if isinstance(value, int):
        return dbus.UInt32(value, variant_level=1)
    return dbus.String(value, variant_level=1)


SIGNATURE_OF_TYPE = [
    (dbus.Boolean, "b"), (dbus.Byte, "y"), (dbus.Int16, "n"), (dbus.UInt16, "q"),
    (dbus.Int32, "i"), (dbus.UInt32, "u"), (dbus.Int64, "x"), (dbus.UInt64, "t"),
    (dbus.Double, "d"), (dbus.ObjectPath, "o"), (dbus.Signature, "g"), (dbus.String, "s"),
    (dbus.ByteArray, "ay"),
]


def signature_of(value):
    """The D-Bus type a received value had (variants of basic types and arrays)."""
    if isinstance(value, dbus.Array):
        return "a" + (value.signature or "v")
    if isinstance(value, dbus.Dictionary):
        return "a{" + (value.signature or "sv") + "}"
    for kind, signature in SIGNATURE_OF_TYPE:
        if isinstance(value, kind):
            return signature
    return "v"


def jsonable(value):
    """D-Bus values for the call log; byte arrays become hex strings."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, dbus.Array) and value.signature == "y":
        return bytes(int(b) for b in value).hex()
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return repr(value)


def fake_method(interface, in_signature="", out_signature="", asynchronous=False):
    """A D-Bus method for add_methods(): knows its caller, may reply later."""
    def wrap(function):
        return dbus.service.method(
            interface, in_signature=in_signature, out_signature=out_signature,
            sender_keyword="sender",
            async_callbacks=("reply", "fail") if asynchronous else None)(function)
    return wrap


def add_methods(obj, interface, functions):
    """Put dbus-python methods on a mock object's interface (dbusmock's table)."""
    for function in functions:
        obj.methods.setdefault(interface, {})[function.__name__] = (
            function._dbus_in_signature, function._dbus_out_signature, "", function)


class FakeObject(DBusMockObject):
    """A dbusmock object whose Properties interface answers like bluetoothd."""

    fake = None  # the Adapter or Device state behind this object, if any

    @dbus.service.method(PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface_name, property_name):
        props = self.props.get(interface_name)
        if props is None:
            raise dbus.exceptions.DBusException(
                f"No such interface '{interface_name}'",
                name="org.freedesktop.DBus.Error.InvalidArgs")
        if property_name not in props:
            raise dbus.exceptions.DBusException(
                f"No such property '{property_name}'",
                name="org.freedesktop.DBus.Error.InvalidArgs")
        return props[property_name]

    @dbus.service.method(PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface_name, *_, **__):
        props = self.props.get(interface_name)
        if props is None:
            raise dbus.exceptions.DBusException(
                f"No such interface '{interface_name}'",
                name="org.freedesktop.DBus.Error.InvalidArgs")
        return dbus.Dictionary(props, signature="sv")

    @dbus.service.method(PROPERTIES_IFACE, in_signature="ssv", out_signature="")
    def Set(self, interface_name, property_name, value, *_, **__):
        props = self.props.get(interface_name)
        if props is None or property_name not in props:
            raise dbus.exceptions.DBusException(
                f"No such property '{property_name}'",
                name="org.freedesktop.DBus.Error.InvalidArgs")
        setter = getattr(self.fake, "set_property", None)
        if setter is None or not setter(interface_name, property_name, value):
            raise dbus.exceptions.DBusException(
                f"Property '{property_name}' is not writable",
                name="org.freedesktop.DBus.Error.PropertyReadOnly")


class CallLog:
    """CALLS.jsonl: one line per method call received or fake event, flushed at once."""

    def __init__(self, path):
        self.handle = open(path, "w", encoding="utf-8")
        self.start = time.monotonic()

    def now(self):
        return round(time.monotonic() - self.start, 6)

    def write(self, record):
        line = {"t": self.now()}
        line.update(record)
        self.handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.handle.flush()

    def event(self, name, **fields):
        record = {"event": name}
        record.update(fields)
        self.write(record)


class Timers:
    """GLib timeouts that can all be cancelled together (one bluetoothd lifetime)."""

    def __init__(self):
        self.ids = set()

    def later(self, delay, function, *args):
        holder = {}

        def fire():
            self.ids.discard(holder["id"])
            function(*args)
            return False

        holder["id"] = GLib.timeout_add(max(0, int(round(delay * 1000))), fire)
        self.ids.add(holder["id"])
        return holder["id"]

    def cancel(self, timer_id):
        if timer_id is not None and timer_id in self.ids:
            self.ids.discard(timer_id)
            GLib.source_remove(timer_id)

    def cancel_all(self):
        for timer_id in list(self.ids):
            GLib.source_remove(timer_id)
        self.ids.clear()


# ---------------------------------------------------------------------------
# Sensors: the physical devices, which outlive any one bluetoothd.
# ---------------------------------------------------------------------------

class Sensor:
    """One scenario device: its notification stream, faults and pairing.

    Two clocks, both starting at the first StartNotify on the device:
    the event clock runs in real time from then on (disconnect/return);
    the notification clock runs only while the device is connected and at
    least one of its characteristics is notifying, so a stream paused by a
    dropout or a bluetoothd restart resumes where it stopped.
    """

    def __init__(self, app, spec):
        self.app = app
        self.spec = spec
        self.timers = Timers()
        self.away = False
        self.paired = spec.paired
        self.trusted = spec.trusted
        # bluetoothd stores a device once connected; it then survives restarts
        # and is no longer removed when discovery stops.
        self.remembered = spec.known
        self.connect_failures = list(spec.connect_failures)
        self.events_started = False
        self.index = 0
        self.loop_offset = 0.0
        self.clock_total = 0.0
        self.clock_since = None
        self.notify_timer = None
        self.held = {}  # uuid -> [bytes] due while that characteristic was not notifying

    # -- the notification clock ------------------------------------------------
    def clock(self):
        running = time.monotonic() - self.clock_since if self.clock_since is not None else 0.0
        return self.clock_total + running

    def device(self):
        world = self.app.world
        return world.devices.get(self.spec.address) if world else None

    def streaming(self):
        device = self.device()
        return bool(device and device.connected and device.characteristics
                    and any(c.subscribed() for c in device.characteristics.values()))

    def refresh(self):
        """Start or pause the notification clock after any state change."""
        streaming = self.streaming()
        if streaming and self.clock_since is None:
            self.clock_since = time.monotonic()
        elif not streaming and self.clock_since is not None:
            self.clock_total += time.monotonic() - self.clock_since
            self.clock_since = None
        self.timers.cancel(self.notify_timer)
        self.notify_timer = None
        due = self.next_due()
        if self.clock_since is not None and due is not None:
            self.notify_timer = self.timers.later(due - self.clock(), self.deliver_due)

    def next_due(self):
        if self.index >= len(self.spec.notifications):
            return None
        return self.loop_offset + self.spec.notifications[self.index][0]

    def deliver_due(self):
        self.notify_timer = None
        # Half a millisecond of slack: GLib timeouts have millisecond resolution.
        while self.next_due() is not None and self.next_due() <= self.clock() + 0.0005:
            _, uuid, value = self.spec.notifications[self.index]
            self.index += 1
            if self.index == len(self.spec.notifications) and self.spec.loop:
                self.index = 0
                self.loop_offset += self.spec.loop_period
            self.held.setdefault(uuid, []).append(value)
            self.flush(uuid)
        self.refresh()

    def flush(self, uuid):
        """Send what is waiting for a characteristic, in order, if it is notifying."""
        device = self.device()
        characteristic = device.characteristics.get(uuid) if device else None
        if characteristic is None or not characteristic.subscribed():
            return
        for value in self.held.pop(uuid, []):
            characteristic.notify(value)

    def started_notify(self, uuid):
        if not self.events_started:
            self.events_started = True
            for when, kind in self.spec.events:
                self.timers.later(when, self.physical_event, kind)
        self.refresh()
        # After the StartNotify reply has gone out.
        GLib.idle_add(lambda: (self.flush(uuid), self.refresh()) and False)

    # -- faults ------------------------------------------------------------------
    def physical_event(self, kind):
        self.app.log.event(kind, device=self.spec.address)
        world = self.app.world
        if kind == "disconnect":
            self.away = True
            if world:
                world.device_went_away(self)
        else:
            self.away = False
            if world:
                world.device_came_back(self)
        self.refresh()


# ---------------------------------------------------------------------------
# One bluetoothd lifetime: a bus connection and the object tree on it.
# ---------------------------------------------------------------------------

class Characteristic:
    def __init__(self, device, uuid, flags, path, service_path, handle):
        self.device = device
        self.uuid = uuid
        self.flags = flags
        self.path = path
        self.service_path = service_path
        self.handle = handle
        self.senders = set()
        self.acquired = None  # (sender, our end of the socket pair, watch id) after AcquireNotify
        self.obj = None

    def subscribed(self):
        return bool(self.senders) or self.acquired is not None

    def properties(self):
        props = {
            "UUID": variant(full_uuid(self.uuid)),
            "Service": variant(self.service_path, "o"),
            "Value": variant(b""),
            "Flags": variant(self.flags, "as"),
            "Handle": variant(self.handle, "q"),
            "MTU": variant(247, "q"),
        }
        if "notify" in self.flags:
            props["Notifying"] = variant(False)
            if self.device.sensor.spec.acquire_notify != "absent":
                props["NotifyAcquired"] = variant(False)
        return props

    def notify(self, value):
        world = self.device.world
        if self.acquired is not None:
            # One notification, one packet, as bluetoothd writes them to an acquired socket.
            try:
                self.acquired[1].send(value)
            except OSError:
                pass
        if self.senders:
            world.set_props(self.obj, CHARACTERISTIC_IFACE, {"Value": variant(value)})
        world.app.log.event("notify", device=self.device.sensor.spec.address, path=self.path,
                            characteristic=self.uuid, hex=value.hex())


class Device:
    """Device1 on the bus, while bluetoothd knows the device."""

    def __init__(self, world, sensor, adapter):
        self.world = world
        self.sensor = sensor
        self.adapter = adapter
        self.path = f"{adapter.path}/{sensor.spec.object_name}"
        self.obj = None
        self.connected = False
        self.resolved = False
        self.pending_connect = None  # (reply, fail)
        self.timers = Timers()
        self.services = []  # (path, uuid, handle)
        self.characteristics = {}  # uuid -> Characteristic, while exported
        self.removal_timer = None

    def advertised_uuids(self):
        return [full_uuid(u) for u in self.sensor.spec.services]

    def properties(self):
        spec = self.sensor.spec
        props = {
            "Address": variant(spec.address),
            "AddressType": variant(spec.address_type),
            "Alias": variant(spec.name if spec.name is not None else spec.address.replace(":", "-")),
            "Paired": variant(self.sensor.paired),
            "Bonded": variant(self.sensor.paired),
            "Trusted": variant(self.sensor.trusted),
            "Blocked": variant(False),
            "LegacyPairing": variant(False),
            "Connected": variant(False),
            "ServicesResolved": variant(False),
            "UUIDs": variant(self.advertised_uuids(), "as"),
            "Adapter": variant(self.adapter.path, "o"),
            "RSSI": variant(spec.rssi, "n"),
        }
        if spec.name is not None:
            props["Name"] = variant(spec.name)
        if spec.appearance is not None:
            props["Appearance"] = variant(spec.appearance, "q")
        return props

    def set_property(self, interface, name, value):
        if interface == DEVICE_IFACE and name in ("Alias", "Trusted", "Blocked"):
            if name == "Trusted":
                self.sensor.trusted = bool(value)
            self.world.set_props(self.obj, interface, {name: variant(
                bool(value) if name != "Alias" else str(value))})
            return True
        return False

    def gatt_layout(self):
        """Services and characteristics with bluetoothd-style handle-numbered paths."""
        spec = self.sensor.spec
        order = []
        for uuid in spec.services + [s for s, _ in spec.characteristics.values()]:
            if uuid not in order and any(s == uuid for s, _ in spec.characteristics.values()):
                order.append(uuid)
        handle = 0x000c
        services, characteristics = [], []
        for service_uuid in order:
            service_path = f"{self.path}/service{handle:04x}"
            services.append((service_path, service_uuid, handle))
            handle += 1
            for uuid, (owner, flags) in spec.characteristics.items():
                if owner != service_uuid:
                    continue
                characteristics.append(Characteristic(
                    self, uuid, flags, f"{service_path}/char{handle:04x}", service_path, handle))
                handle += 3 if "notify" in flags else 2
        return services, characteristics


class Adapter:
    def __init__(self, world, spec, state):
        self.world = world
        self.spec = spec
        self.state = state  # AdapterState: survives restarts
        self.path = f"/org/bluez/{spec.name}"
        self.obj = None
        self.discovery_clients = set()
        self.discovery_filter = {}
        self.appear_timers = {}

    def properties(self):
        state = self.state
        return {
            "Address": variant(self.spec.address),
            "AddressType": variant("public"),
            "Name": variant(self.spec.alias),
            "Alias": variant(self.spec.alias),
            "Class": variant(0x00010c),
            "Powered": variant(state.powered),
            "PowerState": variant("on" if state.powered else
                                  ("off-blocked" if state.blocked else "off")),
            "Discoverable": variant(False),
            "DiscoverableTimeout": variant(180),
            "Pairable": variant(True),
            "PairableTimeout": variant(0),
            "Discovering": variant(False),
            "UUIDs": variant([full_uuid(u) for u in ("1800", "1801", "110e", "110c", "1200")],
                             "as"),
            "Modalias": variant("usb:v1D6Bp0246d0548"),
            "Roles": variant(["central", "peripheral"], "as"),
        }

    def set_property(self, interface, name, value):
        if interface != ADAPTER_IFACE:
            return False
        if name == "Powered":
            if bool(value) and self.state.blocked:
                raise bluez_error("org.bluez.Error.Blocked", "Blocked through rfkill")
            self.world.set_power(self, bool(value))
            return True
        if name in ("Alias", "Discoverable", "Pairable", "DiscoverableTimeout", "PairableTimeout"):
            converted = str(value) if name == "Alias" else (
                bool(value) if name in ("Discoverable", "Pairable") else int(value))
            self.world.set_props(self.obj, interface, {name: variant(converted)})
            return True
        return False

    def matches_filter(self, spec):
        wanted = [u.lower() for u in self.discovery_filter.get("UUIDs", [])]
        if wanted and not set(wanted) & {full_uuid(u) for u in spec.services}:
            return False
        if "RSSI" in self.discovery_filter and spec.rssi < int(self.discovery_filter["RSSI"]):
            return False
        pattern = str(self.discovery_filter.get("Pattern", ""))
        if pattern and not (spec.address.startswith(pattern.upper())
                            or (spec.name or "").startswith(pattern)):
            return False
        return str(self.discovery_filter.get("Transport", "auto")) != "bredr"


class AdapterState:
    """What survives a bluetoothd restart: the controller's power and rfkill."""

    def __init__(self, spec):
        self.powered = spec.powered
        self.blocked = spec.blocked


class World:
    """One run of the fake bluetoothd: connection, name, objects, timers."""

    def __init__(self, app):
        self.app = app
        self.timers = Timers()
        self.adapters = {}
        self.devices = {}
        self.alive = True
        self.conn = dbus.bus.BusConnection(app.bus_address)
        self.conn.set_exit_on_disconnect(False)
        self.conn.add_message_filter(self.log_call)
        self.conn.add_signal_receiver(
            self.name_owner_changed, signal_name="NameOwnerChanged",
            dbus_interface="org.freedesktop.DBus", bus_name="org.freedesktop.DBus",
            path="/org/freedesktop/DBus")
        self.conn.add_signal_receiver(
            self.bus_lost, signal_name="Disconnected",
            dbus_interface="org.freedesktop.DBus.Local", path="/org/freedesktop/DBus/Local")

        mockobject.objects.clear()
        self.root = FakeObject(self.conn, "/", OBJECT_MANAGER_IFACE, {},
                               app.debug_log, is_object_manager=True)
        mockobject.objects["/"] = self.root
        self.root.AddTemplate("bluez5", {})
        # The template also files its own Adapter1/Device1 methods under /;
        # here those live on the adapter and device objects only.
        for interface in (ADAPTER_IFACE, DEVICE_IFACE):
            self.root.methods.pop(interface, None)
        manager = mockobject.objects["/org/bluez"]
        manager.props.setdefault("org.bluez.ProfileManager1", {})
        for interface in STANDARD_IFACES:
            manager.props.setdefault(interface, {})
        for spec in app.scenario.adapters:
            self.add_adapter(spec)
        for sensor in app.sensors:
            if sensor.remembered or sensor.paired:
                self.add_device(sensor, announce=False)

        reply = self.conn.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            raise RuntimeError(f"could not own {BUS_NAME} (reply {reply}): another owner?")

    # -- plumbing ------------------------------------------------------------------
    def log_call(self, _conn, message):
        if isinstance(message, dbus.lowlevel.MethodCallMessage):
            self.app.log.write({
                "path": message.get_path(),
                "interface": message.get_interface(),
                "method": message.get_member(),
                "args": jsonable(message.get_args_list(byte_arrays=True)),
                "sender": message.get_sender(),
            })
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    def bus_lost(self, *_):
        if self.alive and self.app.world is self:
            print("fake_bluez: the bus went away; exiting", file=sys.stderr)
            self.app.quit()

    def name_owner_changed(self, name, _old, new):
        """bluetoothd ends a client's notify and discovery sessions when it leaves the bus."""
        if not self.alive or new or not name.startswith(":"):
            return
        for adapter in self.adapters.values():
            if name in adapter.discovery_clients:
                self.stop_discovery(adapter, name)
        for device in self.devices.values():
            for characteristic in device.characteristics.values():
                if name in characteristic.senders:
                    self.stop_notify(characteristic, name)
                if characteristic.acquired is not None and characteristic.acquired[0] == name:
                    self.release_acquired(characteristic)

    def new_object(self, path, interface, props, fake):
        obj = FakeObject(self.conn, path, interface, props)
        obj.logfile = self.root.logfile
        obj.is_logfile_owner = False
        obj.object_manager = self.root
        obj.fake = fake
        for standard in STANDARD_IFACES:
            obj.props[standard] = {}
        mockobject.objects[path] = obj
        return obj

    def announce(self, path, interfaces):
        if interfaces != [BATTERY_IFACE]:
            interfaces = list(STANDARD_IFACES) + interfaces
        self.root.EmitSignal(OBJECT_MANAGER_IFACE, "InterfacesAdded", "oa{sa{sv}}", [
            dbus.ObjectPath(path),
            dbus.Dictionary({i: mockobject.objects[path].props[i] for i in interfaces},
                            signature="sa{sv}")])

    def retract(self, path, interfaces):
        self.root.EmitSignal(OBJECT_MANAGER_IFACE, "InterfacesRemoved", "oas", [
            dbus.ObjectPath(path), dbus.Array(interfaces, signature="s")])

    def drop_object(self, path):
        obj = mockobject.objects.pop(path, None)
        if obj is not None:
            self.retract(path, list(obj.props))
            obj.remove_from_connection()

    def set_props(self, obj, interface, changes):
        """Update properties and send PropertiesChanged for those that changed.

        Value always goes out: each notification is an event, even with repeated bytes.
        """
        props = obj.props[interface]
        changed = {k: v for k, v in changes.items()
                   if k == "Value" or k not in props or props[k] != v}
        if not changed:
            return
        props.update(changed)
        obj.EmitSignal(PROPERTIES_IFACE, "PropertiesChanged", "sa{sv}as", [
            interface, dbus.Dictionary(changed, signature="sv"), dbus.Array([], signature="s")])

    def shutdown(self):
        """bluetoothd dies: the connection goes, and with it the name and every object."""
        self.alive = False
        self.timers.cancel_all()
        for device in self.devices.values():
            device.timers.cancel_all()
            for characteristic in device.characteristics.values():
                self.release_acquired(characteristic, emit=False)
        self.conn.close()
        mockobject.objects.clear()

    # -- adapters ------------------------------------------------------------------
    def add_adapter(self, spec):
        adapter = Adapter(self, spec, self.app.adapter_states[spec.name])
        adapter.obj = self.new_object(adapter.path, ADAPTER_IFACE, adapter.properties(), adapter)
        add_methods(adapter.obj, ADAPTER_IFACE, [
            StartDiscovery, StopDiscovery, SetDiscoveryFilter, GetDiscoveryFilters, RemoveDevice])
        self.adapters[spec.name] = adapter
        self.announce(adapter.path, [ADAPTER_IFACE])

    def set_power(self, adapter, powered):
        if adapter.state.powered == powered:
            return
        if not powered:
            # As bluetoothd: links drop and discovery ends before Powered goes false.
            for device in list(self.devices.values()):
                if device.adapter is adapter:
                    self.link_lost(device, "Connection terminated by local host",
                                   pending_error=("org.bluez.Error.NotReady", None))
            for timer in adapter.appear_timers.values():
                self.timers.cancel(timer)
            adapter.appear_timers.clear()
            if adapter.discovery_clients:
                adapter.discovery_clients.clear()
                self.set_props(adapter.obj, ADAPTER_IFACE, {"Discovering": variant(False)})
        adapter.state.powered = powered
        if powered:
            adapter.state.blocked = False
        self.set_props(adapter.obj, ADAPTER_IFACE, {
            "Powered": variant(powered), "PowerState": variant("on" if powered else "off")})

    def start_discovery(self, adapter, sender):
        if not adapter.state.powered:
            raise bluez_error("NotReady")
        if sender in adapter.discovery_clients:
            raise bluez_error("InProgress", "Operation already in progress")
        adapter.discovery_clients.add(sender)
        if len(adapter.discovery_clients) == 1:
            self.set_props(adapter.obj, ADAPTER_IFACE, {"Discovering": variant(True)})
        for sensor in self.app.sensors:
            if sensor.spec.adapter != adapter.spec.name:
                continue
            device = self.devices.get(sensor.spec.address)
            if device is not None:
                self.timers.cancel(device.removal_timer)
                device.removal_timer = None
            elif sensor.spec.address not in adapter.appear_timers:
                adapter.appear_timers[sensor.spec.address] = self.timers.later(
                    sensor.spec.appears_after, self.seen_in_scan, adapter, sensor)

    def seen_in_scan(self, adapter, sensor):
        adapter.appear_timers.pop(sensor.spec.address, None)
        if (adapter.discovery_clients and not sensor.away
                and sensor.spec.address not in self.devices and adapter.matches_filter(sensor.spec)):
            self.add_device(sensor, announce=True)

    def stop_discovery(self, adapter, sender):
        if sender not in adapter.discovery_clients:
            raise bluez_error("Failed", "No discovery started")
        adapter.discovery_clients.discard(sender)
        if adapter.discovery_clients:
            return
        for timer in adapter.appear_timers.values():
            self.timers.cancel(timer)
        adapter.appear_timers.clear()
        self.set_props(adapter.obj, ADAPTER_IFACE, {"Discovering": variant(False)})
        for device in list(self.devices.values()):
            spec = device.sensor.spec
            if device.adapter is adapter and spec.removed_when_discovery_stops:
                device.removal_timer = self.timers.later(
                    spec.removal_delay, self.remove_if_idle, device)

    def remove_if_idle(self, device):
        """The quirk: a device neither connected nor paired is forgotten after a scan."""
        device.removal_timer = None
        if (self.devices.get(device.sensor.spec.address) is device and not device.connected
                and device.pending_connect is None and not device.sensor.paired
                and not device.sensor.remembered
                and not device.adapter.discovery_clients):
            self.remove_device(device)

    def set_discovery_filter(self, adapter, options):
        if not adapter.state.powered:
            raise bluez_error("NotReady")
        for key, value in options.items():
            wanted = DISCOVERY_FILTER_TYPES.get(key)
            if wanted is None:
                raise bluez_error("InvalidArguments", f"Invalid filter key {key}")
            actual = signature_of(value)
            if actual != wanted:
                raise bluez_error("InvalidArguments",
                                  f"Filter {key} must have type {wanted}, not {actual}")
        if "RSSI" in options and "Pathloss" in options:
            raise bluez_error("InvalidArguments", "RSSI and Pathloss cannot both be set")
        transport = str(options.get("Transport", "auto"))
        if transport not in ("auto", "bredr", "le"):
            raise bluez_error("InvalidArguments", f"Invalid Transport {transport}")
        for uuid in options.get("UUIDs", []):
            text = str(uuid)
            if len(text) not in (4, 8, 36):
                raise bluez_error("InvalidArguments", f"Invalid UUID {text}")
        adapter.discovery_filter = {
            k: ([full_uuid(str(u)) for u in v] if k == "UUIDs" else v) for k, v in options.items()}

    # -- devices -------------------------------------------------------------------
    def add_device(self, sensor, announce):
        adapter = self.adapters[sensor.spec.adapter]
        device = Device(self, sensor, adapter)
        device.obj = self.new_object(device.path, DEVICE_IFACE, device.properties(), device)
        add_methods(device.obj, DEVICE_IFACE, [
            Connect, Disconnect, Pair, CancelPairing, ConnectProfile, DisconnectProfile])
        self.devices[sensor.spec.address] = device
        if announce:
            self.announce(device.path, [DEVICE_IFACE])
        return device

    def remove_device(self, device):
        if device.connected or device.pending_connect:
            self.link_lost(device, "Device removed")
        device.timers.cancel_all()
        self.timers.cancel(device.removal_timer)
        del self.devices[device.sensor.spec.address]
        self.drop_object(device.path)
        device.sensor.refresh()

    def connect(self, device, reply, fail):
        sensor = device.sensor
        if not device.adapter.state.powered:
            return fail(bluez_error("NotReady"))
        if device.pending_connect is not None:
            return fail(bluez_error("InProgress"))
        if device.connected:
            return reply()
        if sensor.away:
            self.app.log.event("connect_failed", device=sensor.spec.address,
                               error="org.bluez.Error.Failed: Host is down")
            return fail(bluez_error("Failed", "Host is down"))
        if sensor.connect_failures:
            text = sensor.connect_failures.pop(0)
            self.app.log.event("connect_failed", device=sensor.spec.address, error=text)
            return fail(bluez_error(*split_error(text)))
        self.timers.cancel(device.removal_timer)
        device.removal_timer = None
        device.connected = True
        sensor.remembered = True
        if sensor.spec.connected_unsignalled:
            # Set without PropertiesChanged, and Connect answered at once, before the services
            # resolve: bluetoothd's order when its ATT callback comes first (scenario.py).
            device.obj.props[DEVICE_IFACE]["Connected"] = variant(True)
            device.timers.later(sensor.spec.resolve_delay, self.services_resolved, device)
            return reply()
        device.pending_connect = (reply, fail)
        self.set_props(device.obj, DEVICE_IFACE, {"Connected": variant(True)})
        device.timers.later(sensor.spec.resolve_delay, self.services_resolved, device)
        return None

    def services_resolved(self, device):
        device.resolved = True
        spec = device.sensor.spec
        services, characteristics = device.gatt_layout()
        if spec.gatt_before_resolved:
            self.export_gatt(device, services, characteristics)
        uuids = sorted(set(device.advertised_uuids())
                       | {full_uuid(u) for u in GAP_AND_GATT + [s for _, s, _ in services]})
        self.set_props(device.obj, DEVICE_IFACE, {
            "UUIDs": variant(uuids, "as"), "ServicesResolved": variant(True)})
        if device.pending_connect is not None:
            reply, _ = device.pending_connect
            device.pending_connect = None
            reply()
        if not spec.gatt_before_resolved:
            device.timers.later(spec.characteristics_delay, self.export_gatt, device,
                                services, characteristics)

    def export_gatt(self, device, services, characteristics):
        for path, uuid, handle in services:
            props = {"UUID": variant(full_uuid(uuid)), "Device": variant(device.path, "o"),
                     "Primary": variant(True), "Includes": variant([], "ao"),
                     "Handle": variant(handle, "q")}
            self.new_object(path, SERVICE_IFACE, props, None)
            device.services.append((path, uuid, handle))
            self.announce(path, [SERVICE_IFACE])
        for characteristic in characteristics:
            characteristic.obj = self.new_object(characteristic.path, CHARACTERISTIC_IFACE,
                                                 characteristic.properties(), characteristic)
            add_methods(characteristic.obj, CHARACTERISTIC_IFACE, [
                ReadValue, WriteValue, StartNotify, StopNotify, AcquireNotify, AcquireWrite])
            device.characteristics[characteristic.uuid] = characteristic
            self.announce(characteristic.path, [CHARACTERISTIC_IFACE])
        level = device.sensor.spec.reads.get("2a19")
        if level:
            device.obj.props[BATTERY_IFACE] = {"Percentage": variant(level[0], "y")}
            self.announce(device.path, [BATTERY_IFACE])

    def link_lost(self, device, reason, pending_error=None):
        """The link ends (Disconnect, a dropout, power off): bluetoothd's order of signals."""
        device.timers.cancel_all()
        if device.pending_connect is not None:
            _, fail = device.pending_connect
            device.pending_connect = None
            name, message = pending_error or ("org.bluez.Error.Failed", reason)
            fail(bluez_error(name, message))
        if device.resolved:
            device.resolved = False
            self.set_props(device.obj, DEVICE_IFACE, {"ServicesResolved": variant(False)})
        for characteristic in device.characteristics.values():
            self.release_acquired(characteristic, emit=False, close_after=device.sensor.spec.sockets_close_after)
            self.drop_object(characteristic.path)
        device.characteristics.clear()
        for path, _, _ in device.services:
            self.drop_object(path)
        device.services.clear()
        if BATTERY_IFACE in device.obj.props:
            del device.obj.props[BATTERY_IFACE]
            self.retract(device.path, [BATTERY_IFACE])
        if device.connected:
            device.connected = False
            self.set_props(device.obj, DEVICE_IFACE, {"Connected": variant(False)})
        device.sensor.refresh()

    def disconnect(self, device):
        if not device.connected:
            raise bluez_error("NotConnected")
        self.link_lost(device, "Cancelled")

    def device_went_away(self, sensor):
        device = self.devices.get(sensor.spec.address)
        if device is not None and (device.connected or device.pending_connect):
            self.link_lost(device, "Host is down")

    def device_came_back(self, sensor):
        adapter = self.adapters.get(sensor.spec.adapter)
        if adapter and adapter.discovery_clients and sensor.spec.address not in self.devices:
            self.seen_in_scan(adapter, sensor)

    # -- GATT ------------------------------------------------------------------------
    def start_notify(self, characteristic, sender):
        if "notify" not in characteristic.flags:
            raise bluez_error("NotSupported")
        if sender in characteristic.senders:
            raise bluez_error("Failed", "Already notifying")
        characteristic.senders.add(sender)
        if len(characteristic.senders) == 1:
            self.set_props(characteristic.obj, CHARACTERISTIC_IFACE, {"Notifying": variant(True)})
        characteristic.device.sensor.started_notify(characteristic.uuid)

    def acquire_notify(self, characteristic, sender):
        """AcquireNotify: a SOCK_SEQPACKET pair; the client's end goes out as a unix fd."""
        mode = characteristic.device.sensor.spec.acquire_notify
        if "notify" not in characteristic.flags or mode == "absent":
            raise bluez_error("NotSupported")
        if mode == "refused" or characteristic.acquired is not None:
            raise bluez_error("NotPermitted", "Notify acquired")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        watch = GLib.io_add_watch(ours.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR,
                                  lambda *_: self.client_let_go(characteristic))
        characteristic.acquired = (sender, ours, watch)
        self.set_props(characteristic.obj, CHARACTERISTIC_IFACE, {"NotifyAcquired": variant(True)})
        sensor = characteristic.device.sensor
        if sensor.spec.hang_up_after is not None and not getattr(sensor, "hung_up", False):
            sensor.hung_up = True
            characteristic.device.timers.later(sensor.spec.hang_up_after, self.hang_up, characteristic.device)
        self.app.log.event("acquire_notify", device=sensor.spec.address, path=characteristic.path)
        sensor.started_notify(characteristic.uuid)
        fd = dbus.types.UnixFd(theirs)  # dbus-python keeps a duplicate
        theirs.close()
        return (fd, dbus.UInt16(247))

    def client_let_go(self, characteristic):
        """The client closed its end (that is how AcquireNotify is stopped)."""
        if characteristic.acquired is not None:
            self.app.log.event("released", device=characteristic.device.sensor.spec.address,
                               path=characteristic.path)
            self.release_acquired(characteristic, unwatch=False)
        return False

    def hang_up(self, device):
        """bluetoothd drops the acquired sockets with the link still up."""
        for characteristic in device.characteristics.values():
            if characteristic.acquired is not None:
                self.app.log.event("hang_up", device=device.sensor.spec.address, path=characteristic.path)
                self.release_acquired(characteristic)

    def release_acquired(self, characteristic, emit=True, unwatch=True, close_after=0):
        if characteristic.acquired is None:
            return
        _, ours, watch = characteristic.acquired
        characteristic.acquired = None
        if unwatch:
            GLib.source_remove(watch)
        if close_after > 0:
            # Not one of the device's timers: those end with the link.
            GLib.timeout_add(int(round(close_after * 1000)), lambda: ours.close() or False)
        else:
            ours.close()
        if emit and characteristic.obj is not None and self.alive:
            self.set_props(characteristic.obj, CHARACTERISTIC_IFACE, {"NotifyAcquired": variant(False)})
        characteristic.device.sensor.refresh()

    def stop_notify(self, characteristic, sender):
        if sender not in characteristic.senders:
            raise bluez_error("Failed", "No notify session started")
        characteristic.senders.discard(sender)
        if not characteristic.senders:
            self.set_props(characteristic.obj, CHARACTERISTIC_IFACE, {"Notifying": variant(False)})
        characteristic.device.sensor.refresh()

    def read_value(self, characteristic, options):
        if "read" not in characteristic.flags:
            raise bluez_error("NotPermitted", "Read not permitted")
        value = characteristic.device.sensor.spec.reads[characteristic.uuid]
        offset = int(options.get("offset", 0))
        if offset > len(value):
            raise bluez_error("InvalidOffset")
        # bluetoothd caches what it read in Value, and says so if it changed.
        props = characteristic.obj.props[CHARACTERISTIC_IFACE]
        if bytes(int(b) for b in props["Value"]) != value:
            self.set_props(characteristic.obj, CHARACTERISTIC_IFACE, {"Value": variant(value)})
        return dbus.Array([dbus.Byte(b) for b in value[offset:]], signature="y")


# ---------------------------------------------------------------------------
# D-Bus methods. `self` is the FakeObject; its .fake is the state behind it.
# ---------------------------------------------------------------------------

def world_of(obj):
    return obj.fake.world


@fake_method(ADAPTER_IFACE)
def StartDiscovery(self, sender=None):
    world_of(self).start_discovery(self.fake, sender)


@fake_method(ADAPTER_IFACE)
def StopDiscovery(self, sender=None):
    world_of(self).stop_discovery(self.fake, sender)


@fake_method(ADAPTER_IFACE, "a{sv}")
def SetDiscoveryFilter(self, options, sender=None):
    world_of(self).set_discovery_filter(self.fake, options)


@fake_method(ADAPTER_IFACE, "", "as")
def GetDiscoveryFilters(self, sender=None):
    return dbus.Array(list(DISCOVERY_FILTER_TYPES), signature="s")


@fake_method(ADAPTER_IFACE, "o")
def RemoveDevice(self, path, sender=None):
    world = world_of(self)
    for device in list(world.devices.values()):
        if device.path == path and device.adapter is self.fake:
            device.sensor.paired = False
            device.sensor.remembered = False
            world.remove_device(device)
            return
    raise bluez_error("DoesNotExist")


@fake_method(DEVICE_IFACE, asynchronous=True)
def Connect(self, sender=None, reply=None, fail=None):
    world_of(self).connect(self.fake, reply, fail)


@fake_method(DEVICE_IFACE)
def Disconnect(self, sender=None):
    world_of(self).disconnect(self.fake)


@fake_method(DEVICE_IFACE)
def Pair(self, sender=None):
    device = self.fake
    if device.sensor.paired:
        raise bluez_error("AlreadyExists")
    device.sensor.paired = True
    device.world.set_props(self, DEVICE_IFACE, {"Paired": variant(True), "Bonded": variant(True)})


@fake_method(DEVICE_IFACE)
def CancelPairing(self, sender=None):
    raise bluez_error("DoesNotExist")


@fake_method(DEVICE_IFACE, "s")
def ConnectProfile(self, uuid, sender=None):
    raise bluez_error("NotSupported")


@fake_method(DEVICE_IFACE, "s")
def DisconnectProfile(self, uuid, sender=None):
    raise bluez_error("NotSupported")


@fake_method(CHARACTERISTIC_IFACE, "a{sv}", "ay")
def ReadValue(self, options, sender=None):
    return self.fake.device.world.read_value(self.fake, options)


@fake_method(CHARACTERISTIC_IFACE, "aya{sv}")
def WriteValue(self, value, options, sender=None):
    raise bluez_error("NotSupported")


@fake_method(CHARACTERISTIC_IFACE)
def StartNotify(self, sender=None):
    self.fake.device.world.start_notify(self.fake, sender)


@fake_method(CHARACTERISTIC_IFACE)
def StopNotify(self, sender=None):
    self.fake.device.world.stop_notify(self.fake, sender)


@fake_method(CHARACTERISTIC_IFACE, "a{sv}", "hq")
def AcquireNotify(self, options, sender=None):
    return self.fake.device.world.acquire_notify(self.fake, sender)


@fake_method(CHARACTERISTIC_IFACE, "a{sv}", "hq")
def AcquireWrite(self, options, sender=None):
    raise bluez_error("NotSupported")


# ---------------------------------------------------------------------------
# The program.
# ---------------------------------------------------------------------------

class App:
    def __init__(self, args, scenario):
        self.bus_address = args.bus
        self.scenario = scenario
        self.log = CallLog(args.call_log)
        self.debug_log = args.debug_log or os.devnull
        self.adapter_states = {a.name: AdapterState(a) for a in scenario.adapters}
        self.sensors = [Sensor(self, spec) for spec in scenario.devices]
        self.world = None
        self.loop = GLib.MainLoop()
        self.exit_status = 0

    def start(self, ready_file):
        # Before the ready file: a SIGTERM sent as soon as it appears must still exit 0.
        for signum in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, self.on_signal)
        self.world = World(self)
        if ready_file:
            with open(ready_file, "w", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()}\n")
        # Timed from the call log's t = 0, so log lines and scenario times agree.
        for when, kind, value, adapter in self.scenario.events:
            delay = max(0.0, when - self.log.now())
            GLib.timeout_add(int(round(delay * 1000)), self.global_event, kind, value, adapter)

    def global_event(self, kind, value, adapter_name):
        if kind == "restart_bluez":
            self.log.event("restart", downtime=value)
            if self.world is not None:
                self.world.shutdown()
                self.world = None
                for sensor in self.sensors:
                    sensor.refresh()
            GLib.timeout_add(int(round(value * 1000)), self.restarted)
        else:
            self.log.event("adapter_power", powered=value, adapter=adapter_name)
            for name, state in self.adapter_states.items():
                if adapter_name is not None and name != adapter_name:
                    continue
                if self.world is not None:
                    self.world.set_power(self.world.adapters[name], value)
                else:
                    state.powered = value
        return False

    def restarted(self):
        if self.world is None:
            try:
                self.world = World(self)
            except dbus.exceptions.DBusException as error:
                print(f"fake_bluez: cannot reconnect to the bus: {error}", file=sys.stderr)
                self.quit()
                return False
            self.log.event("restarted")
        return False

    def quit(self):
        self.loop.quit()

    def run(self):
        self.loop.run()
        if self.world is not None:
            self.world.alive = False
            self.world.conn.close()
        self.log.handle.close()
        return self.exit_status

    def on_signal(self):
        self.quit()
        return False


def main(argv):
    parser = Usage("fake_bluez", description="Fake org.bluez for IntervalPro's tests.")
    parser.add_argument("--bus", required=True, help="address of the dbus-daemon to join")
    parser.add_argument("--scenario", required=True, help="scenario JSON file")
    parser.add_argument("--call-log", required=True, help="JSON-lines log of calls and events")
    parser.add_argument("--ready-file", help="written once org.bluez is owned")
    parser.add_argument("--debug-log", help="dbusmock's own log (default: none)")
    args = parser.parse_args(argv)

    try:
        scenario = load_scenario(args.scenario)
    except OSError as error:
        print(f"fake_bluez: {args.scenario}: {error.strerror}", file=sys.stderr)
        return EX_NOINPUT
    except ScenarioError as error:
        print(f"fake_bluez: {args.scenario}: {error}", file=sys.stderr)
        return EX_DATAERR

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    try:
        app = App(args, scenario)
    except OSError as error:
        print(f"fake_bluez: {args.call_log}: {error.strerror}", file=sys.stderr)
        return EX_IOERR
    try:
        app.start(args.ready_file)
    except (dbus.exceptions.DBusException, RuntimeError) as error:
        print(f"fake_bluez: bus {args.bus}: {error}", file=sys.stderr)
        return EX_UNAVAILABLE
    except OSError as error:
        print(f"fake_bluez: {args.ready_file}: {error.strerror}", file=sys.stderr)
        return EX_IOERR
    return app.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
