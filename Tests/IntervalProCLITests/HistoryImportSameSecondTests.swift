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
