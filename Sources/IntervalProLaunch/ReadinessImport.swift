public import IntervalProCore
public import IntervalProHRV
public import IntervalProStorage
import IntervalProFormats
import IntervalProHistory
import IntervalProIO

/// `readiness import`: mornings measured with another app, each filed under the day it was
/// taken, so that the baseline (seven days) and the normal range (60) stand at once. A path
/// is a file, a folder (at any depth) or a zip archive, as `history import` reads them: Elite
/// HRV's export, Polar Sensor Logger's files, recordings, watch activities. A file's time is
/// its own (a recording's or an activity's start) or, for RR interval text, the one its name
/// gives; a file with neither is left for `readiness --replay FILE --date DAY`. A morning
/// imported before (the same moment, or the same day, clock time and beats) is skipped, so
/// importing again adds nothing.
public enum ReadinessImport {
    public struct Imported: Sendable {
        public var file: String
        public var record: ReadinessRecord
    }

    public struct Report: Sendable {
        /// Saved, in the order of their days.
        public var imported: [Imported] = []
        /// Measurements scored for less than the duration asked, as long as their files hold.
        public var shortened: [HistoryImport.Skipped] = []
        /// Imported, but another of their day is its value (an evening's beside the morning's).
        public var notDaysValue: [HistoryImport.Skipped] = []
        public var duplicates: [HistoryImport.Skipped] = []
        /// Measured and refused (too many artifacts, not at rest, too short, no RR intervals).
        public var refused: [HistoryImport.Skipped] = []
        /// RR interval text whose name gives no time.
        public var undated: [HistoryImport.Skipped] = []
        public var unreadable: [HistoryImport.Skipped] = []
        /// Files that hold no beats (an app's summary CSV, photos), by name.
        public var otherFiles: [String] = []
        public var filesRead = 0
        /// Why the import stopped: the store could not be written; the rest was not tried.
        public var storeFailure: String?
        /// Stopped by Ctrl-C, SIGTERM or a hang-up after `done` of the files: the rest not tried.
        public var interruptedAfter: (done: Int, of: Int)?

        /// Whether the path held mornings and none of them could be taken.
        public var nothingTaken: Bool {
            imported.isEmpty && duplicates.isEmpty && !(refused.isEmpty && undated.isEmpty && unreadable.isEmpty)
        }
    }

    /// Imports the mornings `paths` hold into the store at `location`, each scored with
    /// `settings` (or as long as its file holds, from a minute). `progress` hears files done
    /// and files in all. A morning measured after `now` (seconds since 1970; the clock's when
    /// nil) is refused.
    public static func run(
        _ paths: [String], settings: ReadinessMeasurement.Settings, store location: StoreLocation, now: Int64? = nil,
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws -> Report {
        let now = now ?? WallClock.nowUnixSeconds()
        let candidates = try HistoryImport.files(in: paths)
        // An empty folder: nothing to keep, and no store made for it.
        guard !candidates.isEmpty else { return Report() }
        let store = try location.open()
        var known = Set(try storeCall { () throws(StoreError) in try store.readinessRecords() }.flatMap(Self.keys))
        var report = Report()
        for (index, candidate) in candidates.enumerated() where report.storeFailure == nil {
            // Ctrl-C (once `InterruptSignal.install` ran) ends the import between two files.
            if InterruptSignal.isRaised {
                report.interruptedAfter = (index, candidates.count)
                break
            }
            take(
                candidate.name, load: candidate.load, settings: settings, store: location, now: now, known: &known,
                report: &report)
            progress(index + 1, candidates.count)
        }
        report.imported.sort { ($0.record.localDate, $0.record.takenAt) < ($1.record.localDate, $1.record.takenAt) }
        report.notDaysValue = notDaysValue(of: report.imported, in: store)
        return report
    }

    /// The imported measurements another of their day stands for, judged once all are saved, as
    /// `readiness history` judges them: a 06:30 imported before the 07:10 of its day was said to be
    /// the day's value, history said not.
    private static func notDaysValue(of imported: [Imported], in store: SessionStore) -> [HistoryImport.Skipped] {
        guard let first = imported.map(\.record.localDate).min(),
            let records = try? store.readinessRecords(since: first)
        else { return [] }
        let days = Set(imported.map(\.record.localDate))
        let daysValues = ReadinessRecord.daysValues(among: records.filter { days.contains($0.localDate) })
        return imported.filter { $0.record.countsInBaseline && !($0.record.id.map(daysValues.contains) ?? true) }
            .map { HistoryImport.Skipped(file: $0.file, reason: ReadinessReport.notTheDaysValue) }
    }

    /// What makes a morning one imported before (`ReadinessRecord.isSameMorning(as:)`): the
    /// moment it ended, or the runner's date and clock time then with the same beats. An export
    /// names its mornings in local time without a zone, so the same file imported again in
    /// another time zone is another moment but the same clock time and beats.
    static func keys(localDate: String, takenAt: String, localTime: String?, rrSegments: [[UInt16]]) -> Set<String> {
        var keys: Set<String> = ["at \(takenAt)"]
        if let localTime { keys.insert("local \(localDate) \(localTime) \(rrSegments)") }
        return keys
    }

    private static func keys(_ record: ReadinessRecord) -> Set<String> {
        keys(localDate: record.localDate, takenAt: record.takenAt, localTime: record.localTime, rrSegments: record.rrSegments)
    }

    private static func take(
        _ name: String, load: () throws -> [UInt8], settings: ReadinessMeasurement.Settings, store: StoreLocation,
        now: Int64, known: inout Set<String>, report: inout Report
    ) {
        func skip(_ list: WritableKeyPath<Report, [HistoryImport.Skipped]>, _ reason: String) {
            report[keyPath: list].append(HistoryImport.Skipped(file: name, reason: reason))
        }
        var bytes: [UInt8]
        do {
            bytes = try load()
        } catch let failure as LaunchError {
            return skip(\.unreadable, failure.message)
        } catch {
            return skip(\.unreadable, "\(error)")
        }
        if Zip.isZip(bytes) {
            do {
                for entry in try Zip.entries(bytes) where !entry.isFolderOrMacResource {
                    take(
                        "\(name) (\(entry.name))", load: { try Zip.contents(of: entry, in: bytes) }, settings: settings,
                        store: store, now: now, known: &known, report: &report)
                }
            } catch {
                skip(\.unreadable, "a zip file that cannot be read: \(error.message)")
            }
            return
        }
        if Gzip.isGzip(bytes) {
            guard let inflated = try? Gzip.inflate(bytes) else { return skip(\.unreadable, "a gzip file that cannot be inflated") }
            bytes = inflated
        }
        report.filesRead += 1
        guard holdsActivityOrRecording(bytes) || ActivityImport.encoding(of: bytes) == .rrIntervalText else {
            report.otherFiles.append(name)
            return
        }
        var outcome: ReadinessRun.Outcome
        // Set when the file holds less than the duration asked, with what it holds after
        // settling: said once the morning is saved.
        var scoredFor: (duration: SessionTime, held: SessionTime)?
        do {
            let recording = try readActivity(bytes, file: name, choice: ActivityChoice(heartRateOnly: true)).recording
            outcome = try ReadinessRun.feed(recording, file: name, device: nil, settings: settings)
            if !ReadinessRun.holdsWhole(outcome.measurement), !outcome.measurement.sendsNoRR {
                // An app's morning may be shorter than the duration asked: scored as long as it holds.
                guard let fitting = ReadinessRun.fittingDuration(outcome.measurement) else {
                    return skip(
                        \.refused,
                        "it holds \(formatClock(outcome.measurement.contactTime.seconds)) of beats with skin contact; a measurement needs \(Int(settings.settle.seconds)) s settling and a minute at least")
                }
                var shorter = settings
                shorter.duration = fitting
                let held = ReadinessRun.heldTime(outcome.measurement) - settings.settle
                outcome = try ReadinessRun.feed(recording, file: name, device: nil, settings: shorter)
                scoredFor = (fitting, held)
            }
        } catch let failure as LaunchError {
            return skip(\.unreadable, failure.message)
        } catch let problem as ImportError {
            // The file is named beside the reason: the reason says where in it.
            return skip(\.unreadable, problem.placedMessage)
        } catch let error as RecordingError {
            return skip(\.unreadable, "line \(error.line): \(error.message)")
        } catch {
            return skip(\.unreadable, "\(error)")
        }
        outcome.takeTime(fromName: name)
        guard let ended = outcome.endedAt, let (localDate, localTime) = outcome.localEnd else {
            if outcome.startedAt == nil, let written = RRIntervalText.impossibleTime(inName: name) {
                return skip(
                    \.undated,
                    "its name says \(written.text), which no calendar or clock has, and the file does not say when it was measured: rename it, or `intervalpro readiness --replay FILE --date YYYY-MM-DD` files it under a day")
            }
            return skip(\.undated, "neither the file nor its name says when it was measured: `intervalpro readiness --replay FILE --date YYYY-MM-DD` files it under a day")
        }
        if let notYetCome = ReadinessRun.notYetCome(localDate, endedAt: ended, now: now) { return skip(\.refused, notYetCome) }
        let takenAt = UTCTimestamp.text(unixSeconds: ended)
        let keys = Self.keys(
            localDate: localDate, takenAt: takenAt, localTime: localTime, rrSegments: outcome.measurement.segments)
        let importedBefore = "the morning of \(localDate) at \(takenAt), imported before"
        guard known.isDisjoint(with: keys) else { return skip(\.duplicates, importedBefore) }
        do {
            let scored = try ReadinessRun.score(
                outcome, source: .replay, localDate: localDate, takenAt: takenAt, localTime: localTime, save: store,
                unlessHeld: true, store: store)
            // Saved meanwhile by another import of the same folder.
            if scored.wasHeld { return skip(\.duplicates, importedBefore) }
            if let failure = scored.saveFailure {
                // The store, not the morning: said once, as what stopped the import.
                report.storeFailure = failure
                return
            }
            // Known once saved: a copy of a refused morning is refused for its own reason.
            known.formUnion(keys)
            report.imported.append(Imported(file: name, record: scored.record))
            // In whole half minutes, as `--duration` takes them: "as long as it holds" said
            // 1:00 of a file that holds 1:10.
            if let (duration, held) = scoredFor {
                skip(
                    \.shortened,
                    "scored \(formatClock(duration.seconds)), the whole half minutes of the \(formatClock(held.seconds.rounded(.down))) the file holds after settling")
            }
        } catch let failure as LaunchError where failure.kind == .io {
            // The store, not the morning: said once, as what stopped the import.
            report.storeFailure = failure.message
        } catch let failure as LaunchError {
            skip(\.refused, failure.message)
        } catch {
            skip(\.refused, "\(error)")
        }
    }
}

extension ReadinessImport.Report {
    /// What `readiness import --json` prints.
    public var json: JSONValue {
        func skipped(_ list: [HistoryImport.Skipped]) -> JSONValue { .array(list.map(\.json)) }
        return .object([
            ("files_read", .int(filesRead)),
            ("imported", .array(imported.map { imported in
                var members = ReadinessJSON.measurement(imported.record)
                members.insert(("file", .string(imported.file)), at: 0)
                return .object(members)
            })),
            ("shortened", skipped(shortened)),
            ("not_days_value", skipped(notDaysValue)),
            ("duplicates", skipped(duplicates)),
            ("refused", skipped(refused)),
            ("undated", skipped(undated)),
            ("unreadable", skipped(unreadable)),
            ("other_files", .int(otherFiles.count)),
            ("other_file_names", .array(otherFiles.map(JSONValue.string))),
            ("store_failure", storeFailure.map(JSONValue.string) ?? .null),
            ("interrupted", .bool(interruptedAfter != nil)),
        ])
    }

    /// The summary: counts first, then what was not taken, file by file (the first few of each).
    /// `db`: the store's path as given (`--db`), which the commands it suggests need too.
    public func lines(paths: [String], db: String? = nil) -> [String] {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        func listed(_ list: [HistoryImport.Skipped]) -> [String] {
            list.prefix(10).map { "  \($0.file): \($0.reason)" } + (list.count > 10 ? ["  … and \(list.count - 10) more (--json lists them all)"] : [])
        }
        var span = ""
        if let first = imported.first?.record.localDate, let last = imported.last?.record.localDate {
            span = first == last ? " (\(first))" : " (\(first) to \(last))"
        }
        var lines = ["Imported \(count(imported.count, "morning", "mornings"))\(span) from \(HistoryImport.described(paths)) (\(count(filesRead, "file", "files")) read)."]
        // By the time scored: an app's mornings are all of one length (--json names each).
        var scoredFor: [String: Int] = [:]
        for morning in shortened { scoredFor[morning.reason, default: 0] += 1 }
        for (reason, n) in scoredFor.sorted(by: { $0.key > $1.key }) {
            let scored = reason.split(separator: ",").first.map(String.init) ?? reason
            lines.append("\(count(n, "morning", "mornings")) \(scored), the whole half minutes \(n == 1 ? "its file holds" : "their files hold") after settling.")
        }
        if !notDaysValue.isEmpty {
            lines.append("Kept \(count(notDaysValue.count, "measurement", "measurements")) that another of \(notDaysValue.count == 1 ? "its" : "their") day stands for (a day's value is its last measurement before noon, or its last when none was before noon):")
            lines += listed(notDaysValue)
        }
        if !duplicates.isEmpty { lines.append("Skipped \(count(duplicates.count, "morning", "mornings")) imported before.") }
        if !refused.isEmpty {
            lines.append("Refused \(count(refused.count, "measurement", "measurements")):")
            lines += listed(refused)
        }
        if !undated.isEmpty {
            lines.append("Left out \(count(undated.count, "file", "files")) that \(undated.count == 1 ? "does" : "do") not say when \(undated.count == 1 ? "it was" : "they were") measured:")
            lines += listed(undated)
        }
        if !otherFiles.isEmpty {
            let named = otherFiles.prefix(10).joined(separator: ", ") + (otherFiles.count > 10 ? " and \(otherFiles.count - 10) more" : "")
            lines.append("Left out \(count(otherFiles.count, "file that holds", "files that hold")) no beats: \(named).")
        }
        if !unreadable.isEmpty {
            lines.append("Could not read \(count(unreadable.count, "file", "files")):")
            lines += listed(unreadable)
        }
        if let storeFailure { lines.append(HistoryImport.stopped(storeFailure)) }
        if let (done, total) = interruptedAfter { lines.append(HistoryImport.stoppedBySignal(after: done, of: total)) }
        let store = db.map { " --db \($0.shellWord)" } ?? ""
        if !imported.isEmpty { lines.append("See them with `intervalpro readiness history\(store)` and `intervalpro trends\(store)`.") }
        return lines.map(\.printable)
    }
}
