import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IntervalProTestSupport
import Synchronization
import Testing

/// `readiness`: live through a private bus and the fake org.bluez, and from recordings; every
/// run with its own XDG folders.
@Suite struct ReadinessCommandTests {
    func environment(_ dir: ScratchDirectory, bus: String? = nil) -> [String: String?] {
        var environment = dir.ownFolders
        if let bus { environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus }
        return environment
    }

    /// A recording of a strap at rest: values at 1 Hz carrying the beats of each second, the
    /// RR intervals repeating `cycle` (milliseconds), skin contact lost in `noContact` seconds;
    /// taken `startedAt` (by default minutes ago: this morning's measurement).
    func recording(
        _ dir: ScratchDirectory, seconds: Int, cycle: [Double] = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995],
        noContact: Range<Int> = 0..<0, withRR: Bool = true,
        startedAt: String = ISO8601DateFormatter().string(from: Date(timeIntervalSinceNow: -200))
    ) throws -> String {
        var lines = [#"{"intervalpro_recording":1,"started_at":"\#(startedAt)","devices":[{"id":"A0:9E:1A:12:34:56","name":"Polar H10"}]}"#]
        var beatTime = 0.0
        var beat = 0
        for second in 1...seconds {
            var bytes: [UInt8]
            if noContact.contains(second) {
                bytes = [0x04, 62]
            } else {
                bytes = [withRR ? 0x16 : 0x06, 60]
            }
            while beatTime + cycle[beat % cycle.count] <= Double(second) * 1000 {
                let interval = cycle[beat % cycle.count]
                beatTime += interval
                beat += 1
                if withRR, !noContact.contains(second) {
                    let wire = UInt16((interval * 1.024).rounded())
                    bytes += [UInt8(wire & 0xFF), UInt8(wire >> 8)]
                }
            }
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            lines.append(#"{"t":\#(second).000,"dev":"A0:9E:1A:12:34:56","char":"2a37","hex":"\#(hex)"}"#)
        }
        return try dir.write("morning.jsonl", lines.joined(separator: "\n") + "\n")
    }

    @Test("a recorded morning: the figures, saved with its RR intervals, listed by readiness history")
    func fromARecording() throws {
        let dir = try ScratchDirectory()
        let path = try recording(dir, seconds: 160)
        let result = try intervalpro("readiness", "--replay", path, "--duration", "2", "--json", environment: environment(dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        // The cycle's successive differences, worked out by hand: rMSSD = √530 = 23.02 ms.
        let rmssd = try #require(number(json["rmssd_ms"]))
        #expect(abs(rmssd - 23.02) < 0.3)
        #expect(json["artifacts_corrected"] as? Int == 0)
        #expect((118...121).contains(json["beats"] as? Int ?? 0))
        #expect((json["assessment"] as? [String: Any])?["verdict"] as? String == "building")
        #expect(json["id"] as? Int == 1)
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        let listed = try #require(try JSONSerialization.jsonObject(with: history.stdoutData) as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(number(listed.first?["rmssd_ms"]) == rmssd)
        // Today's verdict: this morning's measurement, the first of the baseline.
        let today = DateFormatter()
        today.dateFormat = "yyyy-MM-dd"
        let text = try intervalpro("readiness", "history", environment: environment(dir))
        #expect(text.stdout.contains("Today, \(today.string(from: Date())): building your baseline (1 of 7 days)"), "\(text.stdout)")
    }

    /// A morning imported by mistake, or filed under the wrong day, stayed in the baseline for
    /// good: no command removed a measurement.
    /// The tour's replay of the simulator's strap: kept out of the baseline, and `today` said
    /// "No readiness measured in the last 60 days (last: today)".
    @Test("a morning of the simulator's is no runner's: today and readiness history say none is measured, not that today's is old")
    func theSimulatorsMorningIsNoRunners() throws {
        let dir = try ScratchDirectory()
        let recorded = try recording(dir, seconds: 160)
        let text = try String(contentsOfFile: recorded, encoding: .utf8).replacingOccurrences(of: "A0:9E:1A:12:34:56", with: "00:00:5E:00:53:01")
        let simulated = try dir.write("simulated.jsonl", text)
        #expect(try intervalpro("readiness", "--replay", simulated, environment: environment(dir)).status == 0)
        let today = try intervalpro("today", environment: environment(dir))
        #expect(today.stdout.contains("No readiness measured yet"), "\(today.stdout)")
        #expect(!today.stdout.contains("last:"), "\(today.stdout)")
        let history = try intervalpro("readiness", "history", environment: environment(dir))
        #expect(history.stdout.contains("no measurement in the last 60 days (the simulator's are kept out), no verdict"), "\(history.stdout)")
    }

    @Test("readiness delete: the measurement leaves the history; deleted again, there is none (66)")
    func deleteAMeasurement() throws {
        let dir = try ScratchDirectory()
        let path = try recording(dir, seconds: 160)
        #expect(try intervalpro("readiness", "--replay", path, "--duration", "2", environment: environment(dir)).status == 0)
        let deleted = try intervalpro("readiness", "delete", "1", environment: environment(dir))
        #expect(deleted.status == 0 && deleted.stderr.contains("deleted readiness measurement 1"), "\(deleted.stderr)")
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        #expect((try JSONSerialization.jsonObject(with: history.stdoutData) as? [Any])?.isEmpty == true, "\(history.stdout)")
        let again = try intervalpro("readiness", "delete", "1", environment: environment(dir))
        #expect(again.status == 66 && again.stderr.contains("no readiness measurement 1"), "\(again.stderr)")
    }

    /// The same file replayed twice was the same morning saved twice (`readiness import` skips
    /// it): listed twice in the history, and sent twice to intervals.icu with --upload.
    @Test("a file replayed again is the morning kept before: judged, not saved twice")
    func theSameMorningReplayedAgain() throws {
        let dir = try ScratchDirectory()
        let path = try recording(dir, seconds: 160)
        let first = try intervalpro("readiness", "--replay", path, "--duration", "2", environment: environment(dir))
        #expect(first.status == 0 && first.stdout.contains("saved as readiness measurement 1"), "\(first.stdout)")
        let again = try intervalpro("readiness", "--replay", path, "--duration", "2", environment: environment(dir))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("already saved as readiness measurement 1, the same morning: not saved again"), "\(again.stdout)")
        #expect(again.stdout.contains("rMSSD") && again.stdout.contains("verdict"), "\(again.stdout)")
        // SDNN with its decimal, as rMSSD has it ("SDNN 31 ms" beside "rMSSD 40.0 ms").
        #expect(again.stdout.range(of: #"SDNN +[0-9]+\.[0-9] ms"#, options: .regularExpression) != nil, "\(again.stdout)")
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        #expect((try JSONSerialization.jsonObject(with: history.stdoutData) as? [Any])?.count == 1, "\(history.stdout)")
        // Another morning: `--limit 1` says what it leaves out (it was left out without a word).
        #expect(try intervalpro("readiness", "--replay", path, "--duration", "2", "--date", "2026-11-01", environment: environment(dir)).status == 0)
        let latest = try intervalpro("readiness", "history", "--limit", "1", environment: environment(dir))
        #expect(latest.stdout.contains("The latest 1 of 2 measurements: --limit 2 lists them all."), "\(latest.stdout)")
        let all = try intervalpro("readiness", "history", environment: environment(dir))
        #expect(!all.stdout.contains("The latest"), "\(all.stdout)")
    }

    /// RR text does not say when: a replay of it takes the moment it is read. The same file a
    /// second later was saved twice; another file in the same second was taken for the first
    /// (its figures shown, nothing saved).
    @Test("RR text replayed again is the morning kept before; another file is another morning")
    func rrTextReplayedAgain() throws {
        let dir = try ScratchDirectory()
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        let steady = [800, 806, 812, 806, 800, 794, 788, 794]
        let first = try dir.write("first.txt", (0..<170).map { String(cycle[$0 % cycle.count]) }.joined(separator: "\n") + "\n")
        let other = try dir.write("other.txt", (0..<220).map { String(steady[$0 % steady.count]) }.joined(separator: "\n") + "\n")
        let saved = try intervalpro("readiness", "--replay", first, "--json", environment: environment(dir))
        #expect(saved.status == 0, "stderr: \(saved.stderr)")
        Thread.sleep(forTimeInterval: 1.1)
        let again = try intervalpro("readiness", "--replay", first, environment: environment(dir))
        #expect(again.stdout.contains("already saved as readiness measurement 1"), "\(again.stdout)")
        let another = try intervalpro("readiness", "--replay", other, "--json", environment: environment(dir))
        let json = try #require(jsonObject(another.stdoutData), "\(another.stdout)")
        #expect(json["id"] as? Int == 2, "\(another.stdout)")
        #expect(number(json["rmssd_ms"]) != number(jsonObject(saved.stdoutData)?["rmssd_ms"]))
    }

    /// A file of another day is filed under that day, at its own time: replayed, it was filed
    /// under the day it was replayed, and listed at the minute it was replayed.
    @Test("a recording of an earlier morning: filed under its local day and time; --date files it elsewhere; RR text has no time")
    func fromAnEarlierMorning() throws {
        let dir = try ScratchDirectory()
        let path = try recording(dir, seconds: 160, startedAt: "2026-11-20T02:00:00Z")
        // Five hours west of Greenwich (a POSIX zone, no tz database needed): still the evening before.
        var west = environment(dir)
        west["TZ"] = "EST5"
        let measured = try intervalpro("readiness", "--replay", path, "--json", environment: west)
        #expect(measured.status == 0, "stderr: \(measured.stderr)")
        let json = try #require(jsonObject(measured.stdoutData))
        #expect(json["date"] as? String == "2026-11-19")
        // When it ended, as a live one: its first value a second in, then 30 s settling and 2:00 scored.
        #expect(json["taken_at"] as? String == "2026-11-20T02:02:31Z")
        let filed = try intervalpro("readiness", "--replay", path, "--date", "2026-11-21", "--json", environment: west)
        let refiled = try #require(jsonObject(filed.stdoutData))
        #expect(refiled["date"] as? String == "2026-11-21")
        // At its clock time on that day, 21:02:31 EST: kept at the recording's moment, it was
        // judged by that moment against the day's other mornings.
        #expect(refiled["taken_at"] as? String == "2026-11-22T02:02:31Z")
        let listed = try intervalpro("readiness", "history", environment: west)
        // The local time beside the local date (02:02 UTC is 21:02 the evening before; the UTC
        // time beside that date read as a moment a day later).
        #expect(listed.stdout.contains("2026-11-19  21:02"), "stdout: \(listed.stdout)")
        // Judged as of today, not as of the latest morning (filed under the 21st).
        #expect(listed.stdout.contains("Today, ") && !listed.stdout.contains("\n2026-11-21: "), "stdout: \(listed.stdout)")

        // RR interval text does not say when: today, now.
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        let intervals = (0..<160).map { String(cycle[$0 % cycle.count]) }.joined(separator: "\n")
        let text = try intervalpro(
            "readiness", "--replay", try dir.write("morning.txt", intervals + "\n"), "--json", "--no-save", environment: west)
        #expect(text.status == 0, "stderr: \(text.stderr)")
        let undated = try #require(jsonObject(text.stdoutData))
        #expect(undated["taken_at"] as? String != "1970-01-01T00:00:00Z")
        #expect((undated["taken_at"] as? String)?.hasPrefix("20") == true)
        #expect(undated["date"] as? String != "1970-01-01")
    }

    /// The day's value is its last measurement: one taken earlier the same morning, replayed
    /// afterwards, was judged as the day's value, where history and the page kept the later.
    @Test("a morning replayed after a later one of its day: judged with the later one as the day's value")
    func anEarlierMeasurementOfTheDay() throws {
        let dir = try ScratchDirectory()
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let later = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, startedAt: "2026-11-20T06:30:00Z"), "--json", environment: utc)
        #expect(later.status == 0, "stderr: \(later.stderr)")
        let laterJSON = try #require(jsonObject(later.stdoutData))
        let laterValue = try #require(number(laterJSON["ln_rmssd"]))
        // An hour earlier, steadier beats: another value.
        let steady = [1000, 1010, 1020, 1010, 1000, 990, 980, 990].map(Double.init)
        let earlier = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: steady, startedAt: "2026-11-20T05:30:00Z"), "--json",
            environment: utc)
        #expect(earlier.status == 0, "stderr: \(earlier.stderr)")
        let json = try #require(jsonObject(earlier.stdoutData))
        let earlierValue = try #require(number(json["ln_rmssd"]))
        #expect(abs(earlierValue - laterValue) > 0.1)
        #expect(number((json["assessment"] as? [String: Any])?["today_ln_rmssd"]) == laterValue)
    }

    @Test("an evening's measurement after the morning's is kept but is not the day's value; an afternoon alone is")
    func anEveningMeasurementKeepsTheMorning() throws {
        let dir = try ScratchDirectory()
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let morning = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, startedAt: "2026-11-20T06:30:00Z"), "--json", environment: utc)
        #expect(morning.status == 0, "stderr: \(morning.stderr)")
        let morningJSON = try #require(jsonObject(morning.stdoutData))
        let morningValue = try #require(number(morningJSON["ln_rmssd"]))
        // After a day on the feet, steadier beats: a lower value, which would have been the day's.
        let steady = [1000, 1010, 1020, 1010, 1000, 990, 980, 990].map(Double.init)
        let evening = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: steady, startedAt: "2026-11-20T19:00:00Z"), "--json",
            environment: utc)
        #expect(evening.status == 0, "stderr: \(evening.stderr)")
        let json = try #require(jsonObject(evening.stdoutData))
        #expect(abs((number(json["ln_rmssd"]) ?? 0) - morningValue) > 0.1)
        #expect(json["days_value"] as? Bool == false)
        #expect(number((json["assessment"] as? [String: Any])?["today_ln_rmssd"]) == morningValue)
        let text = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: steady, startedAt: "2026-11-20T19:30:00Z"), "--no-save",
            environment: utc)
        #expect(text.stdout.contains("not the day's value"), "\(text.stdout)")
        // A day measured only in the afternoon: that is its value.
        let afternoon = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: steady, startedAt: "2026-11-21T15:00:00Z"), "--json",
            environment: utc)
        let afternoonJSON = try #require(jsonObject(afternoon.stdoutData))
        #expect(afternoonJSON["days_value"] as? Bool == true)
        #expect(number((afternoonJSON["assessment"] as? [String: Any])?["today_ln_rmssd"]) == number(afternoonJSON["ln_rmssd"]))
        // A later afternoon's stands for the day then: the earlier is not the day's value, and
        // no "last morning measurement" is said to be (there was none: "that is the day's last
        // morning measurement" was said of such days).
        let later = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, startedAt: "2026-11-21T18:00:00Z"), "--json", environment: utc)
        #expect(jsonObject(later.stdoutData)?["days_value"] as? Bool == true, "\(later.stdout) \(later.stderr)")
        let history = try intervalpro("readiness", "history", environment: utc)
        #expect(history.stdout.contains("a day's value is its last before noon, or its last when none was"), "\(history.stdout)")
    }

    @Test("a morning from an ANT+ strap: RR intervals from its beat times give the figures a Bluetooth strap's give")
    func fromAnANTStrap() throws {
        let dir = try ScratchDirectory()
        let cycle: [Double] = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        var lines = [#"{"intervalpro_recording":1,"started_at":"2026-11-25T06:30:00Z","devices":[{"id":"ant:12345","name":"ANT+ heart rate"}]}"#]
        // Four pages a second, each with the last beat's time (1/1024 s, rolling over at 64 s) and count.
        var beatUnits = 0
        var beatTime = 0.0
        var beat = 0
        for quarter in 1...(160 * 4) {
            let now = Double(quarter) * 250
            while beatTime + cycle[beat % cycle.count] <= now {
                let interval = cycle[beat % cycle.count]
                beatTime += interval
                beatUnits += Int((interval * 1.024).rounded())
                beat += 1
            }
            let page: [UInt8] = [0x00, 0, 0, 0, UInt8(beatUnits & 0xFF), UInt8((beatUnits >> 8) & 0xFF), UInt8(beat & 0xFF), 60]
            let hex = page.map { String(format: "%02x", $0) }.joined()
            lines.append(#"{"t":\#(String(format: "%.3f", now / 1000)),"dev":"ant:12345","char":"ant-hr","hex":"\#(hex)"}"#)
        }
        let path = try dir.write("morning-ant.jsonl", lines.joined(separator: "\n") + "\n")
        let result = try intervalpro("readiness", "--replay", path, "--duration", "2", "--json", environment: environment(dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        // The same cycle as `fromARecording`: rMSSD = √530 = 23.02 ms.
        #expect(abs((number(json["rmssd_ms"]) ?? 0) - 23.02) < 0.3, "\(json)")
        #expect(json["artifacts_corrected"] as? Int == 0)
    }

    @Test("run says today's readiness before a plan with work steps, on stderr; not before a measurement exists")
    func runSaysTodaysReadiness() throws {
        let dir = try ScratchDirectory()
        let runArguments = [
            "run", "Plans/first-cadence-session.json", "--replay", "Recordings/first-cadence-session.jsonl", "--fast",
            "--json", "--no-save",
        ]
        let before = try intervalpro(arguments: runArguments, environment: environment(dir))
        #expect(before.status == 0, "stderr: \(before.stderr)")
        #expect(!before.stderr.contains("Readiness"))
        let measured = try intervalpro("readiness", "--replay", try recording(dir, seconds: 160), environment: environment(dir))
        #expect(measured.status == 0, "stderr: \(measured.stderr)")
        let after = try intervalpro(arguments: runArguments, environment: environment(dir))
        #expect(after.status == 0)
        #expect(after.stderr.contains("Readiness today: rMSSD 22.9 ms (ln 3.13)"))
        #expect(after.stderr.contains("building your baseline (1 of 7 days)"))
        #expect(jsonObject(after.stdoutData) != nil, "stdout stays the summary alone")
    }

    @Test("a week below the normal range is said before a run and by today without this morning's measurement")
    func aWeekBelowIsSaidWithoutTodaysMeasurement() throws {
        let dir = try ScratchDirectory()
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd"
        format.timeZone = TimeZone(identifier: "UTC")
        // Three weeks of one person, then six mornings with half the variability; none today.
        let steady = [1000, 1010, 1020, 1010, 1000, 990, 980, 990].map(Double.init)
        for back in (1...26).reversed() {
            let day = format.string(from: Date(timeIntervalSinceNow: -Double(back) * 86_400))
            let cycle: [Double] = back <= 6 ? steady : [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
            let measured = try intervalpro(
                "readiness", "--replay", try recording(dir, seconds: 160, cycle: cycle), "--date", day, environment: utc)
            #expect(measured.status == 0, "\(day): \(measured.stderr)")
        }
        let today = try intervalpro("today", "--json", environment: utc)
        let readiness = try #require(jsonObject(today.stdoutData)?["readiness"] as? [String: Any], "\(today.stdout)")
        #expect(readiness["measured_today"] as? Bool == false)
        #expect((readiness["assessment"] as? [String: Any])?["verdict"] as? String == "below")
        #expect((readiness["advice_today"] as? String)?.contains("no hard intervals") == true, "\(readiness)")
        // Before it said only when the strap was last worn, and `run` said nothing.
        let run = try intervalpro(
            arguments: [
                "run", "Plans/first-cadence-session.json", "--replay", "Recordings/first-cadence-session.jsonl", "--fast",
                "--json", "--no-save",
            ], environment: utc)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("your 7-day baseline is below your normal range: keep today's running easy"), "\(run.stderr)")
    }

    /// A --db that is no store gave "No readiness measured yet" and exit 0, where `history`
    /// said 65 and 64 of the same paths.
    @Test("today of a --db that is no store, or a folder, says so as history does")
    func todayOfAStoreThatIsNone() throws {
        let dir = try ScratchDirectory()
        let notes = dir.path("notes.sqlite")
        try Data("a line of notes\n".utf8).write(to: URL(fileURLWithPath: notes))
        for (db, status) in [(notes, Int32(65)), (dir.url.path, 64)] {
            let today = try intervalpro("today", "--json", "--db", db, environment: environment(dir))
            let history = try intervalpro("readiness", "history", "--db", db, environment: environment(dir))
            #expect(today.status == status && history.status == status, "\(db): \(today.status) \(today.stdout) \(today.stderr)")
            #expect(today.stdout.isEmpty && today.stderr.contains(db), "\(today.stderr)")
        }
        // A measurement older than the 60 days the verdict reads is said, not "No readiness measured yet".
        let old = Calendar(identifier: .gregorian).date(byAdding: .day, value: -61, to: Date())!
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd"
        let day = format.string(from: old)
        let measured = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160), "--date", day, "--db", dir.path("old.sqlite"), environment: environment(dir))
        #expect(measured.status == 0, "\(measured.stderr)")
        let stale = try intervalpro("today", "--db", dir.path("old.sqlite"), environment: environment(dir))
        #expect(stale.stdout.contains("No readiness measured in the last 60 days (last: \(day))"), "\(stale.stdout)")
        let staleJSON = try intervalpro("today", "--json", "--db", dir.path("old.sqlite"), environment: environment(dir))
        #expect(jsonObject(staleJSON.stdoutData)?["readiness_last_measured"] as? String == day)
        let fresh = try intervalpro("today", "--db", dir.path("none.sqlite"), environment: environment(dir))
        #expect(fresh.status == 0 && fresh.stdout.contains("No readiness measured yet"), "\(fresh.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("none.sqlite")), "a read creates no store")
    }

    @Test("trends charts readiness: --json gives each measured day's ln rMSSD as measured")
    func trendsShowReadiness() throws {
        let dir = try ScratchDirectory()
        let path = try recording(dir, seconds: 160)
        let today = try intervalpro("readiness", "--replay", path, "--json", environment: environment(dir))
        #expect(today.status == 0, "stderr: \(today.stderr)")
        let measured = try #require(jsonObject(today.stdoutData))
        let trends = try intervalpro("trends", "--json", environment: environment(dir))
        #expect(trends.status == 0, "stderr: \(trends.stderr)")
        let days = try #require(jsonObject(trends.stdoutData)?["readiness"] as? [[String: Any]])
        #expect(days.count == 1)
        #expect(days.first?["date"] as? String == measured["date"] as? String)
        #expect(number(days.first?["ln_rmssd"]) == number(measured["ln_rmssd"]))
        let text = try intervalpro("trends", environment: environment(dir))
        #expect(text.stdout.contains("Readiness: ln rMSSD each morning"))
        // 40 columns show 32 of the 12 weeks' 84 days: said, as the sessions' chart says it.
        var narrow = environment(dir)
        narrow["COLUMNS"] = "40"
        let cut = try intervalpro("trends", environment: narrow)
        #expect(cut.stdout.contains("The last 32 of 84 days: a wider terminal (or COLUMNS) shows more"), "\(cut.stdout)")
    }

    @Test("a 10 s contact loss makes the measurement 10 s longer and splits it in two")
    func contactLoss() throws {
        let dir = try ScratchDirectory()
        let path = try recording(dir, seconds: 110, noContact: 50..<60)
        let result = try intervalpro(
            "readiness", "--replay", path, "--duration", "1", "--json", "--no-save", environment: environment(dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        #expect((json["rr_segments"] as? [[Int]])?.count == 2)
        #expect(json["id"] is NSNull)
        let short = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 95, noContact: 50..<60), "--duration", "1", "--no-save",
            environment: environment(dir))
        #expect(short.status == 65)
        #expect(short.stderr.contains("the measurement needs 1:30"))
    }

    @Test("a run's recording is refused as not at rest (65), nothing saved")
    func aRunIsNotAMorningMeasurement() throws {
        let dir = try ScratchDirectory()
        let run = try intervalpro("readiness", "--replay", "Recordings/long-steady-run.jsonl", environment: environment(dir))
        #expect(run.status == 65, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("the heart rate averaged 134 bpm, over the 100 bpm a heart at rest stays under"))
        // Lying still, such a heart is a reason not to train (it said only "on the move").
        #expect(run.stderr.contains("a reason not to train today (illness, fever"))
        #expect(run.stderr.contains("nothing was saved"))
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        #expect(String(decoding: history.stdoutData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("refusals: too many artifacts (65), no RR intervals (69), no variation (65), nothing saved")
    func refusals() throws {
        let dir = try ScratchDirectory()
        // Every eighth interval doubled, as if a beat were missed: about 12 % to correct.
        var cycle = [1000.0, 1030, 1055, 1045, 1015, 985, 960, 950]
        cycle[7] = 1900
        let noisy = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: cycle), environment: environment(dir))
        #expect(noisy.status == 65)
        #expect(noisy.stderr.contains("needed correcting"))
        #expect(noisy.stderr.contains("wet the strap"))
        let noRR = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 60, withRR: false), environment: environment(dir))
        #expect(noRR.status == 69)
        #expect(noRR.stderr.contains("Polar H10 (A0:9E:1A:12:34:56) sends heart rate but no RR intervals"))
        // The same interval every beat: a sensor's made-up intervals, not saved as rMSSD 0.
        let flat = try intervalpro(
            "readiness", "--replay", try recording(dir, seconds: 160, cycle: [1000]), environment: environment(dir))
        #expect(flat.status == 65)
        #expect(flat.stderr.contains("the RR intervals do not change from one beat to the next (rMSSD 0)"), "\(flat.stderr)")
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        #expect(String(decoding: history.stdoutData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let usage = try intervalpro("readiness", "--duration", "9", environment: environment(dir))
        #expect(usage.status == 64)
        // A day that does not exist, refused before anything is measured (it was filed as written).
        let noSuchDay = try intervalpro("readiness", "--date", "2026-02-31", environment: environment(dir))
        #expect(noSuchDay.status == 64)
        #expect(noSuchDay.stderr.contains("--date takes a day written YYYY-MM-DD"))
        // An empty file: said plainly, not as a recording without its header.
        let emptyFile = try dir.write("empty.txt", "\n")
        let empty = try intervalpro("readiness", "--replay", emptyFile, environment: environment(dir))
        #expect(empty.status == 65)
        #expect(empty.stderr.contains("empty.txt: the file is empty: no beats in it"), "\(empty.stderr)")
        // Nor a day to come: a slip of the year filed it where no verdict would read it.
        let nextYear = try intervalpro("readiness", "--date", "2999-11-26", environment: environment(dir))
        #expect(nextYear.status == 64)
        #expect(nextYear.stderr.contains("--date 2999-11-26 is after today"), "\(nextYear.stderr)")
        // A footpod is never listened to for a measurement: naming one is a mistake, said as such.
        let footpod = try intervalpro("readiness", "--cadence", "Stryd", environment: environment(dir))
        #expect(footpod.status == 64)
        #expect(footpod.stderr.contains("readiness measures with the heart-rate strap alone: drop --cadence"))
        // Nor does its help offer one (it listed --cadence with the run's sensor options).
        let help = try intervalpro("help", "readiness", "measure", environment: environment(dir))
        #expect(help.stdout.contains("--hr <device>"))
        #expect(!help.stdout.contains("--cadence"), "\(help.stdout)")
        // Past 12 options its usage read "<options>", as if they were needed; serve's too.
        #expect(help.stdout.contains("USAGE: intervalpro readiness measure [<options>]"), "\(help.stdout)")
        let serve = try intervalpro("serve", "--help", environment: environment(dir))
        #expect(serve.stdout.contains("USAGE: intervalpro serve [<options>]"), "\(serve.stdout)")
        // `readiness --hr …` and `history --limit …`, as the docs write them, run the default
        // subcommand; their help listed only --version and said "<subcommand>" was needed.
        for (command, pointer) in [("readiness", "'intervalpro help readiness measure'"), ("history", "'intervalpro help history list'")] {
            let parent = try intervalpro(command, "--help", environment: environment(dir))
            #expect(parent.stdout.contains("USAGE: intervalpro \(command) [") && parent.stdout.contains(pointer), "\(parent.stdout)")
        }
    }
}
