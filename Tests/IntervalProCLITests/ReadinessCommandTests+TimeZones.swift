import Foundation
import IntervalProTestSupport
import Testing

/// Readiness across time zones: a traveller's mornings, an export imported in another zone.
extension ReadinessCommandTests {
    /// The command's environment on a clock of `timeZone` (TZ, a POSIX zone: no tzdata needed).
    func environment(_ dir: ScratchDirectory, timeZone: String) -> [String: String?] {
        environment(dir).merging(["TZ": timeZone]) { $1 }
    }

    /// Whether a measurement was a morning's was worked out in the zone the store was read in:
    /// back home from Tokyo, its 07:02 morning read 23:02 and its evening 11:02, the evening
    /// became the day's value (ln 3.18 for 4.22), and the morning listed at 23:02. The same
    /// export imported again in another zone (its names are local times) doubled every morning.
    @Test("a morning measured abroad stays the day's value back home; an export imported again in another zone adds nothing")
    func morningsAcrossTimeZones() throws {
        let dir = try ScratchDirectory()
        let tokyo = environment(dir, timeZone: "JST-9")
        let home = environment(dir, timeZone: "CET-1")
        // 06:30 and 18:30 in Tokyo: 21:30 the day before and 09:30 UTC.
        let morning = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, startedAt: "2026-11-19T21:30:00Z"), "--json", environment: tokyo)
        #expect(morning.status == 0, "stderr: \(morning.stderr)")
        let morningJSON = try #require(jsonObject(morning.stdoutData))
        let morningValue = try #require(number(morningJSON["ln_rmssd"]))
        let steady = [1000, 1010, 1020, 1010, 1000, 990, 980, 990].map(Double.init)
        let evening = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: steady, startedAt: "2026-11-20T09:30:00Z"), "--json",
            environment: tokyo)
        let eveningJSON = try #require(jsonObject(evening.stdoutData))
        #expect(eveningJSON["days_value"] as? Bool == false)

        let trends = try intervalpro("trends", "--json", environment: home)
        #expect(trends.status == 0, "stderr: \(trends.stderr)")
        let trendsJSON = try #require(jsonObject(trends.stdoutData))
        let days = try #require(trendsJSON["readiness"] as? [[String: Any]])
        let day = try #require(days.first { $0["date"] as? String == "2026-11-20" })
        #expect(number(day["ln_rmssd"]) == morningValue)
        // `today` says the day's value, the morning's, not the evening measured after it;
        // from the store `--db` names as well.
        let today = try intervalpro("today", "--date", "2026-11-20", "--json", environment: home)
        let todayJSON = try #require(jsonObject(today.stdoutData))
        #expect(number((todayJSON["readiness"] as? [String: Any])?["ln_rmssd"]) == morningValue, "\(today.stdout)")
        let elsewhere = try intervalpro(
            "today", "--date", "2026-11-20", "--db", dir.path("elsewhere.sqlite"), "--json", environment: home)
        #expect(try #require(jsonObject(elsewhere.stdoutData))["readiness"] is NSNull, "\(elsewhere.stdout)")
        let listed = try intervalpro("readiness", "history", environment: home)
        #expect(listed.stdout.contains("2026-11-20  06:32"), "\(listed.stdout)")
        #expect(listed.stdout.contains("2026-11-20  18:32"), "\(listed.stdout)")

        try FileManager.default.createDirectory(atPath: dir.path("export"), withIntermediateDirectories: true)
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        try dir.write("export/2026-11-22 06-30-00.txt", (0..<170).map { String(cycle[$0 % cycle.count]) }.joined(separator: "\n") + "\n")
        let first = try intervalpro("readiness", "import", dir.path("export"), environment: home)
        #expect(first.stdout.contains("Imported 1 morning"), "\(first.stdout)")
        let west = environment(dir, timeZone: "EST5")
        let again = try intervalpro("readiness", "import", dir.path("export"), environment: west)
        #expect(again.stdout.contains("Imported 0 mornings"), "\(again.stdout)")
        let all = try intervalpro("readiness", "history", "--json", environment: home)
        #expect((try JSONSerialization.jsonObject(with: all.stdoutData) as? [Any])?.count == 3)
    }

    /// A recording's start says the clock it was written on ("+09:00"): read in the zone of the
    /// machine instead, a Tokyo morning imported in Berlin was filed at 22:32 the evening before,
    /// no morning and not its day's value. And a measurement taken at the same clock time in
    /// another zone, with other beats, was taken for that one kept again: not saved, and the
    /// kept one's figures printed as its own.
    @Test("a recording's own offset dates its morning; another morning at the same clock time elsewhere is saved")
    func recordingsOwnClock() throws {
        let dir = try ScratchDirectory()
        let berlin = environment(dir, timeZone: "CET-1")
        let tokyo = try recording(dir, seconds: 160, startedAt: "2026-11-25T06:30:00+09:00")
        let replayed = try intervalpro("readiness", "--replay", tokyo, "--json", "--no-save", environment: berlin)
        #expect(replayed.status == 0, "stderr: \(replayed.stderr)")
        let replayedJSON = try #require(jsonObject(replayed.stdoutData))
        #expect(replayedJSON["date"] as? String == "2026-11-25", "\(replayed.stdout)")
        #expect((replayedJSON["local_time"] as? String)?.hasPrefix("06:3") == true, "\(replayed.stdout)")
        #expect(replayedJSON["taken_at"] as? String == "2026-11-24T21:32:31Z", "\(replayed.stdout)")

        // Filed under another day at its own clock time: 06:32:31 in Tokyo on the 30th.
        let moved = try intervalpro("readiness", "--replay", tokyo, "--date", "2026-11-30", "--json", "--no-save", environment: berlin)
        let movedJSON = try #require(jsonObject(moved.stdoutData), "stderr: \(moved.stderr)")
        #expect(movedJSON["date"] as? String == "2026-11-30" && movedJSON["local_time"] as? String == "06:32:31", "\(moved.stdout)")
        #expect(movedJSON["taken_at"] as? String == "2026-11-29T21:32:31Z", "\(moved.stdout)")
        // "+00:00" says no more than "Z": read on this machine's clock.
        let utc = try recording(dir, seconds: 160, startedAt: "2026-11-27T06:00:00+00:00")
        let utcJSON = try #require(
            jsonObject(try intervalpro("readiness", "--replay", utc, "--json", "--no-save", environment: berlin).stdoutData))
        #expect(utcJSON["local_time"] as? String == "07:02:31", "\(utcJSON)")
        _ = try recording(dir, seconds: 160, startedAt: "2026-11-25T06:30:00+09:00")

        try FileManager.default.createDirectory(atPath: dir.path("trip"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: tokyo, toPath: dir.path("trip/tokyo.jsonl"))
        let imported = try intervalpro("readiness", "import", dir.path("trip"), "--json", environment: berlin)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let morning = try #require((jsonObject(imported.stdoutData)?["imported"] as? [[String: Any]])?.first)
        #expect(morning["date"] as? String == "2026-11-25" && morning["days_value"] as? Bool != false, "\(imported.stdout)")

        // 07:00 in Berlin and 07:00 in New York: five hours apart, other beats.
        let first = try recording(dir, seconds: 160, startedAt: "2026-11-26T07:00:00+01:00")
        let saved = try intervalpro("readiness", "--replay", first, "--json", environment: berlin)
        #expect(saved.status == 0, "stderr: \(saved.stderr)")
        let steady = [1000, 1010, 1020, 1010, 1000, 990, 980, 990].map(Double.init)
        let second = try recording(dir, seconds: 160, cycle: steady, startedAt: "2026-11-26T07:00:00-05:00")
        let elsewhere = try intervalpro("readiness", "--replay", second, "--json", environment: berlin)
        #expect(elsewhere.status == 0, "stderr: \(elsewhere.stderr)")
        #expect(!elsewhere.stderr.contains("already saved"), "stderr: \(elsewhere.stderr)")
        let firstJSON = try #require(jsonObject(saved.stdoutData))
        let secondJSON = try #require(jsonObject(elsewhere.stdoutData))
        #expect(number(secondJSON["rmssd_ms"]) != number(firstJSON["rmssd_ms"]))
        #expect(secondJSON["local_time"] as? String == firstJSON["local_time"] as? String)
        let all = try intervalpro("readiness", "history", "--json", environment: berlin)
        #expect((try JSONSerialization.jsonObject(with: all.stdoutData) as? [Any])?.count == 3, "\(all.stdout)")
    }

    /// A file named at 02:30 on the night summer time skips it: filed at 03:32:30 in Berlin and
    /// at 02:32:30 in UTC, the same morning twice.
    @Test("an export named at a clock time summer time skips: its own clock time, and imported once in any zone")
    func exportNamedInTheSpringGap() throws {
        let dir = try ScratchDirectory()
        let berlin = environment(dir, timeZone: "CET-1CEST,M3.5.0,M10.5.0/3")
        let utc = environment(dir, timeZone: "UTC0")
        try FileManager.default.createDirectory(atPath: dir.path("export"), withIntermediateDirectories: true)
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        try dir.write("export/2026-03-29 02-30-00.txt", (0..<170).map { String(cycle[$0 % cycle.count]) }.joined(separator: "\n") + "\n")
        let first = try intervalpro("readiness", "import", dir.path("export"), "--json", environment: berlin)
        let morning = try #require((jsonObject(first.stdoutData)?["imported"] as? [[String: Any]])?.first, "\(first.stdout)")
        #expect(morning["date"] as? String == "2026-03-29")
        #expect((morning["local_time"] as? String)?.hasPrefix("02:3") == true, "\(first.stdout)")
        let again = try intervalpro("readiness", "import", dir.path("export"), environment: utc)
        #expect(again.stdout.contains("Imported 0 mornings"), "\(again.stdout)")
        let all = try intervalpro("readiness", "history", "--json", environment: berlin)
        #expect((try JSONSerialization.jsonObject(with: all.stdoutData) as? [Any])?.count == 1, "\(all.stdout)")
    }
}
