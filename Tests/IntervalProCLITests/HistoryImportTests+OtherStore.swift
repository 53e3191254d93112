import Foundation
import Testing

/// Sessions carried to another store, in IntervalPro's own files: they keep what they were.
extension HistoryImportTests {
    /// `run --no-save --record` and a later import (the Pi's recording carried home) gave an
    /// "Imported run" without the plan's name or zones.
    @Test("a run's recording carries its plan: imported, it is scored against it")
    func aRunsRecordingCarriesItsPlan() throws {
        let store = try ScratchStore()
        let plan = try store.directory.write("ten.json", tenMinutePlanText)
        let recording = store.directory.path("run.jsonl")
        let run = try intervalpro("run", plan, "--simulate", "--fast", "--no-save", "--json", "--record", recording)
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try #require(jsonObject(run.stdoutData)?["totals"] as? [String: Any])
        #expect(try store.run("history", "import", recording).status == 0)
        let session = try #require(try store.sessions().first)
        #expect(session["plan"] as? String == "Ten minutes", "\(session)")
        #expect(number(session["in_zone_pct"]) == number(summary["in_zone_pct"]), "\(session)")
    }

    /// A TCX export imported in another store was an "Imported run": its notes name the plan.
    @Test("a session's TCX export imported in another store keeps the plan's name")
    func aTCXExportKeepsThePlansName() throws {
        let store = try ScratchStore()
        #expect(try store.run("run", "Plans/pyramid.json", "--simulate", "--fast").status == 0)
        let file = store.directory.path("run.tcx")
        #expect(try store.run("export", "last", "--format", "tcx", "-o", file).status == 0)
        let other = try ScratchStore()
        #expect(try other.run("history", "import", file).status == 0)
        let session = try #require(try other.sessions().first)
        // The simulator's sensors are said after the name, and left out of it.
        #expect(session["plan"] as? String == "Cadence pyramid", "\(session)")
        #expect(session["simulated"] as? Bool == true, "\(session)")
    }
}
