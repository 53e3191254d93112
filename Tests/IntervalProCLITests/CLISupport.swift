import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Helpers for the end-to-end tests: find the built `intervalpro`, run it as a
// subprocess, and make scratch files. Nothing here asserts on its own.

/// The package checkout: three levels up from this file (Tests/IntervalProCLITests/x.swift).
let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Tests/IntervalProCLITests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // the package root

/// The `intervalpro` executable SwiftPM built next to the running test binary (the test
/// target depends on it), or the one INTERVALPRO_TEST_EXECUTABLE names: `make test` hands the
/// release build it ships, with its `intervalpro-web` beside it.
let executablePath: String = {
    if let given = ProcessInfo.processInfo.environment["INTERVALPRO_TEST_EXECUTABLE"], !given.isEmpty { return given }
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("intervalpro").path
}()

/// The data directory every test's `intervalpro` saves sessions into (unless the test
/// passes --db or its own XDG_DATA_HOME): one per test process, under the temporary directory,
/// removed when the process exits (a run of the suite left one behind each time).
let testDataHome: String = {
    try? FileManager.default.createDirectory(atPath: testDataHomePath(), withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: testDataHomePath()) }
    return testDataHomePath()
}()

private func testDataHomePath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("intervalpro-clitests-data-\(getpid())", isDirectory: true).path
}

func packagePath(_ relative: String) -> String {
    packageRoot.appendingPathComponent(relative).path
}

struct CommandResult: Sendable {
    var status: Int32
    var reason: Process.TerminationReason
    var stdoutData: Data
    var stderrData: Data

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    var stderr: String { String(decoding: stderrData, as: UTF8.self) }

    /// True when the process exited normally (was not killed by a signal).
    var exited: Bool { reason == .exit }
}

/// Bytes read from a pipe on another thread.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var finished = false

    func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        lock.unlock()
    }

    func finish() {
        lock.lock()
        finished = true
        lock.unlock()
    }

    var snapshot: Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }

    var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }

    /// Reads `handle` to its end on a background thread.
    static func reading(_ handle: FileHandle) -> Collected {
        let collected = Collected()
        let thread = Thread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                collected.append(chunk)
            }
            collected.finish()
        }
        thread.start()
        return collected
    }

    /// Waits (polling) until the bytes read so far satisfy `condition`, the pipe ends, or
    /// `seconds` pass. Returns whether the condition held.
    func wait(upTo seconds: Double, until condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(String(decoding: snapshot, as: UTF8.self)) { return true }
            if isFinished { return condition(String(decoding: snapshot, as: UTF8.self)) }
            usleep(20_000)
        }
        return condition(String(decoding: snapshot, as: UTF8.self))
    }

    /// Waits for the end of the pipe (the writer closed it), up to `seconds`.
    func waitForEnd(upTo seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while !isFinished, Date() < deadline { usleep(10_000) }
    }
}

/// A started `intervalpro` whose output is being collected.
final class RunningCommand: @unchecked Sendable {
    let process: Process
    let stdout: Collected
    let stderr: Collected

    /// - Parameter watchdog: seconds after which a process still running is killed, so that a
    ///   hung binary fails its test instead of hanging the suite.
    init(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String?] = [:],
        stdout stdoutHandle: FileHandle? = nil, stdin stdinHandle: FileHandle? = nil, watchdog: Double = 120,
        executable: String = executablePath
    ) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        var env = ProcessInfo.processInfo.environment
        // Keep the tests independent of the caller's environment.
        env["INTERVALPRO_RECORDINGS"] = nil
        env["NO_COLOR"] = nil
        // Sessions the tests run are saved here, never in the real user's data directory.
        env["XDG_DATA_HOME"] = testDataHome
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = stdinHandle ?? FileHandle.nullDevice
        let outPipe = Pipe()
        let errPipe = Pipe()
        if let stdoutHandle { process.standardOutput = stdoutHandle } else { process.standardOutput = outPipe }
        process.standardError = errPipe
        try process.run()
        stdout = Collected.reading(outPipe.fileHandleForReading)
        stderr = Collected.reading(errPipe.fileHandleForReading)
        if stdoutHandle != nil { try? outPipe.fileHandleForWriting.close() }
        // A watchdog, so that a hung binary fails the test instead of hanging the suite.
        let process = self.process
        DispatchQueue.global().asyncAfter(deadline: .now() + watchdog) {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    /// The terminal closed, or the ssh session dropped.
    func hangUp() {
        kill(process.processIdentifier, SIGHUP)
    }

    func interrupt() {
        kill(process.processIdentifier, SIGINT)
    }

    func finish() -> CommandResult {
        process.waitUntilExit()
        stdout.waitForEnd(upTo: 10)
        stderr.waitForEnd(upTo: 10)
        return CommandResult(
            status: process.terminationStatus, reason: process.terminationReason, stdoutData: stdout.snapshot,
            stderrData: stderr.snapshot)
    }
}

/// Runs `intervalpro ARGUMENTS` (from the package root unless told) to its end.
func intervalpro(
    _ arguments: String..., in directory: URL? = nil, environment: [String: String?] = [:]
) throws -> CommandResult {
    try RunningCommand(arguments, in: directory, environment: environment).finish()
}

func intervalpro(
    arguments: [String], in directory: URL? = nil, environment: [String: String?] = [:], watchdog: Double = 120,
    executable: String = executablePath
) throws -> CommandResult {
    try RunningCommand(arguments, in: directory, environment: environment, watchdog: watchdog, executable: executable)
        .finish()
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("intervalpro-clitests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// XDG_CONFIG_HOME and XDG_DATA_HOME within it: a command's settings and store of its own.
    var ownFolders: [String: String?] { ["XDG_CONFIG_HOME": path("config"), "XDG_DATA_HOME": path("data")] }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A three-minute plan: warmup 1:00 at 160, work 1:00 at 170, rest 1:00.
let shortPlanText = """
    {
      "name": "Short test",
      "steps": [
        {"kind": "warmup", "duration": "1:00", "cadence": 160},
        {"kind": "work", "duration": "1:00", "cadence": 170},
        {"kind": "rest", "duration": "1:00"}
      ]
    }

    """

/// A ten-minute plan, for runs that are interrupted.
let tenMinutePlanText = """
    {
      "name": "Ten minutes",
      "steps": [
        {"kind": "warmup", "duration": "5:00", "cadence": 160},
        {"kind": "work", "duration": "5:00", "cadence": 172}
      ]
    }

    """

/// The JSON object `text` holds, or nil.
func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

func jsonObject(_ data: Data) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// A JSON number as a Double (nil for null, strings, booleans, absent keys).
func number(_ value: Any?) -> Double? {
    guard let value, !(value is NSNull), !(value is String) else { return nil }
    return (value as? NSNumber)?.doubleValue
}

func isNull(_ value: Any?) -> Bool {
    value is NSNull
}

/// The lines of a file that are not blank.
func nonBlankLines(_ path: String) throws -> [String] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return text.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
}

/// Signs that a process crashed or dumped a backtrace instead of failing cleanly.
func looksLikeACrash(_ text: String) -> Bool {
    ["Fatal error", "Stack dump", "Current stack trace", "Backtrace", "💣", "Segmentation fault", "Illegal instruction"]
        .contains { text.contains($0) }
}

/// An environment in which no system bus can be reached, so live sensors are unavailable.
let noSystemBus: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/intervalpro-test-bus"]
