#!/usr/bin/python3
"""Smoke test of the fake org.bluez, as a BlueZ client would use it.

Starts a private dbus-daemon, runs fake_bluez.py on it with a few scenarios
and drives it over D-Bus from here: discovery with a filter, failing first
connects, characteristics exported after ServicesResolved, reads,
notifications in order, a dropout and return, adapter power off/on, a
bluetoothd restart, and the call log. Also checks that bad scenarios are
refused with the right exit status.

Run from the repository root:  /usr/bin/python3 Tests/FakeBlueZ/smoke_test.py
Prints one line per check, then "N passed, M failed"; exits 1 if any failed.
"""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_bluez.py")
PYTHON = "/usr/bin/python3"

ADAPTER = "org.bluez.Adapter1"
DEVICE = "org.bluez.Device1"
CHARACTERISTIC = "org.bluez.GattCharacteristic1"
SERVICE = "org.bluez.GattService1"
BATTERY = "org.bluez.Battery1"
OM = "org.freedesktop.DBus.ObjectManager"
PROPS = "org.freedesktop.DBus.Properties"


def uuid128(short):
    return f"0000{short}-0000-1000-8000-00805f9b34fb"


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from smoke import Checks  # noqa: E402

CHECKS = Checks()
check = CHECKS.check


class Harness:
    """A private dbus-daemon, the fake on it, and a client connection."""

    running = []

    def __init__(self, scenario, name):
        Harness.running.append(self)
        self.fake = self.daemon = None
        self.dir = tempfile.mkdtemp(prefix=f"fakebluez-{name}-")
        socket = os.path.join(self.dir, "bus")
        self.daemon = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address",
             f"--address=unix:path={socket}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.daemon.stdout.readline().strip()
        self.scenario_path = os.path.join(self.dir, "scenario.json")
        with open(self.scenario_path, "w", encoding="utf-8") as handle:
            json.dump(scenario, handle)
        self.calls_path = os.path.join(self.dir, "calls.jsonl")
        ready = os.path.join(self.dir, "ready")
        self.fake = subprocess.Popen(
            [PYTHON, FAKE, "--bus", self.address, "--scenario", self.scenario_path,
             "--call-log", self.calls_path, "--ready-file", ready])
        deadline = time.monotonic() + 20
        while not os.path.exists(ready):
            if self.fake.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the fake did not get ready (status {self.fake.poll()})")
            time.sleep(0.02)
        self.conn = dbus.bus.BusConnection(self.address)
        self.signals = []  # (monotonic time, member, path, args)
        self.conn.add_signal_receiver(self.on_signal, bus_name="org.bluez",
                                      member_keyword="member", path_keyword="path")
        self.owner_changes = []
        self.conn.add_signal_receiver(
            lambda name, old, new: self.owner_changes.append((str(old), str(new))),
            signal_name="NameOwnerChanged", dbus_interface="org.freedesktop.DBus",
            arg0="org.bluez")
        self.pump(0.05)

    def on_signal(self, *args, member=None, path=None):
        self.signals.append((time.monotonic(), str(member), str(path), args))

    def pump(self, seconds):
        self.wait_for(lambda: False, seconds, quiet=True)

    def wait_for(self, predicate, timeout, what="", quiet=False):
        context = GLib.MainContext.default()
        deadline = time.monotonic() + timeout
        while True:
            while context.pending():
                context.iteration(False)
            if predicate():
                return True
            if time.monotonic() > deadline:
                if not quiet:
                    check(False, f"waited for {what}", f"not within {timeout} s")
                return False
            GLib.timeout_add(10, lambda: False)
            context.iteration(True)

    def call(self, path, interface, method, signature="", args=(), timeout=10):
        return self.conn.call_blocking("org.bluez", path, interface, method, signature,
                                       list(args), timeout=timeout)

    def error_of(self, path, interface, method, signature="", args=()):
        """(error name, message) of a call expected to fail, or None if it worked."""
        try:
            self.call(path, interface, method, signature, args)
        except dbus.exceptions.DBusException as error:
            return error.get_dbus_name(), error.get_dbus_message()
        return None

    def objects(self):
        return self.call("/", OM, "GetManagedObjects")

    def changed(self, path, interface, name):
        """Values a property took, in order, as PropertiesChanged told."""
        return [args[1][name] for _, member, p, args in self.signals
                if member == "PropertiesChanged" and p == path and args[0] == interface
                and name in args[1]]

    def added(self, interface):
        return [(str(args[0]), args[1][interface]) for _, member, _, args in self.signals
                if member == "InterfacesAdded" and interface in args[1]]

    def removed(self, interface):
        return [str(args[0]) for _, member, _, args in self.signals
                if member == "InterfacesRemoved" and interface in args[1]]

    def characteristic_paths(self):
        paths = {}
        for path, props in self.objects().items():
            if CHARACTERISTIC in props:
                paths[str(props[CHARACTERISTIC]["UUID"])[4:8]] = str(path)
        return paths

    def stop(self):
        self.fake.send_signal(signal.SIGTERM)
        try:
            status = self.fake.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.fake.kill()
            status = "hung"
        check(status == 0, "the fake exits 0 on SIGTERM", f"status {status}")
        self.conn.close()
        self.daemon.terminate()
        self.daemon.wait()
        with open(self.calls_path, encoding="utf-8") as handle:
            lines = [json.loads(line) for line in handle]
        shutil.rmtree(self.dir)
        Harness.running.remove(self)
        return lines

    def kill(self):
        """After a failed part: leave no process behind."""
        for process in (self.fake, self.daemon):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def values(harness, path):
    return [bytes(v).hex() for v in harness.changed(path, CHARACTERISTIC, "Value")]


def stream(harness, paths):
    """Value changes on the given characteristics, in arrival order, as hex."""
    return [bytes(args[1]["Value"]).hex() for _, member, path, args in harness.signals
            if member == "PropertiesChanged" and path in paths and args[0] == CHARACTERISTIC
            and "Value" in args[1]]


FORERUNNER = "F0:F1:F2:F3:F4:F5"
FORERUNNER_PATH = "/org/bluez/hci0/dev_F0_F1_F2_F3_F4_F5"
FOOTPOD_PATH = "/org/bluez/hci0/dev_C0_C1_C2_C3_C4_C5"
PHONE_PATH = "/org/bluez/hci0/dev_A0_A1_A2_A3_A4_A5"
SPEAKER_PATH = "/org/bluez/hci0/dev_B0_B1_B2_B3_B4_B5"

FIRST_HALF = ["0648", "02c800ab", "0649", "02c900ab", "064a"]
SECOND_HALF = ["064b", "02ca00ab"]

DEVICE_FLOW = {
    "adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": True}],
    "devices": [
        {"address": FORERUNNER, "name": "Forerunner 265", "rssi": -58,
         "services": ["180d", "1814", "180f"], "appears_after": 0.3,
         "connect_failures": ["org.bluez.Error.Failed: le-connection-abort-by-local",
                              "org.bluez.Error.InProgress"],
         "resolve_delay": 0.2, "characteristics_delay": 0.3,
         "reads": {"2a38": "01", "2a54": "0300", "2a19": "5a"},
         "notifications": [[0.0, "2a37", "0648"], [0.25, "2a53", "02c800ab"],
                           [0.5, "2a37", "0649"], [0.75, "2a53", "02c900ab"],
                           [1.0, "2a37", "064a"], [2.0, "2a37", "064b"],
                           [2.25, "2a53", "02ca00ab"]],
         "events": [[1.5, "disconnect"], [2.5, "return"]],
         "acquire_notify": "absent"},
        {"address": "C0:C1:C2:C3:C4:C5", "name": "Stryd", "services": ["1814"],
         "appears_after": 0.1, "removed_when_discovery_stops": True,
         "notifications": [[0.0, "2a53", "02c800ab"]]},
        {"address": "A0:A1:A2:A3:A4:A5", "name": "Phone", "services": ["180a"],
         "appears_after": 0.1},
        {"address": "B0:B1:B2:B3:B4:B5", "name": "Kitchen speaker", "services": ["110b"],
         "known": True, "paired": True},
    ],
}


def device_flow():
    print("# one watch with HR and RSC: discovery, connect, notifications, dropout")
    h = Harness(DEVICE_FLOW, "device")
    objects = h.objects()
    check(bool(objects["/org/bluez/hci0"][ADAPTER]["Powered"]), "the adapter is exported, powered")
    check(str(objects["/org/bluez/hci0"][ADAPTER]["Address"]) == "00:11:22:33:44:55",
          "the adapter has the scenario's address")
    check(SPEAKER_PATH in objects and FORERUNNER_PATH not in objects,
          "a known (paired) device is there at start; an unseen one is not")
    check([str(u) for u in objects[SPEAKER_PATH][DEVICE]["UUIDs"]] == [uuid128("110b")],
          "UUIDs are exported as 128-bit strings")

    bad = h.error_of("/org/bluez/hci0", ADAPTER, "SetDiscoveryFilter", "a{sv}",
                     [{"DuplicateData": dbus.String("no", variant_level=1)}])
    check(bad is not None and bad[0] == "org.bluez.Error.InvalidArguments",
          "a mistyped discovery filter is refused with InvalidArguments", str(bad))
    h.call("/org/bluez/hci0", ADAPTER, "SetDiscoveryFilter", "a{sv}", [{
        "UUIDs": dbus.Array([uuid128("180d"), uuid128("1814")], signature="s"),
        "Transport": "le", "DuplicateData": False}])
    started = time.monotonic()
    h.call("/org/bluez/hci0", ADAPTER, "StartDiscovery")
    again = h.error_of("/org/bluez/hci0", ADAPTER, "StartDiscovery")
    check(again is not None and again[0] == "org.bluez.Error.InProgress",
          "a second StartDiscovery from the same client is InProgress", str(again))
    h.wait_for(lambda: any(p == FORERUNNER_PATH for p, _ in h.added(DEVICE)), 5,
               "the watch to be discovered")
    seen_at = next(t for t, m, _, a in h.signals
                   if m == "InterfacesAdded" and str(a[0]) == FORERUNNER_PATH)
    check(seen_at - started >= 0.29, "the watch appears no sooner than appears_after",
          f"{seen_at - started:.3f} s")
    props = dict(h.added(DEVICE))[FORERUNNER_PATH]
    check(str(props["Name"]) == "Forerunner 265" and int(props["RSSI"]) == -58
          and str(props["Address"]) == FORERUNNER and not props["Connected"],
          "InterfacesAdded carries Name, RSSI, Address, Connected=false")
    interfaces = next(sorted(str(i) for i in a[1]) for _, m, _, a in h.signals
                      if m == "InterfacesAdded" and str(a[0]) == FORERUNNER_PATH)
    check(interfaces == [DEVICE, "org.freedesktop.DBus.Introspectable", PROPS],
          "InterfacesAdded also lists Introspectable and Properties, as bluetoothd does",
          str(interfaces))
    check(h.changed("/org/bluez/hci0", ADAPTER, "Discovering") == [True],
          "Discovering went true with a PropertiesChanged")
    h.pump(0.4)
    paths = [p for p, _ in h.added(DEVICE)]
    check(FOOTPOD_PATH in paths and PHONE_PATH not in paths,
          "the UUID filter lets the footpod in and keeps the phone (180a) out", str(paths))

    h.call("/org/bluez/hci0", ADAPTER, "StopDiscovery")
    h.wait_for(lambda: FOOTPOD_PATH in h.removed(DEVICE), 3,
               "the footpod to be removed after StopDiscovery")
    check(FOOTPOD_PATH in h.removed(DEVICE) and FORERUNNER_PATH not in h.removed(DEVICE),
          "StopDiscovery removes only the device marked removed_when_discovery_stops")
    gone = h.error_of(FOOTPOD_PATH, DEVICE, "Connect")
    check(gone is not None and gone[0].startswith("org.freedesktop.DBus.Error.Unknown"),
          "Connect on a removed device fails with an org.freedesktop.DBus.Error.Unknown* error",
          str(gone))
    stopped = h.error_of("/org/bluez/hci0", ADAPTER, "StopDiscovery")
    check(stopped == ("org.bluez.Error.Failed", "No discovery started"),
          "StopDiscovery without discovery fails", str(stopped))

    first = h.error_of(FORERUNNER_PATH, DEVICE, "Connect")
    second = h.error_of(FORERUNNER_PATH, DEVICE, "Connect")
    check(first == ("org.bluez.Error.Failed", "le-connection-abort-by-local"),
          "the first Connect fails as scripted", str(first))
    check(second is not None and second[0] == "org.bluez.Error.InProgress",
          "the second Connect fails as scripted", str(second))
    asked = time.monotonic()
    h.call(FORERUNNER_PATH, DEVICE, "Connect")
    answered = time.monotonic()
    check(answered - asked >= 0.19, "Connect answers when services are resolved",
          f"{answered - asked:.3f} s")
    h.pump(0.01)
    check(h.changed(FORERUNNER_PATH, DEVICE, "Connected") == [True]
          and h.changed(FORERUNNER_PATH, DEVICE, "ServicesResolved") == [True],
          "Connected then ServicesResolved went true")
    check(h.added(CHARACTERISTIC) == [],
          "no characteristic is exported yet when ServicesResolved turns true")
    h.wait_for(lambda: len(h.added(CHARACTERISTIC)) == 5, 3, "five characteristics")
    resolved_at = next(t for t, m, p, a in h.signals if m == "PropertiesChanged"
                       and p == FORERUNNER_PATH and "ServicesResolved" in a[1])
    exported_at = next(t for t, m, _, a in h.signals
                       if m == "InterfacesAdded" and CHARACTERISTIC in a[1])
    check(exported_at - resolved_at >= 0.29,
          "characteristics come characteristics_delay after ServicesResolved",
          f"{exported_at - resolved_at:.3f} s")
    chars = h.characteristic_paths()
    check(sorted(chars) == ["2a19", "2a37", "2a38", "2a53", "2a54"],
          "a characteristic for every read and notified UUID", str(sorted(chars)))
    check(all(p.startswith(FORERUNNER_PATH + "/service") and "/char" in p
              for p in chars.values()), "characteristic paths are .../serviceNNNN/charNNNN")
    objects = h.objects()
    service_of_hr = str(objects[chars["2a37"]][CHARACTERISTIC]["Service"])
    check(str(objects[service_of_hr][SERVICE]["UUID"]) == uuid128("180d"),
          "the HR measurement lives in the 180d service")
    check([str(f) for f in objects[chars["2a37"]][CHARACTERISTIC]["Flags"]] == ["notify"]
          and [str(f) for f in objects[chars["2a38"]][CHARACTERISTIC]["Flags"]] == ["read"],
          "flags: notify for 2a37, read for 2a38")
    check(int(objects[FORERUNNER_PATH][BATTERY]["Percentage"]) == 0x5a,
          "Battery1 Percentage comes from the 2a19 read value")

    for uuid, expected in (("2a38", "01"), ("2a54", "0300"), ("2a19", "5a")):
        got = bytes(h.call(chars[uuid], CHARACTERISTIC, "ReadValue", "a{sv}", [{}])).hex()
        check(got == expected, f"ReadValue {uuid} gives {expected}", got)
    refused = h.error_of(chars["2a37"], CHARACTERISTIC, "ReadValue", "a{sv}", [{}])
    check(refused is not None and refused[0] == "org.bluez.Error.NotPermitted",
          "ReadValue on a notify-only characteristic is NotPermitted", str(refused))
    acquire = h.error_of(chars["2a37"], CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    check(acquire is not None and acquire[0] == "org.bluez.Error.NotSupported",
          "with acquire_notify absent, AcquireNotify is NotSupported", str(acquire))
    check("NotifyAcquired" not in objects[chars["2a37"]][CHARACTERISTIC],
          "with acquire_notify absent, NotifyAcquired is not exported")
    no_notify = h.error_of(chars["2a38"], CHARACTERISTIC, "StartNotify")
    check(no_notify is not None and no_notify[0] == "org.bluez.Error.NotSupported",
          "StartNotify on a read-only characteristic is NotSupported", str(no_notify))

    h.call(chars["2a37"], CHARACTERISTIC, "StartNotify")
    h.call(chars["2a53"], CHARACTERISTIC, "StartNotify")
    twice = h.error_of(chars["2a37"], CHARACTERISTIC, "StartNotify")
    check(twice == ("org.bluez.Error.Failed", "Already notifying"),
          "a second StartNotify from the same client fails", str(twice))
    h.wait_for(lambda: len(values(h, chars["2a37"])) + len(values(h, chars["2a53"])) >= 5, 5,
               "the first five notifications")
    check(h.changed(chars["2a37"], CHARACTERISTIC, "Notifying") == [True],
          "Notifying went true with a PropertiesChanged")
    measured = (chars["2a37"], chars["2a53"])
    order = stream(h, measured)
    # Per characteristic the order is exact whatever the load; across the two
    # it also depends on both StartNotify calls landing before 0.25 s.
    check(values(h, chars["2a37"]) == ["0648", "0649", "064a"]
          and values(h, chars["2a53"]) == ["02c800ab", "02c900ab"],
          "the notifications arrive with the exact bytes, in order",
          f"{values(h, chars['2a37'])} {values(h, chars['2a53'])}")

    h.wait_for(lambda: h.changed(FORERUNNER_PATH, DEVICE, "Connected")[-1:] == [False], 5,
               "the scripted dropout")
    check(h.changed(FORERUNNER_PATH, DEVICE, "ServicesResolved")[-1:] == [False],
          "the dropout clears ServicesResolved")
    check(sorted(h.removed(CHARACTERISTIC)) == sorted(chars.values())
          and BATTERY in [i for _, m, p, a in h.signals if m == "InterfacesRemoved"
                          and str(a[0]) == FORERUNNER_PATH for i in a[1]],
          "the dropout removes every characteristic and Battery1")
    down = h.error_of(FORERUNNER_PATH, DEVICE, "Connect")
    check(down == ("org.bluez.Error.Failed", "Host is down"),
          "Connect while the device is away fails with Host is down", str(down))
    not_connected = h.error_of(FORERUNNER_PATH, DEVICE, "Disconnect")
    check(not_connected is not None and not_connected[0] == "org.bluez.Error.NotConnected",
          "Disconnect while not connected is NotConnected", str(not_connected))

    deadline = time.monotonic() + 5
    while h.error_of(FORERUNNER_PATH, DEVICE, "Connect") is not None and time.monotonic() < deadline:
        h.pump(0.2)
    h.wait_for(lambda: len(h.characteristic_paths()) == 5, 3, "the characteristics to return")
    chars_again = h.characteristic_paths()
    check(chars_again == chars, "after the return the same characteristic paths come back")
    before = len(order)
    h.pump(0.3)
    check(len(stream(h, measured)) == before, "nothing is sent before StartNotify is called again")
    h.call(chars["2a37"], CHARACTERISTIC, "StartNotify")
    h.wait_for(lambda: values(h, chars["2a37"])[-1:] == ["064b"], 5, "064b after the return")
    h.pump(0.4)  # 02ca00ab falls due meanwhile, while 2a53 is not notifying
    check(values(h, chars["2a53"]) == ["02c800ab", "02c900ab"],
          "nothing is sent on a characteristic that is not notifying")
    subscribed = len(h.signals)
    h.call(chars["2a53"], CHARACTERISTIC, "StartNotify")
    h.wait_for(lambda: len(stream(h, measured)) >= 7, 5, "the notifications after the return")
    check(values(h, chars["2a53"])[-1:] == ["02ca00ab"]
          and any(m == "PropertiesChanged" and "Value" in a[1]
                  for _, m, _, a in h.signals[subscribed:]),
          "a notification due before StartNotify is held and sent once it is called")
    check(sorted(stream(h, measured)) == sorted(FIRST_HALF + SECOND_HALF)
          and stream(h, measured)[-2:] == SECOND_HALF,
          "the stream resumes where it stopped, nothing lost or repeated", str(stream(h, measured)))

    h.call(chars["2a37"], CHARACTERISTIC, "StopNotify")
    check(h.changed(chars["2a37"], CHARACTERISTIC, "Notifying")[-1:] == [False]
          if h.wait_for(lambda: h.changed(chars["2a37"], CHARACTERISTIC, "Notifying")[-1:]
                        == [False], 2, "Notifying false") else False,
          "StopNotify turns Notifying false")
    again = h.error_of(chars["2a37"], CHARACTERISTIC, "StopNotify")
    check(again == ("org.bluez.Error.Failed", "No notify session started"),
          "a second StopNotify fails", str(again))
    h.call(FORERUNNER_PATH, DEVICE, "Disconnect")
    h.pump(0.05)
    check(h.changed(FORERUNNER_PATH, DEVICE, "Connected")[-1:] == [False]
          and h.characteristic_paths() == {}, "Disconnect drops the link and the GATT objects")

    stream_seen = stream(h, measured)
    log = h.stop()
    calls = [line for line in log if "method" in line]
    events = [line for line in log if "event" in line]
    filters = [c["args"] for c in calls if c["method"] == "SetDiscoveryFilter"]
    check(filters[-1] == [{"UUIDs": [uuid128("180d"), uuid128("1814")], "Transport": "le",
                           "DuplicateData": False}],
          "the call log renders SetDiscoveryFilter's dict as a JSON object", str(filters[-1:]))
    starts = [c["path"] for c in calls if c["method"] == "StartNotify"]
    check(starts.count(chars["2a37"]) == 3 and starts.count(chars["2a53"]) == 2,
          "the call log counts StartNotify per characteristic", str(starts))
    check(all({"t", "path", "interface", "method", "args"} <= set(c) for c in calls)
          and all(isinstance(c["t"], float) for c in calls),
          "every call line has t, path, interface, method, args")
    logged = [e["hex"] for e in events if e["event"] == "notify"]
    check(logged == stream_seen, "the call log has one notify event per notification, "
          "with its bytes, in the order sent", f"{logged} vs {stream_seen}")
    notify = next(e for e in events if e["event"] == "notify")
    check(notify["characteristic"] == "2a37" and notify["path"] == chars["2a37"],
          "a notify event names the characteristic and its path")
    kinds = [e["event"] for e in events if e["event"] in ("disconnect", "return")]
    check(kinds == ["disconnect", "return"]
          and all(e["device"] == FORERUNNER for e in events if e["event"] in kinds),
          "the call log has the disconnect and return events")
    read = [c for c in calls if c["method"] == "ReadValue"]
    check(read and read[0]["args"] == [{}], "ReadValue's options are logged as an object")


HRM = "D0:D1:D2:D3:D4:D5"
HRM_PATH = "/org/bluez/hci0/dev_D0_D1_D2_D3_D4_D5"

SYSTEM_FLOW = {
    "adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": True}],
    "devices": [
        {"address": HRM, "name": "HRM-Pro", "services": ["180d"], "paired": True,
         "resolve_delay": 0.05, "notifications": [[0.0, "2a37", "0650"], [0.1, "2a37", "0651"]],
         "loop": True},
        {"address": "C0:C1:C2:C3:C4:C5", "name": "RunPod", "services": ["1814"],
         "resolve_delay": 0.05, "reads": {"2a54": "0100"}},
        {"address": "E0:E1:E2:E3:E4:E5", "name": "Wahoo TICKR", "services": ["180d"],
         "reads": {"2a38": "01"}},
    ],
    "events": [[2.0, "adapter_power", False], [3.0, "adapter_power", True],
               [4.5, "restart_bluez", 0.5]],
}


ACQUIRE_FLOW = {
    "adapters": [{"name": "hci0"}],
    "devices": [
        {"address": FORERUNNER, "name": "Forerunner 265", "services": ["180d", "1814"], "known": True,
         "notifications": [[0.0, "2a37", "0648"], [0.25, "2a53", "02c800ab"], [0.5, "2a37", "0649"]],
         "hang_up_after": 2.0},
        {"address": "C0:C1:C2:C3:C4:C5", "name": "Stryd", "services": ["1814"], "known": True,
         "notifications": [[0.0, "2a53", "02c800ab"]], "loop": True, "acquire_notify": "refused"},
    ],
}


def acquire_flow():
    print("# AcquireNotify: one packet per notification on a socket of the client's own")
    h = Harness(ACQUIRE_FLOW, "acquire")
    h.call(FORERUNNER_PATH, DEVICE, "Connect")
    h.wait_for(lambda: len(h.characteristic_paths()) == 2, 3, "the characteristics")
    chars = h.characteristic_paths()
    check(not bool(h.objects()[chars["2a37"]][CHARACTERISTIC]["NotifyAcquired"]),
          "NotifyAcquired is exported, false")
    fd, mtu = h.call(chars["2a37"], CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    hr = socket.socket(fileno=fd.take())
    rsc_fd, _ = h.call(chars["2a53"], CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    rsc = socket.socket(fileno=rsc_fd.take())
    check(hr.type == socket.SOCK_SEQPACKET and int(mtu) >= 23, "a SOCK_SEQPACKET socket and an MTU",
          f"{hr.type} {mtu}")
    h.wait_for(lambda: h.changed(chars["2a37"], CHARACTERISTIC, "NotifyAcquired") == [True], 2,
               "NotifyAcquired true")
    again = h.error_of(chars["2a37"], CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    check(again is not None and again[0] == "org.bluez.Error.NotPermitted",
          "a second AcquireNotify is NotPermitted", str(again))
    hr.settimeout(3)
    rsc.settimeout(3)
    received = [hr.recv(512).hex(), hr.recv(512).hex(), rsc.recv(512).hex()]
    check(received == ["0648", "0649", "02c800ab"], "one packet per notification, exact bytes", str(received))
    check(values(h, chars["2a37"]) == [], "no PropertiesChanged Value for an acquired characteristic")
    h.pump(2.0)
    check(hr.recv(512) == b"", "hang_up_after: bluetoothd hangs the socket up, the link stays",
          str(h.changed(FORERUNNER_PATH, DEVICE, "Connected")))
    check(h.changed(chars["2a37"], CHARACTERISTIC, "NotifyAcquired")[-1:] == [False],
          "after the hang-up NotifyAcquired is false")
    fd, _ = h.call(chars["2a37"], CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    hr = socket.socket(fileno=fd.take())
    hr.close()
    check(h.wait_for(lambda: h.changed(chars["2a37"], CHARACTERISTIC, "NotifyAcquired")[-1:] == [False]
                     and len(h.changed(chars["2a37"], CHARACTERISTIC, "NotifyAcquired")) == 4, 2,
                     "the release"), "closing the socket releases it (NotifyAcquired false)")

    stryd = "/org/bluez/hci0/dev_C0_C1_C2_C3_C4_C5"
    h.call(stryd, DEVICE, "Connect")
    def footpod_characteristics():
        return [str(p) for p, props in h.objects().items() if CHARACTERISTIC in props and p.startswith(stryd)]
    h.wait_for(lambda: footpod_characteristics(), 3, "the footpod's characteristic")
    footpod_rsc = footpod_characteristics()[0]
    refused = h.error_of(footpod_rsc, CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    check(refused == ("org.bluez.Error.NotPermitted", "Notify acquired"),
          "acquire_notify refused: NotPermitted, as when another client holds it", str(refused))
    rsc.close()
    log = h.stop()
    check([e["event"] for e in log if e.get("event") in ("acquire_notify", "hang_up", "released")].count(
        "acquire_notify") == 3, "the call log has each AcquireNotify")


LATE_CLOSE_FLOW = {
    "adapters": [{"name": "hci0"}],
    "devices": [
        {"address": FORERUNNER, "name": "Forerunner 265", "services": ["180d"], "known": True,
         "notifications": [[0.0, "2a37", "0648"]], "sockets_close_after": 0.5},
    ],
}


def late_close_flow():
    print("# sockets_close_after: the link's signals come before its acquired sockets close")
    h = Harness(LATE_CLOSE_FLOW, "late-close")
    h.call(FORERUNNER_PATH, DEVICE, "Connect")
    h.wait_for(lambda: len(h.characteristic_paths()) == 1, 3, "the characteristic")
    fd, _ = h.call(h.characteristic_paths()["2a37"], CHARACTERISTIC, "AcquireNotify", "a{sv}", [{}])
    hr = socket.socket(fileno=fd.take())
    hr.settimeout(3)
    check(hr.recv(512).hex() == "0648", "the first notification arrives")
    h.call(FORERUNNER_PATH, DEVICE, "Disconnect")
    h.wait_for(lambda: h.changed(FORERUNNER_PATH, DEVICE, "Connected")[-1:] == [False], 2, "Connected false")
    hr.setblocking(False)
    try:
        hr.recv(512)
        still_open = False
    except BlockingIOError:
        still_open = True
    check(still_open, "Connected is false while the socket is still open")
    h.pump(0.7)
    hr.settimeout(1)
    check(hr.recv(512) == b"", "the socket is closed sockets_close_after later")
    hr.close()
    h.stop()


UNSIGNALLED_FLOW = {
    "adapters": [{"name": "hci0"}],
    "devices": [
        {"address": FORERUNNER, "name": "Forerunner 265", "services": ["180d"], "known": True,
         "notifications": [[0.0, "2a37", "0648"]], "resolve_delay": 0.3, "connected_unsignalled": True},
    ],
}


def unsignalled_flow():
    print("# connected_unsignalled: Connect answered at once, Connected true without a signal")
    h = Harness(UNSIGNALLED_FLOW, "unsignalled")
    h.call(FORERUNNER_PATH, DEVICE, "Connect")
    props = h.objects()[FORERUNNER_PATH][DEVICE]
    check(bool(props["Connected"]) and not bool(props["ServicesResolved"]),
          "Connect answers before the services resolve, and Connected reads true")
    h.wait_for(lambda: h.changed(FORERUNNER_PATH, DEVICE, "ServicesResolved") == [True], 2, "ServicesResolved")
    check(h.changed(FORERUNNER_PATH, DEVICE, "Connected") == [],
          "no PropertiesChanged says Connected", str(h.changed(FORERUNNER_PATH, DEVICE, "Connected")))
    h.call(FORERUNNER_PATH, DEVICE, "Disconnect")
    h.wait_for(lambda: h.changed(FORERUNNER_PATH, DEVICE, "Connected") == [False], 2, "Connected false")
    h.stop()


def system_flow():
    print("# a paired strap through adapter off/on and a bluetoothd restart")
    h = Harness(SYSTEM_FLOW, "system")
    h.call("/org/bluez/hci0", ADAPTER, "StartDiscovery")
    h.wait_for(lambda: len(h.added(DEVICE)) == 2, 3, "two devices to be discovered")
    h.call("/org/bluez/hci0", ADAPTER, "StopDiscovery")
    h.call(FOOTPOD_PATH, DEVICE, "Connect")
    h.call(HRM_PATH, DEVICE, "Connect")
    h.wait_for(lambda: "2a37" in h.characteristic_paths(), 3, "the HR characteristic")
    hr = h.characteristic_paths()["2a37"]
    h.call(hr, CHARACTERISTIC, "StartNotify")
    h.wait_for(lambda: len(values(h, hr)) >= 4, 3, "looping notifications")
    check(values(h, hr)[:4] == ["0650", "0651", "0650", "0651"],
          "a looping stream repeats in order")

    h.wait_for(lambda: h.changed("/org/bluez/hci0", ADAPTER, "Powered") == [False], 5,
               "the adapter to power off")
    check(h.changed(HRM_PATH, DEVICE, "Connected")[-1:] == [False],
          "powering off disconnects the device")
    check(h.changed("/org/bluez/hci0", ADAPTER, "PowerState")[-1:] == ["off"],
          "PowerState follows Powered")
    not_ready = h.error_of(HRM_PATH, DEVICE, "Connect")
    check(not_ready is not None and not_ready[0] == "org.bluez.Error.NotReady",
          "Connect with the adapter off is NotReady", str(not_ready))
    scan = h.error_of("/org/bluez/hci0", ADAPTER, "StartDiscovery")
    check(scan is not None and scan[0] == "org.bluez.Error.NotReady",
          "StartDiscovery with the adapter off is NotReady", str(scan))
    count = len(values(h, hr))
    h.wait_for(lambda: h.changed("/org/bluez/hci0", ADAPTER, "Powered")[-1:] == [True], 5,
               "the adapter to power on")
    h.call(HRM_PATH, DEVICE, "Connect")
    h.wait_for(lambda: "2a37" in h.characteristic_paths(), 3, "the HR characteristic again")
    h.call(hr, CHARACTERISTIC, "StartNotify")
    h.wait_for(lambda: len(values(h, hr)) >= count + 2, 3, "notifications after power on")
    check(len(values(h, hr)) >= count + 2, "notifications resume after power on")

    old_owner = h.conn.get_name_owner("org.bluez")
    h.wait_for(lambda: len(h.owner_changes) >= 2, 6, "org.bluez to vanish and come back")
    check(h.owner_changes[:1] == [(old_owner, "")], "the restart drops the org.bluez owner",
          str(h.owner_changes))
    check(len(h.owner_changes) >= 2 and h.owner_changes[1][0] == ""
          and h.owner_changes[1][1] not in ("", old_owner),
          "a new owner takes org.bluez after the restart", str(h.owner_changes))
    objects = h.objects()
    check("/org/bluez/hci0" in objects and HRM_PATH in objects
          and not objects[HRM_PATH][DEVICE]["Connected"]
          and not any(CHARACTERISTIC in props for props in objects.values()),
          "after the restart: adapter and paired device, not connected, no GATT objects")
    check(FOOTPOD_PATH in objects and not objects[FOOTPOD_PATH][DEVICE]["Connected"]
          and "/org/bluez/hci0/dev_E0_E1_E2_E3_E4_E5" not in objects,
          "after the restart a device once connected is still known, one only seen is not")
    h.call(HRM_PATH, DEVICE, "Connect")
    h.wait_for(lambda: "2a37" in h.characteristic_paths(), 3, "the HR characteristic after restart")
    count = len(values(h, hr))
    h.call(hr, CHARACTERISTIC, "StartNotify")
    h.wait_for(lambda: len(values(h, hr)) >= count + 2, 3, "notifications after the restart")
    check(len(values(h, hr)) >= count + 2, "notifications resume after the restart")

    log = h.stop()
    events = [line["event"] for line in log if "event" in line]
    check("restart" in events and "restarted" in events
          and events.count("adapter_power") == 2,
          "the call log has the restart and adapter power events")


def other_scenarios():
    print("# no adapter; bad scenarios")
    h = Harness({"adapters": [], "devices": []}, "empty")
    objects = h.objects()
    check(not any(ADAPTER in props for props in objects.values()),
          "with adapters: [] no Adapter1 is exported")
    check("/org/bluez" in objects, "the manager object /org/bluez is still there")
    h.stop()

    folder = tempfile.mkdtemp(prefix="fakebluez-bad-")
    bad = os.path.join(folder, "bad.json")
    with open(bad, "w", encoding="utf-8") as handle:
        json.dump({"adapters": [{"name": "hci0"}],
                   "devices": [{"address": "F0:F1:F2:F3:F4:F5", "rssi": "loud"}]}, handle)
    result = subprocess.run([PYTHON, FAKE, "--bus", "unix:path=/nonexistent", "--scenario", bad,
                             "--call-log", os.path.join(folder, "c.jsonl")],
                            capture_output=True, text=True, check=False)
    check(result.returncode == 65 and "$.devices[0].rssi" in result.stderr
          and "Traceback" not in result.stderr,
          "a bad scenario exits 65 naming the JSON path", result.stderr.strip())
    result = subprocess.run([PYTHON, FAKE, "--bus", "unix:path=/nonexistent", "--scenario",
                             os.path.join(folder, "missing.json"), "--call-log",
                             os.path.join(folder, "c.jsonl")],
                            capture_output=True, text=True, check=False)
    check(result.returncode == 66, "a missing scenario exits 66", result.stderr.strip())
    with open(bad, "w", encoding="utf-8") as handle:
        json.dump({"adapters": [{"name": "hci0"}]}, handle)
    result = subprocess.run([PYTHON, FAKE, "--bus", "unix:path=" + os.path.join(folder, "none"),
                             "--scenario", bad, "--call-log", os.path.join(folder, "c.jsonl")],
                            capture_output=True, text=True, check=False)
    check(result.returncode == 69 and "Traceback" not in result.stderr,
          "an unreachable bus exits 69", result.stderr.strip())
    shutil.rmtree(folder)


def bundled_scenarios():
    print("# the bundled scenarios in scenarios/ all run")
    for path in sorted(glob.glob(os.path.join(HERE, "scenarios", "*.json"))):
        with open(path, encoding="utf-8") as handle:
            scenario = json.load(handle)
        h = Harness(scenario, "bundled")
        objects = h.objects()
        adapters = [p for p, props in objects.items() if ADAPTER in props]
        h.stop()
        check(len(adapters) == len(scenario.get("adapters", [])),
              f"{os.path.basename(path)}: the fake starts and exports its adapters")


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    for part in (device_flow, acquire_flow, late_close_flow, unsignalled_flow, system_flow, other_scenarios, bundled_scenarios):
        try:
            part()
        except Exception as error:  # one broken part should not hide the others' results
            check(False, f"{part.__name__} ran to the end", f"{type(error).__name__}: {error}")
        for harness in Harness.running:
            harness.kill()
        Harness.running.clear()
    print(f"{CHECKS.passed} passed, {CHECKS.failed} failed")
    return 1 if CHECKS.failed else 0


if __name__ == "__main__":
    sys.exit(main())
