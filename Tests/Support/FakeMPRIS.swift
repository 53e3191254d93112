public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fake MPRIS media player (Tests/FakeMPRIS/fake_player.py) owning
/// `org.mpris.MediaPlayer2.NAME` on a private bus; several with different names can share one
/// bus. Its log has every method call it received, every property Set and its result, every
/// PropertiesChanged it sent and every change the test made as the user; `t` in the log is
/// CLOCK_MONOTONIC (compare with `FakeMPRIS.monotonicNow()`), `wall` is the Unix time.
/// Stopped when the value goes away.
public final class FakeMPRIS: @unchecked Sendable {
    public enum Status: String, Sendable {
        case playing = "Playing"
        case paused = "Paused"
        case stopped = "Stopped"
    }

    /// How Set of a read-only property (Volume with `readOnlyVolume`) fails.
    public enum ReadOnlyError: String, Sendable {
        /// org.freedesktop.DBus.Error.PropertyReadOnly (sd-bus, recent GLib).
        case propertyReadOnly = "PropertyReadOnly"
        /// org.freedesktop.DBus.Error.AccessDenied.
        case accessDenied = "AccessDenied"
        /// org.freedesktop.DBus.Error.InvalidArgs (GLib 2.74, Debian 12).
        case invalidArgs = "InvalidArgs"
        /// The reply is OK and nothing changes (Spotify).
        case ignore = "ignore"
    }

    public struct ControlFailed: Error, CustomStringConvertible {
        public var description: String
    }

    public let address: String
    /// NAME in `org.mpris.MediaPlayer2.NAME`.
    public let name: String
    /// The player's unique connection name (`:1.N`), the sender of its signals.
    public let uniqueName: String
    public let logFile: URL
    /// Holds the log and the ready file; removed when the value goes away.
    public let folder: URL
    private let process: Process
    /// The bus this fake was started on, kept alive as long as the fake.
    private var bus: PrivateBus?

    public var busName: String { "org.mpris.MediaPlayer2.\(name)" }

    /// Starts a fake player on `bus` and waits until it owns its name.
    public convenience init(
        bus: PrivateBus, name: String = "fake", status: Status = .playing, volume: Double = 0.8,
        readOnlyVolume: Bool = false, noVolume: Bool = false, readOnlyError: ReadOnlyError = .propertyReadOnly,
        title: String? = nil, artists: [String] = [], length: Double? = nil, identity: String? = nil,
        vanishAfter: Double? = nil
    ) throws {
        try self.init(
            address: bus.address, name: name, status: status, volume: volume, readOnlyVolume: readOnlyVolume,
            noVolume: noVolume, readOnlyError: readOnlyError, title: title, artists: artists, length: length,
            identity: identity, vanishAfter: vanishAfter)
        self.bus = bus
    }

    /// Starts a fake player on the bus at `address` and waits until it owns its name.
    /// `vanishAfter`: it releases its name and exits that many seconds after it got ready.
    public init(
        address: String, name: String = "fake", status: Status = .playing, volume: Double = 0.8,
        readOnlyVolume: Bool = false, noVolume: Bool = false, readOnlyError: ReadOnlyError = .propertyReadOnly,
        title: String? = nil, artists: [String] = [], length: Double? = nil, identity: String? = nil,
        vanishAfter: Double? = nil
    ) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "intervalpro-mpris-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let logFile = folder.appendingPathComponent("player.jsonl")
        let ready = folder.appendingPathComponent("ready").path
        var arguments = [
            FakeBlueZ.packageRoot.appendingPathComponent("Tests/FakeMPRIS/fake_player.py").path, "--bus", address,
            "--name", name, "--log", logFile.path, "--ready-file", ready, "--status", status.rawValue,
            "--volume", String(volume), "--read-only-error", readOnlyError.rawValue,
        ]
        if readOnlyVolume { arguments.append("--read-only-volume") }
        if noVolume { arguments.append("--no-volume") }
        if let title { arguments += ["--title", title] }
        for artist in artists { arguments += ["--artist", artist] }
        if let length { arguments += ["--length", String(length)] }
        if let identity { arguments += ["--identity", identity] }
        if let vanishAfter { arguments += ["--vanish-after", String(vanishAfter)] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        do {
            try process.run()
            try waitFor(timeout: 20, "the fake MPRIS player \(name) to be ready") {
                // With vanishAfter 0 it may be gone already, having written the ready file.
                if FileManager.default.fileExists(atPath: ready) { return true }
                guard process.isRunning else {
                    throw TimedOut(description: "fake_player.py --name \(name) exited \(process.terminationStatus)")
                }
                return false
            }
        } catch {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        let readyLine = Self.readLog(logFile).first { $0["event"] as? String == "ready" }
        self.address = address
        self.name = name
        self.folder = folder
        self.logFile = logFile
        self.process = process
        uniqueName = readyLine?["unique_name"] as? String ?? ""
    }

    /// Whether the fake is still running (false after `vanishAfter` or `stop()`).
    public var isRunning: Bool { process.isRunning }

    /// Every line of the log so far, parsed.
    public func log() -> [[String: Any]] {
        Self.readLog(logFile)
    }

    /// The method calls received for `method` ("Pause", "Set", "GetAll", ...), in order.
    /// Each has t, wall, path, interface, method, args, sender.
    public func calls(_ method: String) -> [[String: Any]] {
        log().filter { $0["method"] as? String == method }
    }

    /// The fake's events of one kind ("set", "changed", "user_change", "ready", "vanish"), in order.
    public func events(_ name: String) -> [[String: Any]] {
        log().filter { $0["event"] as? String == name }
    }

    /// Every Set of Volume the player received, accepted or not, in order. A value that was
    /// not a number (a client bug) is NaN.
    public func volumeSets() -> [(t: Double, wall: Double, value: Double)] {
        events("set").filter { $0["property"] as? String == "Volume" }.map { line in
            (
                t: Self.number(line["t"]) ?? .nan, wall: Self.number(line["wall"]) ?? .nan,
                value: Self.number(line["value"]) ?? .nan
            )
        }
    }

    /// The values Volume took, each with the PropertiesChanged sent for it; `by` is the
    /// unique name of the client whose Set changed it, or "user".
    public func volumeChanges() -> [(t: Double, wall: Double, value: Double, by: String)] {
        changes(of: "Volume").map { (t: $0.t, wall: $0.wall, value: Self.number($0.value) ?? .nan, by: $0.by) }
    }

    /// The values PlaybackStatus took ("Playing", "Paused", "Stopped"), and who changed it.
    public func statusChanges() -> [(t: Double, wall: Double, status: String, by: String)] {
        changes(of: "PlaybackStatus").map { (t: $0.t, wall: $0.wall, status: $0.value as? String ?? "", by: $0.by) }
    }

    /// Stops the player's process (SIGSTOP): it answers nothing, and calls wait in its queue.
    public func freeze() {
        kill(process.processIdentifier, SIGSTOP)
    }

    /// Lets a frozen player go on (SIGCONT): it takes the calls that waited, in order.
    public func thaw() {
        kill(process.processIdentifier, SIGCONT)
    }

    /// The user turns the player's volume (works on a read-only Volume too).
    public func setVolumeAsUser(_ volume: Double) throws {
        try control("SetVolumeAsUser", ["double:\(String(volume))"])
    }

    /// The user presses play, pause or stop in the player.
    public func setStatusAsUser(_ status: Status) throws {
        try control("SetStatusAsUser", ["string:\(status.rawValue)"])
    }

    /// The user skips to another track: a new mpris:trackid, title and artists.
    /// (dbus-send splits arrays at commas, so an artist may not contain one.)
    public func setTrackAsUser(title: String, artists: [String]) throws {
        guard !artists.contains(where: { $0.contains(",") }) else {
            throw ControlFailed(description: "setTrackAsUser: an artist with a comma cannot be sent by dbus-send")
        }
        try control("SetTrackAsUser", ["string:\(title)", "array:string:\(artists.joined(separator: ","))"])
    }

    /// Kills the fake (its name goes, as when a player crashes or quits). The log stays readable.
    public func stop() {
        // SIGKILL, as FakeBlueZ: the test runner's signal setup can leave SIGTERM ignored.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// CLOCK_MONOTONIC in seconds: the clock of the log's `t` (Python's time.monotonic()).
    public static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private func changes(of property: String) -> [(t: Double, wall: Double, value: Any?, by: String)] {
        events("changed").compactMap { line in
            guard let properties = line["properties"] as? [String: Any], let value = properties[property] else {
                return nil
            }
            return (
                t: Self.number(line["t"]) ?? .nan, wall: Self.number(line["wall"]) ?? .nan, value: value,
                by: line["by"] as? String ?? ""
            )
        }
    }

    /// Calls a method of the fake's org.intervalpro.FakePlayer interface with dbus-send and
    /// waits for the reply (the change and its PropertiesChanged are done by then).
    private func control(_ method: String, _ arguments: [String]) throws {
        let send = Process()
        send.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        send.arguments = [
            "--bus=\(address)", "--print-reply", "--reply-timeout=10000", "--dest=\(busName)",
            "/org/mpris/MediaPlayer2", "org.intervalpro.FakePlayer.\(method)",
        ] + arguments
        send.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        send.standardError = errors
        try send.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        send.waitUntilExit()
        guard send.terminationStatus == 0 else {
            throw ControlFailed(
                description: "\(method) on \(busName): dbus-send exited \(send.terminationStatus): "
                    + message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    private static func readLog(_ file: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// A JSON number as a Double (nil for null, strings, absent keys).
    private static func number(_ value: Any?) -> Double? {
        guard let value, !(value is NSNull), !(value is String) else { return nil }
        return (value as? NSNumber)?.doubleValue
    }
}
