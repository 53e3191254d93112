public import IntervalProCore
import IntervalProHRV
import IntervalProIO
public import IntervalProHistory
public import IntervalProStorage

/// The history as `history`, `show` and `readiness history` print it.
public enum HistoryReport {
    /// `history`: a row per session, newest first, dated on the runner's clock as `trends`,
    /// `report` and the page date it (in UTC, a Berlin runner's Friday 00:30 run was Thursday's
    /// here and Friday's there).
    /// - Parameter width: the terminal's, which long plan names are cut to fit; nil for a pipe.
    public static func sessions(_ listings: [SessionListing], width: Int? = nil) -> [String] {
        let rows = listings.map { s -> [String] in
            [
                "\(s.id)", WallClock.localDateTime(of: s.startedAt) ?? formatMinute(s.startedAt), s.planName, s.sourceText, s.duration.map(formatClock) ?? "-",
                s.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "-", formatFigure(s.averageWorkCadence),
                formatFigure(s.averageHeartRate), s.statusText,
            ]
        }
        // On a narrow terminal the plan's name matters most: a figure no row has (in zone, of
        // imported runs) is left out first, then the source.
        let empty = [5, 6, 7].filter { column in rows.allSatisfy { $0[column] == "-" } }
        let (table, leftOut) = TextTable.fitted(
            header: ["id", "date", "plan", "source", "time", "in zone", "work spm", "HR", "status"], rows: rows,
            rightAligned: [0, 4, 5, 6, 7], fitting: width, shrinking: 2, dropping: empty + [3])
        // Each label shown: an imported one was explained as "replay (simulator)".
        let labels = Set(listings.filter(\.replaysTheSimulator).map(\.sourceText)).sorted()
        guard !labels.isEmpty, !leftOut.contains(3) else { return table }
        return table + [
            labels.joined(separator: ", ")
                + ": a recording of the simulated runner (a bundled one, or a `run --simulate --record`), left out of trends and uploads."
        ]
    }

    /// `readiness history`: a row per measurement.
    public static func readiness(_ records: [ReadinessRecord]) -> [String] {
        let rows = records.map { r -> [String] in
            let f = r.figures
            return [
                "\(r.id ?? 0)", r.localDate, r.localTime.map { String($0.prefix(5)) } ?? "--:--",
                formatFixed(f.hrv.rmssd, 1), formatFixed(f.hrv.lnRMSSD, 2),
                formatFigure(f.hrv.meanHeartRate), "\(f.beatsReceived)", "\(f.artifactsCorrected)", r.source.rawValue,
            ]
        }
        let table = TextTable.render(
            header: ["id", "date", "time", "rMSSD", "ln", "HR", "beats", "fixed", "source"], rows: rows,
            rightAligned: [0, 3, 4, 5, 6, 7])
        var notes: [String] = []
        let leftOut = records.compactMap { r in r.leftOutOfBaseline.map { "\(r.id ?? 0) (\($0.brief))" } }
        if !leftOut.isEmpty {
            notes.append("Left out of the baseline and the normal range, saved before such mornings were refused: \(leftOut.joined(separator: ", ")).")
        }
        let simulated = records.filter { $0.leftOutOfBaseline == nil && $0.replaysTheSimulator }
        if !simulated.isEmpty {
            notes.append(
                "Left out of the baseline and the normal range, \(ReadinessReport.simulatorsStrap): \(simulated.map { "\($0.id ?? 0)" }.joined(separator: ", ")).")
        }
        let daysValues = ReadinessRecord.daysValues(among: records)
        let notDaysValues = records.filter { $0.countsInBaseline && !($0.id.map(daysValues.contains) ?? false) }
        if !notDaysValues.isEmpty {
            notes.append(
                "Kept, not their day's value (a day's value is its last before noon, or its last when none was): \(notDaysValues.map { "\($0.id ?? 0)" }.joined(separator: ", ")).")
        }
        return table + notes
    }

    /// `show`: the session's heading, its summary (or that it still runs) and its uploads;
    /// the summary's table fits `width`, the terminal's.
    public static func session(_ session: StoredSession, uploads: [UploadRecord], colour: Bool, width: Int? = nil) -> [String] {
        let listing = session.listing
        let utc = formatMinute(listing.startedAt) + " UTC"
        let when = WallClock.localDateTime(of: listing.startedAt).map { "\($0) (\(utc))" } ?? utc
        var lines = SummaryReport.wrapped("Session \(listing.id), \(when), \(listing.status.rawValue)", width: width)
        guard let summary = session.summary else { return lines + ["still running: no scored steps yet"] }
        lines.append(SummaryReport.text(summary, colour: colour, interrupted: listing.status == .interrupted, width: width))
        for upload in uploads {
            let state =
                switch upload.status {
                case .done: upload.activityURL ?? upload.activityID ?? "done"
                case .pending: "queued (\(upload.lastError ?? "not sent yet")); `intervalpro upload --pending` retries"
                case .processing: "still processing; `intervalpro upload --pending` asks again"
                case .rejected: "refused: \(upload.lastError ?? "")"
                }
            lines.append("\(upload.service): \(state)")
        }
        return lines
    }

    /// An upload of a session as `show --json` lists it.
    public static func json(_ upload: UploadRecord) -> JSONValue {
        .object([
            ("service", .string(upload.service)), ("status", .string(upload.status.rawValue)),
            ("activity_id", upload.activityID.map(JSONValue.string) ?? .null),
            ("url", upload.activityURL.map(JSONValue.string) ?? .null),
            ("attempts", .number(Double(upload.attempts))), ("error", upload.lastError.map(JSONValue.string) ?? .null),
            ("updated_at", .string(upload.updatedAt)),
        ])
    }
}
