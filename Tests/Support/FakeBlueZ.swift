public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The fake org.bluez (Tests/FakeBlueZ/fake_bluez.py) on a private bus, playing a scenario.
/// Stopped when the value goes away.
public final class FakeBlueZ: @unchecked Sendable {
    public let bus: PrivateBus
    public let callLog: URL
    private let process: Process

    /// The repository root, found from this file (Tests/Support/FakeBlueZ.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Starts the fake on a new private bus with the named scenario from
    /// Tests/FakeBlueZ/scenarios, or a scenario given as JSON text.
    public init(scenario name: String? = nil, json: String? = nil) throws {
        bus = try PrivateBus()
        let scenarioPath: String
        if let json {
            scenarioPath = bus.folder.appendingPathComponent("scenario.json").path
            try Data(json.utf8).write(to: URL(fileURLWithPath: scenarioPath))
        } else {
            scenarioPath = Self.packageRoot.appendingPathComponent("Tests/FakeBlueZ/scenarios/\(name ?? "").json").path
        }
        callLog = bus.folder.appendingPathComponent("calls.jsonl")
        let ready = bus.folder.appendingPathComponent("ready").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            Self.packageRoot.appendingPathComponent("Tests/FakeBlueZ/fake_bluez.py").path, "--bus", bus.address,
            "--scenario", scenarioPath, "--call-log", callLog.path, "--ready-file", ready,
        ]
        try process.run()
        try waitFor(timeout: 20, "the fake org.bluez to be ready") {
            guard process.isRunning else { throw TimedOut(description: "fake_bluez.py exited \(process.terminationStatus)") }
            return FileManager.default.fileExists(atPath: ready)
        }
    }

    /// Every line of the call log so far, parsed.
    public func log() -> [[String: Any]] {
        guard let text = try? String(contentsOf: callLog, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The method calls made to `method`, in order.
    public func calls(_ method: String) -> [[String: Any]] {
        log().filter { $0["method"] as? String == method }
    }

    /// The fake's own events of one kind ("hang_up", "released", "acquire_notify"), in order.
    public func events(_ name: String) -> [[String: Any]] {
        log().filter { $0["event"] as? String == name }
    }

    /// The notify events the fake sent: (characteristic, hex), in order.
    public func sentNotifications() -> [(characteristic: String, hex: String)] {
        log().compactMap { line in
            guard line["event"] as? String == "notify", let characteristic = line["characteristic"] as? String,
                let hex = line["hex"] as? String
            else { return nil }
            return (characteristic, hex)
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
