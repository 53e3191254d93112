public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private dbus-daemon for one test: started on a socket in a fresh folder, stopped
/// (and the folder removed) when the value goes away.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    public let folder: URL
    private let daemon: Process

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("intervalpro-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let socket = folder.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // The session configuration lets any peer own any name, which a fake org.bluez needs.
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
        daemon.standardOutput = FileHandle.nullDevice
        // It warns that it may not raise its fd limit when not run by the system; harmless.
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        // The socket file appears when the daemon binds it, before it listens: a connection in
        // between is refused (seen on a loaded machine). Ready is when one is accepted.
        try waitFor(timeout: 10, "dbus-daemon to accept connections on \(socket)") { Self.accepts(socket) }
    }

    /// Whether a stream connection to the Unix socket at `path` is accepted (and closed at once).
    private static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return connected == 0
    }

    deinit {
        // SIGKILL: the daemon holds nothing worth a clean exit, and the test runner's
        // signal setup can leave SIGTERM ignored in children.
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}

public struct TimedOut: Error, CustomStringConvertible {
    public var description: String
}

/// Polls `condition` every 20 ms until it holds, failing after `timeout` seconds. Used only
/// to wait for something another process does, never to measure speed.
public func waitFor(timeout: Double, _ what: String = "condition", _ condition: () throws -> Bool) throws {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if try condition() { return }
        usleep(20_000)
    }
    throw TimedOut(description: "timed out after \(timeout) s waiting for \(what)")
}
