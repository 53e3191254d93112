import Foundation
import Testing

/// A GPX run as Strava exports one (Garmin's TrackPointExtension, cadence per foot, Strava's
/// type number 9), `seconds` long from `start`.
func gpxRun(start: Date, seconds: Int, perFoot: Int, type: String = "9", name: String = "Morning Run") -> String {
    let format = ISO8601DateFormatter()
    let points = (0..<seconds).map { second in
        """
        <trkpt lat="\(52 + Double(second) * 0.00003)" lon="4.3"><time>\(format.string(from: start + Double(second)))</time>\
        <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>\(140 + second % 5)</gpxtpx:hr>\
        <gpxtpx:cad>\(perFoot)</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>
        """
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx creator="StravaGPX" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
        <trk><name>\(name)</name><type>\(type)</type><trkseg>
        \(points.joined(separator: "\n"))
        </trkseg></trk></gpx>

        """
}

/// A TCX run as Garmin Connect exports one, from a Forerunner.
func tcxRun(start: Date, seconds: Int, perFoot: Int) -> String {
    let format = ISO8601DateFormatter()
    let points = (0..<seconds).map { second in
        """
        <Trackpoint><Time>\(format.string(from: start + Double(second)))</Time>\
        <DistanceMeters>\(Double(second) * 3)</DistanceMeters><HeartRateBpm><Value>150</Value></HeartRateBpm>\
        <Extensions><TPX xmlns="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><RunCadence>\(perFoot)</RunCadence></TPX>\
        </Extensions></Trackpoint>
        """
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
        <Activities><Activity Sport="Running"><Id>\(format.string(from: start))</Id><Lap><Track>
        \(points.joined(separator: "\n"))
        </Track></Lap><Creator><Name>Forerunner 255</Name><UnitId>3900000001</UnitId></Creator></Activity></Activities>
        </TrainingCenterDatabase>

        """
}

/// Runs a system tool (gzip, zip) in `directory`; records its failure.
private func tool(_ path: String, _ arguments: [String], in directory: URL) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(path) \(arguments)")
}

@Suite("history import: a folder of exports into the history")
struct HistoryImportTests {
    /// 2026-03-02 06:30 UTC, and a run a week for `weeks` weeks back from it.
    static let lastRun = Date(timeIntervalSince1970: 1_772_433_000)

    @Test("a folder of mixed exports imports once: gzip and zip made by the system tools, other sports and files left out")
    func aFolderImportsOnce() throws {
        let store = try ScratchStore()
        let folder = store.directory.url.appendingPathComponent("exports", isDirectory: true)
        let activities = folder.appendingPathComponent("activities", isDirectory: true)
        try FileManager.default.createDirectory(at: activities, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String, in directory: URL) throws {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        let week = 7.0 * 86_400
        try write("1.gpx", gpxRun(start: Self.lastRun, seconds: 120, perFoot: 85), in: activities)
        // 2.tcx.gz, as Strava's bulk export keeps them: gzipped, ten spaces before the XML declaration.
        try write("2.tcx", "          " + tcxRun(start: Self.lastRun - week, seconds: 90, perFoot: 82), in: activities)
        try tool("/bin/gzip", ["2.tcx"], in: activities)
        try write("3.gpx", gpxRun(start: Self.lastRun - 2 * week, seconds: 60, perFoot: 80), in: activities)
        try write("ride.gpx", gpxRun(start: Self.lastRun - 3 * week, seconds: 60, perFoot: 45, type: "1", name: "Evening Ride"), in: activities)
        try write("activities.csv", "Activity ID,Activity Date\n1,2026-03-02\n", in: folder)
        // What macOS leaves on a stick: a resource fork beside each file, Finder's and
        // Spotlight's own. Each was listed as unreadable.
        try Data([0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00] + [UInt8](repeating: 0, count: 64))
            .write(to: activities.appendingPathComponent("._1.gpx"))
        try write(".DS_Store", "Bud1", in: folder)
        let spotlight = folder.appendingPathComponent(".Spotlight-V100/Store-V2", isDirectory: true)
        try FileManager.default.createDirectory(at: spotlight, withIntermediateDirectories: true)
        try write("store.db", "not a run", in: spotlight)
        // A Garmin Connect export: a zip holding the run.
        let garmin = store.directory.url.appendingPathComponent("garmin", isDirectory: true)
        try FileManager.default.createDirectory(at: garmin, withIntermediateDirectories: true)
        try write("4.tcx", tcxRun(start: Self.lastRun - 4 * week, seconds: 60, perFoot: 84), in: garmin)
        try tool("/usr/bin/zip", ["-q", folder.appendingPathComponent("garmin-export.zip").path, "4.tcx"], in: garmin)
        // The same run twice: a copy under another name is a duplicate.
        try write("copy-of-1.gpx", gpxRun(start: Self.lastRun, seconds: 120, perFoot: 85), in: folder)
        // A phone's GPS alone: no cadence, no heart rate, nothing to keep.
        try write(
            "gps.gpx",
            #"<gpx version="1.1"><trk><type>running</type><trkseg><trkpt lat="1" lon="1"><time>2026-01-05T06:30:00Z</time></trkpt>"#
                + #"<trkpt lat="1.001" lon="1"><time>2026-01-05T06:30:40Z</time></trkpt></trkseg></trk></gpx>"#, in: activities)

        let first = try store.run("history", "import", folder.path, "--json")
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let report = try #require(jsonObject(first.stdoutData), "stdout: \(first.stdout)")
        #expect((report["imported"] as? [Int])?.count == 4, "\(report)")
        #expect((report["duplicates"] as? [[String: Any]])?.count == 1, "\(report)")
        #expect((report["not_runs"] as? [[String: Any]])?.first?["reason"] as? String == "cycling", "\(report)")
        #expect(report["other_files"] as? Int == 1, "\(report)")
        #expect((report["without_readings"] as? [[String: Any]])?.map { $0["file"] as? String } == [activities.appendingPathComponent("gps.gpx").path], "\(report)")
        #expect((report["unreadable"] as? [Any])?.isEmpty == true, "\(report)")

        let sessions = try store.sessions()
        #expect(sessions.count == 4)
        #expect(sessions.allSatisfy { $0["source"] as? String == "imported" })
        // Newest first by the watch's start time, whatever order they were imported in.
        #expect(sessions.map { $0["started_at"] as? String } == [
            "2026-03-02T06:30:00Z", "2026-02-23T06:30:00Z", "2026-02-16T06:30:00Z", "2026-02-02T06:30:00Z",
        ])
        #expect(sessions.first?["plan"] as? String == "Morning Run")
        #expect(sessions.map { number($0["avg_work_cadence_spm"]) } == [170, 164, 160, 168])

        // A second import adds nothing, and says so.
        let again = try store.run("history", "import", folder.path)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stdout.contains("Imported 0 runs"), "\(again.stdout)")
        #expect(again.stdout.contains("Skipped 5 runs imported before"), "\(again.stdout)")
        #expect(try store.sessions().count == 4)

        // trends draws the imported weeks.
        let trends = try store.run("trends", "--weeks", "520", "--json")
        let points = try #require(jsonObject(trends.stdoutData)?["sessions"] as? [[String: Any]])
        #expect(points.count == 4)
    }

    /// The session keeps the timer's time: compared with the file's whole span, every paused
    /// run imported again was said to be a copy cut short, to be deleted and imported again.
    @Test("a paused run imported again is skipped as imported before, and not said to hold more")
    func aPausedRunImportedAgainIsNotSaidToHoldMore() throws {
        let store = try ScratchStore()
        var lines = gpxRun(start: Self.lastRun, seconds: 600, perFoot: 86).components(separatedBy: "\n")
        // Paused from the 300th second to the 420th: a second track segment after the gap.
        let points = lines.indices.filter { lines[$0].contains("<trkpt") }
        lines.replaceSubrange(points[300]..<points[420], with: ["</trkseg><trkseg>"])
        let paused = try store.directory.write("paused.gpx", lines.joined(separator: "\n"))
        #expect(try store.run("history", "import", paused).status == 0)
        let again = try store.run("history", "import", paused, "--json")
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let report = try #require(jsonObject(again.stdoutData))
        #expect((report["duplicates"] as? [Any])?.count == 1)
        #expect((report["longer_than_kept"] as? [Any])?.isEmpty == true, "\(report)")
        // Its export keeps the pause: imported again, it is the session it was exported from
        // (it was a second run, two minutes longer, those minutes no signal).
        let exported = store.directory.path("paused.jsonl")
        #expect(try store.run("export", "last", "--format", "jsonl", "-o", exported).status == 0)
        let back = try #require(jsonObject(try store.run("history", "import", exported, "--json").stdoutData))
        #expect((back["imported"] as? [Any])?.isEmpty == true, "\(back)")
        #expect(try store.sessions().count == 1)
    }

    @Test("a copy cut short imported first: the whole file is skipped as imported before, and said to hold more")
    func aLongerCopyOfAnImportedRunIsSaid() throws {
        let store = try ScratchStore()
        let cut = try store.directory.write("cut.gpx", gpxRun(start: Self.lastRun, seconds: 96, perFoot: 86))
        let whole = try store.directory.write("whole.gpx", gpxRun(start: Self.lastRun, seconds: 600, perFoot: 86))
        #expect(try store.run("history", "import", cut).status == 0)
        let again = try store.run("history", "import", whole, "--json")
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let report = try #require(jsonObject(again.stdoutData))
        #expect((report["duplicates"] as? [Any])?.count == 1)
        let longer = try #require(report["longer_than_kept"] as? [[String: Any]])
        #expect(longer.count == 1 && (longer.first?["reason"] as? String)?.contains("session 1 is 1:35, this file 9:59") == true, "\(longer)")
        let text = try store.run("history", "import", whole)
        #expect(text.stdout.contains("Of them, 1 file holds more than the session kept"), "\(text.stdout)")
    }

    /// A session uploaded and then downloaded in a service's bulk export came back as a second
    /// copy of itself (started the same second, counted twice in trends).
    @Test("a session's own FIT, TCX or jsonl export imported into its store is that session, skipped")
    func anExportOfThisStoreIsNotImportedAgain() throws {
        let store = try ScratchStore()
        let run = try store.run("replay", packagePath("Recordings/pyramid.jsonl"), "--plan", packagePath("Plans/pyramid.json"), "--fast")
        #expect(run.status == 0, "stderr: \(run.stderr)")
        // A recording (`jsonl`) too: it was imported as a second session, its pauses "no signal".
        for format in ["fit", "tcx", "jsonl"] {
            let file = store.directory.path("exported.\(format)")
            #expect(try store.run("export", "last", "--format", format, "-o", file).status == 0)
            let again = try store.run("history", "import", file, "--json")
            #expect(again.status == 0, "stderr: \(again.stderr)")
            let report = try #require(jsonObject(again.stdoutData))
            #expect((report["imported"] as? [Any])?.isEmpty == true, "\(format): \(report)")
            let duplicates = try #require(report["duplicates"] as? [[String: Any]])
            #expect(duplicates.first?["reason"] as? String == "exported from session 1", "\(format): \(duplicates)")
            // Said as what it is, not "imported before" (the session was a replay).
            let text = try store.run("history", "import", file)
            #expect(text.stdout.contains("Skipped 1 file IntervalPro exported from sessions this history holds."), "\(text.stdout)")
        }
        // Another store has no such session: the export is a run to import there.
        let elsewhere = try ScratchStore()
        let imported = try elsewhere.run("history", "import", store.directory.path("exported.fit"), "--json")
        #expect((try #require(jsonObject(imported.stdoutData))["imported"] as? [Any])?.count == 1, "\(imported.stdout)")
    }

    /// A folder of `count` GPX runs of `seconds` each, one a day back from `lastRun`.
    func daily(_ count: Int, runsOf seconds: Int, in store: ScratchStore) throws -> String {
        let folder = store.directory.path("runs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for day in 0..<count {
            try store.directory.write(
                "runs/\(day).gpx", gpxRun(start: Self.lastRun - Double(day) * 86_400, seconds: seconds, perFoot: 86))
        }
        return folder
    }

    /// Ctrl-C ended an import at once: the progress line left unfinished, no summary, nothing
    /// said of the 78 runs of 300 it had imported.
    @Test("Ctrl-C during an import finishes the files in hand, says what was done, and exits 130")
    func ctrlCDuringAnImportSaysWhatWasDone() throws {
        let store = try ScratchStore()
        let folder = try daily(200, runsOf: 300, in: store)
        let running = try RunningCommand(["history", "import", folder, "--db", store.path], in: store.directory.url)
        // Some runs in, then Ctrl-C.
        let deadline = Date() + 60
        while Date() < deadline {
            let listed = try intervalpro("history", "--db", store.path, "--json")
            if ((jsonObject(listed.stdoutData)?["sessions"] as? [Any])?.count ?? 0) >= 5 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        running.interrupt()
        let result = running.finish()
        #expect(result.exited && result.status == 130, "status \(result.status), stderr: \(result.stderr)")
        let said = try #require(result.stdout.firstMatch(of: /Imported (\d+) runs?.*\n(?s:.*)Stopped by a signal after (\d+) of 200 files/))
        let kept = try store.sessions().count
        #expect(Int(said.1) == kept && kept >= 5 && kept < 200, "\(result.stdout)")
        #expect(!looksLikeACrash(result.stderr), "stderr: \(result.stderr)")
        // Imported again: the rest, and nothing twice.
        let again = try #require(jsonObject(try store.run("history", "import", folder, "--json").stdoutData))
        #expect((again["imported"] as? [Any])?.count == 200 - kept)
        #expect((again["duplicates"] as? [Any])?.count == kept)
    }

    /// Two imports of one folder at once: the runs the other had stored were said to be
    /// "the same run as" the very file, copies "another file of these holds (the longer kept)".
    @Test("two imports of one folder at once: each run once, the other's said as imported before")
    func twoImportsAtOnce() throws {
        let store = try ScratchStore()
        let folder = try daily(120, runsOf: 120, in: store)
        let imports = try (0..<2).map { _ in
            try RunningCommand(["history", "import", folder, "--db", store.path, "--json"], in: store.directory.url)
        }
        let reports = try imports.map { try #require(jsonObject($0.finish().stdoutData)) }
        let imported = reports.map { ($0["imported"] as? [Any])?.count ?? 0 }
        let reasons = reports.flatMap { ($0["duplicates"] as? [[String: Any]]) ?? [] }.compactMap { $0["reason"] as? String }
        #expect(imported.reduce(0, +) == 120 && reasons.count == 120, "imported \(imported), \(reasons.count) skipped")
        #expect(reasons.allSatisfy { $0.hasPrefix("imported before as session") }, "\(Set(reasons.map { $0.prefix(16) }))")
        let listed = try #require(jsonObject(try store.run("history", "--json", "--limit", "1000").stdoutData))
        #expect((listed["sessions"] as? [Any])?.count == 120)
    }

    @Test("an imported run is the session a replay of the file against an open plan scores")
    func anImportedRunScoresAsItsReplay() throws {
        let store = try ScratchStore()
        let file = try store.directory.write("run.gpx", gpxRun(start: Self.lastRun, seconds: 300, perFoot: 86))
        let imported = try store.run("history", "import", file)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let shown = try store.run("show", "1", "--json")
        let stored = try #require(jsonObject(shown.stdoutData), "stdout: \(shown.stdout)")
        #expect(stored["source"] as? String == "imported")

        let plan = try store.directory.write(
            "open.json", #"{"name": "Morning Run", "steps": [{"kind": "work", "duration": "open", "label": "Imported run"}]}"#)
        let replay = try intervalpro("replay", file, "--plan", plan, "--fast", "--json", "--no-save")
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        let replayed = try #require(jsonObject(replay.stdoutData))
        #expect(canonical(stored["totals"] as Any) == canonical(replayed["totals"] as Any))
        #expect(number(stored["duration_s"]) == number(replayed["duration_s"]))
        #expect(number((stored["totals"] as? [String: Any])?["avg_cadence_spm"]) == 172)
    }

    /// A GPX of two runs' tracks imported the first alone, with a warning that `--leg N` reads
    /// another, an option `history import` does not have.
    @Test("a file of two runs is two sessions, each under its track's name")
    func everyRunOfAFile() throws {
        let store = try ScratchStore()
        func track(_ text: String) -> Substring {
            let start = text.range(of: "<trk>")!.lowerBound, end = text.range(of: "</trk>")!.upperBound
            return text[start..<end]
        }
        let first = gpxRun(start: Date(timeIntervalSince1970: 1_780_000_000), seconds: 60, perFoot: 85, type: "running", name: "Day A")
        let second = gpxRun(start: Date(timeIntervalSince1970: 1_780_086_400), seconds: 60, perFoot: 86, type: "running", name: "Day B")
        let both = first.replacingOccurrences(of: String(track(first)), with: String(track(first)) + String(track(second)))
        let file = try store.directory.write("two.gpx", both)
        let result = try store.run("history", "import", file, "--json")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        #expect((report["imported"] as? [Int])?.count == 2, "\(report)")
        #expect((report["warnings"] as? [String])?.contains { $0.contains("--leg") } == false, "\(report)")
        #expect(try store.sessions().compactMap { $0["plan"] as? String }.sorted() == ["Day A", "Day B"])
        // Imported again: both are there already.
        let again = try store.run("history", "import", file, "--json")
        #expect((jsonObject(again.stdoutData)?["duplicates"] as? [Any])?.count == 2, "\(again.stdout)")
    }

    /// Tracks that do not say their sport are runs when none says otherwise: of two, the first
    /// alone was imported, the second said only in a warning that "--leg N reads another". A
    /// ride's track beside a run's was said nowhere.
    @Test("a GPX of two tracks without a type is two runs; a ride's track beside a run is counted with other sports")
    func tracksWithoutATypeAndOtherSports() throws {
        let store = try ScratchStore()
        func track(_ text: String) -> String {
            let start = text.range(of: "<trk>")!.lowerBound, end = text.range(of: "</trk>")!.upperBound
            return String(text[start..<end])
        }
        func untyped(_ text: String) -> String { text.replacingOccurrences(of: "<type>9</type>", with: "") }
        let first = untyped(gpxRun(start: Date(timeIntervalSince1970: 1_780_000_000), seconds: 60, perFoot: 85, name: "Day A"))
        let second = untyped(gpxRun(start: Date(timeIntervalSince1970: 1_780_086_400), seconds: 60, perFoot: 86, name: "Day B"))
        #expect(!first.contains("<type>"))
        let both = first.replacingOccurrences(of: track(first), with: track(first) + track(second))
        let result = try store.run("history", "import", try store.directory.write("untyped.gpx", both), "--json")
        let report = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        #expect((report["imported"] as? [Int])?.count == 2, "\(report)")
        #expect((report["warnings"] as? [String])?.contains { $0.contains("--leg") } == false, "\(report)")

        let run = gpxRun(start: Date(timeIntervalSince1970: 1_780_172_800), seconds: 60, perFoot: 85, type: "running", name: "Day C")
        let ride = gpxRun(start: Date(timeIntervalSince1970: 1_780_180_000), seconds: 60, perFoot: 85, type: "cycling", name: "Ride")
        let brick = run.replacingOccurrences(of: track(run), with: track(run) + track(ride))
        let mixed = try store.run("history", "import", try store.directory.write("brick.gpx", brick), "--json")
        let mixedReport = try #require(jsonObject(mixed.stdoutData), "stdout: \(mixed.stdout)")
        #expect((mixedReport["imported"] as? [Int])?.count == 1, "\(mixedReport)")
        let others = try #require(mixedReport["not_runs"] as? [[String: Any]])
        #expect(others.map { $0["reason"] as? String } == ["cycling"], "\(mixedReport)")
        #expect((others.first?["file"] as? String)?.hasSuffix("brick.gpx (leg 2)") == true, "\(others)")
        #expect((mixedReport["warnings"] as? [String])?.contains { $0.contains("--leg") } == false, "\(mixedReport)")
    }

    /// A run without a footpod kept its time and heart rate and lost its distance; one whose
    /// app wrote cadence 0 throughout was a run at 0 spm (it put weeks at 136 in trends).
    @Test("a run without cadence keeps its distance; cadence 0 throughout is no cadence, said")
    func distanceWithoutCadence() throws {
        let store = try ScratchStore()
        // 61 points 0.00003° of latitude apart: 60 × 3.3359 m on the mean earth radius.
        func gpx(cadence: String?) -> String {
            let points = (0...60).map { second in
                #"<trkpt lat="\#(52 + Double(second) * 0.00003)" lon="4.3"><time>2026-03-0\#(cadence == nil ? 1 : 2)T06:\#(30 + second / 60):\#(second % 60 < 10 ? "0" : "")\#(second % 60)Z</time>"#
                    + #"<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>150</gpxtpx:hr>\#(cadence.map { "<gpxtpx:cad>\($0)</gpxtpx:cad>" } ?? "")"#
                    + "</gpxtpx:TrackPointExtension></extensions></trkpt>"
            }
            return #"<gpx version="1.1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><type>running</type><trkseg>"#
                + points.joined() + "</trkseg></trk></gpx>"
        }
        let folder = store.directory.path("runs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try store.directory.write("runs/strap-only.gpx", gpx(cadence: nil))
        _ = try store.directory.write("runs/zeros.gpx", gpx(cadence: "0"))
        let result = try store.run("history", "import", folder, "--json")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        #expect((report["warnings"] as? [String])?.contains { $0.contains("cadence 0 in every sample") } == true, "\(report)")
        let sessions = try store.sessions()
        #expect(sessions.count == 2)
        for session in sessions {
            let distance = try #require(number(session["distance_m"]), "\(session)")
            #expect(abs(distance - 200.15) < 0.5, "\(session)")
            #expect(session["avg_cadence_spm"] is NSNull, "\(session)")
            #expect(number(session["avg_hr_bpm"]) == 150)
        }
    }

    /// A Latin-1 name (an old disk's "Läuf.gpx") was decoded with a replacement character,
    /// named no file and was passed over: "Imported 0 runs (0 files read)", exit 0.
    @Test("a file whose name is not UTF-8 is named among the unreadable, with how to rename it")
    func namesThatAreNotUTF8AreSaid() throws {
        let store = try ScratchStore()
        let folder = store.directory.path("old disk")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = try store.directory.write("run.gpx", gpxRun(start: Date(timeIntervalSince1970: 1_780_000_000), seconds: 60, perFoot: 85))
        let copied = try intervalpro(
            arguments: ["-c", "cp \"$0\" \"$1/$(printf 'L\\344uf.gpx')\"", source, folder], executable: "/bin/sh")
        #expect(copied.status == 0, "\(copied.stderr)")
        let result = try store.run("history", "import", folder, "--json")
        #expect(result.status == 65, "stdout: \(result.stdout) stderr: \(result.stderr)")
        let report = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        let unreadable = try #require(report["unreadable"] as? [[String: Any]])
        #expect(unreadable.first?["file"] as? String == folder + "/L\\xE4uf.gpx", "\(unreadable)")
        #expect((unreadable.first?["reason"] as? String)?.contains("its name is not UTF-8") == true, "\(unreadable)")
    }

    @Test("a recording's started_at with a fraction or an offset is kept in UTC to the second; one that is no time is refused")
    func recordingStartTimesAreKeptInUTC() throws {
        let store = try ScratchStore()
        let lines = (0..<30).map { #"{"t": \#($0), "dev": "pod", "char": "2a53", "hex": "02000355"}"# }.joined(separator: "\n")
        for (name, startedAt) in [("fraction", "2026-09-09T07:30:00.250Z"), ("offset", "2026-09-16T08:30:00+01:00")] {
            let file = try store.directory.write(
                "\(name).jsonl", #"{"intervalpro_recording": 1, "started_at": "\#(startedAt)", "devices": [{"id": "pod"}]}"# + "\n" + lines + "\n")
            let imported = try store.run("history", "import", file)
            #expect(imported.status == 0, "\(name): \(imported.stderr)")
        }
        let listed = try store.run("history", "--json")
        let sessions = try #require(jsonObject(listed.stdoutData)?["sessions"] as? [[String: Any]], "\(listed.stdout)")
        #expect(Set(sessions.compactMap { $0["started_at"] as? String }) == ["2026-09-09T07:30:00Z", "2026-09-16T07:30:00Z"])

        let vague = try store.directory.write(
            "vague.jsonl", #"{"intervalpro_recording": 1, "started_at": "yesterday", "devices": [{"id": "pod"}]}"# + "\n" + lines + "\n")
        let refused = try store.run("history", "import", vague)
        #expect(refused.status == 65, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains(#"started_at "yesterday" is not a time"#), "\(refused.stderr)")
    }

    /// A started_at without a zone (Python's `datetime.now().isoformat()`) was read as UTC: a
    /// Berlin run of 23:50 was filed at 00:50 the next day, in silence.
    @Test("a recording's started_at without a zone is the local time, and the import says so")
    func aStartWithoutAZoneIsLocalTime() throws {
        let store = try ScratchStore()
        let lines = (0..<30).map { #"{"t": \#($0), "dev": "pod", "char": "2a53", "hex": "02000355"}"# }.joined(separator: "\n")
        let file = try store.directory.write(
            "naive.jsonl", #"{"intervalpro_recording": 1, "started_at": "2026-11-10T23:50:00", "devices": [{"id": "pod"}]}"# + "\n" + lines + "\n")
        let berlin: [String: String?] = ["TZ": "Europe/Berlin"]
        let imported = try intervalpro(arguments: ["history", "import", file, "--db", store.path], environment: berlin)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains(#"started_at "2026-11-10T23:50:00" names no time zone: read as local time, 2026-11-10T22:50:00Z"#), "\(imported.stdout)")
        #expect(try store.sessions().map { $0["started_at"] as? String } == ["2026-11-10T22:50:00Z"])
        let listed = try intervalpro(arguments: ["history", "--db", store.path], environment: berlin)
        #expect(listed.stdout.contains("2026-11-10 23:50"), "\(listed.stdout)")
    }

    @Test("nothing readable: exit 65 naming the file and what is wrong; a missing path: 66")
    func unreadableFilesAreNamed() throws {
        let store = try ScratchStore()
        let broken = try store.directory.write("broken.gpx", "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>yesterday</time></trkpt></trkseg></trk></gpx>")
        let result = try store.run("history", "import", broken)
        #expect(result.status == 65, "stdout: \(result.stdout) stderr: \(result.stderr)")
        // Said on standard error, as the exit status says it (it was on standard output).
        #expect(result.stderr.contains("broken.gpx"), "\(result.stderr)")
        #expect(result.stderr.contains("not an ISO 8601 time"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        // Where in the file, as `replay` says it (the line was left out).
        let cut = try store.directory.write("cut.gpx", "<gpx>\n<trk><trkseg><trkpt lat=\"1\" lon=\"2\">\n")
        let cutReport = try #require(jsonObject(try store.run("history", "import", cut, "--json").stdoutData))
        let cutReason = (cutReport["unreadable"] as? [[String: Any]])?.first?["reason"] as? String
        #expect(cutReason?.hasPrefix("line ") == true, "\(cutReport)")
        #expect(!looksLikeACrash(result.stderr))
        // A recording's bad line, said as an activity's: the file was named twice.
        let header = #"{"intervalpro_recording": 1, "started_at": "2026-03-01T07:30:00Z", "devices": []}"#
        let badLine = try store.directory.write("bad-line.jsonl", header + "\nnot json\n")
        let badReport = try #require(jsonObject(try store.run("history", "import", badLine, "--json").stdoutData))
        let badReason = try #require((badReport["unreadable"] as? [[String: Any]])?.first?["reason"] as? String, "\(badReport)")
        #expect(badReason.hasPrefix("line 2: ") && !badReason.contains("bad-line.jsonl"), "\(badReason)")

        let missing = try store.run("history", "import", store.directory.path("nowhere"))
        #expect(missing.status == 66, "stderr: \(missing.stderr)")
        #expect(missing.stderr.contains("nowhere"))

        // Named as an activity and none (random bytes, a download cut to nothing): named with what
        // it holds, not counted among the photos with exit 0.
        let garbage = try store.directory.write("garbage.fit", "\u{01}\u{02}not a FIT file at all")
        let named = try store.run("history", "import", garbage)
        #expect(named.status == 65, "stdout: \(named.stdout) stderr: \(named.stderr)")
        #expect(named.stderr.contains("garbage.fit: named as a FIT activity, but not one"), "\(named.stderr)")
        // A Strava export whose download failed: not "a file that holds no activity", exit 0.
        for (name, content) in [("empty.zip", ""), ("junk.zip", "\u{01}\u{02}\u{03} not an archive")] {
            let zip = try store.directory.write(name, content)
            let failed = try store.run("history", "import", zip)
            #expect(failed.status == 65, "\(name): stdout: \(failed.stdout) stderr: \(failed.stderr)")
            #expect(failed.stderr.contains("\(name): named as a zip archive, but not one"), "\(name): \(failed.stderr)")
        }
        try FileManager.default.createDirectory(atPath: store.directory.path("mixed"), withIntermediateDirectories: true)
        _ = try store.directory.write("mixed/empty.gpx", "")
        _ = try store.directory.write("mixed/photo.jpg", "\u{FF}\u{D8}\u{FF}")
        // IntervalPro's own report beside the runs was "invalid XML", unreadable.
        _ = try store.directory.write("mixed/report.html", "<!DOCTYPE html>\n<html lang=\"en\"><meta charset=\"utf-8\"><p>Report<br></html>\n")
        let folder = try store.run("history", "import", store.directory.path("mixed"), "--json")
        let report = try #require(jsonObject(folder.stdoutData), "stdout: \(folder.stdout)")
        let unreadable = (report["unreadable"] as? [[String: Any]])?.compactMap { $0["reason"] as? String }
        #expect(unreadable == ["named as a GPX activity, but not one: the file is empty"], "\(report)")
        #expect(report["other_files"] as? Int == 2, "the photo and the HTML report")
    }
}
