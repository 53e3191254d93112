import Foundation
import IntervalProTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("a session on ANT+ sensors through a stick (a pseudo-terminal stands in for /dev/ttyUSB0)")
struct ANTSessionTests {
    /// `run` of a work step of `seconds` at 170 spm on the stick's foot pod and strap, with
    /// `extra`: unsaved, summed up as JSON, without the metronome or the voice.
    func runOnStick(_ stick: PseudoTerminalStick, seconds: Int, _ extra: [String] = []) throws -> CommandResult {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Short ANT", "steps": [{"kind": "work", "duration": \#(seconds), "cadence": 170}]}"#)
        return try intervalpro(
            arguments: [
                "run", plan, "--cadence", "ant:0", "--hr", "ant:0", "--ant-stick", stick.path, "--json", "--no-save", "--metronome",
                "off", "--no-voice",
            ] + extra,
            environment: ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")])
    }

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
        let run = try runOnStick(stick, seconds: 4, ["--scan-timeout", "2"])
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
        let run = try runOnStick(stick, seconds: 10)
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
        // No Bluetooth: a scan that found an adapter would exit 0 with the stick's problem said.
        let environment = noSystemBus.merging(["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")]) { $1 }
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
            run.stderr.contains("did not answer 'reset system' in time (\(stick.path)), in the 4 s it was given"),
            "\(run.stderr)")
    }
}
