/// A D-Bus error name, e.g. `org.freedesktop.DBus.Error.ServiceUnknown`.
///
/// The names a caller reacts to are constants here (the bus's own) and in the BlueZ target
/// (org.bluez.Error.*); any other name still round-trips as its raw value.
public struct DBusErrorName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let failed = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.Failed")
    public static let noMemory = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.NoMemory")
    public static let serviceUnknown = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.ServiceUnknown")
    public static let nameHasNoOwner = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.NameHasNoOwner")
    public static let noReply = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.NoReply")
    public static let timeout = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.Timeout")
    public static let timedOut = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.TimedOut")
    public static let noServer = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.NoServer")
    public static let fileNotFound = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.FileNotFound")
    public static let disconnected = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.Disconnected")
    public static let accessDenied = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.AccessDenied")
    public static let authFailed = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.AuthFailed")
    public static let invalidArgs = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.InvalidArgs")
    public static let unknownMethod = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.UnknownMethod")
    public static let unknownObject = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.UnknownObject")
    public static let unknownInterface = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.UnknownInterface")
    public static let unknownProperty = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.UnknownProperty")
    public static let matchRuleInvalid = DBusErrorName(rawValue: "org.freedesktop.DBus.Error.MatchRuleInvalid")
    /// Not a bus error: what this library reports when a reply's arguments are not the expected ones.
    public static let unexpectedReply = DBusErrorName(rawValue: "intervalpro.DBus.UnexpectedReply")

    /// The bus (not the peer) is gone or refused us: worth reconnecting, not retrying the call.
    public var meansBusUnavailable: Bool {
        self == .noServer || self == .fileNotFound || self == .disconnected || self == .authFailed
    }

    /// The peer that should answer does not exist (yet): e.g. bluetoothd is not running.
    public var meansServiceMissing: Bool {
        self == .serviceUnknown || self == .nameHasNoOwner
    }
}

/// A D-Bus error: a reply of type error, or a failure libdbus reported.
public struct DBusCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: DBusErrorName
    public var message: String

    public init(_ name: DBusErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    /// The message and the error's name; a message alone under the generic `Failed`, whose
    /// name says nothing more ("no session bus (…) (org.freedesktop.DBus.Error.Failed)").
    public var description: String {
        if message.isEmpty { return name.rawValue }
        return name == .failed ? message : "\(message) (\(name.rawValue))"
    }
}
