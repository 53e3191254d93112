internal import CDBus

/// libdbus-1, opened when the first connection is (see CDBus/shim.h); nil when it cannot be.
enum LibDBus {
    static let loaded: intervalpro_dbus? = {
        var api = intervalpro_dbus()
        return intervalpro_dbus_open(&api) == 0 ? api : nil
    }()

    /// What a connection throws when there is no libdbus-1 to open.
    static let missing = DBusCallError(.failed, "libdbus-1 is not installed (Debian: apt install libdbus-1-3)")
}

/// libdbus-1's functions. Every use of D-Bus starts with a connection, which checks
/// `LibDBus.loaded` first and throws `LibDBus.missing`; so this is only reached with it open.
let libdbus: intervalpro_dbus = {
    guard let api = LibDBus.loaded else { preconditionFailure("libdbus-1 used before a connection opened it") }
    return api
}()
