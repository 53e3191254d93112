#!/usr/bin/python3
"""A fake MPRIS media player for IntervalPro's music-control tests.

Owns org.mpris.MediaPlayer2.NAME on a private dbus-daemon that the test
started and exports /org/mpris/MediaPlayer2 with the org.mpris.MediaPlayer2
and org.mpris.MediaPlayer2.Player interfaces (MPRIS 2.2), Properties with
PropertiesChanged, and Introspectable. A test plays the user through the
org.intervalpro.FakePlayer interface (SetVolumeAsUser, SetStatusAsUser,
SetTrackAsUser). Every method call received, every property Set and its
outcome, every user change and every PropertiesChanged sent go to a
JSON-lines log. Several fakes with different names can share one bus.

Usage (see README.md in this folder):
  /usr/bin/python3 fake_player.py [--bus ADDRESS] [--name NAME] [--log CALLS.jsonl]
      [--ready-file PATH] [--status Playing|Paused|Stopped] [--volume V]
      [--read-only-volume | --no-volume] [--read-only-error KIND]
      [--title TITLE] [--artist ARTIST]... [--length SECONDS] [--identity TEXT]
      [--vanish-after SECONDS]
"""

import json
import os
import signal
import sys
import time

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "PythonSupport"))
from fakes import EX_IOERR, EX_UNAVAILABLE, EX_USAGE, Usage  # noqa: E402

NAME_PREFIX = "org.mpris.MediaPlayer2."
OBJECT_PATH = "/org/mpris/MediaPlayer2"
ROOT_IFACE = "org.mpris.MediaPlayer2"
PLAYER_IFACE = "org.mpris.MediaPlayer2.Player"
CONTROL_IFACE = "org.intervalpro.FakePlayer"
PROPERTIES_IFACE = dbus.PROPERTIES_IFACE
INTROSPECTABLE_IFACE = dbus.INTROSPECTABLE_IFACE
PEER_IFACE = "org.freedesktop.DBus.Peer"
# Not under /org/mpris: the specification keeps that for NoTrack.
TRACK_PREFIX = "/org/intervalpro/FakePlayer/Track/"

STATUSES = ("Playing", "Paused", "Stopped")
# How a player refuses Set on a read-only property. sd-bus and recent GLib say
# PropertyReadOnly, GLib 2.74 (Debian 12) InvalidArgs "Property “Volume” is not
# writable", some players AccessDenied; some (Spotify) reply OK and change nothing.
READ_ONLY_ERRORS = {
    "PropertyReadOnly": "org.freedesktop.DBus.Error.PropertyReadOnly",
    "AccessDenied": "org.freedesktop.DBus.Error.AccessDenied",
    "InvalidArgs": "org.freedesktop.DBus.Error.InvalidArgs",
    "ignore": None,
}
INVALID_ARGS = "org.freedesktop.DBus.Error.InvalidArgs"


def error(name, message):
    return dbus.exceptions.DBusException(message, name=name)


def jsonable(value):
    """D-Bus values for the log: dicts as objects, arrays as arrays, paths as strings."""
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
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    return repr(value)


SIGNATURE_OF_TYPE = [
    (dbus.Boolean, "b"), (dbus.Byte, "y"), (dbus.Int16, "n"), (dbus.UInt16, "q"),
    (dbus.Int32, "i"), (dbus.UInt32, "u"), (dbus.Int64, "x"), (dbus.UInt64, "t"),
    (dbus.Double, "d"), (dbus.ObjectPath, "o"), (dbus.Signature, "g"), (dbus.String, "s"),
]


def signature_of(value):
    """The D-Bus type a received variant held."""
    if isinstance(value, dbus.Array):
        return "a" + (value.signature or "v")
    if isinstance(value, dbus.Dictionary):
        return "a{" + (value.signature or "sv") + "}"
    if isinstance(value, dbus.Struct):
        return "(" + (value.signature or "") + ")"
    for kind, signature in SIGNATURE_OF_TYPE:
        if isinstance(value, kind):
            return signature
    return "v"


class CallLog:
    """One JSON object per line, flushed at once: t = time.monotonic(), wall = time.time()."""

    def __init__(self, path):
        self.handle = open(path, "w", encoding="utf-8")

    def write(self, record):
        line = {"t": round(time.monotonic(), 6), "wall": round(time.time(), 6)}
        line.update(record)
        self.handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.handle.flush()

    def event(self, kind, /, **fields):
        record = {"event": kind}
        record.update(fields)
        self.write(record)


class Player(dbus.service.Object):
    """/org/mpris/MediaPlayer2: the player's state and its D-Bus face."""

    def __init__(self, app, conn):
        super().__init__(conn, OBJECT_PATH)
        self.app = app
        args = app.args
        self.status = args.status
        self.volume = args.volume if args.volume >= 0 else 0.0
        self.title = args.title
        self.artists = list(args.artist or [])
        self.length_us = int(round(args.length * 1_000_000))
        self.track = 1
        self.position_us = 0
        self.playing_since = time.monotonic() if self.status == "Playing" else None

    # -- the property table ------------------------------------------------------
    def volume_access(self):
        return "read" if self.app.args.read_only_volume else "readwrite"

    def property_table(self):
        """interface -> [(name, signature, access)], in introspection order."""
        player = [
            ("PlaybackStatus", "s", "read"),
            ("Rate", "d", "readwrite"),
            ("Metadata", "a{sv}", "read"),
        ]
        if not self.app.args.no_volume:
            player.append(("Volume", "d", self.volume_access()))
        player += [
            ("Position", "x", "read"),
            ("MinimumRate", "d", "read"),
            ("MaximumRate", "d", "read"),
            ("CanGoNext", "b", "read"),
            ("CanGoPrevious", "b", "read"),
            ("CanPlay", "b", "read"),
            ("CanPause", "b", "read"),
            ("CanSeek", "b", "read"),
            ("CanControl", "b", "read"),
        ]
        root = [
            ("CanQuit", "b", "read"),
            ("CanRaise", "b", "read"),
            ("HasTrackList", "b", "read"),
            ("Identity", "s", "read"),
            ("DesktopEntry", "s", "read"),
            ("SupportedUriSchemes", "as", "read"),
            ("SupportedMimeTypes", "as", "read"),
        ]
        return {ROOT_IFACE: root, PLAYER_IFACE: player}

    def value_of(self, name):
        args = self.app.args
        values = {
            "CanQuit": lambda: dbus.Boolean(False),
            "CanRaise": lambda: dbus.Boolean(False),
            "HasTrackList": lambda: dbus.Boolean(False),
            "Identity": lambda: dbus.String(args.identity or f"Fake player {args.name}"),
            "DesktopEntry": lambda: dbus.String(args.name.split(".")[0].lower()),
            "SupportedUriSchemes": lambda: dbus.Array(["file"], signature="s"),
            "SupportedMimeTypes": lambda: dbus.Array(["audio/mpeg", "audio/ogg"], signature="s"),
            "PlaybackStatus": lambda: dbus.String(self.status),
            "Rate": lambda: dbus.Double(1.0),
            "Metadata": self.metadata,
            "Volume": lambda: dbus.Double(self.volume),
            "Position": lambda: dbus.Int64(self.position()),
            "MinimumRate": lambda: dbus.Double(1.0),
            "MaximumRate": lambda: dbus.Double(1.0),
            "CanGoNext": lambda: dbus.Boolean(True),
            "CanGoPrevious": lambda: dbus.Boolean(True),
            "CanPlay": lambda: dbus.Boolean(True),
            "CanPause": lambda: dbus.Boolean(True),
            "CanSeek": lambda: dbus.Boolean(True),
            "CanControl": lambda: dbus.Boolean(True),
        }
        return values[name]()

    def lookup(self, interface_name, property_name):
        """(interface, signature, access) of a property, or an InvalidArgs error."""
        table = self.property_table()
        if interface_name and interface_name not in table:
            raise error(INVALID_ARGS, f"No such interface '{interface_name}'")
        for interface in ([interface_name] if interface_name else list(table)):
            for name, signature, access in table[interface]:
                if name == property_name:
                    return interface, signature, access
        raise error(INVALID_ARGS, f"No such property '{property_name}'")

    def metadata(self):
        values = {
            "mpris:trackid": dbus.ObjectPath(f"{TRACK_PREFIX}{self.track}"),
            "mpris:length": dbus.Int64(self.length_us),
        }
        if self.title is not None:
            values["xesam:title"] = dbus.String(self.title)
        if self.artists:
            values["xesam:artist"] = dbus.Array(self.artists, signature="s")
        return dbus.Dictionary(values, signature="sv")

    def position(self):
        position = self.position_us
        if self.playing_since is not None:
            position += int((time.monotonic() - self.playing_since) * 1_000_000)
        return min(position, self.length_us)

    # -- changes -------------------------------------------------------------------
    def changed(self, names, by):
        """PropertiesChanged on the Player interface for `names`, and a log line."""
        values = {name: self.value_of(name) for name in names}
        self.app.log.event("changed", interface=PLAYER_IFACE, properties=jsonable(values), by=by)
        self.PropertiesChanged(PLAYER_IFACE, dbus.Dictionary(values, signature="sv"),
                               dbus.Array([], signature="s"))

    def set_status(self, status, by):
        if status == self.status:
            return
        if status == "Playing":
            self.playing_since = time.monotonic()
        else:
            self.position_us = 0 if status == "Stopped" else self.position()
            self.playing_since = None
        self.status = status
        self.changed(["PlaybackStatus"], by)

    def set_volume(self, value, by):
        """Returns whether the volume changed. Negative means 0 (MPRIS)."""
        value = max(0.0, float(value))
        if value == self.volume:
            return False
        self.volume = value
        self.changed(["Volume"], by)
        return True

    def set_position(self, position_us):
        self.position_us = max(0, position_us)
        if self.playing_since is not None:
            self.playing_since = time.monotonic()
        self.Seeked(dbus.Int64(self.position_us))

    def change_track(self, step, by, title=None, artists=None):
        self.track = max(1, self.track + step)
        if title is not None:
            self.title = title
        if artists is not None:
            self.artists = list(artists)
        self.position_us = 0
        if self.playing_since is not None:
            self.playing_since = time.monotonic()
        self.changed(["Metadata"], by)

    # -- org.freedesktop.DBus.Properties ---------------------------------------------
    @dbus.service.method(PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface_name, property_name):
        self.lookup(interface_name, property_name)
        return self.value_of(property_name)

    @dbus.service.method(PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface_name):
        table = self.property_table()
        if interface_name not in table:
            if interface_name in (CONTROL_IFACE, PROPERTIES_IFACE, INTROSPECTABLE_IFACE, PEER_IFACE):
                return dbus.Dictionary({}, signature="sv")
            raise error(INVALID_ARGS, f"No such interface '{interface_name}'")
        return dbus.Dictionary({name: self.value_of(name) for name, _, _ in table[interface_name]},
                               signature="sv")

    @dbus.service.method(PROPERTIES_IFACE, in_signature="ssv", out_signature="",
                         sender_keyword="sender")
    def Set(self, interface_name, property_name, value, sender=None):
        record = {"property": property_name, "interface": interface_name,
                  "value": jsonable(value), "signature": signature_of(value), "sender": sender}
        try:
            _, signature, access = self.lookup(interface_name, property_name)
            if access == "read":
                refusal = READ_ONLY_ERRORS[self.app.args.read_only_error]
                if refusal is None:
                    record["result"] = "ignored"
                    return
                raise error(refusal, f"Property '{property_name}' is not writable")
            if signature_of(value) != signature:
                raise error(INVALID_ARGS, f"Error setting property '{property_name}': "
                            f"expected type '{signature}' but got '{signature_of(value)}'")
            if property_name == "Volume":
                record["result"] = "changed" if self.set_volume(value, sender) else "unchanged"
            elif property_name == "Rate":
                if float(value) != 1.0:
                    raise error(INVALID_ARGS, "Rate must be between MinimumRate and MaximumRate")
                record["result"] = "unchanged"
        except dbus.exceptions.DBusException as refused:
            record["result"] = "refused"
            record["error"] = refused.get_dbus_name()
            raise
        finally:
            self.app.log.event("set", **record)

    @dbus.service.signal(PROPERTIES_IFACE, signature="sa{sv}as")
    def PropertiesChanged(self, interface_name, changed_properties, invalidated_properties):
        pass

    # -- org.freedesktop.DBus.Introspectable --------------------------------------------
    @dbus.service.method(INTROSPECTABLE_IFACE, in_signature="", out_signature="s",
                         path_keyword="object_path", connection_keyword="connection")
    def Introspect(self, object_path, connection):
        """By hand: dbus-python's own leaves properties out; players' list them with access."""
        table = self.property_table()
        methods = {
            ROOT_IFACE: [("Raise", []), ("Quit", [])],
            PLAYER_IFACE: [("Next", []), ("Previous", []), ("Pause", []), ("PlayPause", []),
                           ("Stop", []), ("Play", []), ("Seek", [("Offset", "x")]),
                           ("SetPosition", [("TrackId", "o"), ("Position", "x")]),
                           ("OpenUri", [("Uri", "s")])],
            CONTROL_IFACE: [("SetVolumeAsUser", [("volume", "d")]),
                            ("SetStatusAsUser", [("status", "s")]),
                            ("SetTrackAsUser", [("title", "s"), ("artists", "as")])],
        }
        lines = ['<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"',
                 ' "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">',
                 "<node>",
                 f'  <interface name="{INTROSPECTABLE_IFACE}">',
                 '    <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>',
                 "  </interface>",
                 f'  <interface name="{PEER_IFACE}">',
                 '    <method name="Ping"/>',
                 '    <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>',
                 "  </interface>",
                 f'  <interface name="{PROPERTIES_IFACE}">',
                 '    <method name="Get"><arg name="interface_name" type="s" direction="in"/>'
                 '<arg name="property_name" type="s" direction="in"/>'
                 '<arg name="value" type="v" direction="out"/></method>',
                 '    <method name="GetAll"><arg name="interface_name" type="s" direction="in"/>'
                 '<arg name="properties" type="a{sv}" direction="out"/></method>',
                 '    <method name="Set"><arg name="interface_name" type="s" direction="in"/>'
                 '<arg name="property_name" type="s" direction="in"/>'
                 '<arg name="value" type="v" direction="in"/></method>',
                 '    <signal name="PropertiesChanged"><arg name="interface_name" type="s"/>'
                 '<arg name="changed_properties" type="a{sv}"/>'
                 '<arg name="invalidated_properties" type="as"/></signal>',
                 "  </interface>"]
        for interface in (ROOT_IFACE, PLAYER_IFACE, CONTROL_IFACE):
            lines.append(f'  <interface name="{interface}">')
            for name, arguments in methods[interface]:
                if not arguments:
                    lines.append(f'    <method name="{name}"/>')
                    continue
                args = "".join(f'<arg name="{a}" type="{t}" direction="in"/>' for a, t in arguments)
                lines.append(f'    <method name="{name}">{args}</method>')
            if interface == PLAYER_IFACE:
                lines.append('    <signal name="Seeked"><arg name="Position" type="x"/></signal>')
            for name, signature, access in table.get(interface, []):
                lines.append(f'    <property name="{name}" type="{signature}" access="{access}"/>')
            lines.append("  </interface>")
        lines.append("</node>")
        return "\n".join(lines) + "\n"

    # -- org.mpris.MediaPlayer2 ------------------------------------------------------------
    @dbus.service.method(ROOT_IFACE, in_signature="", out_signature="")
    def Raise(self):
        pass  # CanRaise is false: no effect

    @dbus.service.method(ROOT_IFACE, in_signature="", out_signature="")
    def Quit(self):
        pass  # CanQuit is false: no effect

    # -- org.mpris.MediaPlayer2.Player ---------------------------------------------------------
    @dbus.service.method(PLAYER_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def Play(self, sender=None):
        self.set_status("Playing", sender)

    @dbus.service.method(PLAYER_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def Pause(self, sender=None):
        if self.status == "Playing":  # paused stays paused, stopped stays stopped
            self.set_status("Paused", sender)

    @dbus.service.method(PLAYER_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def PlayPause(self, sender=None):
        self.set_status("Paused" if self.status == "Playing" else "Playing", sender)

    @dbus.service.method(PLAYER_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def Stop(self, sender=None):
        self.set_status("Stopped", sender)

    @dbus.service.method(PLAYER_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def Next(self, sender=None):
        self.change_track(1, sender)

    @dbus.service.method(PLAYER_IFACE, in_signature="", out_signature="", sender_keyword="sender")
    def Previous(self, sender=None):
        self.change_track(-1, sender)

    @dbus.service.method(PLAYER_IFACE, in_signature="x", out_signature="", sender_keyword="sender")
    def Seek(self, offset, sender=None):
        target = self.position() + int(offset)
        if target > self.length_us:
            self.change_track(1, sender)  # past the end: as Next (MPRIS)
        else:
            self.set_position(target)

    @dbus.service.method(PLAYER_IFACE, in_signature="ox", out_signature="")
    def SetPosition(self, track_id, position):
        # A stale track id or a position outside the track is ignored (MPRIS).
        if str(track_id) == f"{TRACK_PREFIX}{self.track}" and 0 <= int(position) <= self.length_us:
            self.set_position(int(position))

    @dbus.service.method(PLAYER_IFACE, in_signature="s", out_signature="")
    def OpenUri(self, uri):
        pass  # logged; nothing is opened

    @dbus.service.signal(PLAYER_IFACE, signature="x")
    def Seeked(self, position):
        pass

    # -- org.intervalpro.FakePlayer: the test plays the user ----------------------------------
    @dbus.service.method(CONTROL_IFACE, in_signature="d", out_signature="")
    def SetVolumeAsUser(self, volume):
        """The user turns the player's own volume knob: works even if Volume is read-only."""
        if self.app.args.no_volume:
            raise error("org.freedesktop.DBus.Error.NotSupported", "this player has no Volume")
        self.app.log.event("user_change", property="Volume", value=max(0.0, float(volume)))
        self.set_volume(volume, "user")

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def SetStatusAsUser(self, status):
        if status not in STATUSES:
            raise error(INVALID_ARGS, f"status must be one of {', '.join(STATUSES)}")
        self.app.log.event("user_change", property="PlaybackStatus", value=str(status))
        self.set_status(str(status), "user")

    @dbus.service.method(CONTROL_IFACE, in_signature="sas", out_signature="")
    def SetTrackAsUser(self, title, artists):
        """The user skips to another track: new trackid, title and artists."""
        self.app.log.event("user_change", property="Metadata", title=str(title),
                           artist=[str(a) for a in artists])
        self.change_track(1, "user", str(title), [str(a) for a in artists])


class App:
    def __init__(self, args):
        self.args = args
        self.bus_name = NAME_PREFIX + args.name
        self.log = CallLog(args.log or os.devnull)
        self.loop = GLib.MainLoop()
        self.conn = None
        self.player = None

    def start(self):
        # Before the ready file: a SIGTERM sent as soon as it appears must still exit 0.
        for signum in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, self.on_signal)
        self.conn = dbus.bus.BusConnection(self.args.bus)
        self.conn.set_exit_on_disconnect(False)
        self.conn.add_message_filter(self.log_call)
        self.conn.add_signal_receiver(
            self.bus_lost, signal_name="Disconnected",
            dbus_interface="org.freedesktop.DBus.Local", path="/org/freedesktop/DBus/Local")
        self.player = Player(self, self.conn)
        reply = self.conn.request_name(self.bus_name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            raise RuntimeError(f"could not own {self.bus_name} (reply {reply}): another owner?")
        self.log.event("ready", name=self.bus_name, unique_name=self.conn.get_unique_name(),
                       pid=os.getpid())
        if self.args.ready_file:
            with open(self.args.ready_file, "w", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()}\n")
        if self.args.vanish_after is not None:
            GLib.timeout_add(int(round(self.args.vanish_after * 1000)), self.vanish)

    def log_call(self, _conn, message):
        if isinstance(message, dbus.lowlevel.MethodCallMessage):
            self.log.write({
                "path": message.get_path(),
                "interface": message.get_interface(),
                "method": message.get_member(),
                "args": jsonable(message.get_args_list()),
                "sender": message.get_sender(),
            })
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    def vanish(self):
        """The player quits: gives up its name, then exits."""
        self.log.event("vanish", name=self.bus_name)
        try:
            self.conn.release_name(self.bus_name)
        except dbus.exceptions.DBusException as failure:
            print(f"fake_player: releasing {self.bus_name}: {failure}", file=sys.stderr)
        self.loop.quit()
        return False

    def bus_lost(self, *_):
        print("fake_player: the bus went away; exiting", file=sys.stderr)
        self.loop.quit()

    def run(self):
        self.loop.run()
        self.conn.close()
        self.log.handle.close()
        return 0

    def on_signal(self):
        self.loop.quit()
        return False


def main(argv):
    parser = Usage("fake_player", description="Fake MPRIS player for IntervalPro's tests.")
    parser.add_argument("--bus", default=os.environ.get("DBUS_SESSION_BUS_ADDRESS"),
                        help="address of the dbus-daemon to join (default: $DBUS_SESSION_BUS_ADDRESS)")
    parser.add_argument("--name", default="fake",
                        help="owns org.mpris.MediaPlayer2.NAME (default: fake)")
    parser.add_argument("--log", "--call-log", dest="log",
                        help="JSON-lines log of calls, Sets, changes and user changes")
    parser.add_argument("--ready-file", help="written (with the pid) once the name is owned")
    parser.add_argument("--status", choices=STATUSES, default="Playing",
                        help="initial PlaybackStatus (default: Playing)")
    parser.add_argument("--volume", type=float, default=0.8, help="initial Volume (default: 0.8)")
    volume = parser.add_mutually_exclusive_group()
    volume.add_argument("--read-only-volume", action="store_true",
                        help="Volume can be read but not Set")
    volume.add_argument("--no-volume", action="store_true", help="no Volume property at all")
    parser.add_argument("--read-only-error", choices=list(READ_ONLY_ERRORS), default="PropertyReadOnly",
                        help="how Set of a read-only property fails (default: PropertyReadOnly; "
                             "ignore: replies OK and changes nothing)")
    parser.add_argument("--title", help="Metadata xesam:title (default: none)")
    parser.add_argument("--artist", action="append",
                        help="Metadata xesam:artist entry (repeat for several; default: none)")
    parser.add_argument("--length", type=float, default=240.0,
                        help="track length in seconds, Metadata mpris:length (default: 240)")
    parser.add_argument("--identity", help="Identity (default: 'Fake player NAME')")
    parser.add_argument("--vanish-after", type=float, metavar="SECONDS",
                        help="release the name and exit this long after getting ready")
    args = parser.parse_args(argv)

    if not args.bus:
        parser.error("no bus: give --bus or set DBUS_SESSION_BUS_ADDRESS")
    try:
        dbus.validate_bus_name(NAME_PREFIX + args.name)
    except ValueError as invalid:
        parser.error(f"--name {args.name!r}: {invalid}")
    if args.length <= 0 or (args.vanish_after is not None and args.vanish_after < 0):
        parser.error("--length must be positive and --vanish-after not negative")

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    try:
        app = App(args)
    except OSError as failure:
        print(f"fake_player: {args.log}: {failure.strerror}", file=sys.stderr)
        return EX_IOERR
    try:
        app.start()
    except (dbus.exceptions.DBusException, RuntimeError) as failure:
        print(f"fake_player: bus {args.bus}: {failure}", file=sys.stderr)
        return EX_UNAVAILABLE
    except OSError as failure:
        print(f"fake_player: {args.ready_file}: {failure.strerror}", file=sys.stderr)
        return EX_IOERR
    return app.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
