import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The store the tests of one case use: a fresh database file in a scratch directory.
struct ScratchStore {
    let directory: ScratchDirectory
    let path: String

    init() throws {
        directory = try ScratchDirectory()
        path = directory.path("history.sqlite")
    }

    func run(_ arguments: String...) throws -> CommandResult {
        try intervalpro(arguments: arguments + ["--db", path])
    }

    /// `history --json`'s sessions.
    /// Every session in the store, not `history`'s newest 20 (an import stopped after 27 runs
    /// was counted as 20).
    func sessions() throws -> [[String: Any]] {
        let result = try run("history", "--json", "--limit", "100000")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        return try #require(object["sessions"] as? [[String: Any]])
    }
}

/// JSON text with sorted keys, for comparing parsed documents.
func canonical(_ value: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}

/// The summary keys of `show --json` (it adds the session's identity and devices).
func summaryPart(_ shown: [String: Any]) -> [String: Any] {
    shown.filter { !["session_id", "started_at", "status", "simulated", "devices", "samples"].contains($0.key) }
}

@Suite("session history: the store, history, show, export, delete")
struct HistoryCommandTests {
    /// The plan was read twice, and standard input gives nothing the second time: the session
    /// was kept with an empty plan, and show said it "does not decode".
    @Test("a plan on standard input is kept with the session: show gives back the run's summary")
    func planOnStandardInputIsKept() throws {
        for command in ["run - --simulate --seed 4", "replay Recordings/cadence-ladder.jsonl --plan -"] {
            let store = try ScratchStore()
            let run = try intervalpro(
                arguments: ["-c", "cat Plans/cadence-ladder.json | \"$0\" \(command) --fast --json --db \"$1\"", executablePath, store.path],
                executable: "/bin/sh")
            #expect(run.status == 0, "\(command): \(run.stderr)")
            let summary = try #require(jsonObject(run.stdoutData), "\(command): \(run.stdout)")
            let shown = try store.run("show", "last", "--json")
            #expect(shown.status == 0, "\(command): \(shown.stderr)")
            let stored = try #require(jsonObject(shown.stdoutData), "\(command): \(shown.stdout)")
            #expect(canonical(summaryPart(stored)) == canonical(summary), "\(command)")
        }
    }

    @Test("a replay lands in the store: history lists it, show --json gives back the run's summary")
    func replayIsSaved() throws {
        let store = try ScratchStore()
        let run = try store.run(
            "replay", "Recordings/cadence-ladder.jsonl", "--plan", "Plans/cadence-ladder.json", "--fast", "--json")
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("saved as session 1"))
        let summary = try #require(jsonObject(run.stdoutData))

        let sessions = try store.sessions()
        #expect(sessions.count == 1)
        let listed = try #require(sessions.first)
        #expect(listed["session_id"] as? Int == 1)
        #expect(listed["plan"] as? String == "Cadence ladder")
        #expect(listed["source"] as? String == "replay")
        #expect(listed["status"] as? String == "finished")
        #expect(number(listed["in_zone_pct"]) == number((summary["totals"] as? [String: Any])?["in_zone_pct"]))
        #expect(number(listed["duration_s"]) == 2220)

        let shown = try store.run("show", "last", "--json")
        #expect(shown.status == 0, "stderr: \(shown.stderr)")
        let stored = try #require(jsonObject(shown.stdoutData))
        #expect(canonical(summaryPart(stored)) == canonical(summary), "show --json differs from the run")
        #expect((stored["devices"] as? [[String: Any]])?.count == 2)
        // The bundled recording is the simulator's, as history --json says (show said "replay" alone).
        #expect(stored["simulated"] as? Bool == true && listed["simulated"] as? Bool == true, "\(stored["simulated"] ?? "none")")

        let table = try store.run("show", "1")
        #expect(table.status == 0)
        #expect(table.stdout.contains("Work 6/6 · Ladder rung"))
        #expect(table.stdout.contains("In zone: 85.3%"))
        let history = try store.run("history")
        #expect(history.stdout.contains("Cadence ladder"))
        #expect(history.stdout.contains("finished"))
    }

    /// `history` and `show` dated in UTC: a Berlin runner's Friday 00:30 run was Thursday's
    /// there, Friday's in `trends` and `report`.
    @Test("history and show date a session on the runner's clock; show adds UTC")
    func datedOnTheRunnersClock() throws {
        let store = try ScratchStore()
        var text = try String(contentsOfFile: packagePath("Recordings/pyramid.jsonl"), encoding: .utf8)
        text = text.replacingOccurrences(of: #""started_at":"2026-11-18T06:45:00Z""#, with: #""started_at":"2026-11-19T23:30:00Z""#)
        let file = try store.directory.write("late.jsonl", text)
        #expect(try store.run("history", "import", file).status == 0)
        let berlin: [String: String?] = ["TZ": "Europe/Berlin"]
        let listed = try intervalpro(arguments: ["history", "--db", store.path], environment: berlin)
        #expect(listed.stdout.contains("2026-11-20 00:30"), "\(listed.stdout)")
        let shown = try intervalpro(arguments: ["show", "last", "--db", store.path], environment: berlin)
        #expect(shown.stdout.hasPrefix("Session 1, 2026-11-20 00:30 (2026-11-19 23:30 UTC), finished"), "\(shown.stdout)")
    }

    /// At 80 columns every plan's name was cut to five: "Morni…", two runs of a day alike.
    @Test("history at 80 columns keeps room for the plan's name: an empty column, then the source, is left out first")
    func eightyColumnsKeepThePlansName() throws {
        let store = try ScratchStore()
        let run = try store.directory.write("run.gpx", gpxRun(start: Date(timeIntervalSince1970: 1_795_000_000), seconds: 60, perFoot: 85))
        #expect(try store.run("history", "import", run).status == 0)
        let narrow: [String: String?] = ["COLUMNS": "80"]
        let imported = try intervalpro(arguments: ["history", "--db", store.path], environment: narrow)
        let importedLines = imported.stdout.split(separator: "\n").map(String.init)
        #expect(importedLines.allSatisfy { $0.count <= 80 }, "\(imported.stdout)")
        #expect(importedLines.first?.contains("in zone") == false && importedLines.first?.contains("source") == true, "\(imported.stdout)")
        #expect(imported.stdout.contains("Morning Run  imported"), "\(imported.stdout)")
        // A session with a zone: in zone is shown, the source gives way.
        let replayed = try store.run("replay", packagePath("Recordings/pyramid.jsonl"), "--plan", packagePath("Plans/pyramid.json"), "--fast")
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let both = try intervalpro(arguments: ["history", "--db", store.path], environment: narrow)
        let bothLines = both.stdout.split(separator: "\n").map(String.init)
        #expect(bothLines.allSatisfy { $0.count <= 80 }, "\(both.stdout)")
        #expect(bothLines.first?.contains("in zone") == true && bothLines.first?.contains("source") == false, "\(both.stdout)")
        #expect(both.stdout.contains("Cadence pyramid") && both.stdout.contains("Morning Run"), "\(both.stdout)")
        // Wide, or into a pipe, every column as before.
        let wide = try store.run("history")
        #expect(wide.stdout.hasPrefix("id") && wide.stdout.contains("source") && wide.stdout.contains("in zone"), "\(wide.stdout)")
    }

    @Test("the database file is private (0600) and in WAL mode")
    func fileModeAndWAL() throws {
        let store = try ScratchStore()
        let run = try store.run("run", "Plans/first-cadence-session.json", "--simulate", "--fast")
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // SQLite's header: bytes 18 and 19 are 2 in WAL mode.
        let header = try #require(FileHandle(forReadingAtPath: store.path)).readData(ofLength: 20)
        #expect(Array(header.prefix(16)) == Array("SQLite format 3\0".utf8))
        #expect(header[18] == 2 && header[19] == 2)
    }

    @Test("the default store is $XDG_DATA_HOME/intervalpro/intervalpro.sqlite; --no-save keeps nothing")
    func defaultLocationAndNoSave() throws {
        let data = try ScratchDirectory()
        let environment = ["XDG_DATA_HOME": data.url.path]
        let unsaved = try intervalpro(
            "run", "Plans/first-cadence-session.json", "--simulate", "--fast", "--no-save", environment: environment)
        #expect(unsaved.status == 0)
        #expect(!unsaved.stderr.contains("saved as session"))
        let database = data.path("intervalpro/intervalpro.sqlite")
        #expect(!FileManager.default.fileExists(atPath: database))

        let saved = try intervalpro("run", "Plans/first-cadence-session.json", "--simulate", "--fast", environment: environment)
        #expect(saved.status == 0, "stderr: \(saved.stderr)")
        #expect(FileManager.default.fileExists(atPath: database))
        let history = try intervalpro("history", "--json", environment: environment)
        let sessions = try #require(jsonObject(history.stdoutData)?["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions.first?["source"] as? String == "simulation")
    }

    @Test("reading where nothing was ever saved leaves no store behind")
    func readingNothingCreatesNothing() throws {
        let data = try ScratchDirectory()
        let environment = ["XDG_DATA_HOME": data.url.path]
        let history = try intervalpro("history", "--json", environment: environment)
        #expect(history.status == 0, "stderr: \(history.stderr)")
        #expect((jsonObject(history.stdoutData)?["sessions"] as? [Any])?.isEmpty == true, "\(history.stdout)")
        #expect(try intervalpro("history", environment: environment).stdout.contains("No sessions saved yet"))
        let readiness = try intervalpro("readiness", "history", "--json", environment: environment)
        #expect(readiness.status == 0, "stderr: \(readiness.stderr)")
        #expect(readiness.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let show = try intervalpro("show", "last", environment: environment)
        #expect(show.status != 0 && !looksLikeACrash(show.stderr), "\(show.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.url.path).isEmpty, "nothing written")
        // A --db that names no file is read as empty, as before, and said to be no file (a slip
        // in the path read as "No sessions saved yet" and nothing more).
        let slip = data.path("histroy.sqlite")
        for command in [["history"], ["trends"], ["readiness", "history"]] {
            let result = try intervalpro(arguments: command + ["--db", slip], environment: environment)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("there is no file \(slip), so nothing saved in it"), "\(command): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.url.path).isEmpty, "nothing written")
        // An empty path (a variable not set) is no path: "there is no file , so nothing saved in it", 0.
        let empty = try intervalpro(arguments: ["history", "--db", ""], environment: environment)
        #expect(empty.status == 64 && empty.stderr.contains("--db names no file: an empty path"), "\(empty.stderr)")
        let noRecording = try intervalpro(arguments: ["run", "Plans/pyramid.json", "--simulate", "--fast", "--record", ""], environment: environment)
        #expect(noRecording.status == 64 && noRecording.stderr.contains("--record names no file: an empty path"), "\(noRecording.stderr)")
    }

    @Test("history --limit, delete, and the errors for sessions that are not there")
    func limitDeleteAndMissing() throws {
        let store = try ScratchStore()
        for seed in ["1", "2", "3"] {
            let run = try store.run("run", "Plans/first-cadence-session.json", "--simulate", "--seed", seed, "--fast")
            #expect(run.status == 0)
        }
        let limited = try store.run("history", "--limit", "2", "--json")
        let sessions = try #require(jsonObject(limited.stdoutData)?["sessions"] as? [[String: Any]])
        #expect(sessions.map { $0["session_id"] as? Int } == [3, 2])
        // The older ones are said to be there: a script reading the first 20 lost them unawares.
        #expect(jsonObject(limited.stdoutData)?["total"] as? Int == 3)
        let listed = try store.run("history", "--limit", "2")
        #expect(listed.stdout.hasSuffix("The newest 2 of 3 sessions: --limit 3 lists them all.\n"), "\(listed.stdout)")
        let whole = try store.run("history", "--json")
        #expect(jsonObject(whole.stdoutData)?["total"] as? Int == 3)
        #expect(!(try store.run("history").stdout.contains("The newest")))

        let deleted = try store.run("delete", "2")
        #expect(deleted.status == 0, "stderr: \(deleted.stderr)")
        #expect(try store.sessions().map { $0["session_id"] as? Int } == [3, 1])
        let again = try store.run("delete", "2")
        #expect(again.status == 66)
        #expect(again.stderr.contains("no session 2"))
        let missing = try store.run("show", "9")
        #expect(missing.status == 66)
        #expect(!looksLikeACrash(missing.stderr))
        let bad = try store.run("show", "yesterday")
        #expect(bad.status == 64)
        // "Missing expected argument '<id>'" was all `delete -1` said: "-1" reads as an option.
        for command in [["delete", "-1"], ["readiness", "delete", "-3"]] {
            let negative = try intervalpro(arguments: command + ["--db", store.path])
            #expect(negative.status == 64, "\(command): \(negative.stderr)")
            #expect(negative.stderr.hasPrefix("intervalpro: error: \(command.last!) is no id: ids are the positive numbers the lists show\n"), "\(command): \(negative.stderr)")
        }
        let dropout = try intervalpro(arguments: ["run", "Plans/pyramid.json", "--simulate", "--fast", "--dropout", "-1:5", "--db", store.path])
        #expect(dropout.status == 64 && dropout.stderr.hasPrefix("intervalpro: error: --dropout -1:5: no value it takes is negative\n"), "\(dropout.stderr)")
        let empty = try ScratchStore()
        let none = try empty.run("show", "last")
        #expect(none.status == 66)
        #expect(none.stderr.contains("no sessions saved yet"))
        // Where no store was made, delete finds no session and makes no store (it created one,
        // and in a data folder that may not be written said "cannot create it", 74).
        let nothing = try empty.run("delete", "1")
        #expect(nothing.status == 66 && nothing.stderr.contains("no session 1"), "\(nothing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: empty.path))
    }

    @Test("a session running in another process is not deleted: what it records from then on would be lost")
    func aRunningSessionIsNotDeleted() throws {
        let store = try ScratchStore()
        let running = try RunningCommand(["run", "Plans/first-cadence-session.json", "--simulate", "--db", store.path], watchdog: 60)
        // Stored as running from its start.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (try? store.sessions())?.first?["status"] as? String != "running" { usleep(50_000) }
        let refused = try store.run("delete", "1")
        #expect(refused.status == 69, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("session 1 is running: finish it first"), "\(refused.stderr)")
        running.interrupt()
        let finished = running.finish()
        #expect(finished.status == 0, "stderr: \(finished.stderr)")
        #expect(try store.sessions().first?["status"] as? String == "finished")
        let deleted = try store.run("delete", "1")
        #expect(deleted.status == 0, "stderr: \(deleted.stderr)")
        #expect(try store.sessions().isEmpty)
    }

    @Test("export jsonl gives a recording that replays to the stored summary")
    func jsonlReplaysToTheSameSummary() throws {
        let store = try ScratchStore()
        let run = try store.run(
            "run", "Plans/cadence-ladder.json", "--simulate", "--per-foot", "--dropout", "200:30", "--fast", "--json")
        #expect(run.status == 0)
        let summary = try #require(jsonObject(run.stdoutData))
        let file = store.directory.path("export.jsonl")
        let export = try store.run("export", "last", "--format", "jsonl", "-o", file)
        #expect(export.status == 0, "stderr: \(export.stderr)")
        let replay = try intervalpro("replay", file, "--plan", "Plans/cadence-ladder.json", "--fast", "--json", "--no-save")
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        var replayed = try #require(jsonObject(replay.stdoutData))
        // The recording is replayed: everything but the source is the same.
        #expect(replayed["source"] as? String == "replay")
        replayed["source"] = summary["source"]
        #expect(canonical(replayed) == canonical(summary))
        // It ends where the session did, its plan's end, after the footpod's last value: imported
        // without the plan, it was 36:59 of 37:00.
        let lastLine = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastLine == #"{"t":2220.000,"dev":"intervalpro","event":"finish"}"#, "\(lastLine)")
        let other = try ScratchStore()
        #expect(try other.run("history", "import", file).status == 0)
        let imported = try #require(jsonObject(try other.run("history", "--json").stdoutData)?["sessions"] as? [[String: Any]])
        #expect(imported.map { number($0["duration_s"]) } == [number(summary["duration_s"])])
        // With its plan, scored against it as in its own store: moved to another, every session
        // was an "Imported run" without its zones.
        #expect(imported.first?["plan"] as? String == "Cadence ladder", "\(imported)")
        let totals = try #require(summary["totals"] as? [String: Any])
        #expect(number(imported.first?["in_zone_pct"]) == number(totals["in_zone_pct"]), "\(imported)")

        let unwritable = try store.run("export", "last", "--format", "fit", "-o", "/nonexistent/dir/x.fit")
        #expect(unwritable.status == 74)

        // `-o -` is standard output (it wrote a file named "-").
        let piped = try store.run("export", "last", "--format", "jsonl", "-o", "-")
        #expect(piped.status == 0, "stderr: \(piped.stderr)")
        #expect(piped.stdoutData == (try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(!FileManager.default.fileExists(atPath: packagePath("-")))
    }

    @Test("kill -9 mid-run: the next start closes the session as interrupted, scored up to the last second saved")
    func killedRunSurvives() throws {
        let store = try ScratchStore()
        let plan = try store.directory.write("ten.json", tenMinutePlanText)
        // Ten minutes at 20x: 30 s of wall time, killed after about 4 s (80 s of session).
        let command = try RunningCommand(["run", plan, "--simulate", "--seed", "5", "--speed", "20", "--db", store.path])
        let started = command.stdout.wait(upTo: 20) { $0.contains("Warmup (1/2)") }
        #expect(started)
        usleep(4_000_000)
        kill(command.process.processIdentifier, SIGKILL)
        let killed = command.finish()
        #expect(!killed.exited, "the process should have died of SIGKILL")

        let history = try store.run("history", "--json")
        #expect(history.status == 0, "stderr: \(history.stderr)")
        #expect(history.stderr.contains("was cut off"), "the next start says what it closed")
        let sessions = try #require(jsonObject(history.stdoutData)?["sessions"] as? [[String: Any]])
        let session = try #require(sessions.first)
        #expect(session["status"] as? String == "interrupted")
        #expect(session["completed"] as? Bool == false)

        let shown = try store.run("show", "last", "--json", "--samples")
        let stored = try #require(jsonObject(shown.stdoutData))
        let samples = try #require(stored["samples"] as? [[String: Any]])
        let seconds = samples.compactMap { $0["t"] as? Int }
        #expect(seconds == Array(0..<seconds.count), "samples are contiguous from 0")
        #expect(seconds.count >= 20, "at least 20 s saved (got \(seconds.count))")
        let duration = try #require(number(stored["duration_s"]))
        // Scored up to the last second saved: no more than a second past the last sample.
        #expect(duration >= Double(seconds.count - 1) && duration <= Double(seconds.count) + 1, "duration \(duration)")
        let steps = try #require(stored["steps"] as? [[String: Any]])
        #expect(steps.last?["ended_by"] as? String == "finished")
        #expect(number(steps.first?["in_zone_pct"]) != nil)
        // Its heading says what ended it: not "finished early", a runner's q or Ctrl-C.
        let text = try store.run("show", "last")
        #expect(text.stdout.contains("(interrupted)") && !text.stdout.contains("finished early"), "\(text.stdout)")
        // Its recording, exported, replays to the stored summary: it ran on to the plan's end,
        // the rest "no signal", without a finish where it was cut off.
        let exported = store.directory.path("cut.jsonl")
        #expect(try store.run("export", "last", "--format", "jsonl", "-o", exported).status == 0)
        let replayed = try store.run("replay", exported, "--plan", plan, "--fast", "--json", "--no-save")
        let summary = try #require(jsonObject(replayed.stdoutData), "\(replayed.stderr)")
        #expect(number(summary["duration_s"]) == duration, "\(replayed.stdout)")
        #expect(number((summary["totals"] as? [String: Any])?["in_zone_pct"]) == number((stored["totals"] as? [String: Any])?["in_zone_pct"]))

        // What was saved is what the same simulation gives when run to the end.
        let full = try store.run("run", plan, "--simulate", "--seed", "5", "--fast")
        #expect(full.status == 0)
        let whole = try store.run("show", "last", "--json", "--samples")
        // Without --json it was passed over without a word.
        #expect(try store.run("show", "last", "--samples").status == 64)
        let fullSamples = try #require(jsonObject(whole.stdoutData)?["samples"] as? [[String: Any]])
        let prefix = Array(fullSamples.prefix(samples.count))
        #expect(canonical(prefix) == canonical(samples), "the saved samples are the run's own")
        #expect(try store.sessions().count == 2)
        // Closed once: the next start says nothing more.
        #expect(!(try store.run("history").stderr.contains("cut off")))
    }

    @Test("a write the disk refuses is reported once; the session still finishes with its summary")
    func refusedWriteIsReported() throws {
        let store = try ScratchStore()
        let created = try store.run("history")
        #expect(created.status == 0)
        // A file size limit makes the disk refuse the store's writes, as a full disk would.
        let script = "trap '' XFSZ; ulimit -f 256; exec \"$0\" \"$@\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", script, executablePath, "replay", "Recordings/cadence-ladder.jsonl", "--plan",
            "Plans/cadence-ladder.json", "--fast", "--db", store.path,
        ]
        process.currentDirectoryURL = packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = testDataHome
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = Collected.reading(out.fileHandleForReading)
        let stderr = Collected.reading(err.fileHandleForReading)
        process.waitUntilExit()
        stdout.waitForEnd(upTo: 10)
        stderr.waitForEnd(upTo: 10)
        let errors = String(decoding: stderr.snapshot, as: UTF8.self)
        let output = String(decoding: stdout.snapshot, as: UTF8.self)

        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 74, "stderr: \(errors)")
        #expect(errors.components(separatedBy: "cannot save the session").count == 2, "said once: \(errors)")
        #expect(output.contains("In zone: 85.3%"), "the summary is printed")
        #expect(!looksLikeACrash(errors))
    }

    @Test("a read-only database: the session runs and says it was not saved; history still reads it")
    func readOnlyDatabase() throws {
        let store = try ScratchStore()
        let first = try store.run("run", "Plans/first-cadence-session.json", "--simulate", "--fast")
        #expect(first.status == 0)
        // Root ignores file modes: the immutable attribute makes the file read-only even so.
        let lock = Process()
        lock.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        lock.arguments = ["+i", store.path]
        lock.standardError = FileHandle.nullDevice
        guard (try? lock.run()) != nil else { return }
        lock.waitUntilExit()
        guard lock.terminationStatus == 0 else { return }  // a file system without the attribute
        defer {
            let unlock = Process()
            unlock.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
            unlock.arguments = ["-i", store.path]
            try? unlock.run()
            unlock.waitUntilExit()
        }
        let run = try store.run("run", "Plans/first-cadence-session.json", "--simulate", "--fast")
        #expect(run.status == 74)
        #expect(run.stderr.contains("read-only"), "stderr: \(run.stderr)")
        #expect(run.stdout.contains("In zone:"))
        let sessions = try store.sessions()
        #expect(sessions.count == 1)
    }

    /// The bundled recording is the simulator's sensors: its replay is left out as a simulated
    /// session is; the same recording from a runner's sensors counts.
    @Test("trends lists this week's sessions with a chart, simulated ones and the simulator's replays left out; report writes one HTML page")
    func trendsAndReport() throws {
        let store = try ScratchStore()
        let runners = store.directory.path("runners-ladder.jsonl")
        try String(contentsOfFile: "Recordings/cadence-ladder.jsonl", encoding: .utf8)
            .replacingOccurrences(of: "00:00:5E:00:53:0", with: "D0:5F:B8:4C:21:0")
            .write(toFile: runners, atomically: true, encoding: .utf8)
        for arguments in [
            ["--replay", runners], ["--simulate", "--seed", "1"], ["--replay", runners], ["--replay", "Recordings/cadence-ladder.jsonl"],
        ] {
            let run = try intervalpro(arguments: ["run", "Plans/cadence-ladder.json", "--fast"] + arguments + ["--db", store.path])
            #expect(run.status == 0)
        }
        let json = try store.run("trends", "--weeks", "2", "--json")
        #expect(json.status == 0, "stderr: \(json.stderr)")
        let trends = try #require(jsonObject(json.stdoutData))
        let sessions = try #require(trends["sessions"] as? [[String: Any]])
        #expect(sessions.map { $0["session_id"] as? Int } == [1, 3])
        #expect(sessions.allSatisfy { number($0["avg_work_cadence_spm"]) != nil && number($0["in_zone_pct"]) != nil })
        #expect((trends["by_week"] as? [[String: Any]])?.first?["sessions"] as? Int == 2)
        #expect(trends["simulated_left_out"] as? Int == 2)
        let chart = try store.run("trends")
        #expect(chart.stdout.contains("In zone % per session"))
        #expect(chart.stdout.contains("█"))
        #expect(chart.stdout.contains("2 simulated sessions left out"))
        #expect(try store.run("trends", "--weeks", "0").status == 64)
        // `history` says which replay was the simulator's, as trends leave it out.
        let listed = try #require(jsonObject(try store.run("history", "--json").stdoutData)?["sessions"] as? [[String: Any]])
        #expect(listed.map { $0["simulated"] as? Bool } == [true, false, true, false])
        let history = try store.run("history").stdout
        let rows = history.split(separator: "\n").filter { $0.contains("finished") }
        #expect(rows.map { $0.contains("replay (simulator)") } == [true, false, false, false], "history: \(history)")
        #expect(history.contains("replay (simulator): a recording of the simulated runner"))

        let page = store.directory.path("report.html")
        let report = try store.run("report", "last", "-o", page)
        #expect(report.status == 0, "stderr: \(report.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("Cadence ladder"))
        #expect(!html.contains("<script"))
        // Imported, the simulator's recording is explained by its own label: it was "replay (simulator)".
        #expect(try store.run("history", "import", "Recordings/first-cadence-session.jsonl").status == 0)
        let withImport = try store.run("history").stdout
        #expect(withImport.contains("imported (simulator)"), "history: \(withImport)")
        #expect(withImport.contains("imported (simulator), replay (simulator): a recording of the simulated runner"), "history: \(withImport)")
    }
}
