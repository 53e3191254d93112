public import IntervalProStorage
import Synchronization
import IntervalProCore
import IntervalProFormats
import IntervalProHistory
import IntervalProIO

/// `history import`: the runs a runner already has, as stored sessions. A path is an activity
/// file, a folder (at any depth), or a zip archive: a Strava bulk export (`activities/*.fit.gz`,
/// `.gpx`, `.tcx.gz`), Garmin Connect's export (zips of `.fit` files inside a zip), or any
/// mix. Every running activity becomes a session of its own (`ImportedRun`); one already
/// imported (same start and device) is skipped, so importing again adds nothing.
public enum HistoryImport {
    /// A file to look at: a path, or a part of an archive already in memory.
    struct Candidate: Sendable {
        var name: String
        var load: @Sendable () throws -> [UInt8]
        /// What a Strava export's activities.csv calls the activity, when it does.
        var activityName: String? = nil
        /// The file on disk (and the part of an archive) however it was reached, to read it once.
        var identity: String? = nil
    }

    /// Imports what `paths` hold into the store at `location`, opened once the paths are found
    /// (a path not there made an empty store). `progress` is told files done and files in all
    /// as each thousandth of them is done, and at the end.
    ///
    /// Files are read and scored on every core at once, each worker storing its own runs: the
    /// store takes one write at a time, so one worker reads while another writes.
    public static func run(
        _ paths: [String], into location: StoreLocation,
        progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws -> Report {
        let candidates = try files(in: paths)
        // An empty folder: nothing to keep, and no store made for it.
        guard !candidates.isEmpty else { return Report() }
        let store = try location.open()
        let newSessionsFrom = try storeCall { () throws(StoreError) in try store.nextSessionID() }
        let state = Mutex((report: Report(), next: 0, done: 0, told: -1))
        let workers = max(1, min(candidates.count, Cores.online))
        Cores.perform(workers) { _ in
            while true {
                let index = state.withLock { state in
                    defer { state.next += 1 }
                    // A store that cannot be written takes no more, nor a runner who pressed
                    // Ctrl-C (the import ended at once, without a word of what it had done):
                    // the rest is left for later.
                    return state.report.storeFailure == nil && !InterruptSignal.isRaised ? state.next : candidates.count
                }
                guard index < candidates.count else { return }
                var found = Report()
                found.newSessionsFrom = newSessionsFrom
                take(candidates[index], into: store, report: &found)
                state.withLock { state in
                    state.report.merge(found)
                    state.done += 1
                    let thousandths = state.done * 1000 / candidates.count
                    if thousandths != state.told {
                        state.told = thousandths
                        progress(state.done, candidates.count)
                    }
                }
            }
        }
        var report = state.withLock { $0.report }
        let done = state.withLock { $0.done }
        if InterruptSignal.isRaised, done < candidates.count { report.interruptedAfter = (done, candidates.count) }
        // A cut copy imported first and replaced by the whole run of a later file is no more.
        let replaced = Set(report.duplicates.filter { $0.reason.hasPrefix("a shorter copy") || $0.reason.hasPrefix("a damaged copy") }.map(\.file))
        if !replaced.isEmpty {
            report.imported = report.imported.filter { (try? store.listing(id: $0)) != nil }
        }
        report.sort()
        return report
    }

    /// Reads a candidate (an archive told only by its content, part by part) and stores its runs.
    private static func take(_ candidate: Candidate, into store: SessionStore, report: inout Report) {
        let bytes: [UInt8]
        do {
            bytes = try candidate.load()
        } catch let failure as LaunchError {
            report.unreadable.append(Skipped(file: candidate.name, reason: failure.message))
            if failure.kind == .io { report.notReadHere += 1 }
            return
        } catch let error as Zip.ArchiveError {
            report.unreadable.append(Skipped(file: candidate.name, reason: "a zip entry that cannot be read: \(error.message)"))
            return
        } catch {
            report.unreadable.append(Skipped(file: candidate.name, reason: "\(error)"))
            return
        }
        if Zip.isZip(bytes) {
            do {
                for entry in try Zip.entries(bytes) where !entry.isFolderOrMacResource {
                    take(
                        Candidate(name: "\(candidate.name) (\(entry.name))", load: { try Zip.contents(of: entry, in: bytes) }),
                        into: store, report: &report)
                }
            } catch {
                report.unreadable.append(Skipped(file: candidate.name, reason: "a zip file that cannot be read: \(error.message)"))
            }
            return
        }
        report.filesRead += 1
        add(bytes, file: candidate.name, named: candidate.activityName, to: store, report: &report)
    }

    /// Reads one file and stores it if it is a run not imported before, under `activityName`
    /// if it has one, else its own.
    private static func add(
        _ bytes: [UInt8], file: String, named activityName: String?, to store: SessionStore, report: inout Report
    ) {
        var content = bytes
        var name = file
        // Said as the file's other warnings are: of what it imported, or beside why it could not
        // be read; not of a run imported before (a second import of the same folder repeated
        // this warning alone of the file's).
        var inflationWarning: String?
        let imported = report.imported.count
        let unreadable = report.unreadable.count
        defer {
            if let inflationWarning, report.imported.count > imported || report.unreadable.count > unreadable {
                report.warnings.append(inflationWarning)
            }
        }
        if Gzip.isGzip(bytes) {
            do {
                let salvage = try Gzip.inflateSalvaging(bytes)
                content = salvage.content
                name = "\(file) (inflated)"
                if let damage = salvage.damage {
                    inflationWarning = "\(file): a gzip file that cannot be inflated whole: \(damage.message); read the \(content.count) bytes before it"
                }
            } catch {
                report.unreadable.append(Skipped(file: file, reason: "a gzip file that cannot be inflated: \(error.message)"))
                return
            }
        }
        guard holdsActivityOrRecording(content) else {
            // A file named as an activity that is none (cut to nothing, overwritten, a download
            // that failed) is named with what it holds, not counted among the photos.
            if let format = statedFormat(of: file) {
                let holds = ActivityImport.holdsNothing(content) ? "the file is empty" : ActivityImport.opening(content)
                report.unreadable.append(Skipped(file: file, reason: "named as a \(format) activity, but not one: \(holds)"))
                return
            }
            // An export that failed to download: not a file of photos to leave out.
            if file.lowercased().hasSuffix(".zip") {
                let holds = ActivityImport.holdsNothing(content) ? "the file is empty" : ActivityImport.opening(content)
                report.unreadable.append(Skipped(file: file, reason: "named as a zip archive, but not one: \(holds)"))
                return
            }
            // Another machine's store, given to be merged: "holds no activity" told nothing.
            if content.starts(with: Array("SQLite format 3\u{0}".utf8)) {
                let reason = "an SQLite database (an IntervalPro session store?), not an activity: stores are not merged; "
                    + "export its sessions (`intervalpro export ID --format jsonl --db \(file)`) and import those"
                report.unreadable.append(Skipped(file: file, reason: reason))
                return
            }
            report.otherFiles += 1
            if ActivityImport.encoding(of: content) == .rrIntervalText { report.rrIntervalFiles += 1 }
            return
        }
        let activity: ImportedActivity
        do {
            activity = try readRunToKeep(content, file: name, choice: ActivityChoice())
        } catch let problem as ImportError {
            switch problem.kind {
            case .notARun(let sport): report.notRuns.append(Skipped(file: file, reason: sport))
            case .notAnActivity: report.otherFiles += 1
            // The file is named beside the reason: the reason says where in it (it did not).
            case .invalid: report.unreadable.append(Skipped(file: file, reason: problem.placedMessage))
            }
            return
        } catch let problem as RecordingError {
            // Named once, as an activity's problem is: "in/r.jsonl: in/r.jsonl:102: …" was said.
            report.unreadable.append(Skipped(file: file, reason: "line \(problem.line): \(problem.message)"))
            return
        } catch {
            report.unreadable.append(Skipped(file: file, reason: "\(error)"))
            return
        }
        // A file of several runs (a GPX of two runs' tracks): each is a session of its own,
        // where the first alone was imported with "--leg N reads another", which import lacks.
        var activities = [activity]
        for leg in activity.otherRunLegs {
            do {
                activities.append(try readRunToKeep(content, file: name, choice: ActivityChoice(leg: leg)))
            } catch {
                report.unreadable.append(Skipped(file: "\(file) (leg \(leg))", reason: "\(error)"))
            }
        }
        // Legs of other sports beside the runs are counted as other sports' activities are.
        for other in activity.otherSportLegs {
            report.notRuns.append(Skipped(file: "\(file) (leg \(other.number))", reason: other.sport))
        }
        for one in activities {
            keep(one, file: file, named: activityName, in: store, report: &report)
        }
    }

    /// The activity as a session of its own: the plan it is kept with and the run scored.
    private static func imported(
        _ activity: ImportedActivity, named activityName: String?, file: String
    ) throws -> (plan: Plan, planText: String, run: ImportedRun) {
        // A session's export names the plan it ran: scored against it again, as in its store
        // (moved to another store, every session was an "Imported run" without its zones).
        let carried = activity.recording.header.planText.flatMap { text in
            (try? PlanDecoder.decode(Array(text.utf8), file: file)).map { (text, $0) }
        }
        let planText = carried?.0 ?? ImportedRun.planText(name: activityName ?? activity.name)
        let plan = try carried?.1 ?? PlanDecoder.decode(Array(planText.utf8), file: file)
        let run = ImportedRun(
            planName: plan.name, timeline: plan.timeline(), cadenceUnits: activity.recording.header.cadenceUnits,
            entries: activity.recording.entries, pauses: activity.pauses, finishedAt: activity.finishedAt)
        return (plan, planText, run)
    }

    /// Stores one activity read from `file`, unless it was imported before or holds no
    /// cadence or heart rate.
    private static func keep(
        _ activity: ImportedActivity, file: String, named activityName: String?, in store: SessionStore,
        report: inout Report, again: Bool = false
    ) {
        // Speed and distance alone (a phone's GPS) are no cadence or heart rate to keep.
        let units = activity.recording.header.cadenceUnits
        let hasReadings = activity.recording.entries.contains { entry in
            guard case .notification(let notification) = entry else { return false }
            return notification.characteristic == .heartRateMeasurement || units[notification.device] != CadenceUnit.none
        }
        guard hasReadings else {
            // Kept, it was a session of 0:00 with nothing in it.
            report.withoutReadings.append(Skipped(file: file, reason: "neither cadence nor heart rate"))
            return
        }
        // A run is kept second by second: a recording whose readings are a day or more apart
        // (three lines weeks apart) took 1.9 GB to import and 268 MB to keep. `replay` reads it.
        if let gap = activity.recording.firstGap(atLeast: .seconds(86_400), finishedAt: activity.finishedAt) {
            report.unreadable.append(
                Skipped(
                    file: file,
                    reason: "readings a day or more apart (\(formatClock(gap.0.seconds)) to \(formatClock(gap.1.seconds))): "
                        + "not one run to keep (`intervalpro replay` reads it)"))
            return
        }
        let header = activity.recording.header
        guard let written = header.startedAt else {
            report.unreadable.append(Skipped(file: file, reason: "no start time: the recording's header has no started_at"))
            return
        }
        // The store keeps UTC to the second, which history, trends and the exports read: a
        // "07:30:00.250Z" or "08:30:00+01:00" kept as written was left out of trends.
        guard let start = RecordingStart(written) else {
            report.unreadable.append(
                Skipped(file: file, reason: "started_at \"\(written)\" is not a time (like 2026-03-01T07:30:00Z)"))
            return
        }
        let startedAt = start.utcText
        if start.namedNoZone { report.warnings.append("\(file): started_at \"\(written)\" names no time zone: read as local time, \(startedAt)") }
        var origin = ActivityOrigin(
            startedAt: startedAt, device: device(of: activity), file: file, damaged: activity.isDamaged,
            alsoKeptAs: tcxCopyKey(of: activity))
        do {
            if activity.format == .recording { origin.device = try recordingKey(origin, of: activity, in: store) }
            // A session exported from here (uploaded, then downloaded in a service's bulk export)
            // came back as a second copy of itself, counted twice in trends. A recording is
            // IntervalPro's own format: one that began when a session here did is that session's
            // (`export --format jsonl`, `run --record`), unless it is the one imported as it.
            // Its start and its length say which: runs replayed from a script begin in one second.
            let ours = try activity.exportedByIntervalPro
                || (activity.format == .recording && store.importedSession(startedAt: startedAt, device: origin.device) == nil)
            let scored = ours ? try imported(activity, named: activityName, file: file) : nil
            if let scored, let session = try store.session(startedAt: startedAt, lasting: scored.run.summary.duration.seconds, pauses: scored.run.pauses) {
                // In another store, the run's other file (its FIT beside its TCX) imported before; or
                // this very file again (it was "the same run as" itself, "a copy another file holds").
                let reason = try store.importedFile(session: session).map { earlier in
                    earlier == file ? "imported before as session \(session)"
                        : "the same run as \(earlier), imported \(session >= report.newSessionsFrom ? "as" : "before as") session \(session)"
                }
                report.duplicates.append(Skipped(file: file, reason: reason ?? "exported from session \(session)"))
                return
            }
            if let existing = try store.importedSession(startedAt: startedAt, device: origin.device)
                ?? origin.alsoKeptAs.flatMap({ key throws(StoreError) in try store.importedSession(startedAt: startedAt, keptAs: key) })
            {
                // Another worker stored another run of this second and these sensors since its key was chosen.
                if activity.format == .recording, !again, try isAnotherRun(activity, than: existing, in: store) {
                    keep(activity, file: file, named: activityName, in: store, report: &report, again: true)
                    return
                }
                // A copy cut short (a watch file damaged, a recording taken while it was still
                // being written) was kept in silence, and the whole run skipped for good.
                let elapsed = activity.recording.entries.last?.time.seconds ?? 0
                // The session keeps the timer's time, pauses left out: the file's is compared, as
                // it would be kept (its whole span said every paused run was cut short).
                let kept = try store.listing(id: existing)?.duration
                // A damaged copy is no longer for what its garbled timestamps span (one 48
                // minutes past the end replaced the intact file); an intact one replaces it.
                let replacesDamaged = try !activity.isDamaged && store.importedFromDamagedFile(session: existing)
                let longer = activity.isDamaged ? nil : try kept.flatMap { kept -> Double? in
                    guard elapsed > kept + 1 else { return nil }
                    let length = try imported(activity, named: activityName, file: file).run.summary.duration.seconds
                    return length > kept + 1 ? length : nil
                }
                // Both copies in this import: the longer is kept. The cut one, read first, was
                // kept and the advice (delete it, import again) kept it again.
                // A session stored from this very file is no copy within this import: another
                // import of the same folder at once stored it ("the same run as" the file itself).
                let earlierFile = existing >= report.newSessionsFrom
                    ? try store.importedFile(session: existing).flatMap { $0 == file ? nil : $0 } : nil
                if let earlierFile, longer != nil || replacesDamaged, try store.delete(id: existing) == .deleted {
                    let copy = replacesDamaged ? "a damaged copy" : "a shorter copy"
                    report.duplicates.append(Skipped(file: earlierFile, reason: "\(copy) of the run in \(file), imported in its place"))
                    keep(activity, file: file, named: activityName, in: store, report: &report)
                    return
                }
                report.duplicates.append(
                    Skipped(
                        file: file,
                        reason: earlierFile.map { "the same run as \($0), imported as session \(existing)" }
                            ?? "imported before as session \(existing)"))
                if let kept, let length = longer {
                    report.longerThanKept.append(
                        Skipped(
                            file: file,
                            reason: "session \(existing) is \(formatClock(kept)), this file \(formatClock(length)): `intervalpro delete \(existing)` and import again to keep it"))
                } else if replacesDamaged {
                    report.longerThanKept.append(
                        Skipped(
                            file: file,
                            reason: "session \(existing) was read from a damaged file, this one is intact: `intervalpro delete \(existing)` and import again to keep it"))
                }
                return
            }
            let (plan, planText, run) = try scored ?? imported(activity, named: activityName, file: file)
            guard
                let id = try store.saveImported(
                    run, origin: origin, planName: plan.name, planText: planText, devices: header.devices,
                    entries: activity.recording.entries, exportedHere: ours)
            else {
                // Another worker stored a copy of this run meanwhile: taken as one found before,
                // so that the longer of the two is kept whichever was read first.
                if !again {
                    keep(activity, file: file, named: activityName, in: store, report: &report, again: true)
                    return
                }
                report.duplicates.append(Skipped(file: file, reason: "the same activity as another file of this import"))
                return
            }
            report.imported.append(id)
            // Every run of the file is imported and the other legs counted: which leg was read
            // is no news here, and its "--leg N" no advice.
            report.warnings += activity.warnings.filter { $0 != activity.legsWarning }.map(\.description)
        } catch let error as StoreError where error.isWriteRefused || error.isNotAStore {
            // Not the file's fault: said once, as what stopped the import.
            report.storeFailure = error.description
        } catch let error as StoreError {
            report.unreadable.append(Skipped(file: file, reason: error.description))
        } catch {
            report.unreadable.append(Skipped(file: file, reason: "\(error)"))
        }
    }

    /// The activity format a file's name gives (`run.fit`, `1234.tcx.gz`, a zip's part
    /// `export.zip (activities/1.gpx)`), if any.
    static func statedFormat(of file: String) -> String? {
        var name = file.lowercased()
        if name.hasSuffix(")"), let open = name.lastIndex(of: "(") {
            name = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
        }
        if name.hasSuffix(".gz") { name.removeLast(3) }
        for (suffix, format) in [(".fit", "FIT"), (".tcx", "TCX"), (".gpx", "GPX")] where name.hasSuffix(suffix) { return format }
        return nil
    }

    /// The key a recording is kept under: its devices', unless a session imported under it is
    /// another run. A recording says no more than its start and its devices, and runs replayed
    /// or simulated from a script begin in one second with the same devices: the second of two
    /// such runs was taken for a copy of the first, and only the longer kept. A copy is one whose
    /// notifications begin the other's (cut short, or whole); another run is kept as "#2", "#3".
    private static func recordingKey(_ origin: ActivityOrigin, of activity: ImportedActivity, in store: SessionStore) throws -> String {
        for number in 1... {
            let key = number == 1 ? origin.device : "\(origin.device) #\(number)"
            guard let session = try store.importedSession(startedAt: origin.startedAt, device: key),
                try isAnotherRun(activity, than: session, in: store)
            else { return key }
        }
        return origin.device
    }

    /// The other key a copy of a TCX run may have been kept under: a TCX says what recorded it
    /// (`<Creator>`) after its laps, so a copy cut off before that names none, and was kept beside
    /// the whole file as another run. Cut so, it is a copy of a TCX of its start that names one
    /// ("tcx NAME/UNIT", `readTCX`); whole, of a damaged one of its start that names none ("tcx").
    private static func tcxCopyKey(of activity: ImportedActivity) -> ActivityOrigin.CopyKey? {
        guard activity.format == .tcx else { return nil }
        guard activity.creator != nil else { return activity.isDamaged ? .deviceStartingWith("tcx ") : nil }
        return .damaged(device: "tcx")
    }

    /// Whether a recording's notifications and a stored session's part ways: neither begins
    /// the other.
    private static func isAnotherRun(_ activity: ImportedActivity, than session: Int64, in store: SessionStore) throws -> Bool {
        guard let stored = try store.session(id: session, loading: .entries) else { return false }
        func notifications(_ entries: [RecordingEntry]) -> [RecordingEntry] {
            entries.filter { if case .notification = $0 { true } else { false } }
        }
        let kept = notifications(stored.entries), read = notifications(activity.recording.entries)
        let shared = min(kept.count, read.count)
        return kept.prefix(shared) != read.prefix(shared)
    }

    /// What recorded the activity, as the key of duplicates: the file's own word, or its format.
    static func device(of activity: ImportedActivity) -> String {
        if let creator = activity.creator { return creator }
        switch activity.format {
        case .fit: return "fit"
        case .tcx: return "tcx"
        case .gpx: return "gpx"
        case .rrIntervals: return "rr-intervals"
        case .recording: return "recording " + activity.recording.header.devices.map(\.id).joined(separator: ",")
        }
    }
}
