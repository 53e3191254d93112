import Foundation
import Testing

/// Runs that began in the same second (replays from a script all do) are different runs: an
/// export of one was taken for the other's, and skipped for good.
@Suite struct HistoryImportSameSecondTests {
    /// A bundled recording started at `startedAt`, its footpod given another id (so that the
    /// store keeps both as runs of their own).
    func recording(_ name: String, startedAt: String, footpod: String, in directory: ScratchDirectory) throws -> String {
        var text = try String(contentsOfFile: packagePath("Recordings/\(name).jsonl"), encoding: .utf8)
        text = text.replacingOccurrences(of: "00:00:5E:00:53:02", with: footpod)
        let header = try #require(text.firstIndex(of: "\n"))
        let rest = text[header...]
        let firstLine = String(text[..<header]).replacingOccurrences(
            of: #""started_at":"[^"]*""#, with: #""started_at":"\#(startedAt)""#, options: .regularExpression)
        return try directory.write("\(name).jsonl", firstLine + rest)
    }

    @Test("an export of a run that began in the same second as another is its own run: imported again once deleted")
    func aRunOfTheSameSecondIsNotAnotherRunsExport() throws {
        let store = try ScratchStore()
        let start = "2026-11-18T06:45:00Z"
        let first = try recording("first-cadence-session", startedAt: start, footpod: "00:00:5E:00:53:0A", in: store.directory)
        let pyramid = try recording("pyramid", startedAt: start, footpod: "00:00:5E:00:53:0B", in: store.directory)
        for file in [first, pyramid] { #expect(try store.run("history", "import", file).status == 0) }
        #expect(try store.sessions().count == 2)
        for format in ["fit", "tcx"] {
            let exported = store.directory.path("pyramid.\(format)")
            #expect(try store.run("export", "2", "--format", format, "-o", exported).status == 0)
        }
        #expect(try store.run("delete", "2").status == 0)
        let again = try store.run("history", "import", store.directory.path("pyramid.fit"), "--json")
        let report = try #require(jsonObject(again.stdoutData), "\(again.stderr)")
        #expect((report["imported"] as? [Any])?.count == 1, "\(report)")
        let sessions = try store.sessions()
        #expect(sessions.count == 2 && Set(sessions.compactMap { $0["duration_s"] as? Double }).count == 2, "\(sessions)")
    }

    /// Two recordings of one second and the same sensors (runs replayed from a script, each
    /// exported with `--format jsonl`) were taken for copies of one run, and the shorter left
    /// out: a store's sessions exported and imported elsewhere came back 17 of 78 short.
    @Test("two recordings of one second and the same sensors are two runs; imported again, none")
    func twoRecordingsOfOneSecondAndTheSameSensors() throws {
        let store = try ScratchStore()
        let start = "2026-11-18T06:45:00Z"
        let folder = try ScratchDirectory()
        _ = try recording("first-cadence-session", startedAt: start, footpod: "00:00:5E:00:53:02", in: folder)
        _ = try recording("pyramid", startedAt: start, footpod: "00:00:5E:00:53:02", in: folder)
        let imported = try store.run("history", "import", folder.url.path)
        #expect(imported.status == 0 && !imported.stdout.contains("Skipped"), "\(imported.stdout)")
        #expect(try store.sessions().count == 2)
        let again = try #require(jsonObject(try store.run("history", "import", folder.url.path, "--json").stdoutData))
        #expect((again["imported"] as? [Any])?.isEmpty == true, "\(again)")
        #expect(try store.sessions().count == 2)
    }

    /// A session's exports are that session, however it paused and ended: each pause of a
    /// FIT export stops and starts on whole seconds (three pauses of 4.8 s came back as 4 s,
    /// 3 s over, and a second run); a recording finished after its sensors fell silent was
    /// imported as ending at their last reading, 11 s short, and a second run.
    @Test("a session with pauses, or finished after its sensors fell silent: its exports are that session")
    func exportsOfPausedAndLateFinishedSessions() throws {
        let source = try ScratchStore()
        let plan = try source.directory.write(
            "plan.json", #"{"name": "Pauses", "steps": [{"kind": "work", "duration": 30, "cadence": 170}, {"kind": "cooldown", "duration": "open"}]}"#)
        func reading(_ t: Double) -> String {
            let metres = Int(t * 30)  // 3 m/s, in decimetres
            let distance = (0..<4).map { String(format: "%02x", (metres >> (8 * $0)) & 0xff) }.joined()
            return #"{"t": \#(t), "dev": "pod", "char": "2a53", "hex": "020003aa\#(distance)"}"#
        }
        func runner(_ t: Double, _ command: String) -> String { #"{"t": \#(t), "dev": "intervalpro", "event": "\#(command)"}"# }
        let header = #"{"intervalpro_recording": 1, "started_at": "2026-11-27T07:30:00Z", "devices": [{"id": "pod", "cadence_unit": "steps"}]}"#
        let paused = [header] + stride(from: 0.0, through: 75, by: 0.5).map(reading)
            + [runner(10.2, "pause"), runner(15, "resume"), runner(25.2, "pause"), runner(30, "resume"), runner(40.2, "pause"), runner(45, "resume")]
        let late = [header] + stride(from: 0.0, through: 40, by: 0.5).map(reading) + [runner(13.2, "pause"), runner(18, "resume"), runner(50, "finish")]
        for (name, lines, format) in [("paused", paused, "fit"), ("late", late, "jsonl")] {
            let recording = try source.directory.write("\(name).jsonl", lines.joined(separator: "\n") + "\n")
            #expect(try source.run("replay", recording, "--plan", plan, "--fast").status == 0)
            let stored = try #require(number(try source.sessions().first?["duration_s"]))
            let export = source.directory.path("\(name)-export.\(format)")
            #expect(try source.run("export", "last", "--format", format, "-o", export).status == 0)
            let again = try #require(jsonObject(try source.run("history", "import", export, "--json").stdoutData))
            #expect((again["imported"] as? [Any])?.isEmpty == true, "\(name): \(again)")
            let other = try ScratchStore()
            #expect(try other.run("history", "import", export).status == 0)
            let imported = try #require(number(try other.sessions().first?["duration_s"]))
            #expect(abs(imported - stored) <= 3, "\(name): \(imported) against \(stored)")
        }
    }

    /// The FIT and the TCX of one export, read side by side into another store, were both kept
    /// now and then, as two sessions of one run.
    @Test("a run's FIT and TCX imported together into another store: one session, every time")
    func oneRunsTwoFilesAreOneSession() throws {
        let source = try ScratchStore()
        #expect(try source.run("replay", packagePath("Recordings/pyramid.jsonl"), "--plan", packagePath("Plans/pyramid.json"), "--fast").status == 0)
        let folder = source.directory.path("exports")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for format in ["fit", "tcx"] {
            #expect(try source.run("export", "last", "--format", format, "-o", "\(folder)/run.\(format)").status == 0)
        }
        for _ in 0..<3 {
            let other = try ScratchStore()
            let result = try other.run("history", "import", folder, "--json")
            let report = try #require(jsonObject(result.stdoutData), "\(result.stderr)")
            #expect((report["imported"] as? [Any])?.count == 1, "\(report)")
            let duplicates = try #require(report["duplicates"] as? [[String: Any]])
            #expect((duplicates.first?["reason"] as? String)?.hasPrefix("the same run as ") == true, "\(duplicates)")
            // Imported again, the folder's files and one alone are runs imported before: they were
            // "copies of a run another file of these holds (the longer kept)", one file read.
            for path in [folder, "\(folder)/run.tcx"] {
                let again = try other.run("history", "import", path)
                #expect(again.stdout.contains("Skipped \(path == folder ? "2 runs" : "1 run") imported before."), "\(again.stdout)")
                #expect(!again.stdout.contains("cop"), "\(again.stdout)")
                let reasons = try #require(jsonObject(try other.run("history", "import", path, "--json").stdoutData)?["duplicates"] as? [[String: Any]])
                #expect(
                    !reasons.contains { ($0["reason"] as? String)?.contains("same run as \($0["file"] as? String ?? "-"),") == true },
                    "no file is the same run as itself: \(reasons)")
            }
        }
    }
}
