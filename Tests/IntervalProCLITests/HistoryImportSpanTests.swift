import Foundation
import Testing

/// A run is kept second by second: what spans weeks is no run to keep.
@Suite struct HistoryImportSpanTests {
    /// Three lines weeks apart took 1.9 GB to import and left a store of 268 MB, a session of
    /// 2,688 hours; `replay` still reads the file.
    @Test("a recording whose readings are a day or more apart is not imported, and says why")
    func readingsDaysApartAreNoRun() throws {
        let store = try ScratchStore()
        let lines = [
            #"{"intervalpro_recording": 1, "started_at": "2026-08-01T06:00:00Z", "devices": [{"id": "strap"}]}"#,
            #"{"t": 0, "dev": "strap", "char": "2a37", "hex": "0096"}"#,
            #"{"t": 4838400, "dev": "strap", "char": "2a37", "hex": "0096"}"#,
        ]
        let file = try store.directory.write("span.jsonl", lines.joined(separator: "\n") + "\n")
        let result = try store.run("history", "import", file, "--json")
        #expect(result.status == 65, "\(result.stderr)")
        let report = try #require(jsonObject(result.stdoutData), "\(result.stdout)")
        let unreadable = try #require(report["unreadable"] as? [[String: Any]])
        #expect((unreadable.first?["reason"] as? String)?.hasPrefix("readings a day or more apart") == true, "\(unreadable)")
        #expect(try store.sessions().isEmpty)
    }

    /// Readings of 400 s with the runner's `finish` at `finish`.
    func finishedAt(_ finish: Double, in store: ScratchStore) throws -> String {
        var lines = [#"{"intervalpro_recording": 1, "started_at": "2026-08-01T06:00:00Z", "devices": [{"id": "strap"}]}"#]
        lines += (0..<400).map { #"{"t": \#($0), "dev": "strap", "char": "2a37", "hex": "0096"}"# }
        lines.append(#"{"t": \#(finish), "dev": "intervalpro", "event": "finish"}"#)
        return try store.directory.write("finished-\(Int(finish)).jsonl", lines.joined(separator: "\n") + "\n")
    }

    /// The gap was judged without the runner's commands, which still said how long the run was.
    @Test("a runner's finish a day after the readings is no run to keep either, as replay says")
    func finishADayLaterIsNoRun() throws {
        let store = try ScratchStore()
        let file = try finishedAt(90_000, in: store)
        let result = try store.run("history", "import", file, "--json")
        #expect(result.status == 65, "\(result.stderr)")
        let unreadable = try #require(jsonObject(result.stdoutData)?["unreadable"] as? [[String: Any]], "\(result.stdout)")
        #expect((unreadable.first?["reason"] as? String)?.hasPrefix("readings a day or more apart (6:39 to 25:00:00)") == true, "\(unreadable)")
        #expect(try store.sessions().isEmpty)
    }

    /// Readings after the finish were kept as the run's, where a replay ends at it.
    @Test("a run imported ends where the runner finished, readings after it left out, as replay scores it")
    func readingsAfterTheFinishAreNoPartOfTheRun() throws {
        let store = try ScratchStore()
        let file = try finishedAt(200, in: store)
        #expect(try store.run("history", "import", file).status == 0)
        let kept = try #require(try store.sessions().first)
        #expect(number(kept["duration_s"]) == 200, "\(kept)")
        let plan = try store.directory.write("open.json", #"{"name": "Open", "steps": [{"kind": "work", "duration": "open", "cadence": 170}]}"#)
        let replay = try store.run("replay", file, "--plan", plan, "--fast", "--json", "--no-save")
        #expect(number(jsonObject(replay.stdoutData)?["duration_s"]) == 200, "\(replay.stdout)")
    }

    /// Each leg of a file carried what was said of the file, and the import said it once a leg.
    @Test("what is said of a file of several runs is said once")
    func aFilesWarningIsSaidOnce() throws {
        let store = try ScratchStore()
        func lap(_ start: String, points: Int) -> String {
            let points = (0..<points).map { second in
                "<Trackpoint><Time>\(start):0\(second)Z</Time><HeartRateBpm><Value>140</Value></HeartRateBpm>"
                    + #"<Extensions><TPX xmlns="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><RunCadence>85</RunCadence></TPX></Extensions></Trackpoint>"#
            }
            return #"<Lap StartTime="\#(start):00Z"><Track>"# + points.joined() + "</Track></Lap>"
        }
        func activity(_ laps: String) -> String { #"<Activity Sport="Running"><Id>x</Id>"# + laps + "</Activity>" }
        let text = #"<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>"#
            + activity(lap("2026-05-01T07:00", points: 3) + lap("2026-05-02T08:00", points: 5))
            + activity(lap("2026-05-03T07:00", points: 5)) + "</Activities></TrainingCenterDatabase>"
        let file = try store.directory.write("legs.tcx", text)
        let result = try store.run("history", "import", file, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = try #require(jsonObject(result.stdoutData)?["warnings"] as? [String], "\(result.stdout)")
        #expect(warnings.count == 1 && warnings.first?.contains("3 samples a day or more apart") == true, "\(result.stdout)")
    }
}
