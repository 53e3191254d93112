import Foundation
import Testing

/// `history import` given paths as a runner gives them: several at once, and folders that hold
/// links to files moved away.
extension HistoryImportTests {
    /// `history import ~/Downloads/*.gpx`, as a shell expands it, exited 64 with "2
    /// unexpected arguments".
    @Test("several paths, as a shell's *.gpx gives them, import together; one missing fails with 66 before any is read")
    func severalPaths() throws {
        let store = try ScratchStore()
        let day = 86_400.0
        let first = try store.directory.write("a.gpx", gpxRun(start: Self.lastRun, seconds: 60, perFoot: 85))
        let second = try store.directory.write("b.gpx", gpxRun(start: Self.lastRun - day, seconds: 60, perFoot: 84))
        let missing = store.directory.path("c.gpx")
        let refused = try store.run("history", "import", first, missing, second)
        #expect(refused.status == 66, "stdout: \(refused.stdout) stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("c.gpx"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store.path), "nothing read, no store made")

        let imported = try store.run("history", "import", first, second)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        #expect(imported.stdout.contains("Imported 2 runs from the 2 paths given (2 files read)."), "\(imported.stdout)")
        // What it suggests next is for the store it imported into (it dropped --db).
        #expect(imported.stdout.contains("See them with `intervalpro history --db \(store.path)`"), "\(imported.stdout)")
        #expect(try store.sessions().count == 2)
        // The same file twice is one run.
        let again = try store.run("history", "import", first, first, "--json")
        #expect(jsonObject(again.stdoutData)?["imported"] as? [Int] == [], "\(again.stdout)")
    }

    /// `history import runs runs/a.gpx ./runs` (globs that overlap) read a.gpx three times and
    /// said "Skipped 2 runs imported before" of the run it had just imported.
    @Test("a file reached by several of the paths given is read once")
    func aFileGivenTwiceIsReadOnce() throws {
        let store = try ScratchStore()
        let folder = store.directory.path("runs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try gpxRun(start: Self.lastRun, seconds: 60, perFoot: 85).write(toFile: folder + "/a.gpx", atomically: true, encoding: .utf8)
        let result = try store.run("history", "import", folder, folder + "/a.gpx", folder + "/../runs", "--json")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try #require(jsonObject(result.stdoutData), "\(result.stdout)")
        #expect((report["imported"] as? [Int])?.count == 1, "\(result.stdout)")
        #expect((report["duplicates"] as? [Any])?.isEmpty == true, "\(result.stdout)")
        #expect(report["files_read"] as? Int == 1, "\(result.stdout)")
    }

    /// A link to a file since moved was passed over without a word ("Imported 0 runs (0 files
    /// read)", exit 0), where the link named alone was "No such file or directory".
    @Test("a link to nothing in a folder is named among the unreadable, with what it names")
    func brokenLinksAreSaid() throws {
        let store = try ScratchStore()
        let folder = store.directory.path("runs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/run.gpx", withDestinationPath: "../moved.gpx")
        let result = try store.run("history", "import", folder, "--json")
        #expect(result.status == 65, "stdout: \(result.stdout) stderr: \(result.stderr)")
        // Said in one line, as every failure is (nothing was said on stderr).
        #expect(result.stderr == "intervalpro: error: none of the activity files could be read (`unreadable` lists them)\n", "\(result.stderr)")
        let unreadable = try #require(jsonObject(result.stdoutData)?["unreadable"] as? [[String: Any]], "\(result.stdout)")
        #expect(unreadable.first?["file"] as? String == folder + "/run.gpx", "\(unreadable)")
        #expect(unreadable.first?["reason"] as? String == "a link to ../moved.gpx, which is not there (moved or deleted?)", "\(unreadable)")
    }
}
