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
        try waitFor(timeout: 10) { FileManager.default.fileExists(atPath: socket) }
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
