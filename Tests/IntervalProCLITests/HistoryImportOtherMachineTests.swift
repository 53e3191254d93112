import Foundation
import Testing

/// What another machine hands `history import`: its session store, and runs its wrong clock
/// dated years ahead.
@Suite("history import: another machine's store and clock")
struct HistoryImportOtherMachineTests {
    /// A watch whose clock was set wrong dated a run 2040: `show last`, `export last` and
    /// `upload last` took it for good, the runner's own sessions never `last` again.
    @Test("last passes over a run dated more than a day ahead of the clock")
    func lastPassesOverTheFuture() throws {
        let store = try ScratchStore()
        _ = try store.directory.write("today.gpx", gpxRun(start: Date() - 3600, seconds: 300, perFoot: 85, name: "Today's run"))
        _ = try store.directory.write("future.gpx", gpxRun(start: Date() + 14 * 365 * 86_400, seconds: 300, perFoot: 80, name: "Wrong clock"))
        let imported = try store.run("history", "import", store.directory.url.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let last = try store.run("show", "last", "--json")
        #expect((jsonObject(last.stdoutData)?["plan"] as? String) == "Today's run", "\(last.stdout)")
    }

    /// Another machine's store given to be merged was a file that "holds no activity".
    @Test("a session store given to history import is said to be one, with how to bring its sessions")
    func aStoreIsNoActivity() throws {
        let other = try ScratchStore()
        #expect(try other.run("run", "Plans/cadence-ladder.json", "--replay", "Recordings/cadence-ladder.jsonl", "--fast").status == 0)
        let store = try ScratchStore()
        let imported = try store.run("history", "import", other.path)
        #expect(imported.status == 65, "\(imported.stderr)")
        #expect(imported.stderr.contains("an SQLite database (an IntervalPro session store?), not an activity"), "\(imported.stderr)")
        #expect(imported.stderr.contains("--format jsonl --db \(other.path)"), "\(imported.stderr)")
    }
}
