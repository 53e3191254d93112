import Foundation
import IntervalProFIT
import IntervalProTestSupport
import Testing

/// `readiness` on mornings other apps and watches recorded: RR interval text, a watch's
/// activity, an app's export imported at once.
extension ReadinessCommandTests {
    /// Mornings measured with another app, brought in at once: each under its own day, from the
    /// file's time or its name's; before, one `readiness --replay FILE --date DAY` each, and an
    /// app's zip was refused as "a zip file with no activity or recording in it".
    @Test("readiness import: an app's mornings, each under its day and time; shortened, refused, undated and other files said; again, nothing added")
    func importsAnotherAppsMornings() throws {
        let dir = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: dir.path("export"), withIntermediateDirectories: true)
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        func beats(_ count: Int, _ pattern: [Int] = cycle) -> [Int] { (0..<count).map { pattern[$0 % pattern.count] } }
        let elite = try dir.write("export/2026-11-20 06-30-00.txt", beats(170).map(String.init).joined(separator: "\n") + "\n")
        try dir.write(
            "export/Polar_H10_A1B2C3D4_20261121_070000_RR.txt",
            "Phone timestamp;RR-interval [ms]\n" + beats(170).map { "2026-11-21T07:00:00.000;\($0)" }.joined(separator: "\n") + "\n")
        // 2:10 of beats: 1:30 after the settling, not the 2:00 asked.
        try dir.write("export/2026-11-22 06-30-00.txt", beats(130).map(String.init).joined(separator: "\n") + "\n")
        // Every eighth beat missed: far over the 4 % the measurement corrects.
        try dir.write("export/2026-11-23 06-30-00.txt", beats(170, [1000, 1030, 1055, 1045, 1015, 985, 960, 1900]).map(String.init).joined(separator: "\n") + "\n")
        try dir.write("export/morning.txt", beats(170).map(String.init).joined(separator: "\n") + "\n")
        try dir.write("export/Readings.csv", "Date,Readiness,HRV\n2026-11-20,7,64\n")
        try dir.write("export/2026-11-24 06-30-00.txt", "812\n790\nabc\n")
        let recorded = try recording(dir, seconds: 160, startedAt: "2026-11-19T12:00:00Z")
        try FileManager.default.moveItem(atPath: recorded, toPath: dir.path("export/morning.jsonl"))
        var west = environment(dir)
        west["TZ"] = "EST5"

        let imported = try intervalpro("readiness", "import", dir.path("export"), "--json", environment: west)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let report = try #require(jsonObject(imported.stdoutData))
        let mornings = try #require(report["imported"] as? [[String: Any]])
        #expect(mornings.map { $0["date"] as? String } == ["2026-11-19", "2026-11-20", "2026-11-21", "2026-11-22"])
        // Elite HRV's 06:30 local, five hours west: 11:30 UTC, and the measurement ends 2:30 later.
        let eliteMorning = try #require(mornings.first { $0["date"] as? String == "2026-11-20" })
        #expect((eliteMorning["taken_at"] as? String)?.hasPrefix("2026-11-20T11:32:") == true, "\(eliteMorning["taken_at"] ?? "")")
        #expect(mornings.first { $0["date"] as? String == "2026-11-22" }?["duration_s"] as? Int == 90)
        #expect((report["shortened"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["scored 1:30, the whole half minutes of the 1:41 the file holds after settling"])
        let refused = try #require(report["refused"] as? [[String: Any]])
        #expect(refused.count == 1 && (refused.first?["file"] as? String)?.hasSuffix("2026-11-23 06-30-00.txt") == true)
        #expect((refused.first?["reason"] as? String)?.contains("needed correcting") == true)
        #expect((report["undated"] as? [[String: Any]])?.compactMap { $0["file"] as? String }.map { $0.hasSuffix("morning.txt") } == [true])
        #expect(report["other_files"] as? Int == 1)
        // Where in the file, once; the file is named beside it (it was "FILE: FILE:3: …").
        #expect(
            (report["unreadable"] as? [[String: Any]])?.compactMap { $0["reason"] as? String }
                == ["line 3: 'abc' is not an RR interval (a number of milliseconds or seconds)"], "\(report["unreadable"] ?? "")")
        #expect((report["other_file_names"] as? [String])?.map { $0.hasSuffix(".csv") } == [true], "\(report)")
        // The figures are those `readiness --replay` gives the same file.
        let one = try intervalpro("readiness", "--replay", elite, "--date", "2026-11-20", "--no-save", "--json", environment: west)
        #expect(number(eliteMorning["rmssd_ms"]) == number(try #require(jsonObject(one.stdoutData))["rmssd_ms"]))

        let again = try intervalpro("readiness", "import", dir.path("export"), environment: west)
        #expect(again.status == 0)
        #expect(again.stdout.contains("Imported 0 mornings"))
        #expect(again.stdout.contains("Skipped 4 mornings imported before."))
        // Scored over another --duration, each is still the morning imported before (each was
        // saved again, and again for every other duration).
        let shorter = try intervalpro("readiness", "import", dir.path("export"), "--duration", "1.5", environment: west)
        #expect(shorter.status == 0, "\(shorter.stderr)")
        #expect(shorter.stdout.contains("Imported 0 mornings") && shorter.stdout.contains("Skipped 4 mornings imported before."), "\(shorter.stdout)")
        let listed = try intervalpro("readiness", "history", "--json", environment: west)
        #expect((try JSONSerialization.jsonObject(with: listed.stdoutData) as? [Any])?.count == 4)

        // Only a file that does not say when: nothing taken, 65.
        try FileManager.default.createDirectory(atPath: dir.path("undated"), withIntermediateDirectories: true)
        try dir.write("undated/rr.txt", beats(170).map(String.init).joined(separator: "\n") + "\n")
        let undated = try intervalpro("readiness", "import", dir.path("undated"), environment: west)
        #expect(undated.status == 65)
        #expect(undated.stdout.contains("readiness --replay FILE --date YYYY-MM-DD"))
        // `history import` given the mornings says where they go.
        let runs = try intervalpro("history", "import", dir.path("export"), environment: west)
        #expect(runs.stdout.contains("`intervalpro readiness import \(dir.path("export"))` files them"), "stdout: \(runs.stdout)")
    }

    /// One folder: a morning at 06:30 and its day's 07:10, and two copies of a refused morning.
    /// The 06:30 was imported as the day's value though history then said it was not; the second
    /// copy of the refused morning was "imported before", though nothing had been.
    @Test("readiness import: the day's value judged once all are saved; a copy of a refused morning is refused, not imported before")
    func importJudgesTheDaysValueAtTheEnd() throws {
        let dir = try ScratchDirectory()
        try writeMorning("2026-11-20 06-30-00.txt", in: dir)
        try writeMorning("2026-11-20 07-10-00.txt", in: dir)
        let missed = Self.morning([1000, 1030, 1055, 1045, 1015, 985, 960, 1900])
        try writeMorning("2026-11-21 06-30-00.txt", missed, in: dir)
        try writeMorning("copy/2026-11-21 06-30-00.txt", missed, in: dir)
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let imported = try intervalpro("readiness", "import", dir.path("export"), "--json", environment: utc)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let report = try #require(jsonObject(imported.stdoutData))
        let notDaysValue = (report["not_days_value"] as? [[String: Any]])?.compactMap { $0["file"] as? String } ?? []
        #expect(notDaysValue.count == 1 && notDaysValue.allSatisfy { $0.hasSuffix("06-30-00.txt") && $0.contains("11-20") }, "\(report)")
        #expect((report["duplicates"] as? [Any])?.isEmpty == true, "\(report)")
        #expect((report["refused"] as? [[String: Any]])?.count == 2, "\(report)")
        let listed = try #require(
            try JSONSerialization.jsonObject(with: intervalpro("readiness", "history", "--json", environment: utc).stdoutData) as? [[String: Any]])
        #expect(listed.map { $0["days_value"] as? Bool } == [false, true])
    }

    /// A name's slip of the year filed a morning not yet come, which `--date` refuses: it sat
    /// where no verdict read it, to count in the baseline once its day came.
    @Test("a morning after today is refused by import and by --replay, as --date refuses one; a day no calendar has is said; the others imported")
    func importRefusesAMorningAfterToday() throws {
        let dir = try ScratchDirectory()
        let name = DateFormatter()
        name.locale = Locale(identifier: "en_US_POSIX")
        name.timeZone = TimeZone(identifier: "UTC")
        name.dateFormat = "yyyy-MM-dd HH-mm-ss"
        let nextYear = name.string(from: Date() + 366 * 86_400)
        try writeMorning("\(nextYear).txt", in: dir)
        // Later today: a Tokyo file imported at 03:25 there was saved as that day's morning.
        let soon = Date() + 30 * 60
        let laterToday = name.string(from: soon)
        try writeMorning("\(laterToday).txt", in: dir)
        try writeMorning("2026-11-20 06-30-00.txt", in: dir)
        try writeMorning("2026-02-30 06-30-00.txt", in: dir)
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let imported = try intervalpro("readiness", "import", dir.path("export"), "--json", environment: utc)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let report = try #require(jsonObject(imported.stdoutData))
        #expect((report["imported"] as? [[String: Any]])?.map { $0["date"] as? String } == ["2026-11-20"], "\(report)")
        let refusals = try #require(report["refused"] as? [[String: Any]], "\(report)")
        let refused = try #require(refusals.first { ($0["file"] as? String)?.hasSuffix("\(nextYear).txt") == true }, "\(report)")
        #expect((refused["reason"] as? String)?.contains("after today") == true, "\(refused)")
        let soonRefused = try #require(refusals.first { ($0["file"] as? String)?.hasSuffix("\(laterToday).txt") == true }, "\(report)")
        // Within half an hour of midnight it is tomorrow's, and refused as that.
        let sameDay = laterToday.prefix(10) == name.string(from: Date()).prefix(10)
        #expect((soonRefused["reason"] as? String)?.contains(sameDay ? "today, later than now" : "after today") == true, "\(soonRefused)")
        // A name of a day no calendar has is said so, not taken for a name without a date.
        let undated = try #require((report["undated"] as? [[String: Any]])?.first, "\(report)")
        #expect((undated["reason"] as? String)?.hasPrefix("its name says 2026-02-30 06:30:00, which no calendar or clock has") == true, "\(undated)")
        let listed = try #require(
            try JSONSerialization.jsonObject(with: intervalpro("readiness", "history", "--json", environment: utc).stdoutData) as? [[String: Any]])
        #expect(listed.count == 1, "\(listed)")

        // Replayed, the same file was saved under next year's day, where import refuses it.
        let replayed = try intervalpro("readiness", "--replay", dir.path("export/\(nextYear).txt"), environment: utc)
        #expect(replayed.status == 65, "stdout: \(replayed.stdout) stderr: \(replayed.stderr)")
        #expect(replayed.stderr.contains("\(nextYear).txt: measured on \(nextYear.prefix(10)), after today"), "\(replayed.stderr)")
        let afterReplay = try JSONSerialization.jsonObject(with: intervalpro("readiness", "history", "--json", environment: utc).stdoutData)
        #expect((afterReplay as? [Any])?.count == 1, "\(afterReplay)")
        // Filed under a day given, it is measured and saved.
        let dated = try intervalpro("readiness", "--replay", dir.path("export/\(nextYear).txt"), "--date", "2026-11-21", "--json", environment: utc)
        #expect(dated.status == 0, "stderr: \(dated.stderr)")
        #expect(jsonObject(dated.stdoutData)?["already_saved"] as? Bool == false, "\(dated.stdout)")
        // The imported morning replayed is the one kept: said in --json as the text says it.
        let kept = try intervalpro("readiness", "--replay", dir.path("export/2026-11-20 06-30-00.txt"), "--json", environment: utc)
        let keptJSON = try #require(jsonObject(kept.stdoutData), "stderr: \(kept.stderr)")
        #expect(keptJSON["already_saved"] as? Bool == true && keptJSON["date"] as? String == "2026-11-20", "\(keptJSON)")
        // And with --no-save, which said "already_saved": false of it, and nothing in the text.
        let notSaving = try intervalpro("readiness", "--replay", dir.path("export/2026-11-20 06-30-00.txt"), "--no-save", "--json", environment: utc)
        #expect(jsonObject(notSaving.stdoutData)?["already_saved"] as? Bool == true, "\(notSaving.stdout)")
        let notSavingText = try intervalpro("readiness", "--replay", dir.path("export/2026-11-20 06-30-00.txt"), "--no-save", environment: utc)
        #expect(notSavingText.stdout.contains("already saved as readiness measurement "), "\(notSavingText.stdout)")
    }

    /// A two-minute morning as an HRV app exports it: 170 RR intervals in milliseconds, a line
    /// each, `pattern` over and over (by default a calm breathing cycle).
    static func morning(_ pattern: [Int] = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]) -> String {
        (0..<170).map { String(pattern[$0 % pattern.count]) }.joined(separator: "\n") + "\n"
    }

    /// Writes `text` as `dir`/export/`name`, making the folders on the way.
    func writeMorning(_ name: String, _ text: String = ReadinessCommandTests.morning(), in dir: ScratchDirectory) throws {
        let path = dir.path("export/" + name)
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try dir.write("export/" + name, text)
    }

    /// An Elite HRV export of `mornings` two-minute mornings in `dir`/export, the first 28 days
    /// of each month from 2023, at 06:30.
    func writeEliteExport(mornings: Int, in dir: ScratchDirectory) throws {
        let text = Self.morning()
        for day in 0..<mornings {
            let (year, month, date) = (2023 + day / 336, day / 28 % 12 + 1, day % 28 + 1)
            try writeMorning("\(year)-\(month < 10 ? "0" : "")\(month)-\(date < 10 ? "0" : "")\(date) 06-30-00.txt", text, in: dir)
        }
    }

    /// Two imports of one folder at once (a cron's beside one typed over ssh) each checked the
    /// store before the other saved: every morning was saved twice, and counted twice.
    @Test("two readiness imports of one folder at once save each morning once")
    func twoImportsAtOnce() throws {
        let dir = try ScratchDirectory()
        try writeEliteExport(mornings: 60, in: dir)
        let imports = try (0..<2).map { _ in
            try RunningCommand(["readiness", "import", dir.path("export"), "--json"], environment: environment(dir))
        }
        let results = imports.map { $0.finish() }
        #expect(results.allSatisfy { $0.exited && $0.status == 0 }, "\(results.map(\.stderr))")
        let imported = results.map { (jsonObject($0.stdoutData)?["imported"] as? [Any])?.count ?? -1 }
        let duplicates = results.map { (jsonObject($0.stdoutData)?["duplicates"] as? [Any])?.count ?? -1 }
        #expect(imported.reduce(0, +) == 60 && duplicates.reduce(0, +) == 60, "imported \(imported), skipped \(duplicates)")
        let listed = try intervalpro("readiness", "history", "--json", "--limit", "1000", environment: environment(dir))
        #expect((try JSONSerialization.jsonObject(with: listed.stdoutData) as? [Any])?.count == 60)
    }

    /// Ctrl-C killed an import where it stood: the progress line left open, no summary, nothing
    /// said of the mornings it had saved (`history import` says what it did and exits 130).
    @Test("Ctrl-C during readiness import finishes the file in hand, says what was saved, and exits 130")
    func ctrlCDuringAnImportSaysWhatWasDone() throws {
        let dir = try ScratchDirectory()
        try writeEliteExport(mornings: 600, in: dir)
        let running = try RunningCommand(["readiness", "import", dir.path("export")], environment: environment(dir))
        let deadline = Date() + 60
        while Date() < deadline {
            let listed = try intervalpro("readiness", "history", "--json", "--limit", "1000", environment: environment(dir))
            if ((try? JSONSerialization.jsonObject(with: listed.stdoutData)) as? [Any])?.count ?? 0 >= 5 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        running.interrupt()
        let result = running.finish()
        #expect(result.exited && result.status == 130, "status \(result.status), stderr: \(result.stderr)")
        let said = try #require(result.stdout.firstMatch(of: /Imported (\d+) mornings?.*\n(?s:.*)Stopped by a signal after (\d+) of 600 files/))
        let listed = try intervalpro("readiness", "history", "--json", "--limit", "1000", environment: environment(dir))
        let kept = (try JSONSerialization.jsonObject(with: listed.stdoutData) as? [Any])?.count ?? -1
        #expect(Int(said.1) == kept && kept >= 5 && kept < 600, "\(result.stdout)")
        #expect(!looksLikeACrash(result.stderr), "stderr: \(result.stderr)")
    }

    /// A morning a watch recorded as an activity of another sport (Garmin's HRM plugin test
    /// file is a walk with `hrv` messages): read for its heart, whatever the sport; before,
    /// refused as "not a run", with advice (`--sport any`) that readiness does not take.
    /// A watch's 160 s walk as a FIT activity: a record a second at 60 bpm with the beats of the
    /// readiness cycle in hrv messages, from 2026-11-18T11:06:40Z; with `localOffset`, the
    /// activity message's local_timestamp on a clock that many seconds ahead of UTC.
    func watchWalk(localOffset: Int? = nil) -> [UInt8] {
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        var writer = FITFileWriter()
        writer.write(FITMessage(FITMessageNumber.fileID, [FITField(FITFieldNumber.FileID.type, .enumeration, .int(4))]))
        let start = 1_795_000_000 - Int(FITTime.epochOffset)
        var (beatTime, beat) = (0, 0)
        for second in 1...160 {
            writer.write(
                FITMessage(FITMessageNumber.record, [
                    FITField(FITFieldNumber.timestamp, .uint32, .int(start + second)), FITField(FITFieldNumber.Record.heartRate, .uint8, .int(60)),
                ]))
            var beats: [UInt64] = []
            while beatTime + cycle[beat % cycle.count] <= second * 1000 {
                beatTime += cycle[beat % cycle.count]
                beats.append(UInt64(cycle[beat % cycle.count]))
                beat += 1
            }
            if !beats.isEmpty {
                let padded = beats.map { Optional($0) } + Array(repeating: nil, count: 5 - beats.count)
                writer.write(FITMessage(FITMessageNumber.hrv, [FITField(0, .uint16, .integers(padded))]))
            }
        }
        writer.write(
            FITMessage(FITMessageNumber.session, [
                FITField(FITFieldNumber.timestamp, .uint32, .int(start + 160)), FITField(FITFieldNumber.Session.startTime, .uint32, .int(start)),
                FITField(FITFieldNumber.Session.sport, .enumeration, .int(11)),  // walking
            ]))
        if let localOffset {
            writer.write(
                FITMessage(FITMessageNumber.activity, [
                    FITField(FITFieldNumber.timestamp, .uint32, .int(start + 160)),
                    FITField(FITFieldNumber.Activity.localTimestamp, .uint32, .int(start + 160 + localOffset)),
                ]))
        }
        return writer.fileBytes()
    }

    @Test("a morning a watch recorded as a walk, in FIT with hrv messages: measured, not refused as not a run")
    func fromAWatchsWalk() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("walk.fit")
        try Data(watchWalk()).write(to: URL(fileURLWithPath: path))
        let result = try intervalpro("readiness", "--replay", path, "--duration", "2", "--json", "--no-save", environment: environment(dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("run"), "nothing said of a run or its cadence: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        // The same beats as `fromARecording`, in milliseconds: rMSSD = √530 = 23.02 ms.
        #expect(abs((number(json["rmssd_ms"]) ?? 0) - 23.02) < 0.3)
    }

    /// The watch's own clock, in its activity's local_timestamp, was not read: a morning it
    /// measured in Tokyo was filed on the clock of the machine that imported it.
    @Test("a watch's FIT morning is filed at the watch's clock time (local_timestamp), wherever it is read")
    func watchsOwnClock() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("walk.fit")
        try Data(watchWalk(localOffset: 9 * 3600)).write(to: URL(fileURLWithPath: path))
        var berlin = environment(dir)
        berlin["TZ"] = "CET-1"
        let result = try intervalpro("readiness", "--replay", path, "--duration", "2", "--json", "--no-save", environment: berlin)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        // 11:06:40Z and 2:2x: 20:09 in Tokyo, 12:09 in Berlin.
        #expect((json["local_time"] as? String)?.hasPrefix("20:0") == true, "\(result.stdout)")
        #expect(json["date"] as? String == "2026-11-18")
    }

    /// RR intervals as an HRV app exports them (Polar Sensor Logger's table, Elite HRV's list):
    /// before, refused as "invalid JSON" like any file that is not a recording.
    @Test("a morning an HRV app exported as RR interval text: measured; replay says what it is")
    func fromAnHRVAppsRRText() throws {
        let dir = try ScratchDirectory()
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        let beats = (0..<160).map { cycle[$0 % cycle.count] }
        let polar = try dir.write(
            "polar_RR.txt", "Phone timestamp;RR-interval [ms]\r\n" + beats.map { "2026-11-25T06:30:00.000;\($0)\r\n" }.joined())
        let result = try intervalpro("readiness", "--replay", polar, "--duration", "2", "--json", "--no-save", environment: environment(dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        // The same beats as `fromARecording`: rMSSD = √530 = 23.02 ms.
        #expect(abs((number(json["rmssd_ms"]) ?? 0) - 23.02) < 0.3)
        #expect(json["device"] as? String == "rr-intervals")

        // Elite HRV's two-minute morning holds 1:30 after settling: the refusal says the duration that fits.
        let elite = try dir.write("2026-11-25 06-30-00.txt", beats.prefix(120).map { "\($0)\n" }.joined())
        let short = try intervalpro("readiness", "--replay", elite, "--no-save", environment: environment(dir))
        #expect(short.status == 65)
        #expect(short.stderr.contains("the measurement needs 2:30 (30 s settling, then 2:00); `--duration 1.5` scores what it holds"), "\(short.stderr)")
        #expect(try intervalpro("readiness", "--replay", elite, "--duration", "1.5", "--no-save", environment: environment(dir)).status == 0)
        // As an app writes it: the beats that ended before 2:00 (1:59.0 here), the next one cut.
        // Up to a beat short counts as held: it was refused at 1:30 and "fitted" 1:00.
        let cut = try dir.write("2026-11-26 06-30-00.txt", beats.prefix(119).map { "\($0)\n" }.joined())
        let cutShort = try intervalpro("readiness", "--replay", cut, "--no-save", environment: environment(dir))
        #expect(cutShort.stderr.contains("`--duration 1.5` scores what it holds"), "\(cutShort.stderr)")
        let cutScored = try intervalpro("readiness", "--replay", cut, "--duration", "1.5", "--json", "--no-save", environment: environment(dir))
        #expect(cutScored.status == 0, "\(cutScored.stderr)")
        #expect(try #require(jsonObject(cutScored.stdoutData))["duration_s"] as? Int == 90)
        // Filed under the day and time its name says, as `readiness import` files it (it went under today).
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let named = try intervalpro("readiness", "--replay", elite, "--duration", "1.5", "--json", "--no-save", environment: utc)
        let namedJSON = try #require(jsonObject(named.stdoutData), "stderr: \(named.stderr)")
        #expect(namedJSON["date"] as? String == "2026-11-25")
        #expect((namedJSON["taken_at"] as? String)?.hasPrefix("2026-11-25T06:3") == true, "\(namedJSON["taken_at"] ?? "")")

        // Polar Sensor Logger's heart-rate file, given for its RR file: said for what it is, not "invalid JSON".
        let hrFile = try dir.write("polar_HR.txt", "Phone timestamp;sensor timestamp [ns];HR [bpm];HRV [ms];\n2026-11-25T06:30:00.000;1;60;;\n")
        let other = try intervalpro("readiness", "--replay", hrFile, "--no-save", environment: environment(dir))
        #expect(other.status == 65)
        #expect(
            other.stderr.contains("\(hrFile): not a recording, a FIT, TCX or GPX activity, nor RR intervals as text: it begins \"Phone timestamp;"),
            "\(other.stderr)")

        let replay = try intervalpro("replay", elite, environment: environment(dir))
        #expect(replay.status == 65)
        #expect(replay.stderr.contains("not an activity: `intervalpro readiness --replay \(elite)` measures from them"), "\(replay.stderr)")
    }

    /// A file that gives no time took the moment the command was typed: replayed again within
    /// that second for another day, it was "already saved, the same morning" under the first
    /// day, its --date passed over.
    @Test("an undated file replayed for three days is three mornings, each under its day")
    func anUndatedFileReplayedForSeveralDays() throws {
        let dir = try ScratchDirectory()
        try writeMorning("morning.txt", in: dir)
        var filed: [String] = []
        for day in ["2026-11-13", "2026-11-14", "2026-11-17"] {
            let replayed = try intervalpro("readiness", "--replay", dir.path("export/morning.txt"), "--date", day, "--json", environment: environment(dir))
            #expect(replayed.status == 0, "\(day): \(replayed.stderr)")
            let answer = jsonObject(replayed.stdoutData)
            #expect(answer?["already_saved"] as? Bool == false, "\(day): \(replayed.stdout)")
            filed.append(answer?["date"] as? String ?? "")
        }
        #expect(filed == ["2026-11-13", "2026-11-14", "2026-11-17"])
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        #expect(((try? JSONSerialization.jsonObject(with: history.stdoutData)) as? [Any])?.count == 3, "\(history.stdout)")
    }

    /// Polar Sensor Logger's file renamed, and HRV Logger's, whose names hold no time: their
    /// rows do, and they were "undated" (import) or filed under today (replay).
    @Test("RR text whose table has a column of times is filed at its first row's time, whatever its name")
    func timesInTheTable() throws {
        let dir = try ScratchDirectory()
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        let beats = (0..<170).map { cycle[$0 % cycle.count] }
        try writeMorning("morning_polar.txt", "Phone timestamp;RR-interval [ms]\n" + beats.map { "2026-11-20T06:30:01.243;\($0)\n" }.joined(), in: dir)
        try writeMorning("hrvlogger.csv", "date,rr,since start\n" + beats.map { "2026-11-21 07:00:00,\($0),0\n" }.joined(), in: dir)
        // As HRV Logger writes it in Tokyo: its zone after a space (it was "undated").
        try writeMorning("hrvlogger_tokyo.csv", "date, rr, since start\n" + beats.map { "2026-11-22 06:30:00 +0900, \($0), 0" }.joined(separator: "\n"), in: dir)
        var utc = environment(dir)
        utc["TZ"] = "UTC0"
        let imported = try intervalpro("readiness", "import", dir.path("export"), "--json", environment: utc)
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let mornings = try #require(jsonObject(imported.stdoutData)?["imported"] as? [[String: Any]], "\(imported.stdout)")
        #expect(mornings.map { $0["date"] as? String } == ["2026-11-20", "2026-11-21", "2026-11-22"])
        #expect(mornings.map { $0["local_time"] as? String } == ["06:32:31", "07:02:30", "06:32:30"], "\(mornings)")
        let replayed = try intervalpro("readiness", "--replay", dir.path("export/morning_polar.txt"), "--no-save", "--json", environment: utc)
        #expect(jsonObject(replayed.stdoutData)?["date"] as? String == "2026-11-20", "\(replayed.stdout) \(replayed.stderr)")
    }

    /// An app writes the time it lost the strap as one long interval. Taken as a beat a watch
    /// recorded, it was held over each second of a gap of up to 25 s, so that a gap of 10 s
    /// took 10 s of the scored time (112 beats scored where one of 26 s left 119).
    @Test("RR text with a gap of seconds: the count waits as for a silent strap, whether the gap is 10 s or 26 s")
    func gapsInRRTextWaitAlike() throws {
        let dir = try ScratchDirectory()
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        let before = (0..<90).map { cycle[$0 % cycle.count] }, after = (0..<150).map { cycle[$0 % cycle.count] }
        var beatsScored: [Int] = []
        for gap in [10_000, 26_000] {
            let file = try dir.write("gap-\(gap).txt", (before + [gap] + after).map { "\($0)\n" }.joined())
            let result = try intervalpro("readiness", "--replay", file, "--json", "--no-save", environment: environment(dir))
            #expect(result.status == 0, "stderr: \(result.stderr)")
            beatsScored.append(try #require(jsonObject(result.stdoutData)?["beats"] as? Int))
        }
        // 2:00 scored: 3 s of each gap (the silence a strap's values may leave), 117 s of beats.
        #expect(beatsScored == [118, 118], "\(beatsScored)")
    }

    /// A named pipe was opened once to see whether it held a zip, then again to be read: the
    /// writer got SIGPIPE at the first close and the import waited for good on the second open.
    @Test("readiness import of a named pipe reads it once: the morning is imported")
    func importsFromANamedPipe() throws {
        let dir = try ScratchDirectory()
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        let source = try dir.write("morning.txt", (0..<170).map { String(cycle[$0 % cycle.count]) }.joined(separator: "\n") + "\n")
        let pipe = dir.path("2026-11-20 06-30-00.txt")
        #expect(mkfifo(pipe, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$0\" > \"$1\"", source, pipe]
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        let imported = try intervalpro("readiness", "import", pipe, "--json", environment: environment(dir))
        #expect(imported.status == 0, "stderr: \(imported.stderr)")
        let mornings = try #require(jsonObject(imported.stdoutData)?["imported"] as? [[String: Any]])
        #expect(mornings.map { $0["date"] as? String } == ["2026-11-20"])
    }
}
