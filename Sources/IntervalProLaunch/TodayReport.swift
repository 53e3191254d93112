public import IntervalProCore
import IntervalProFormats
import IntervalProHRV
public import IntervalProNetwork
public import IntervalProServices
import IntervalProStorage

/// A day's planned runs from the intervals.icu calendar, with the morning's readiness and the
/// day's wellness beside them, as `today` reports them (text and JSON).
public struct TodayReport: Sendable {
    public var day: String
    public var isToday: Bool
    public var runs: [PlannedRun]
    public var readiness: ReadinessToday?
    /// Without a measurement in the 60 days the verdict reads, the latest one's local date: a
    /// measurement of 61 days ago was "No readiness measured yet".
    public var lastMeasured: String?
    public var wellness: Wellness?
    /// Whether an intervals.icu account gives a calendar to read.
    public var hasCalendar = true
    /// Why the calendar could not be read (unreachable, a key refused): the morning's readiness
    /// is still shown, and the command then fails with this.
    public var calendarFailure: LaunchError?

    /// The runs planned on `date` (nil: today). Without an intervals.icu account there is no
    /// calendar, but the morning's readiness is still the day's news (it was exit 77 and
    /// nothing else, for a runner who measures mornings and plans elsewhere).
    /// `store`: where the readiness measurements are kept.
    public static func read(date: String?, context: ServiceContext, store: StoreLocation = StoreLocation()) async throws -> TodayReport {
        let today = ServiceContext.localDate(secondsSince1970: context.now())
        let day = date ?? today
        let readiness = try ReadinessToday.reading(store, today: day)
        var report = try await TodayReport.assemble(date: date, today: today, day: day, readiness: readiness, context: context)
        if readiness == nil { report.lastMeasured = try ReadinessToday.lastMeasured(store, upTo: day) }
        return report
    }

    private static func assemble(
        date: String?, today: String, day: String, readiness: ReadinessToday?, context: ServiceContext
    ) async throws -> TodayReport {
        guard context.accounts.intervalsICU != nil else {
            return TodayReport(day: day, isToday: day == today, runs: [], readiness: readiness, wellness: nil, hasCalendar: false)
        }
        let runs: [PlannedRun]
        do {
            runs = try await PlannedRuns.readable(on: day, context: context)
        } catch let failure as LaunchError {
            // Offline by the bed, the readiness measured there is still the morning's news.
            var report = TodayReport(day: day, isToday: day == today, runs: [], readiness: readiness, wellness: nil)
            report.calendarFailure = failure
            return report
        }
        // The day's wellness as a watch, ring or app gave it to intervals.icu, beside the strap's.
        let wellness = await ReadinessReport.wellness(on: day, context: context)
        return TodayReport(day: day, isToday: day == today, runs: runs, readiness: readiness, wellness: wellness)
    }

    public var json: JSONValue {
        let list = runs.map { run in
            var members: [(String, JSONValue)] = [
                ("id", .string(run.workout.id)), ("reference", .string(run.workout.reference)),
                ("date", .string(run.workout.date)), ("name", .string(run.workout.name)), ("type", .string(run.workout.type)),
            ]
            if run.plan != nil {
                members.append(("steps", .number(Double(run.timeline.count))))
                members.append(("duration_s", run.timeline.duration.map { .number($0.seconds) } ?? .null))
            }
            members.append(("problem", run.problem.map(JSONValue.string) ?? .null))
            return JSONValue.object(members)
        }
        return .object([
            ("date", .string(day)), ("runs", .array(list)), ("readiness", readiness.map(ReadinessJSON.today) ?? .null),
            ("readiness_last_measured", lastMeasured.map(JSONValue.string) ?? .null),
            ("intervals_icu_wellness", ReadinessReport.json(wellness)), ("calendar", .bool(hasCalendar)),
            ("calendar_error", calendarFailure.map { .string($0.message) } ?? .null),
        ])
    }

    /// The event names are the calendar's, which a coach may write: shown, never obeyed.
    public var lines: [String] { unfiltered.map(\.printable) }

    private var unfiltered: [String] {
        var lines: [String] = []
        if let readiness { lines.append(readiness.line) }
        if let other = ReadinessReport.text(wellness) { lines.append("intervals.icu wellness (a watch, ring or app): \(other)") }
        guard hasCalendar else {
            if readiness == nil {
                let when = lastMeasured.map { "No readiness measured in the last \(ReadinessBaseline.normalRangeDays) days (last: \($0))" }
                lines.append("\(when ?? "No readiness measured yet"): `intervalpro readiness` measures a morning.")
            }
            return lines + [
                "No planned runs: no intervals.icu account gives a calendar "
                    + "(`intervalpro account add intervals.icu --athlete ID --api-key KEY` connects one).",
            ]
        }
        // The failure itself is said by whoever reports it (the command line on stderr, with its status).
        if calendarFailure != nil { return lines }
        guard !runs.isEmpty else { return lines + ["No run planned in intervals.icu for \(day)."] }
        lines.append("Planned in intervals.icu for \(day):")
        for run in runs {
            var line = "  \(run.workout.reference)  \(run.workout.name)"
            if run.plan != nil {
                let count = run.timeline.count
                line += "  (\(count) step\(count == 1 ? "" : "s")"
                if let length = run.timeline.duration { line += ", \(formatClock(length.seconds))" }
                line += ")"
            }
            lines.append(line)
            if let problem = run.problem { lines.append("      cannot run it: \(problem)") }
        }
        // None runnable (each said "cannot run it"): no command to offer.
        let runnable = runs.filter { $0.plan != nil }
        if runs.count == 1, runs[0].plan != nil {
            lines.append("Run it with: intervalpro run \(isToday ? "today" : runs[0].workout.reference)")
        } else if !runnable.isEmpty {
            lines.append("Run one with: intervalpro run icu:ID")
        }
        return lines
    }
}
