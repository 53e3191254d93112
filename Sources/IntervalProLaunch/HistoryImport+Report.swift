public import IntervalProCore

/// What `history import` says of what it did: its JSON (`--json`) and its summary lines.
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
