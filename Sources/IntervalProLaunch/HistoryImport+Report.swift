public import IntervalProCore

/// What `history import` did and says of it: the report, its JSON (`--json`) and its summary lines.
extension HistoryImport {
    /// A file that was not imported, and why.
    public struct Skipped: Sendable {
        public var file: String
        public var reason: String
    }

    public struct Report: Sendable {
        /// The new sessions' ids, in order.
        public var imported: [Int64] = []
        /// Imported before (or twice in this import).
        public var duplicates: [Skipped] = []
        /// Of those imported before, the files that hold more than the session kept of them (a
        /// copy cut short was imported first).
        public var longerThanKept: [Skipped] = []
        /// Activities of another sport: their sport.
        public var notRuns: [Skipped] = []
        /// Runs with neither cadence nor heart rate (a phone's GPS alone): nothing to keep.
        public var withoutReadings: [Skipped] = []
        /// Activity files that could not be read: what is wrong.
        public var unreadable: [Skipped] = []
        /// Of them, those left out by an I/O failure here, not by their content (a zip inside an
        /// archive whose copy the full temporary folder could not hold): an import that said
        /// "bad data" (65), or nothing (0) beside a file imported, for runs it never looked at.
        public var notReadHere = 0
        /// Files that hold no activity (photos, CSV, a watch's monitoring or settings files).
        public var otherFiles = 0
        /// Of them, RR intervals as HRV apps export them: mornings, for `readiness import`.
        public var rrIntervalFiles = 0
        /// What was said about files that were imported (a damaged file read up to the damage,
        /// a multisport file's leg).
        public var warnings: [String] = []
        /// Files looked at, the parts of archives counted.
        public var filesRead = 0
        /// Why the import stopped: the store could not be written (a full disk, a read-only
        /// file system). The files after it were not tried: an import run again takes them.
        public var storeFailure: String?
        /// Stopped by Ctrl-C (or SIGTERM, a closed terminal) after this many of the files:
        /// the files being read then were finished, the rest left for an import run again.
        public var interruptedAfter: (done: Int, of: Int)?
        /// Sessions from this id on were made by this import: a copy of one of them in a later
        /// file is of this import, not imported before.
        var newSessionsFrom = Int64.max

        mutating func merge(_ other: Report) {
            imported += other.imported
            duplicates += other.duplicates
            longerThanKept += other.longerThanKept
            notRuns += other.notRuns
            withoutReadings += other.withoutReadings
            unreadable += other.unreadable
            notReadHere += other.notReadHere
            otherFiles += other.otherFiles
            rrIntervalFiles += other.rrIntervalFiles
            warnings += other.warnings
            filesRead += other.filesRead
            storeFailure = storeFailure ?? other.storeFailure
        }

        /// In the order of files and sessions, however the workers finished.
        mutating func sort() {
            imported.sort()
            for list in [\Report.duplicates, \.longerThanKept, \.notRuns, \.withoutReadings, \.unreadable] {
                self[keyPath: list].sort { $0.file < $1.file }
            }
            // A file's legs carry what was said of the file: said once.
            warnings = Array(Set(warnings)).sorted()
        }
    }

    /// Said when the store could not take more: what was imported stays, and importing the
    /// same files again takes the rest (the imported ones are skipped as imported before).
    public static func stopped(_ storeFailure: String) -> String {
        "Stopped: \(storeFailure). The rest was not imported: import again once the store can be written (what was imported is skipped)."
    }

    /// Said of an import Ctrl-C, SIGTERM or a hang-up ended after `done` of `total` files.
    static func stoppedBySignal(after done: Int, of total: Int) -> String {
        "Stopped by a signal after \(done) of \(total) files: what was imported stays; import again for the rest (what was imported is skipped)."
    }
}

extension HistoryImport.Skipped {
    /// `{"file": …, "reason": …}`, as the imports' `--json` lists what they left out.
    var json: JSONValue { .object([("file", .string(file)), ("reason", .string(reason))]) }
}

extension HistoryImport.Report {
    /// What `history import --json` prints.
    public var json: JSONValue {
        func skipped(_ list: [HistoryImport.Skipped]) -> JSONValue { .array(list.map(\.json)) }
        return .object([
            ("files_read", .int(filesRead)),
            ("imported", .array(imported.map { .int(Int($0)) })),
            ("duplicates", skipped(duplicates)),
            ("longer_than_kept", skipped(longerThanKept)),
            ("not_runs", skipped(notRuns)),
            ("without_readings", skipped(withoutReadings)),
            ("unreadable", skipped(unreadable)),
            ("not_read_here", .int(notReadHere)),
            ("other_files", .int(otherFiles)),
            ("rr_interval_files", .int(rrIntervalFiles)),
            ("warnings", .array(warnings.map { .string($0) })),
            ("store_failure", storeFailure.map(JSONValue.string) ?? .null),
            ("interrupted", .bool(interruptedAfter != nil)),
        ])
    }

    /// The summary: counts first, then what went wrong, file by file (the first few of each).
    /// `db`: the store's path as given (`--db`), which the commands it suggests need too.
    public func lines(paths: [String], db: String? = nil) -> [String] {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var lines = [
            "Imported \(count(imported.count, "run", "runs")) from \(HistoryImport.described(paths)) (\(count(filesRead, "file", "files")) read)."
        ]
        // Copies of a run within these files are said apart from runs imported before.
        let copies = ["a shorter copy", "a damaged copy", "the same run as", "the same activity as"]
        let exported = duplicates.filter { $0.reason.hasPrefix("exported from session") }.count
        let copied = duplicates.filter { skipped in
            copies.contains { skipped.reason.hasPrefix($0) } && !skipped.reason.contains("imported before")
        }.count
        let before = duplicates.count - exported - copied
        if before > 0 { lines.append("Skipped \(count(before, "run", "runs")) imported before.") }
        if exported > 0 {
            lines.append("Skipped \(count(exported, "file", "files")) IntervalPro exported from sessions this history holds.")
        }
        if copied > 0 {
            lines.append("Skipped \(count(copied, "copy", "copies")) of a run another file of these holds (the longer kept, an intact file before a damaged one).")
        }
        if !longerThanKept.isEmpty {
            lines.append("Of them, \(count(longerThanKept.count, "file holds", "files hold")) more than the session kept (a copy cut short was imported first):")
            lines += longerThanKept.prefix(10).map { "  \($0.file): \($0.reason)" }
        }
        if !notRuns.isEmpty {
            var sports: [String: Int] = [:]
            for skipped in notRuns { sports[skipped.reason, default: 0] += 1 }
            let list = sports.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("Left out \(count(notRuns.count, "activity", "activities")) of other sports: \(list) (`replay --sport any` reads one).")
        }
        if !withoutReadings.isEmpty {
            lines.append("Left out \(count(withoutReadings.count, "run", "runs")) with neither cadence nor heart rate (GPS alone): nothing to keep.")
        }
        if otherFiles > 0 { lines.append("Left out \(count(otherFiles, "file that holds", "files that hold")) no activity.") }
        if rrIntervalFiles > 0 {
            lines.append(
                "\(rrIntervalFiles == otherFiles ? (otherFiles == 1 ? "It holds" : "They hold") : "\(rrIntervalFiles) of them hold") RR intervals, as HRV apps export mornings: `intervalpro readiness import \(paths.joined(separator: " "))` files them.")
        }
        if !unreadable.isEmpty {
            lines.append("Could not read \(count(unreadable.count, "file", "files")):")
            lines += unreadable.prefix(10).map { "  \($0.file): \($0.reason)" }
            if unreadable.count > 10 { lines.append("  … and \(unreadable.count - 10) more (--json lists them all)") }
        }
        if !warnings.isEmpty {
            lines.append("Read with \(count(warnings.count, "warning", "warnings")):")
            lines += warnings.prefix(10).map { "  \($0)" }
            if warnings.count > 10 { lines.append("  … and \(warnings.count - 10) more (--json lists them all)") }
        }
        if let storeFailure { lines.append(HistoryImport.stopped(storeFailure)) }
        if let (done, total) = interruptedAfter { lines.append(HistoryImport.stoppedBySignal(after: done, of: total)) }
        let store = db.map { " --db \($0.shellWord)" } ?? ""
        if !imported.isEmpty { lines.append("See them with `intervalpro history\(store)` and `intervalpro trends --weeks 52\(store)`.") }
        // File, entry and activity names are others' words: shown, never obeyed by the terminal.
        return lines.map(\.printable)
    }
}
