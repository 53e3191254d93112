public import IntervalProDBus
import IntervalProCore

/// Every BlueZ and bus name the client uses, in one place (BlueZ doc/org.bluez.*.rst).
public enum BlueZ {
    public static let service = "org.bluez"
    public static let rootPath = "/"

    public enum Interface {
        public static let objectManager = "org.freedesktop.DBus.ObjectManager"
        public static let properties = "org.freedesktop.DBus.Properties"
        public static let adapter = "org.bluez.Adapter1"
        public static let device = "org.bluez.Device1"
        public static let gattService = "org.bluez.GattService1"
        public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
        public static let battery = "org.bluez.Battery1"
    }

    public enum Bus {
        public static let service = "org.freedesktop.DBus"
        public static let path = "/org/freedesktop/DBus"
        public static let interface = "org.freedesktop.DBus"
    }

    /// Signals the mirror needs, registered before GetManagedObjects so nothing falls
    /// between the snapshot and the first signal.
    public static let matchRules = [
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
    ]

    /// Expands a 16-bit SIG UUID to BlueZ's 128-bit string form.
    public static func uuid(_ short: UInt16) -> String { BluetoothUUID.fullText(short) }

    /// The 16-bit form of a SIG-based 128-bit UUID string, else nil.
    public static func shortUUID(_ uuid: String) -> UInt16? {
        uuid.count == 36 ? BluetoothUUID.value(of: uuid) : nil
    }

    /// The services a runner's sensors advertise.
    public static let heartRateService: UInt16 = 0x180D
    public static let runningSpeedAndCadenceService: UInt16 = 0x1814
    public static let batteryService: UInt16 = 0x180F
}

extension DBusErrorName {
    public static let bluezFailed = DBusErrorName(rawValue: "org.bluez.Error.Failed")
    public static let bluezInProgress = DBusErrorName(rawValue: "org.bluez.Error.InProgress")
    public static let bluezNotReady = DBusErrorName(rawValue: "org.bluez.Error.NotReady")
    public static let bluezNotSupported = DBusErrorName(rawValue: "org.bluez.Error.NotSupported")
    public static let bluezNotPermitted = DBusErrorName(rawValue: "org.bluez.Error.NotPermitted")
    public static let bluezNotAuthorized = DBusErrorName(rawValue: "org.bluez.Error.NotAuthorized")
    public static let bluezInvalidArguments = DBusErrorName(rawValue: "org.bluez.Error.InvalidArguments")
    public static let bluezDoesNotExist = DBusErrorName(rawValue: "org.bluez.Error.DoesNotExist")
    public static let bluezAlreadyConnected = DBusErrorName(rawValue: "org.bluez.Error.AlreadyConnected")
    public static let bluezAlreadyExists = DBusErrorName(rawValue: "org.bluez.Error.AlreadyExists")
    public static let bluezNotConnected = DBusErrorName(rawValue: "org.bluez.Error.NotConnected")
    public static let bluezNotAvailable = DBusErrorName(rawValue: "org.bluez.Error.NotAvailable")

    /// A connect attempt that is worth repeating after a pause (radio contention, a
    /// previous attempt still running, the device briefly out of reach).
    public var isTransientConnectFailure: Bool {
        self == .bluezFailed || self == .bluezInProgress || self == .bluezNotReady || self == .noReply
            || self == .timeout || self == .timedOut || self == .bluezAlreadyConnected
    }
}

/// Messages BlueZ puts in org.bluez.Error.Failed that change what the client does.
public enum BlueZFailureMessage {
    /// The controller gave up creating the link (common right after a scan): retry.
    public static let connectionAbortedLocally = "le-connection-abort-by-local"
    /// The device object went away with discovery: scan again before the next Connect.
    public static let deviceRemoved = "Device removed"
}
