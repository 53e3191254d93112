import Foundation
import Testing

@Suite("intervalpro replay and --record")
struct ReplayCommandTests {
    /// A scratch directory holding the short plan and a simulated recording of it, made
    /// with a 10 s footpod dropout at 1:10.
    final class Recorded {
        let dir: ScratchDirectory
        let plan: String
        let recording: String
        let simulation: CommandResult

        init() throws {
            dir = try ScratchDirectory()
            plan = try dir.write("short.json", shortPlanText)
            recording = dir.path("rec.jsonl")
            simulation = try intervalpro(
                "run", plan, "--simulate", "--fast", "--seed", "4", "--dropout", "70:10", "--record", recording,
                "--json")
        }
    }

    @Test("replaying at --fast and at --speed 60 gives byte-identical summaries")
    func fastEqualsRealTime() throws {
        let recorded = try Recorded()
        #expect(recorded.simulation.status == 0, "stderr: \(recorded.simulation.stderr)")
        #expect(recorded.simulation.stderr.contains("recorded to \(recorded.recording)"))

        let fast = try intervalpro("replay", recorded.recording, "--plan", recorded.plan, "--fast", "--json")
        let paced = try intervalpro("replay", recorded.recording, "--plan", recorded.plan, "--speed", "60", "--json")
        #expect(fast.status == 0)
        #expect(paced.status == 0)
        #expect(!fast.stdoutData.isEmpty)
        #expect(fast.stdoutData == paced.stdoutData, "fast:\n\(fast.stdout)\nspeed 60:\n\(paced.stdout)")

        let summary = try #require(jsonObject(fast.stdoutData))
        #expect(summary["source"] as? String == "replay")
        #expect(summary["completed"] as? Bool == true)
        #expect(number(summary["duration_s"]) == 180)
        // The dropout (70-80 s) falls in the work step: no signal once the 3 s staleness
        // window has passed, and nowhere else.
        let steps = try #require(summary["steps"] as? [[String: Any]])
        #expect(steps.count == 3)
        #expect(try #require(number(steps[1]["no_signal_s"])) > 0)
        #expect(number(steps[0]["no_signal_s"]) == 0)
        #expect(number(steps[2]["no_signal_s"]) == 0)
    }

    /// Every session's plain lines began "[0:00] no signal", the first reading a moment away.
    @Test("plain lines: no \"no signal\" before the first reading unless it lasts 3 s; a dropout said once")
    func plainLinesSayNoSignalAfterAGrace() throws {
        let recorded = try Recorded()
        let replay = try intervalpro("replay", recorded.recording, "--plan", recorded.plan, "--fast", "--no-save")
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        let advice = replay.stdout.split(separator: "\n").filter { $0.hasPrefix("[") && $0.contains("]   ") }
        #expect(advice.first?.contains("no signal") == false, "\(replay.stdout)")
        // The footpod is silent from 1:10: "no signal" once its reading is stale.
        #expect(advice.filter { $0.contains("no signal") } == ["[1:12]   no signal"], "\(replay.stdout)")
        // The footpod is named as the recording names it, not by its address.
        #expect(replay.stdout.contains("[1:10] Simulated footpod disconnected"), "\(replay.stdout)")
    }

    /// `replay -` was "cannot open '-'" (66), as the docs promise standard input.
    @Test("a recording on standard input: replay - and run --replay - score as the file does")
    func recordingOnStandardInput() throws {
        let recorded = try Recorded()
        let file = try intervalpro("replay", recorded.recording, "--plan", recorded.plan, "--fast", "--json", "--no-save")
        for command in ["replay - --plan \"$1\"", "run \"$1\" --replay -"] {
            let piped = try intervalpro(
                arguments: ["-c", "cat \"$2\" | \"$0\" \(command) --fast --json --no-save", executablePath, recorded.plan, recorded.recording],
                executable: "/bin/sh")
            #expect(piped.status == 0, "\(command): \(piped.stderr)")
            #expect(piped.stdoutData == file.stdoutData, "\(command): \(piped.stdout)")
        }
    }

    /// `run - --replay -` read the plan from standard input, then found the recording empty.
    @Test("a plan and a recording both on standard input are refused as a usage error, with why")
    func planAndRecordingBothOnStandardInput() throws {
        for (arguments, message) in [
            (["run", "-", "--replay", "-"], "the plan and --replay cannot both be '-' (standard input)"),
            (["replay", "-", "--plan", "-"], "the recording and --plan cannot both be '-' (standard input)"),
        ] {
            let result = try intervalpro(arguments: arguments + ["--fast", "--no-save"])
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// A strap sending heart rate without RR intervals gave no word on alpha 1 at all.
    @Test("heart rate without RR intervals: the summary says there is no alpha 1, and why")
    func heartRateWithoutBeats() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("short.json", shortPlanText)
        let lines = [#"{"intervalpro_recording":1,"devices":[{"id":"wrist","name":"Optical"}]}"#]
            + (0..<180).map { #"{"t":\#($0).0,"dev":"wrist","char":"2a37","hex":"0096"}"# }
        let recording = try dir.write("optical.jsonl", lines.joined(separator: "\n") + "\n")
        let result = try intervalpro("replay", recording, "--plan", plan, "--fast", "--no-save")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("No RR intervals came with the heart rate: no alpha 1"), "stdout: \(result.stdout)")
    }

    @Test("a plan given where a recording belongs is said to be a plan, with the commands that take it")
    func aPlanIsNotARecording() throws {
        let result = try intervalpro("replay", "Plans/pyramid.json")
        #expect(result.status == 65)
        #expect(result.stderr.contains("Plans/pyramid.json: a plan, not a recording: run it with `intervalpro run Plans/pyramid.json`"), "\(result.stderr)")
        #expect(!looksLikeACrash(result.stderr))
    }

    @Test("run --replay and replay --plan agree, and match the simulation they were recorded from")
    func runReplayEqualsReplayPlan() throws {
        let recorded = try Recorded()
        #expect(recorded.simulation.status == 0, "stderr: \(recorded.simulation.stderr)")
        let viaRun = try intervalpro("run", recorded.plan, "--replay", recorded.recording, "--fast", "--json")
        let viaReplay = try intervalpro("replay", recorded.recording, "--plan", recorded.plan, "--fast", "--json")
        #expect(viaRun.status == 0)
        #expect(viaReplay.status == 0)
        #expect(viaRun.stdoutData == viaReplay.stdoutData)

        // Apart from the source, the replay scores what the simulation scored.
        let simulated = recorded.simulation.stdout
        #expect(jsonObject(simulated)?["source"] as? String == "simulation")
        #expect(
            simulated.replacingOccurrences(of: #""source": "simulation""#, with: #""source": "replay""#)
                == viaReplay.stdout)
    }

    @Test("--seed without --simulate is refused (64): a replay or live sensors have no runner to seed")
    func aSeedWithoutASimulationIsRefused() throws {
        for arguments in [
            ["run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl", "--seed", "3", "--fast"],
            ["render-audio", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl", "--seed", "3", "-o", "/tmp/x.wav"],
        ] {
            let result = try intervalpro(arguments: arguments)
            #expect(result.status == 64, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("--seed"), "\(arguments[0]): \(result.stderr)")
        }
    }

    @Test("the same seed records the same notifications")
    func seedIsReproducible() throws {
        let first = try Recorded()
        let second = try Recorded()
        // The header carries the wall-clock start; everything after it is the runner's.
        let a = try nonBlankLines(first.recording).dropFirst()
        let b = try nonBlankLines(second.recording).dropFirst()
        #expect(!a.isEmpty)
        #expect(Array(a) == Array(b))
    }

    @Test("a recording made with --record replays as stream statistics that count every line")
    func recordingReplaysAsStatistics() throws {
        let recorded = try Recorded()
        #expect(recorded.simulation.status == 0, "stderr: \(recorded.simulation.stderr)")
        let lines = try nonBlankLines(recorded.recording)
        let header = try #require(jsonObject(lines[0]))
        #expect(header["intervalpro_recording"] as? Int == 1)
        let headerDevices = try #require(header["devices"] as? [[String: Any]])
        #expect(headerDevices.count == 2)

        // Count what the file holds, by device and characteristic.
        var notifications: [String: [String: Int]] = [:]
        var events: [String: [String: Int]] = [:]
        var notificationLines = 0
        for line in lines.dropFirst() {
            let entry = try #require(jsonObject(line), "not JSON: \(line)")
            let device = try #require(entry["dev"] as? String)
            if let characteristic = entry["char"] as? String {
                notificationLines += 1
                notifications[device, default: [:]][characteristic, default: 0] += 1
            } else if let event = entry["event"] as? String {
                events[device, default: [:]][event, default: 0] += 1
            }
        }
        #expect(notificationLines > 300, "three minutes of HR and footpod")

        let result = try intervalpro("replay", recorded.recording, "--json")
        #expect(result.status == 0)
        let statistics = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        let devices = try #require(statistics["devices"] as? [[String: Any]])
        // The header's two, and the runner's commands: the finish at the plan's end.
        #expect(devices.count == 3)
        var counted = 0
        for device in devices {
            let id = try #require(device["id"] as? String)
            let perCharacteristic = try #require(device["notifications"] as? [String: Any])
            var mapped: [String: Int] = [:]
            for (key, value) in perCharacteristic { mapped[key] = (value as? NSNumber)?.intValue }
            #expect(mapped == notifications[id] ?? [:], "device \(id)")
            counted += mapped.values.reduce(0, +)
            let deviceEvents = (device["events"] as? [String: Any]) ?? [:]
            var mappedEvents: [String: Int] = [:]
            for (key, value) in deviceEvents { mappedEvents[key] = (value as? NSNumber)?.intValue }
            #expect(mappedEvents == events[id] ?? [:], "events of \(id)")
        }
        #expect(counted == notificationLines)
        // The dropout shows up as one disconnect and one reconnect of the footpod.
        #expect(events.values.contains { $0["disconnected"] == 1 && $0["connected"] == 1 })
    }

    /// Without --plan, --record was passed over without a word: exit 0 and no file.
    @Test("replay without --plan writes --record: the same lines, read back to the same statistics; never over a file")
    func recordWithoutAPlan() throws {
        let recorded = try Recorded()
        #expect(recorded.simulation.status == 0, "stderr: \(recorded.simulation.stderr)")
        let copy = recorded.dir.path("copy.jsonl")
        let written = try intervalpro("replay", recorded.recording, "--record", copy, "--json")
        #expect(written.status == 0, "stderr: \(written.stderr)")
        #expect(try nonBlankLines(copy).dropFirst() == nonBlankLines(recorded.recording).dropFirst())
        let again = try intervalpro("replay", copy, "--json")
        #expect(again.stdout == written.stdout)
        let refused = try intervalpro("replay", recorded.recording, "--record", copy)
        #expect(refused.status == 74 && refused.stderr.contains("recording never writes over a file"), "\(refused.stderr)")
    }

    /// It ended at the footpod's last value, before the plan's end: imported without the plan,
    /// a 37:00 run was 36:59.
    @Test("run --record of a run its plan ended ends with a finish there: imported without the plan, as long as the run")
    func recordingEndsWhereThePlanDid() throws {
        let recorded = try Recorded()
        #expect(recorded.simulation.status == 0, "stderr: \(recorded.simulation.stderr)")
        let lines = try nonBlankLines(recorded.recording)
        #expect(lines.last == #"{"t":180.000,"dev":"intervalpro","event":"finish"}"#, "\(lines.suffix(2))")
        #expect(lines.filter { $0.contains(#""event":"finish""#) }.count == 1)
        let store = try ScratchStore()
        #expect(try store.run("history", "import", recorded.recording).status == 0)
        #expect(try store.sessions().map { number($0["duration_s"]) } == [180])
    }

    @Test("the text statistics name the devices")
    func textStatistics() throws {
        let result = try intervalpro("replay", "Recordings/first-cadence-session.jsonl")
        #expect(result.status == 0)
        #expect(result.stdout.contains("00:00:5E:00:53:02"))
        #expect(!result.stdout.contains("\u{1B}"))
    }

    /// The first `count` lines of a real recording, then `extra`, then the rest.
    static func corrupted(after count: Int, insert extra: String, in dir: ScratchDirectory, name: String) throws
        -> String
    {
        let lines = try nonBlankLines(packagePath("Recordings/first-cadence-session.jsonl"))
        let text = (lines.prefix(count) + [extra] + lines.dropFirst(count).prefix(20)).joined(separator: "\n") + "\n"
        return try dir.write(name, text)
    }

    @Test(
        "a recording with bad JSON on line 3 exits 65 naming FILE:3:",
        arguments: [["replay"], ["replay", "--plan"], ["run"]])
    func badJSONLine(command: [String]) throws {
        let dir = try ScratchDirectory()
        let path = try Self.corrupted(after: 2, insert: #"{"t":0.5,"dev":"#, in: dir, name: "bad.jsonl")
        let plan = packagePath("Plans/first-cadence-session.json")
        let arguments: [String] =
            switch command {
            case ["replay"]: ["replay", path, "--json"]
            case ["replay", "--plan"]: ["replay", path, "--plan", plan, "--fast", "--json"]
            default: ["run", plan, "--replay", path, "--fast", "--json"]
            }
        let result = try intervalpro(arguments: arguments)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(path):3:"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("invalid JSON"))
        #expect(!looksLikeACrash(result.stderr))
    }

    /// Recording format version 1 asks no order of the lines: a line earlier than the one
    /// before is taken in time order by every command that reads a recording.
    @Test("a recording whose lines are not in time order is read in time order, and replay says how many were not")
    func linesOutOfOrder() throws {
        let dir = try ScratchDirectory()
        // Lines 2 and 3 are at 0.000 and 0.250 s; line 4 goes back to 0.1 s.
        let backwards = #"{"t":0.100,"dev":"00:00:5E:00:53:02","char":"2a53","hex":"0740024bb40000000000"}"#
        let path = try Self.corrupted(after: 3, insert: backwards, in: dir, name: "backwards.jsonl")
        let result = try intervalpro("replay", path, "--json")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(number(try #require(jsonObject(result.stdoutData))["lines_out_of_order"]) == 1)
        let text = try intervalpro("replay", path)
        #expect(text.stdout.contains("lines out of time order: 1"))

        let run = try intervalpro(
            "run", packagePath("Plans/first-cadence-session.json"), "--replay", path, "--fast", "--json", "--no-save")
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(jsonObject(run.stdoutData)?["completed"] as? Bool == true)
    }

    /// A footpod's reading at `t` seconds.
    static func pod(_ t: Int) -> String { #"{"t": \#(t), "dev": "pod", "char": "2a53", "hex": "02000355"}"# }

    /// A recording of `lines` after a footpod's header, and a plan of one open step.
    static func podAgainstAnOpenStep(in dir: ScratchDirectory, lines: [String]) throws -> (recording: String, plan: String) {
        let header = #"{"intervalpro_recording": 1, "started_at": "2026-09-09T07:30:00Z", "devices": [{"id": "pod"}]}"#
        let recording = try dir.write("pod.jsonl", ([header] + lines).joined(separator: "\n") + "\n")
        return (recording, try dir.write("open.json", #"{"name": "Open", "steps": [{"kind": "work", "duration": "open"}]}"#))
    }

    /// A runner's event of a name that is no command ("lap", "Pause") was passed over in silence.
    @Test("replay --plan says the runner's events that name no command, and leaves them out")
    func runnerEventsThatAreNoCommand() throws {
        let dir = try ScratchDirectory()
        let events = [#"{"t": 1.5, "dev": "intervalpro", "event": "lap"}"#, #"{"t": 1.6, "dev": "intervalpro", "event": "Pause"}"#]
        let (path, plan) = try Self.podAgainstAnOpenStep(in: dir, lines: [Self.pod(0), Self.pod(1)] + events + [Self.pod(2)])
        let result = try intervalpro(arguments: ["replay", path, "--plan", plan, "--fast", "--json", "--no-save"], environment: dir.ownFolders)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("2 of the runner's events (intervalpro) name no command: Pause, lap; left out"), "\(result.stderr)")
    }

    /// Three lines weeks apart against an open step: a session of weeks, saved second by
    /// second, made a store of 289 MB. It is scored, and not saved, with why.
    @Test("replay --plan of a recording whose readings are a day apart scores it and saves nothing, saying why")
    func readingsADayApartAreNotSaved() throws {
        let dir = try ScratchDirectory()
        let (path, plan) = try Self.podAgainstAnOpenStep(in: dir, lines: [0, 1, 2, 86_403].map(Self.pod))
        let result = try intervalpro(arguments: ["replay", path, "--plan", plan, "--fast", "--json"], environment: dir.ownFolders)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("readings a day or more apart (0:02 to 24:00:03): not one run to keep, so not saved"), "\(result.stderr)")
        #expect(jsonObject(result.stdoutData)?["duration_s"] != nil)
        let listed = try intervalpro(arguments: ["history", "--json"], environment: dir.ownFolders)
        #expect((jsonObject(listed.stdoutData)?["sessions"] as? [Any])?.isEmpty == true, "\(listed.stdout)")
    }

    @Test("a file that is not a recording exits 65 on line 1")
    func notARecording() throws {
        let dir = try ScratchDirectory()
        let path = try dir.write("plan-not-recording.jsonl", #"{"name": "x"}"# + "\n")
        let result = try intervalpro("replay", path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):1:"))
    }

    @Test("an empty recording exits 65")
    func emptyRecording() throws {
        let dir = try ScratchDirectory()
        let path = try dir.write("empty.jsonl", "")
        let result = try intervalpro("replay", path)
        #expect(result.status == 65)
        #expect(result.stderr.contains(path))
        // Named as an activity: said as one (it was "empty recording: no header line").
        let gpx = try dir.write("run.gpx", "")
        let emptyGPX = try intervalpro("replay", gpx)
        #expect(emptyGPX.status == 65 && emptyGPX.stderr.contains("run.gpx: named as a GPX activity, but the file is empty"), "\(emptyGPX.stderr)")
    }

    /// A number where text belongs was said to be missing ("missing \"char\""), an empty name
    /// "found a string"; `--record -` wrote a file named "-"; `replay - --plan -` read the
    /// recording and called it "not a plan" (65).
    @Test("what is wrong said as it is: a number for char, an empty name; --record - and two standard inputs refused (64)")
    func wrongInputsSaidAsTheyAre() throws {
        let dir = try ScratchDirectory()
        let numbered = try dir.write(
            "numbered.jsonl",
            #"{"intervalpro_recording":1,"started_at":"2026-11-20T06:30:00Z","devices":[{"id":"A","name":"Pod"}]}"# + "\n"
                + #"{"t":1,"dev":"A","char":10835,"hex":"00"}"# + "\n")
        let number = try intervalpro("replay", numbered)
        #expect(number.status == 65)
        #expect(number.stderr.contains("numbered.jsonl:2: \"char\" must be a string"), "\(number.stderr)")
        let unnamed = try dir.write("unnamed.json", #"{"name": "", "steps": [{"kind": "work", "duration": 60}]}"#)
        let empty = try intervalpro("plan", "check", unnamed)
        #expect(empty.status == 65)
        #expect(empty.stderr.contains("found an empty one at name"), "\(empty.stderr)")
        let recordDash = try intervalpro(
            "replay", packagePath("Recordings/pyramid.jsonl"), "--plan", packagePath("Plans/pyramid.json"), "--fast", "--no-save",
            "--record", "-", in: dir.url)
        #expect(recordDash.status == 64, "\(recordDash.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("-")))
        #expect(try intervalpro("replay", "-", "--plan", "-").status == 64)
    }

    /// Installed, the tour's `--replay Recordings/cadence-ladder.jsonl` had no path to type and
    /// recordings had no name form, as plans have: `Plans/…` outside a clone was a bare 66.
    @Test("a bundled recording by name, as a plan; a bundled example's path typed elsewhere names the name to give")
    func bundledRecordingsByName() throws {
        let dir = try ScratchDirectory()
        let named = try intervalpro("replay", "pyramid", "--plan", "pyramid", "--fast", "--json", "--no-save", in: dir.url)
        #expect(named.status == 0, "stderr: \(named.stderr)")
        #expect(jsonObject(named.stdoutData)?["completed"] as? Bool == true)
        let path = try intervalpro("replay", "Recordings/pyramid.jsonl", in: dir.url)
        #expect(path.status == 66)
        #expect(path.stderr.contains("given by its name alone: pyramid"), "\(path.stderr)")
        let plan = try intervalpro("plan", "check", "Plans/cadence-ladder.json", in: dir.url)
        #expect(plan.status == 66)
        #expect(plan.stderr.contains("given by its name alone: cadence-ladder"), "\(plan.stderr)")
    }

    /// `-` opened /dev/stdin again by its path: a socket given as standard input (a systemd
    /// unit's StandardInput=socket) was "No such device or address" (74), a pipe from another
    /// user "Permission denied" (66). It is read from its descriptor.
    @Test("a plan on standard input that is a socket: read from the descriptor")
    func standardInputASocket() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        writer.write(Data(shortPlanText.utf8))
        try writer.close()
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let result = try RunningCommand(["plan", "check", "-"], stdin: reader).finish()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Short test"), "\(result.stdout)")
    }

    /// Without a plan there is no session to sound: `--volume 0.5` and `--metronome always`
    /// were passed over, exit 0 (as `run --replay R --per-foot` is refused).
    @Test("replay without --plan refuses the metronome, voice and music options (64)")
    func soundOptionsWithoutAPlan() throws {
        for option in [["--volume", "0.5"], ["--metronome", "always"], ["--no-voice"], ["--duck", "0.5"]] {
            let result = try intervalpro(arguments: ["replay", packagePath("Recordings/pyramid.jsonl")] + option)
            #expect(result.status == 64, "\(option): \(result.stderr)")
            #expect(result.stderr.contains("add --plan PLAN, or drop them"), "\(result.stderr)")
        }
    }
}
