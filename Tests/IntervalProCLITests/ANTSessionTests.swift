import Foundation
import IntervalProTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fake ANT stick behind a pseudo-terminal: `intervalpro` opens the terminal's path as it
/// opens `/dev/ttyUSB0`; this answers every command as the ANT Message Protocol says a stick
/// does and, while the channels are open, broadcasts a foot pod's page 2 (85.5 strides/min) on
/// channel 0 and a strap's page (a beat a second, 61 bpm) on channel 1, four times a second. A
/// reset closes them until they are opened again.
final class PseudoTerminalStick: @unchecked Sendable {
    let master: Int32
    let path: String
    private let stopped = NSLock()
    private var isStopped = false

    /// How many channels the session opens before the pages start.
    let channels: Int
    /// Whether the strap sends: without it, only the foot pod is in range.
    let strap: Bool
    /// After how many pages the stick reports a serial error (0xAE) once, as a stick does when
    /// a frame was damaged on the line; nil: never.
    let serialErrorAfter: Int?
    /// A stick that takes every command and answers none.
    let mute: Bool

    init(channels: Int = 2, strap: Bool = true, serialErrorAfter: Int? = nil, mute: Bool = false) throws {
        self.channels = channels
        self.strap = strap
        self.serialErrorAfter = serialErrorAfter
        self.mute = mute
        // posix_openpt, unlockpt and ptsname by hand: Glibc's module leaves them out. The ioctl
        // numbers are Linux's generic ones (asm-generic/ioctls.h).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw POSIXError(.ENODEV)
        }
        path = "/dev/pts/\(number)"
        Thread { [self] in serve() }.start()
    }

    func stop() {
        stopped.withLock { isStopped = true }
    }

    private var running: Bool { stopped.withLock { !isStopped } }

    private func send(_ id: UInt8, _ payload: [UInt8]) {
        var bytes = [0xA4, UInt8(payload.count), id] + payload
        bytes.append(bytes.reduce(0, ^))
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    private func serve() {
        var buffer: [UInt8] = []
        var opened = 0
        var tick = 0
        var nextPage = Date()
        var serialErrorAt = serialErrorAfter
        while running {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let wait = opened < channels ? 100 : max(0, Int32(nextPage.timeIntervalSinceNow * 1000))
            if poll(&poller, 1, wait) > 0 {
                var chunk = [UInt8](repeating: 0, count: 256)
                let count = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count > 0 { buffer += chunk[..<count] }
            }
            // Whole messages: A4, length, id, payload, checksum.
            while buffer.count >= 4, buffer[0] == 0xA4, buffer.count >= Int(buffer[1]) + 4 {
                let length = Int(buffer[1])
                let id = buffer[2]
                let payload = Array(buffer[3..<(3 + length)])
                buffer.removeFirst(length + 4)
                if mute { continue }
                if id == 0x4A {
                    opened = 0
                    send(0x6F, [0x20])
                } else {
                    send(0x40, [payload.first ?? 0, id, 0])
                }
                if id == 0x4B { opened += 1 }
            }
            if let first = buffer.first, first != 0xA4 { buffer.removeFirst() }
            guard opened >= channels, Date() >= nextPage else { continue }
            nextPage = Date().addingTimeInterval(0.25)
            if let at = serialErrorAt, tick >= at {
                serialErrorAt = nil
                send(0xAE, [0x00])
                continue
            }
            let beats = tick / 4
            let time = UInt16(truncatingIfNeeded: beats * 1024)
            send(0x4E, [0, 0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11, 0x80, 0xE1, 0x10, 124, 5])
            if strap {
                send(0x4E, [1, 0x00, 0, 0, 0, UInt8(time & 0xFF), UInt8(time >> 8), UInt8(truncatingIfNeeded: beats), 61, 0x80, 0x39, 0x30, 120, 1])
            }
            tick += 1
        }
    }

    deinit { close(master) }
}

@Suite("a session on ANT+ sensors through a stick (a pseudo-terminal stands in for /dev/ttyUSB0)")
struct ANTSessionTests {
    @Test("run --cadence ant:0 --hr ant:0 scores the foot pod's cadence in steps; its recording replays to the same summary")
    func sessionOnAStick() throws {
        let stick = try PseudoTerminalStick()
        defer { stick.stop() }
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Short ANT", "steps": [{"kind": "work", "duration": 6, "cadence": 170}]}"#)
        let recording = scratch.path("ant.jsonl")
        let run = try intervalpro(
            arguments: [
                "run", plan, "--cadence", "ant:0", "--hr", "ant:0", "--ant-stick", stick.path, "--json", "--no-save",
                "--record", recording, "--metronome", "off", "--no-voice",
            ],
            environment: ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("ant:4321"), "\(run.stderr)")
        let summary = try #require(jsonObject(run.stdoutData), "stdout: \(run.stdout) stderr: \(run.stderr)")
        let totals = try #require(summary["totals"] as? [String: Any])
        #expect(number(totals["avg_cadence_spm"]) == 171)
        #expect(number(totals["avg_hr_bpm"]) == 61)
        #expect(try #require(number(totals["in_zone_pct"])) > 80)

        let lines = try nonBlankLines(recording)
        #expect(lines.contains { $0.contains(#""char":"ant-sdm""#) && $0.contains(#""dev":"ant:4321""#) }, "\(lines.prefix(3))")
        let replay = try intervalpro("replay", recording, "--plan", plan, "--fast", "--json", "--no-save")
        let replayed = try #require(jsonObject(replay.stdoutData), "stderr: \(replay.stderr)")
        #expect(canonical(replayed["totals"] as Any) == canonical(summary["totals"] as Any))
    }

    /// The strap asked of the stick and never heard: the session went on with no word of it.
    @Test("a role asked of the stick and never heard is said, and the session goes on with what there is")
    func aRoleNeverHeardIsSaid() throws {
        let stick = try PseudoTerminalStick(strap: false)
        defer { stick.stop() }
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Short ANT", "steps": [{"kind": "work", "duration": 4, "cadence": 170}]}"#)
        let run = try intervalpro(
            arguments: [
                "run", plan, "--cadence", "ant:0", "--hr", "ant:0", "--ant-stick", stick.path, "--scan-timeout", "2", "--json",
                "--no-save", "--metronome", "off", "--no-voice",
            ],
            environment: ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("no ANT+ heart-rate strap heard on \(stick.path) within 2 s"), "\(run.stderr)")
        #expect(!run.stderr.contains("no ANT+ foot pod heard"), "\(run.stderr)")
    }

    @Test("no stick where named: said, and the session falls back as it does without Bluetooth sensors")
    func noStick() throws {
        let scratch = try ScratchDirectory()
        let result = try intervalpro(
            arguments: ["run", "Plans/first-cadence-session.json", "--cadence", "ant:0", "--ant-stick", scratch.path("nothing"),
                        "--require-sensor"],
            environment: ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")])
        #expect(result.status == 69, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("nothing"), "\(result.stderr)")
    }

    @Test("heart rate from a Bluetooth strap and cadence from an ANT+ foot pod in one session, though a Bluetooth pod is in range")
    func bluetoothAndANTTogether() throws {
        let fake = try FakeBlueZ(scenario: "hr-only-strap-and-footpod")
        let stick = try PseudoTerminalStick(channels: 1)
        defer { stick.stop() }
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Mixed", "steps": [{"kind": "work", "duration": 6, "cadence": 170}]}"#)
        let recording = scratch.path("mixed.jsonl")
        let run = try intervalpro(
            arguments: [
                "run", plan, "--hr", "C8:3A:35:11:22:33", "--cadence", "ant:0", "--ant-stick", stick.path, "--require-sensor",
                "--json", "--no-save", "--record", recording, "--metronome", "off", "--no-voice",
            ],
            environment: [
                "DBUS_SYSTEM_BUS_ADDRESS": fake.bus.address, "XDG_CONFIG_HOME": scratch.path("config"),
                "XDG_DATA_HOME": scratch.path("data"),
            ])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let summary = try #require(jsonObject(run.stdoutData), "stdout: \(run.stdout) stderr: \(run.stderr)")
        let totals = try #require(summary["totals"] as? [String: Any])
        // The ANT+ pod's 171 spm, not the Bluetooth Stryd's 170; the Bluetooth strap's 140 bpm.
        #expect(number(totals["avg_cadence_spm"]) == 171)
        #expect(number(totals["avg_hr_bpm"]) == 140)
        let lines = try nonBlankLines(recording)
        #expect(lines.contains { $0.contains(#""char":"2a37""#) } && lines.contains { $0.contains(#""char":"ant-sdm""#) })
        #expect(!lines.contains { $0.contains(#""char":"2a53""#) }, "the Bluetooth pod is not read")
    }

    /// One serial error from the stick (a frame damaged on the line) left it failed: the foot
    /// pod and the strap, still in range, went unread for the rest of the session.
    @Test("a serial error mid-session: the stick is reset and read again, the session goes on with its sensors")
    func serialErrorMidSession() throws {
        let stick = try PseudoTerminalStick(serialErrorAfter: 8)
        defer { stick.stop() }
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Short ANT", "steps": [{"kind": "work", "duration": 10, "cadence": 170}]}"#)
        let run = try intervalpro(
            arguments: [
                "run", plan, "--cadence", "ant:0", "--hr", "ant:0", "--ant-stick", stick.path, "--json", "--no-save",
                "--metronome", "off", "--no-voice",
            ],
            environment: ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("serial error") && run.stderr.contains("resetting the ANT stick"), "\(run.stderr)")
        #expect(run.stderr.contains("the ANT stick answers again"), "\(run.stderr)")
        let summary = try #require(jsonObject(run.stdoutData), "stdout: \(run.stdout) stderr: \(run.stderr)")
        let step = try #require((summary["steps"] as? [[String: Any]])?.first)
        // Two seconds of pages, a second's wait, the reset: about 2 s without them, not 8.
        #expect(try #require(number(step["no_signal_s"])) < 5, "\(step)")
    }

    /// A `scan` beside a running session reset the stick: the session had "no signal" to its
    /// end and nothing said why, and the scan failed too.
    @Test("a second command on the stick a session reads is refused as busy; the session keeps its sensors")
    func secondCommandOnTheStick() throws {
        let stick = try PseudoTerminalStick()
        defer { stick.stop() }
        let scratch = try ScratchDirectory()
        let environment = ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")]
        let plan = try scratch.write(
            "plan.json", #"{"name": "Short ANT", "steps": [{"kind": "work", "duration": 8, "cadence": 170}]}"#)
        let session = try RunningCommand(
            [
                "run", plan, "--cadence", "ant:0", "--hr", "ant:0", "--ant-stick", stick.path, "--json", "--no-save",
                "--metronome", "off", "--no-voice",
            ], environment: environment)
        #expect(session.stderr.wait(upTo: 20) { $0.contains("ant:4321") })
        let scan = try intervalpro(arguments: ["scan", "--ant-stick", stick.path, "--timeout", "2"], environment: environment)
        #expect(scan.status == 69, "stderr: \(scan.stderr)")
        #expect(scan.stderr.contains("in use by another program"), "\(scan.stderr)")
        let run = session.finish()
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let summary = try #require(jsonObject(run.stdoutData), "stdout: \(run.stdout) stderr: \(run.stderr)")
        let step = try #require((summary["steps"] as? [[String: Any]])?.first)
        #expect(try #require(number(step["no_signal_s"])) < 2, "\(step)")
    }

    /// A stick that never answered was said 20 s later as "no ANT+ device heard", its cause
    /// lost among the lines before.
    @Test("a stick that never answers: the session's error says so")
    func stickThatNeverAnswers() throws {
        let stick = try PseudoTerminalStick(mute: true)
        defer { stick.stop() }
        let scratch = try ScratchDirectory()
        let run = try intervalpro(
            arguments: [
                "run", "Plans/first-cadence-session.json", "--cadence", "ant:0", "--ant-stick", stick.path, "--scan-timeout", "4",
                "--require-sensor",
            ],
            environment: ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")])
        #expect(run.status == 69, "stderr: \(run.stderr)")
        #expect(
            run.stderr.contains("did not answer 'reset system' in time (\(stick.path)), and again at each reset for 4 s"),
            "\(run.stderr)")
    }
}
