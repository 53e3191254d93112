import Foundation
import IntervalProTestSupport
import Testing

/// Readiness across time zones: a traveller's mornings, an export imported in another zone.
extension ReadinessCommandTests {
    /// Whether a measurement was a morning's was worked out in the zone the store was read in:
    /// back home from Tokyo, its 07:02 morning read 23:02 and its evening 11:02, the evening
    /// became the day's value (ln 3.18 for 4.22), and the morning listed at 23:02. The same
    /// export imported again in another zone (its names are local times) doubled every morning.
    @Test("a morning measured abroad stays the day's value back home; an export imported again in another zone adds nothing")
    func morningsAcrossTimeZones() throws {
        let dir = try ScratchDirectory()
        var tokyo = environment(dir)
        tokyo["TZ"] = "JST-9"
        var home = environment(dir)
        home["TZ"] = "CET-1"
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
        var west = environment(dir)
        west["TZ"] = "EST5"
        let again = try intervalpro("readiness", "import", dir.path("export"), environment: west)
        #expect(again.stdout.contains("Imported 0 mornings"), "\(again.stdout)")
        let all = try intervalpro("readiness", "history", "--json", environment: home)
        #expect((try JSONSerialization.jsonObject(with: all.stdoutData) as? [Any])?.count == 3)
    }
}
