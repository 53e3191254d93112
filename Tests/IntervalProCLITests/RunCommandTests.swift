import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("intervalpro run")
struct RunCommandTests {
    static let stepKeys = [
        "index", "kind", "label", "repetition", "target_spm", "low_spm", "high_spm", "duration_s", "in_zone_s",
        "below_s", "above_s", "no_signal_s", "in_zone_pct", "avg_cadence_spm", "avg_hr_bpm", "max_hr_bpm",
        "distance_m",
    ]
    static let zoneKeys = ["target_spm", "low_spm", "high_spm", "in_zone_s", "below_s", "above_s", "in_zone_pct"]

    @Test("--replay --fast --json prints the JSON summary contract")
    func replaySummaryContract() throws {
        let result = try intervalpro(
            "run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl", "--fast", "--json")
        #expect(result.status == 0)
        let summary = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        #expect(summary["plan"] as? String == "Cadence ladder")
        #expect(summary["source"] as? String == "replay")
        #expect(summary["completed"] as? Bool == true)
        let duration = try #require(number(summary["duration_s"]))
        #expect(abs(duration - 2220) < 0.002, "the plan is 37:00 long")

        let steps = try #require(summary["steps"] as? [[String: Any]])
        #expect(steps.count == 15)
        var stepTotal = 0.0
        for (i, step) in steps.enumerated() {
            for key in Self.stepKeys { #expect(step.keys.contains(key), "steps[\(i)] lacks \(key)") }
            #expect(step["index"] as? Int == i)
            #expect(step["kind"] is String)
            let stepDuration = try #require(number(step["duration_s"]))
            stepTotal += stepDuration
            let noSignal = try #require(number(step["no_signal_s"]))
            if isNull(step["target_spm"]) {
                // No zone: every zone figure is null, the rest are still there.
                for key in Self.zoneKeys { #expect(isNull(step[key]), "steps[\(i)].\(key) should be null") }
            } else {
                let low = try #require(number(step["low_spm"]))
                let high = try #require(number(step["high_spm"]))
                let target = try #require(number(step["target_spm"]))
                #expect(low <= target && target <= high)
                let inZone = try #require(number(step["in_zone_s"]))
                let below = try #require(number(step["below_s"]))
                let above = try #require(number(step["above_s"]))
                #expect(
                    abs(inZone + below + above + noSignal - stepDuration) <= 0.002,
                    "steps[\(i)]: \(inZone) + \(below) + \(above) + \(noSignal) != \(stepDuration)")
                let pct = try #require(number(step["in_zone_pct"]))
                #expect(abs(pct - 100 * inZone / stepDuration) <= 0.01)
            }
            #expect(number(step["avg_cadence_spm"]) != nil, "the recording has cadence throughout")
            #expect(number(step["avg_hr_bpm"]) != nil)
            #expect(number(step["max_hr_bpm"]) != nil)
            #expect(number(step["distance_m"]) != nil)
        }
        #expect(abs(stepTotal - duration) <= 0.002 * Double(steps.count))
        #expect(steps[5]["repetition"] as? String == "3/6")
        #expect(steps[5]["label"] as? String == "Ladder rung")
        #expect(isNull(steps[0]["label"]))
        #expect(isNull(steps[0]["repetition"]))

        let totals = try #require(summary["totals"] as? [String: Any])
        for key in ["in_zone_pct", "avg_cadence_spm", "avg_hr_bpm", "distance_m"] {
            #expect(number(totals[key]) != nil, "totals.\(key)")
        }
        let totalDistance = try #require(number(totals["distance_m"]))
        let stepDistance = steps.compactMap { number($0["distance_m"]) }.reduce(0, +)
        #expect(abs(totalDistance - stepDistance) <= 0.1 * Double(steps.count))
        // The per-foot footpod sends 80-95 strides a minute; the auto rule doubles them.
        let cadence = try #require(number(totals["avg_cadence_spm"]))
        #expect(cadence > 140 && cadence < 200, "cadence \(cadence) should be in steps per minute")
    }

    @Test("progress goes to stderr under --json, so stdout is only the summary")
    func jsonKeepsStdoutClean() throws {
        let result = try intervalpro(
            "run", "Plans/pyramid.json", "--replay", "Recordings/pyramid.jsonl", "--fast", "--json")
        #expect(result.status == 0)
        #expect(jsonObject(result.stdoutData) != nil)
        #expect(result.stderr.contains("(1/"))
    }

    /// A device named is required: a mistyped stick path gave a whole session of a simulated
    /// runner, exit 0, where the runner asked for the foot pod.
    @Test("a named device that cannot be reached is no reason to simulate: 69, nothing run")
    func aNamedDeviceIsNotReplacedBySimulation() throws {
        let scratch = try ScratchDirectory()
        let result = try intervalpro(
            "run", "Plans/pyramid.json", "--cadence", "ant:4321", "--ant-stick", scratch.path("no-stick"), "--fast", "--json",
            in: packageRoot,
            environment: noSystemBus.merging(
                ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")]) { $1 })
        #expect(result.status == 69, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("ant:4321 was named, so no simulated runner or recording takes its place"), "\(result.stderr)")
        #expect(!result.stderr.contains("simulating a runner instead"))
        #expect(result.stdout.isEmpty)
    }

    @Test("with no sensor, --fallback recording says so and replays the bundled recording")
    func bundledRecordingFallback() throws {
        let result = try intervalpro(
            "run", "Plans/pyramid.json", "--fast", "--json", "--fallback", "recording", in: packageRoot,
            environment: noSystemBus)
        #expect(result.status == 0)
        #expect(result.stderr.contains("cannot reach the system bus"))
        #expect(result.stderr.contains("Recordings/pyramid.jsonl"))
        let summary = try #require(jsonObject(result.stdoutData))
        #expect(summary["source"] as? String == "replay")
        #expect(summary["plan"] as? String == "Cadence pyramid")

        // The very same as naming the recording.
        let explicit = try intervalpro("run", "Plans/pyramid.json", "--replay", "Recordings/pyramid.jsonl", "--fast", "--json")
        #expect(result.stdoutData == explicit.stdoutData)
    }

    /// A runner on a treadmill with no sensor had a simulated runner coached in their ears
    /// and saved as a session of made-up figures: the metronome alone is a choice now.
    @Test("--no-runner, and --fallback metronome with no sensor: the steps alone, nothing saved")
    func theMetronomeAlone() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json",
            #"{"name": "Treadmill", "steps": [{"kind": "work", "duration": 60, "cadence": 170}, {"kind": "rest", "duration": "open"}]}"#)
        let environment = noSystemBus.merging(scratch.ownFolders) { $1 }
        let alone = try intervalpro(arguments: ["run", plan, "--no-runner", "--fast", "--no-voice"], environment: environment)
        #expect(alone.status == 0, "stderr: \(alone.stderr)")
        #expect(alone.stdout.contains("Treadmill — metronome, 6:00"), "\(alone.stdout)")
        #expect(alone.stdout.contains("No runner: the metronome and the step cues alone, nothing measured or saved."))
        #expect(!alone.stderr.contains("no signal") && !alone.stderr.contains("% in zone"), "\(alone.stderr)")
        #expect(!alone.stderr.contains("saved as session"))

        let fallback = try intervalpro(
            arguments: ["run", plan, "--fallback", "metronome", "--fast", "--json", "--no-voice"], environment: environment)
        #expect(fallback.status == 0, "stderr: \(fallback.stderr)")
        #expect(fallback.stderr.contains("cannot reach the system bus") && fallback.stderr.contains("the metronome and the step cues alone"))
        let summary = try #require(jsonObject(fallback.stdoutData))
        #expect(summary["source"] as? String == "metronome")
        // No share of a zone nobody ran in: 0 was given.
        let totals = try #require(summary["totals"] as? [String: Any])
        #expect(totals["in_zone_pct"] is NSNull, "\(totals)")
        let history = try #require(jsonObject(try intervalpro(arguments: ["history", "--json"], environment: environment).stdoutData))
        #expect(history["total"] as? Int == 0, "\(history)")

        for (arguments, message) in [
            (["--no-runner", "--simulate"], "--no-runner looks for no sensor"),
            (["--no-runner", "--upload", "all"], "--no-runner measures nothing to upload"),
            (["--no-runner", "--hr", "AA:BB:CC:DD:EE:FF"], "--no-runner looks for no sensor: drop --hr"),
            (["--no-runner", "--record", scratch.path("x.jsonl")], "--no-runner measures nothing to record"),
        ] {
            let refused = try intervalpro(arguments: ["run", plan, "--fast"] + arguments, environment: environment)
            #expect(refused.status == 64 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
            // As every other error reads, not ArgumentParser's "Error: …".
            #expect(refused.stderr.hasPrefix("intervalpro: error: --no-runner"), "\(refused.stderr)")
        }
        let unknown = try intervalpro(arguments: ["run", plan, "--fast", "--bogus"], environment: environment)
        #expect(unknown.status == 64 && unknown.stderr.hasPrefix("intervalpro: error: Unknown option '--bogus'"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("Usage: intervalpro run"))
    }

    /// Another plan's recording was scored against it (`make run PLAN=Plans/metronome-intervals.json`:
    /// a work step 0.4 % in zone, saved to the history).
    @Test("a plan with no recording of its name is simulated, not scored against another plan's recording")
    func bundledRecordingDefault() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("my-own-plan.json", shortPlanText)
        let result = try intervalpro(
            "run", plan, "--fast", "--json", "--fallback", "recording", "--no-save", in: packageRoot, environment: noSystemBus)
        #expect(result.status == 0)
        #expect(result.stderr.contains("cannot reach the system bus"))
        #expect(result.stderr.contains("no recording of this plan is bundled: simulating a runner instead"), "\(result.stderr)")
        #expect(jsonObject(result.stdoutData)?["source"] as? String == "simulation")
    }

    @Test("the bundled recordings are found from the binary's checkout in any directory")
    func bundledRecordingFromElsewhere() throws {
        let dir = try ScratchDirectory()
        let result = try intervalpro(
            "run", "pyramid", "--fast", "--json", "--fallback", "recording", "--no-save", in: dir.url, environment: noSystemBus)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("cannot reach the system bus"))
        #expect(result.stderr.contains("Recordings/pyramid.jsonl"), "\(result.stderr)")
    }

    /// A plan of the runner's own named like an example (its three minutes against the
    /// pyramid's 31:30 recording) was replayed against the example's recording, and saved.
    @Test("a plan of one's own named like an example has no bundled recording: simulated")
    func aPlanNamedLikeAnExampleIsNotTheExample() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("pyramid.json", shortPlanText)
        let result = try intervalpro(
            "run", plan, "--fast", "--json", "--fallback", "recording", "--no-save", in: dir.url, environment: noSystemBus)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("no recording of this plan is bundled: simulating a runner instead"), "\(result.stderr)")
        #expect(jsonObject(result.stdoutData)?["source"] as? String == "simulation")
    }

    /// Run from a home folder with a sound recorder's `Recordings` and a `Plans` of its own,
    /// those were taken for the bundled ones: "cannot open" the recording, and the plan by name.
    @Test("folders named Recordings and Plans that are not IntervalPro's: the bundled ones are still found")
    func bundledFilesBesideOthersOfTheSameName() throws {
        let dir = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: dir.path("Recordings"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.path("Plans"), withIntermediateDirectories: true)
        _ = try dir.write("Recordings/voice memo.ogg", "OggS")
        let fallback = try intervalpro(
            "run", "pyramid", "--fast", "--json", "--no-save", "--fallback", "recording", in: dir.url, environment: noSystemBus)
        #expect(fallback.status == 0, "stderr: \(fallback.stderr)")
        #expect(fallback.stderr.contains("Recordings/pyramid.jsonl"), "\(fallback.stderr)")
        let named = try intervalpro("run", "pyramid", "--simulate", "--fast", "--json", "--no-save", in: dir.url)
        #expect(named.status == 0, "stderr: \(named.stderr)")
        #expect(jsonObject(named.stdoutData)?["plan"] as? String == "Cadence pyramid")
    }

    /// On a machine without Bluetooth, `scan` said only "cannot reach the system bus", whatever
    /// became of the ANT stick it was given.
    @Test("scan without Bluetooth says what became of the ANT stick too")
    func scanSaysTheStick() throws {
        let result = try intervalpro("scan", "--timeout", "1", "--ant-stick", "/nonexistent/ttyANT", environment: noSystemBus)
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot reach the system bus"), "stderr: \(result.stderr)")
        // What to do next: it said what failed alone.
        #expect(result.stderr.contains("(`intervalpro doctor` says what is missing)"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("ANT stick: ") && result.stderr.contains("/nonexistent/ttyANT"), "stderr: \(result.stderr)")
        // A path that is no serial device read as a stick pulled out and put back, said 41 times.
        let notAStick = try intervalpro("scan", "--timeout", "1", "--ant-stick", "/dev/null", environment: noSystemBus)
        #expect(notAStick.status == 69)
        #expect(notAStick.stderr.contains("/dev/null: not a serial device"), "stderr: \(notAStick.stderr)")
        #expect(!notAStick.stderr.contains("is back"), "stderr: \(notAStick.stderr)")
    }

    @Test("with no sensor, run falls back to a simulated runner by default, or exits 69 with --require-sensor")
    func simulationFallbackAndRequireSensor() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", shortPlanText)
        let fallback = try intervalpro("run", plan, "--fast", "--json", environment: noSystemBus)
        #expect(fallback.status == 0, "stderr: \(fallback.stderr)")
        #expect(fallback.stderr.contains("simulating a runner instead"))
        #expect(jsonObject(fallback.stdoutData)?["source"] as? String == "simulation")

        let required = try intervalpro("run", plan, "--require-sensor", environment: noSystemBus)
        #expect(required.status == 69)
        #expect(required.stderr.contains("cannot reach the system bus"))
        #expect(required.stdout.isEmpty)
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["run", "Plans/pyramid.json", "--replay", "X", "--simulate"],
            ["run", "Plans/pyramid.json", "--simulate", "--speed", "0"],
            ["run", "Plans/pyramid.json", "--simulate", "--speed", "-1"],
            ["run", "Plans/pyramid.json", "--simulate", "--fast", "--speed", "2"],
            ["replay", "Recordings/pyramid.jsonl", "--fast", "--speed", "2"],
            ["run", "Plans/pyramid.json", "--dropout", "10:5"],
            ["run", "Plans/pyramid.json", "--simulate", "--dropout", "ten"],
            ["run", "Plans/pyramid.json", "--cadence-unit", "furlongs"],
            // A cadence unit that is no sensor's, and exiting 69 and falling back together.
            ["run", "Plans/pyramid.json", "--cadence-unit", "none"],
            ["run", "Plans/pyramid.json", "--require-sensor", "--fallback", "recording"],
            // Options of another option, passed over in silence: --allow-root is --web's, the
            // activity file options --replay's; --port, --wait and --no-browser are Strava's.
            ["run", "Plans/pyramid.json", "--simulate", "--fast", "--no-save", "--allow-root"],
            ["run", "Plans/pyramid.json", "--simulate", "--fast", "--no-save", "--leg", "2"],
            ["run", "Plans/pyramid.json", "--simulate", "--fast", "--no-save", "--strict"],
            ["run", "Plans/pyramid.json", "--simulate", "--fast", "--no-save", "--sport", "any"],
            ["account", "add", "intervals.icu", "--athlete", "i1", "--api-key", "k", "--no-browser"],
            ["account", "add", "intervals.icu", "--athlete", "i1", "--api-key", "k", "--port", "8765"],
            ["account", "add", "intervals.icu", "--athlete", "i1", "--api-key", "k", "--wait", "5"],
            ["run"],
            // Help on a command there is not printed the nearest one's help with status 0.
            ["help", "nosuch"], ["help", "plan", "nosuch"],
        ])
    func usageErrors(arguments: [String]) throws {
        let result = try intervalpro(arguments: arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.isEmpty)
    }

    @Test("the usage messages say what is wrong")
    func usageMessages() throws {
        let both = try intervalpro("run", "Plans/pyramid.json", "--replay", "X", "--simulate")
        #expect(both.stderr.contains("--replay and --simulate cannot be used together"))
        let zero = try intervalpro("run", "Plans/pyramid.json", "--simulate", "--speed", "0")
        #expect(zero.stderr.contains("--speed must be more than 0"))
        let fastSpeed = try intervalpro("run", "Plans/pyramid.json", "--simulate", "--fast", "--speed", "2")
        #expect(fastSpeed.stderr.contains("--speed and --fast cannot be used together"))
    }

    /// A negative number after an option was taken for an option: "Missing value for
    /// '--volume <volume>'" where the value was given. It is read as the value, and its range said.
    @Test(
        "a negative number is the option's value, and the option's range is said",
        arguments: [
            (["run", "Plans/pyramid.json", "--simulate", "--fast", "--volume", "-0.1"], "--volume"),
            (["run", "Plans/pyramid.json", "--simulate", "--speed", "-1"], "--speed must be more than 0"),
            (["run", "Plans/pyramid.json", "--simulate", "--fast", "--coaching-grace", "-5"], "--coaching-grace"),
            (["trends", "--weeks", "-3"], "--weeks must be between 1 and 520"),
            (["history", "--limit", "-1"], "--limit must be at least 1"),
            (["readiness", "measure", "--replay", "x.txt", "--duration", "-2"], "--duration"),
        ])
    func negativeNumbers(arguments: [String], said: String) throws {
        let result = try intervalpro(arguments: arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(said), "stderr: \(result.stderr)")
    }

    @Test("a missing plan exits 66, a missing recording exits 66")
    func missingInputs() throws {
        let dir = try ScratchDirectory()
        let noPlan = try intervalpro("run", dir.path("none.json"), "--simulate", "--fast")
        #expect(noPlan.status == 66)
        #expect(noPlan.stderr.contains(dir.path("none.json")))
        let noRecording = try intervalpro("run", "Plans/pyramid.json", "--replay", dir.path("none.jsonl"), "--fast")
        #expect(noRecording.status == 66)
        #expect(noRecording.stderr.contains(dir.path("none.jsonl")))
    }

    @Test("--record into a missing directory is an output failure (74), not missing input (66)")
    func recordIntoMissingDirectory() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("missing/rec.jsonl")
        let plan = try dir.write("plan.json", shortPlanText)
        let result = try intervalpro("run", plan, "--simulate", "--fast", "--record", path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot create '\(path)'"))
        // 66 is "an input file did not exist"; the recording is an output.
        #expect(result.status == 74, "exit \(result.status): \(result.stderr)")
    }

    @Test("through a pipe, the text output has no escape sequences", arguments: [nil, "1"] as [String?])
    func noColourThroughAPipe(noColor: String?) throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", shortPlanText)
        let result = try intervalpro(
            "run", plan, "--simulate", "--fast", environment: ["NO_COLOR": noColor, "TERM": "xterm-256color"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Short test"), "the summary is on stdout")
        #expect(result.stdout.contains("In zone:"))
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(!result.stderr.contains("\u{1B}"))
    }

    @Test(
        "on a terminal the summary is bold, but never with NO_COLOR set",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")), arguments: [false, true])
    func colourOnATerminal(noColor: Bool) throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", shortPlanText)
        let terminal = try PseudoTerminal()
        let command = try RunningCommand(
            ["run", plan, "--simulate", "--fast"], environment: ["NO_COLOR": noColor ? "1" : nil, "TERM": "xterm"],
            stdout: terminal.secondaryHandle)
        terminal.closeSecondary()
        let output = terminal.readToEnd()
        let result = command.finish()
        #expect(result.status == 0)
        #expect(output.contains("Short test"))
        #expect(output.contains("\u{1B}") == !noColor, "output: \(output.debugDescription)")
    }

    /// On TERM=dumb (Emacs' shell) the live screen's redraws came out as raw escape codes,
    /// thousands a second: such a terminal gets the plain lines a pipe gets.
    @Test(
        "on a dumb terminal, plain lines instead of the live screen",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")))
    func plainLinesOnADumbTerminal() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", shortPlanText)
        let terminal = try PseudoTerminal()
        let command = try RunningCommand(
            ["run", plan, "--simulate", "--speed", "200", "--no-save", "--metronome", "off", "--no-voice"],
            environment: ["TERM": "dumb"], stdout: terminal.secondaryHandle)
        terminal.closeSecondary()
        let output = terminal.readToEnd()
        #expect(command.finish().status == 0)
        #expect(output.contains("[0:00] Warmup"), "output: \(output.debugDescription)")
        #expect(!output.contains("\u{1B}"), "output: \(output.debugDescription)")
    }
}

/// A pseudo-terminal whose secondary side stands in for a terminal on stdout.
final class PseudoTerminal: @unchecked Sendable {
    let primary: Int32
    private var secondary: Int32
    let secondaryHandle: FileHandle

    struct Failed: Error {}

    init() throws {
        // Glibc's Swift module leaves the XSI pty calls out; look them up in libc.
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias FDCall = @convention(c) (Int32) -> Int32
        typealias PTSName = @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32
        guard let libc = dlopen(nil, RTLD_NOW), let openSymbol = dlsym(libc, "posix_openpt"),
            let grantSymbol = dlsym(libc, "grantpt"), let unlockSymbol = dlsym(libc, "unlockpt"),
            let nameSymbol = dlsym(libc, "ptsname_r")
        else { throw Failed() }
        let openpt = unsafeBitCast(openSymbol, to: OpenPT.self)
        let grantpt = unsafeBitCast(grantSymbol, to: FDCall.self)
        let unlockpt = unsafeBitCast(unlockSymbol, to: FDCall.self)
        let ptsname = unsafeBitCast(nameSymbol, to: PTSName.self)
        primary = openpt(O_RDWR | O_NOCTTY)
        var name = [CChar](repeating: 0, count: 256)
        guard primary >= 0, grantpt(primary) == 0, unlockpt(primary) == 0, ptsname(primary, &name, name.count) == 0
        else { throw Failed() }
        secondary = open(name, O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw Failed() }
        secondaryHandle = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
    }

    func closeSecondary() {
        if secondary >= 0 { close(secondary) }
        secondary = -1
    }

    /// Everything written until the last writer closes (EIO on Linux).
    func readToEnd() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(primary, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit {
        closeSecondary()
        close(primary)
    }
}
