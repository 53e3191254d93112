internal import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// A private connection to a message bus. Closed and released in deinit.
///
/// The connection is driven by its owner: `readWrite` moves bytes, `popMessage` hands over
/// what arrived (replies, signals) without libdbus's own dispatch, so the owner sees every
/// message in order and decides what it means. Use from one thread at a time.
public final class DBusConnection: @unchecked Sendable {
    private let raw: OpaquePointer

    private init(raw: OpaquePointer) {
        self.raw = raw
        // libdbus's default for bus connections is to call _exit() when the bus goes away;
        // a running session must outlive bluetoothd's bus, so turn it off.
        libdbus.connection_set_exit_on_disconnect(raw, 0)
    }

    deinit {
        libdbus.connection_close(raw)
        libdbus.connection_unref(raw)
    }

    /// The system bus (DBUS_SYSTEM_BUS_ADDRESS when set, else the standard socket), where
    /// bluetoothd lives.
    public static func system() throws(DBusCallError) -> DBusConnection {
        let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? Self.systemBusDefaultAddress
        return try open(address, named: "the system bus")
    }

    /// libdbus's own default for the system bus, where DBUS_SYSTEM_BUS_ADDRESS is not set.
    static let systemBusDefaultAddress = "unix:path=/var/run/dbus/system_bus_socket"

    /// The bus at `address` (e.g. `unix:path=/tmp/test/bus`), registered with it.
    public static func bus(address: String) throws(DBusCallError) -> DBusConnection {
        try open(address, named: "the bus at \(address)")
    }

    /// How long a bus may take to let us in: authentication, then its answer to Hello.
    public static let connectTimeoutSeconds = 5

    /// Connects and registers, each within `connectTimeoutSeconds`. Not dbus_bus_register (nor
    /// dbus_bus_get_private, which calls it): it waits for the bus's Hello holding a lock of the
    /// whole process, with no limit while authenticating, and a bus that accepts and never
    /// answers (a hung dbus-daemon) held `run`, `doctor` and `scan` silent for ever, deaf to
    /// Ctrl-C, and every other bus's connect with them.
    private static func open(_ address: String, named bus: String) throws(DBusCallError) -> DBusConnection {
        guard LibDBus.loaded != nil else { throw LibDBus.missing }
        Self.initialiseThreads
        let raw = try withDBusError { error in libdbus.connection_open_private(address, &error) }
        let connection = DBusConnection(raw: raw)
        let unanswered = DBusCallError(.noServer, "\(bus) does not answer (waited \(connectTimeoutSeconds) s): is dbus-daemon hung?")
        let deadline = Self.monotonicMilliseconds() + Int64(connectTimeoutSeconds) * 1000
        while libdbus.connection_get_is_authenticated(raw) == 0 {
            guard libdbus.connection_get_is_connected(raw) != 0 else {
                throw DBusCallError(.authFailed, "\(bus) closed the connection before letting us in")
            }
            let left = deadline - Self.monotonicMilliseconds()
            guard left > 0 else { throw unanswered }
            libdbus.connection_read_write(raw, Int32(min(left, 100)))
        }
        let hello = try DBusMessage(
            methodCallTo: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "Hello")
        let reply: DBusMessage
        do {
            reply = try connection.call(hello, timeoutMilliseconds: Int32(max(1, deadline - Self.monotonicMilliseconds())))
        } catch where error.name == .noReply || error.name == .timeout || error.name == .timedOut {
            throw unanswered
        }
        guard let name = try reply.arguments().first?.string, libdbus.bus_set_unique_name(raw, name) != 0 else {
            throw DBusCallError(.unexpectedReply, "\(bus) answered Hello without a unique name")
        }
        return connection
    }

    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Lets libdbus lock its internals, once per process, before any connection exists.
    private static let initialiseThreads: Void = { _ = libdbus.threads_init_default() }()

    /// Our unique name on the bus (":1.42").
    public var uniqueName: String { libdbus.bus_get_unique_name(raw).map { String(cString: $0) } ?? "" }

    public var isConnected: Bool { libdbus.connection_get_is_connected(raw) != 0 }

    /// The socket, for a caller that waits with poll(2) itself.
    public var fileDescriptor: Int32? {
        var fd: Int32 = -1
        return libdbus.connection_get_unix_fd(raw, &fd) != 0 ? fd : nil
    }

    /// Queues a message and returns its serial, which a reply's `replySerial` names.
    @discardableResult
    public func send(_ message: DBusMessage) throws(DBusCallError) -> UInt32 {
        var serial: UInt32 = 0
        guard libdbus.connection_send(raw, message.raw, &serial) != 0 else {
            throw DBusCallError(.noMemory, "could not queue a D-Bus message")
        }
        return serial
    }

    /// Writes what is queued and reads what has arrived, waiting up to `timeoutMilliseconds`
    /// for something to happen. False once the connection is closed.
    @discardableResult
    public func readWrite(timeoutMilliseconds: Int32) -> Bool {
        libdbus.connection_read_write(raw, timeoutMilliseconds) != 0
    }

    /// Whether queued messages are still waiting to be written (wait for the socket to be
    /// writable, then `readWrite`).
    public var hasMessagesToSend: Bool { libdbus.connection_has_messages_to_send(raw) != 0 }

    /// Writes everything queued before returning.
    public func flush() { libdbus.connection_flush(raw) }

    /// The next message that arrived, if any.
    public func popMessage() -> DBusMessage? {
        libdbus.connection_pop_message(raw).map { DBusMessage(owning: $0) }
    }

    /// Sends a method call and waits for its reply (blocking this thread). An error reply
    /// is thrown as a `DBusCallError`.
    public func call(_ message: DBusMessage, timeoutMilliseconds: Int32 = 25_000) throws(DBusCallError) -> DBusMessage {
        let reply = try withDBusError { error in
            libdbus.connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, &error)
        }
        return DBusMessage(owning: reply)
    }

    /// Asks the bus to route messages matching `rule` to us (blocks for the bus's answer).
    public func addMatch(_ rule: String) throws(DBusCallError) {
        _ = try withDBusError { error -> Bool? in
            libdbus.bus_add_match(raw, rule, &error)
            return true
        }
    }

    /// Asks the bus for `name`; true when we are its primary owner.
    public func requestName(_ name: String) throws(DBusCallError) -> Bool {
        let result = try withDBusError { error -> Int32? in
            let code = libdbus.bus_request_name(raw, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
            return code == -1 ? nil : code
        }
        return result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
    }
}

/// Runs a libdbus call that reports failure through a DBusError, mapping it in one place.
/// `body` returns nil (or a null pointer) on failure.
func withDBusError<T>(_ body: (inout DBusError) -> T?) throws(DBusCallError) -> T {
    var error = DBusError()
    libdbus.error_init(&error)
    defer { libdbus.error_free(&error) }
    let result = body(&error)
    if libdbus.error_is_set(&error) != 0 {
        let name = error.name.map { String(cString: $0) } ?? DBusErrorName.failed.rawValue
        let message = error.message.map { String(cString: $0) } ?? ""
        throw DBusCallError(DBusErrorName(rawValue: name), message)
    }
    guard let result else { throw DBusCallError(.failed, "libdbus call failed") }
    return result
}
