#!/usr/bin/python3
"""Smoke test of the fake MPRIS player, as a music-control client would use it.

Starts a private dbus-daemon, runs fake_player.py on it (several at once) and
drives them over D-Bus from here: players found by name, Get/GetAll and
Metadata types, Set Volume with PropertiesChanged, a read-only and an absent
Volume, Play/Pause/PlayPause/Stop with their signals, the test's user
controls, --vanish-after releasing the name, introspection, the log, and the
exit statuses for bad command lines.

Run from the repository root:  /usr/bin/python3 Tests/FakeMPRIS/smoke_test.py
Prints one line per check, then "N passed, M failed"; exits 1 if any failed.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_player.py")
PYTHON = "/usr/bin/python3"

PATH = "/org/mpris/MediaPlayer2"
ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
CONTROL = "org.intervalpro.FakePlayer"
PROPS = "org.freedesktop.DBus.Properties"
INTROSPECTABLE = "org.freedesktop.DBus.Introspectable"


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from smoke import Checks  # noqa: E402

CHECKS = Checks()
check = CHECKS.check


class Fake:
    """One fake_player.py process on the harness's bus."""

    def __init__(self, harness, name, options):
        self.name = name
        self.bus_name = "org.mpris.MediaPlayer2." + name
        self.log_path = os.path.join(harness.dir, f"{name}.jsonl")
        ready = os.path.join(harness.dir, f"{name}.ready")
        self.process = subprocess.Popen(
            [PYTHON, FAKE, "--bus", harness.address, "--name", name, "--log", self.log_path,
             "--ready-file", ready] + list(options))
        deadline = time.monotonic() + 20
        while not os.path.exists(ready):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the fake {name} did not get ready (status {self.process.poll()})")
            time.sleep(0.02)
        self.unique_name = str(harness.conn.get_name_owner(self.bus_name))

    def log(self):
        with open(self.log_path, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]


class Harness:
    """A private dbus-daemon, fakes on it, and a client connection."""

    running = []

    def __init__(self, name):
        Harness.running.append(self)
        self.fakes = []
        self.dir = tempfile.mkdtemp(prefix=f"fakempris-{name}-")
        self.daemon = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address",
             f"--address=unix:path={os.path.join(self.dir, 'bus')}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.daemon.stdout.readline().strip()
        self.conn = dbus.bus.BusConnection(self.address)
        self.signals = []  # (monotonic time, sender, member, path, args)
        self.conn.add_signal_receiver(self.on_signal, path=PATH, sender_keyword="sender",
                                      member_keyword="member", path_keyword="path")
        self.owner_changes = []  # (name, old, new)
        self.conn.add_signal_receiver(
            lambda name, old, new: self.owner_changes.append((str(name), str(old), str(new))),
            signal_name="NameOwnerChanged", dbus_interface="org.freedesktop.DBus")

    def start(self, name, *options):
        fake = Fake(self, name, options)
        self.fakes.append(fake)
        self.pump(0.05)
        return fake

    def on_signal(self, *args, sender=None, member=None, path=None):
        self.signals.append((time.monotonic(), str(sender), str(member), str(path), args))

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

    def call(self, fake, interface, method, signature="", args=(), timeout=10):
        return self.conn.call_blocking(fake.bus_name, PATH, interface, method, signature,
                                       list(args), timeout=timeout)

    def get(self, fake, name, interface=PLAYER):
        return self.call(fake, PROPS, "Get", "ss", [interface, name])

    def get_all(self, fake, interface=PLAYER):
        return self.call(fake, PROPS, "GetAll", "s", [interface])

    def set(self, fake, name, value, interface=PLAYER):
        self.call(fake, PROPS, "Set", "ssv", [interface, name, value])

    def error_of(self, fake, interface, method, signature="", args=()):
        """The error name of a call expected to fail, or None if it worked."""
        try:
            self.call(fake, interface, method, signature, args)
        except dbus.exceptions.DBusException as error:
            return error.get_dbus_name()
        return None

    def changed(self, fake, name):
        """Values a Player property took, in order, as PropertiesChanged from `fake` told."""
        return [args[1][name] for _, sender, member, _, args in self.signals
                if sender == fake.unique_name and member == "PropertiesChanged"
                and args[0] == PLAYER and name in args[1]]

    def stop(self, fake):
        fake.process.send_signal(signal.SIGTERM)
        try:
            status = fake.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            fake.process.kill()
            status = "hung"
        check(status == 0, f"the fake {fake.name} exits 0 on SIGTERM", f"status {status}")
        self.fakes.remove(fake)
        return fake.log()

    def close(self):
        for fake in list(self.fakes):
            self.stop(fake)
        self.conn.close()
        self.daemon.terminate()
        self.daemon.wait()
        shutil.rmtree(self.dir)
        Harness.running.remove(self)

    def kill(self):
        """After a failed part: leave no process behind."""
        for process in [f.process for f in self.fakes] + [self.daemon]:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def introspected_properties(h, fake, interface):
    """{name: (type, access)} of an interface, from Introspect."""
    root = ElementTree.fromstring(str(h.call(fake, INTROSPECTABLE, "Introspect")))
    for node in root.findall("interface"):
        if node.get("name") == interface:
            return {p.get("name"): (p.get("type"), p.get("access")) for p in node.findall("property")}
    return None


def discovery_and_properties():
    print("# two players on one bus: found by name, Get, GetAll, Metadata, introspection")
    h = Harness("props")
    vlc = h.start("vlc", "--title", "Lose Yourself", "--artist", "Eminem", "--artist", "Dr. Dre",
                  "--length", "326.5", "--identity", "VLC media player")
    spotify = h.start("spotify.instance42", "--status", "Paused", "--volume", "0.55")
    names = [str(n) for n in h.conn.list_names()]
    players = sorted(n for n in names if n.startswith("org.mpris.MediaPlayer2."))
    check(players == ["org.mpris.MediaPlayer2.spotify.instance42", "org.mpris.MediaPlayer2.vlc"],
          "ListNames shows both players (an instance suffix is allowed)", str(players))
    check(vlc.unique_name.startswith(":") and vlc.unique_name != spotify.unique_name,
          "each player has a unique name of its own")

    status = h.get(vlc, "PlaybackStatus")
    check(isinstance(status, dbus.String) and status == "Playing",
          "Get PlaybackStatus: the default is Playing", repr(status))
    check(str(h.get(spotify, "PlaybackStatus")) == "Paused", "--status Paused")
    volume = h.get(vlc, "Volume")
    check(isinstance(volume, dbus.Double) and float(volume) == 0.8,
          "Get Volume: a double, 0.8 by default", repr(volume))
    check(float(h.get(spotify, "Volume")) == 0.55, "--volume 0.55")

    player = h.get_all(vlc)
    expected = {"PlaybackStatus", "Rate", "Metadata", "Volume", "Position", "MinimumRate",
                "MaximumRate", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek",
                "CanControl"}
    check(set(str(k) for k in player) == expected, "GetAll Player has the MPRIS properties",
          str(sorted(set(str(k) for k in player) ^ expected)))
    check(all(bool(player[k]) for k in ("CanControl", "CanPlay", "CanPause", "CanGoNext")),
          "CanControl, CanPlay, CanPause, CanGoNext are true")
    check(isinstance(player["Position"], dbus.Int64), "Position is an int64 (microseconds)")
    metadata = player["Metadata"]
    check(isinstance(metadata["mpris:trackid"], dbus.ObjectPath)
          and str(metadata["mpris:trackid"]) == "/org/intervalpro/FakePlayer/Track/1",
          "Metadata mpris:trackid is an object path", repr(metadata.get("mpris:trackid")))
    check(isinstance(metadata["mpris:length"], dbus.Int64) and int(metadata["mpris:length"]) == 326_500_000,
          "Metadata mpris:length is an int64 in microseconds", repr(metadata.get("mpris:length")))
    check(str(metadata["xesam:title"]) == "Lose Yourself", "Metadata xesam:title")
    check(isinstance(metadata["xesam:artist"], dbus.Array) and metadata["xesam:artist"].signature == "s"
          and [str(a) for a in metadata["xesam:artist"]] == ["Eminem", "Dr. Dre"],
          "Metadata xesam:artist is an array of strings", repr(metadata.get("xesam:artist")))
    bare = h.get(spotify, "Metadata")
    check(set(str(k) for k in bare) == {"mpris:trackid", "mpris:length"},
          "without --title/--artist, Metadata has only trackid and length", str(list(bare)))

    root = h.get_all(vlc, ROOT)
    check(str(root["Identity"]) == "VLC media player" and not root["CanQuit"] and not root["CanRaise"]
          and not root["HasTrackList"] and str(root["DesktopEntry"]) == "vlc",
          "GetAll org.mpris.MediaPlayer2: Identity, CanQuit/CanRaise/HasTrackList false, DesktopEntry")
    check(root["SupportedUriSchemes"].signature == "s" and root["SupportedMimeTypes"].signature == "s",
          "SupportedUriSchemes and SupportedMimeTypes are arrays of strings")
    check(h.error_of(vlc, PROPS, "Get", "ss", [PLAYER, "Loudness"]) == "org.freedesktop.DBus.Error.InvalidArgs",
          "Get of an unknown property is InvalidArgs")
    check(h.error_of(vlc, PROPS, "GetAll", "s", ["org.example.Nothing"]) == "org.freedesktop.DBus.Error.InvalidArgs",
          "GetAll of an unknown interface is InvalidArgs")
    h.call(vlc, ROOT, "Raise")
    h.call(vlc, ROOT, "Quit")
    check(h.conn.name_has_owner(vlc.bus_name), "Raise and Quit are no-ops (CanQuit is false)")

    props = introspected_properties(h, vlc, PLAYER)
    check(props is not None and props.get("Volume") == ("d", "readwrite")
          and props.get("PlaybackStatus") == ("s", "read") and props.get("Metadata") == ("a{sv}", "read"),
          "Introspect lists the Player properties with their types and access", str(props))
    check(introspected_properties(h, vlc, CONTROL) == {}, "Introspect lists the test-control interface")
    h.close()


def volume():
    print("# Volume: Set, PropertiesChanged, read-only, absent")
    h = Harness("volume")
    vlc = h.start("vlc")
    before = time.monotonic()
    h.set(vlc, "Volume", dbus.Double(0.4))
    check(float(h.get(vlc, "Volume")) == 0.4, "Set Volume 0.4, Get says 0.4")
    h.wait_for(lambda: h.changed(vlc, "Volume") == [0.4], 3, "PropertiesChanged Volume 0.4")
    signal_at = next(t for t, s, m, _, a in h.signals if m == "PropertiesChanged" and "Volume" in a[1])
    check(h.changed(vlc, "Volume") == [0.4] and signal_at >= before,
          "Set emits PropertiesChanged(Player, {Volume: 0.4}, []) from the player", str(h.changed(vlc, "Volume")))
    changed = next(a for _, _, m, _, a in h.signals if m == "PropertiesChanged")
    check(isinstance(changed[1]["Volume"], dbus.Double) and list(changed[2]) == [],
          "the signal carries a double and no invalidated properties")
    h.set(vlc, "Volume", dbus.Double(0.4))
    h.set(vlc, "Volume", dbus.Double(0.8))
    h.pump(0.1)
    check(h.changed(vlc, "Volume") == [0.4, 0.8], "Setting the same value again sends no signal",
          str(h.changed(vlc, "Volume")))
    h.set(vlc, "Volume", dbus.Double(-0.5))
    check(float(h.get(vlc, "Volume")) == 0.0, "a negative Volume is set as 0 (MPRIS)")
    h.set(vlc, "Volume", dbus.Double(0.8))
    wrong = h.error_of(vlc, PROPS, "Set", "ssv", [PLAYER, "Volume", dbus.Int32(1, variant_level=1)])
    check(wrong == "org.freedesktop.DBus.Error.InvalidArgs" and float(h.get(vlc, "Volume")) == 0.8,
          "Set Volume with an int32 instead of a double is InvalidArgs, volume unchanged", str(wrong))
    status = h.error_of(vlc, PROPS, "Set", "ssv", [PLAYER, "PlaybackStatus", dbus.String("Paused")])
    check(status == "org.freedesktop.DBus.Error.PropertyReadOnly", "Set of PlaybackStatus is refused", str(status))

    fixed = h.start("fixed", "--read-only-volume", "--volume", "0.7")
    refused = h.error_of(fixed, PROPS, "Set", "ssv", [PLAYER, "Volume", dbus.Double(0.3)])
    check(refused == "org.freedesktop.DBus.Error.PropertyReadOnly",
          "--read-only-volume: Set fails with PropertyReadOnly", str(refused))
    check(float(h.get(fixed, "Volume")) == 0.7, "--read-only-volume: the volume is left as it was")
    check(introspected_properties(h, fixed, PLAYER).get("Volume") == ("d", "read"),
          "--read-only-volume: Introspect says access=\"read\"")
    denied = h.start("denied", "--read-only-volume", "--read-only-error", "AccessDenied")
    check(h.error_of(denied, PROPS, "Set", "ssv", [PLAYER, "Volume", dbus.Double(0.3)])
          == "org.freedesktop.DBus.Error.AccessDenied", "--read-only-error AccessDenied")
    deaf = h.start("deaf", "--read-only-volume", "--read-only-error", "ignore")
    check(h.error_of(deaf, PROPS, "Set", "ssv", [PLAYER, "Volume", dbus.Double(0.3)]) is None
          and float(h.get(deaf, "Volume")) == 0.8,
          "--read-only-error ignore: Set replies OK and changes nothing (as Spotify does)")
    h.pump(0.1)
    check(h.changed(fixed, "Volume") == [] and h.changed(deaf, "Volume") == [],
          "a refused or ignored Set sends no PropertiesChanged")

    mute = h.start("mute", "--no-volume")
    check("Volume" not in h.get_all(mute), "--no-volume: GetAll has no Volume")
    check(h.error_of(mute, PROPS, "Get", "ss", [PLAYER, "Volume"]) == "org.freedesktop.DBus.Error.InvalidArgs",
          "--no-volume: Get Volume is InvalidArgs")
    check(h.error_of(mute, PROPS, "Set", "ssv", [PLAYER, "Volume", dbus.Double(0.3)])
          == "org.freedesktop.DBus.Error.InvalidArgs", "--no-volume: Set Volume is InvalidArgs")
    check("Volume" not in introspected_properties(h, mute, PLAYER), "--no-volume: Introspect has no Volume")

    me = str(h.conn.get_unique_name())
    log = h.stop(vlc)
    sets = [line for line in log if line.get("event") == "set"]
    check([(s["value"], s["result"]) for s in sets if s["property"] == "Volume"]
          == [(0.4, "changed"), (0.4, "unchanged"), (0.8, "changed"), (-0.5, "changed"),
              (0.8, "changed"), (1, "refused")],
          "the log has a set event per Set of Volume with its result",
          str([(s["value"], s["result"]) for s in sets]))
    check(all(s["sender"] == me for s in sets), "set events name the caller's unique name")
    check(sets[5].get("error") == "org.freedesktop.DBus.Error.InvalidArgs" and sets[5]["signature"] == "i",
          "a refused set event has the error and the type sent", str(sets[5]))
    calls = [line for line in log if line.get("method") == "Set"]
    check(len(calls) == 7 and calls[0]["args"] == [PLAYER, "Volume", 0.4] and calls[0]["sender"] == me,
          "the log has every Set call with its args and sender", str(calls[:1]))
    changes = [line for line in log if line.get("event") == "changed"]
    check([c["properties"] for c in changes] == [{"Volume": 0.4}, {"Volume": 0.8}, {"Volume": 0.0}, {"Volume": 0.8}]
          and all(c["by"] == me for c in changes), "the log has a changed event per PropertiesChanged, by whom",
          str(changes))
    log = h.stop(fixed)
    check([s["result"] for s in log if s.get("event") == "set"] == ["refused"],
          "the read-only player logs the refused Set")
    h.close()


def playback():
    print("# Play, Pause, PlayPause, Stop and their PropertiesChanged")
    h = Harness("playback")
    vlc = h.start("vlc")
    h.call(vlc, PLAYER, "Pause")
    check(str(h.get(vlc, "PlaybackStatus")) == "Paused", "Pause: Paused")
    h.call(vlc, PLAYER, "Pause")
    h.call(vlc, PLAYER, "Play")
    check(str(h.get(vlc, "PlaybackStatus")) == "Playing", "Play: Playing")
    h.call(vlc, PLAYER, "PlayPause")
    h.call(vlc, PLAYER, "PlayPause")
    h.call(vlc, PLAYER, "Stop")
    h.call(vlc, PLAYER, "Pause")
    check(str(h.get(vlc, "PlaybackStatus")) == "Stopped", "Pause when stopped leaves it stopped")
    h.call(vlc, PLAYER, "PlayPause")
    h.wait_for(lambda: len(h.changed(vlc, "PlaybackStatus")) >= 6, 3, "six PlaybackStatus changes")
    check(h.changed(vlc, "PlaybackStatus") == ["Paused", "Playing", "Paused", "Playing", "Stopped", "Playing"],
          "one PropertiesChanged per change of PlaybackStatus, none for a repeated Pause",
          str(h.changed(vlc, "PlaybackStatus")))
    h.call(vlc, PLAYER, "Next")
    h.wait_for(lambda: h.changed(vlc, "Metadata"), 3, "Metadata after Next")
    check(str(h.changed(vlc, "Metadata")[0]["mpris:trackid"]) == "/org/intervalpro/FakePlayer/Track/2",
          "Next: a new mpris:trackid, with PropertiesChanged Metadata")
    h.call(vlc, PLAYER, "Seek", "x", [dbus.Int64(5_000_000)])
    h.call(vlc, PLAYER, "SetPosition", "ox", [dbus.ObjectPath("/org/intervalpro/FakePlayer/Track/2"),
                                              dbus.Int64(60_000_000)])
    h.wait_for(lambda: len([s for s in h.signals if s[2] == "Seeked"]) == 2, 3, "two Seeked signals")
    position = int(h.get(vlc, "Position"))
    check(60_000_000 <= position < 65_000_000, "SetPosition moves Position (and signals Seeked)", str(position))
    h.call(vlc, PLAYER, "OpenUri", "s", ["file:///tmp/song.ogg"])
    h.call(vlc, PLAYER, "Previous")

    log = h.stop(vlc)
    methods = [line["method"] for line in log if "method" in line and line["interface"] == PLAYER]
    check(methods == ["Pause", "Pause", "Play", "PlayPause", "PlayPause", "Stop", "Pause", "PlayPause",
                      "Next", "Seek", "SetPosition", "OpenUri", "Previous"],
          "the log has every Player method call in order", str(methods))
    first = next(line for line in log if line.get("method") == "Pause")
    check(set(first) >= {"t", "wall", "path", "interface", "method", "args", "sender"}
          and first["path"] == PATH and first["sender"] == str(h.conn.get_unique_name()),
          "a call line has t, wall, path, interface, method, args, sender", str(first))
    check([line["args"] for line in log if line.get("method") == "SetPosition"]
          == [["/org/intervalpro/FakePlayer/Track/2", 60_000_000]], "SetPosition's args are logged")
    h.close()


def user_controls():
    print("# the test plays the user: SetVolumeAsUser, SetStatusAsUser, SetTrackAsUser")
    h = Harness("user")
    fixed = h.start("fixed", "--read-only-volume", "--title", "One")
    h.call(fixed, CONTROL, "SetVolumeAsUser", "d", [0.3])
    h.call(fixed, CONTROL, "SetStatusAsUser", "s", ["Paused"])
    h.call(fixed, CONTROL, "SetTrackAsUser", "sas", ["Two", dbus.Array(["Someone"], signature="s")])
    h.wait_for(lambda: h.changed(fixed, "Metadata"), 3, "the user's track change")
    check(h.changed(fixed, "Volume") == [0.3] and float(h.get(fixed, "Volume")) == 0.3,
          "SetVolumeAsUser changes Volume (even a read-only one) with PropertiesChanged")
    check(h.changed(fixed, "PlaybackStatus") == ["Paused"], "SetStatusAsUser changes PlaybackStatus with a signal")
    metadata = h.get(fixed, "Metadata")
    check(str(metadata["xesam:title"]) == "Two" and [str(a) for a in metadata["xesam:artist"]] == ["Someone"]
          and str(metadata["mpris:trackid"]).endswith("/Track/2"),
          "SetTrackAsUser: new title, artists and trackid")
    bad = h.error_of(fixed, CONTROL, "SetStatusAsUser", "s", ["Dancing"])
    check(bad == "org.freedesktop.DBus.Error.InvalidArgs", "SetStatusAsUser refuses an unknown status", str(bad))
    mute = h.start("mute", "--no-volume")
    check(h.error_of(mute, CONTROL, "SetVolumeAsUser", "d", [0.3]) == "org.freedesktop.DBus.Error.NotSupported",
          "SetVolumeAsUser on a player with no Volume is NotSupported")
    log = h.stop(fixed)
    users = [(line["property"], line.get("value")) for line in log if line.get("event") == "user_change"]
    check(users == [("Volume", 0.3), ("PlaybackStatus", "Paused"), ("Metadata", None)],
          "the log has a user_change per user action", str(users))
    check([line["by"] for line in log if line.get("event") == "changed"] == ["user", "user", "user"],
          "changed events caused by the user say by: user")
    h.close()


def vanish_and_log_times():
    print("# --vanish-after, the log's clocks, SIGTERM")
    h = Harness("vanish")
    started = time.monotonic()
    wall_started = time.time()
    brief = h.start("brief", "--vanish-after", "0.5")
    stays = h.start("stays")
    old = brief.unique_name
    h.wait_for(lambda: any(n == brief.bus_name and new == "" for n, _, new in h.owner_changes), 5,
               "the name to be released")
    gone_at = time.monotonic()
    check((brief.bus_name, old, "") in h.owner_changes,
          "--vanish-after: NameOwnerChanged(name, owner, \"\")", str(h.owner_changes))
    check(gone_at - started >= 0.5, "the name is released no sooner than --vanish-after", f"{gone_at - started:.3f} s")
    try:
        status = brief.process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        status = "hung"
    check(status == 0, "then the fake exits 0", str(status))
    check(not h.conn.name_has_owner(brief.bus_name) and h.conn.name_has_owner(stays.bus_name),
          "the other player keeps its name")
    h.fakes.remove(brief)
    log = brief.log()
    check(log[0]["event"] == "ready" and log[0]["name"] == brief.bus_name and log[0]["unique_name"] == old,
          "the log starts with a ready event naming the bus name and unique name", str(log[0]))
    check(log[-1]["event"] == "vanish", "the log ends with a vanish event", str(log[-1]))
    check(all(isinstance(line["t"], float) and isinstance(line["wall"], float) for line in log),
          "every line has t and wall")
    check(started <= log[0]["t"] <= time.monotonic() and abs(log[0]["wall"] - wall_started) < 20,
          "t is time.monotonic() (comparable across processes), wall is time.time()",
          f"{log[0]['t']} vs {started}")
    check(log[-1]["t"] - log[0]["t"] >= 0.5, "vanish comes --vanish-after after ready")
    h.close()


def command_line():
    print("# the bus from the environment; exit statuses")
    h = Harness("cli")
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=h.address)
    ready = os.path.join(h.dir, "env.ready")
    process = subprocess.Popen([PYTHON, FAKE, "--name", "env", "--ready-file", ready], env=env)
    deadline = time.monotonic() + 20
    while not os.path.exists(ready) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    check(h.conn.name_has_owner("org.mpris.MediaPlayer2.env"),
          "with no --bus it joins $DBUS_SESSION_BUS_ADDRESS (and --log is optional)")
    process.terminate()
    check(process.wait(timeout=10) == 0, "SIGTERM: exit 0")

    h.start("taken")
    second = subprocess.run([PYTHON, FAKE, "--bus", h.address, "--name", "taken"],
                            capture_output=True, text=True, check=False, timeout=30)
    check(second.returncode == 69 and "Traceback" not in second.stderr,
          "a name already owned exits 69", second.stderr.strip())
    env.pop("DBUS_SESSION_BUS_ADDRESS")
    cases = [
        (["--bus", h.address, "--name", "9lives"], 64, "a --name that is not a bus name element exits 64"),
        (["--bus", h.address, "--read-only-volume", "--no-volume"], 64,
         "--read-only-volume with --no-volume exits 64"),
        (["--bus", h.address, "--status", "Dancing"], 64, "an unknown --status exits 64"),
        ([], 64, "no --bus and no DBUS_SESSION_BUS_ADDRESS exits 64"),
        (["--bus", "unix:path=" + os.path.join(h.dir, "none")], 69, "an unreachable bus exits 69"),
        (["--bus", h.address, "--name", "nolog", "--log", os.path.join(h.dir, "no", "such", "log")], 74,
         "an unwritable log exits 74"),
    ]
    for arguments, status, what in cases:
        result = subprocess.run([PYTHON, FAKE] + arguments, capture_output=True, text=True,
                                check=False, env=env, timeout=30)
        check(result.returncode == status and "Traceback" not in result.stderr, what,
              f"status {result.returncode}: {result.stderr.strip()}")
    h.close()


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    for part in (discovery_and_properties, volume, playback, user_controls, vanish_and_log_times,
                 command_line):
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
