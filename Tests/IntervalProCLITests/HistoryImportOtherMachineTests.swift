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

    /// A simulation's FIT or TCX export, imported on another machine, was a runner's run:
    /// counted in trends, and uploaded. Its jsonl export was always the simulator's.
    @Test("a simulated session's FIT and TCX exports import as the simulator's, left out of trends; a runner's as a run")
    func aSimulationsExportsStayTheSimulators() throws {
        let other = try ScratchStore()
        #expect(try other.run("run", "Plans/first-cadence-session.json", "--simulate", "--fast").status == 0)
        let runners = other.directory.path("runners.jsonl")
        try String(contentsOfFile: "Recordings/pyramid.jsonl", encoding: .utf8)
            .replacingOccurrences(of: "00:00:5E:00:53:0", with: "D0:5F:B8:4C:21:0")
            .write(toFile: runners, atomically: true, encoding: .utf8)
        #expect(try other.run("run", "Plans/pyramid.json", "--replay", runners, "--fast").status == 0)
        for format in ["fit", "tcx"] {
            let simulated = other.directory.path("simulated.\(format)"), run = other.directory.path("run.\(format)")
            #expect(try other.run("export", "1", "--format", format, "-o", simulated).status == 0)
            #expect(try other.run("export", "2", "--format", format, "-o", run).status == 0)
            let store = try ScratchStore()
            let imported = try store.run("history", "import", simulated, run)
            #expect(imported.status == 0, "\(imported.stderr)")
            let sessions = try #require(jsonObject(try store.run("history", "--json").stdoutData)?["sessions"] as? [[String: Any]])
            #expect(sessions.count == 2)
            // The simulation (first-cadence-session, 28:00) is the simulator's; the pyramid the runner's.
            let simulatedDurations = sessions.filter { $0["simulated"] as? Bool == true }.map { number($0["duration_s"]) }
            #expect(simulatedDurations == [1680], "\(format): \(sessions)")
            let trends = try #require(jsonObject(try store.run("trends", "--json").stdoutData))
            #expect(trends["simulated_left_out"] as? Int == 1, "\(format): \(trends)")
        }
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
