public import IntervalProHRV
public import IntervalProStorage
import IntervalProCore
import IntervalProIO

/// Today's readiness for the commands that start or list today's run (`run`, `today`) and, later,
/// the web page: the latest measurement, the verdict of the day and its advice.
public struct ReadinessToday: Sendable {
    /// The value of the latest day measured in the 60-day window: its morning's, not an
    /// evening's after it ("Readiness today" gave the evening's 24.1 ms where the day's
    /// value, and the verdict, were the morning's 68.1).
    public var latest: ReadinessRecord
    /// Judged as of today.
    public var assessment: ReadinessAssessment
    public var today: String

    public var measuredToday: Bool { latest.localDate == today }

    /// What to make of readiness for today's run, when there is something to say: today's
    /// verdict and advice once measured; and without today's measurement, a week whose 7-day
    /// baseline is below the normal range, which the method judges on the mornings measured
    /// (three a week), not on today's alone. Nil otherwise: measure first.
    public var adviceToday: String? {
        if measuredToday { return assessment.advice }
        guard assessment.verdict == .below else { return nil }
        return "\(judged): \(assessment.advice)"
    }

    /// The verdict said of what it judges, the 7-day baseline: "rMSSD 32.3 ms (ln 3.48), within
    /// your normal range" was read as today's value, on the morning it fell well below.
    private var judged: String {
        switch assessment.verdict {
        case .within, .below, .above: "your 7-day baseline is \(assessment.summary)"
        case .building, .fewThisWeek: assessment.summary
        }
    }

    /// Nil when no store exists yet or it holds no measurement in the last 60 days. Reading the
    /// store never stops a run: a store that cannot be read gives nil.
    public static func read(_ location: StoreLocation, today: String) -> ReadinessToday? {
        guard let since = ReadinessBaseline.windowStart(today: today) else { return nil }
        return judged(stored(in: location, since: since), today: today)
    }

    /// As `read`, for a command whose answer is the readiness (`today`): a store that is there
    /// and cannot be read is said, as `history` says it ("No readiness measured yet" and exit 0
    /// were printed of a --db that is no store).
    public static func reading(_ location: StoreLocation, today: String) throws -> ReadinessToday? {
        guard let since = ReadinessBaseline.windowStart(today: today) else { return nil }
        let store = try location.open(readingOnly: true)
        return judged(try storeCall { () throws(StoreError) in try store.readinessRecords(since: since) }, today: today)
    }

    /// The local date of the runner's latest measurement up to `day`, whenever it was; nil for
    /// none. Not the simulator's: after the tour's replay, `today` said "No readiness measured
    /// in the last 60 days (last: today)".
    public static func lastMeasured(_ location: StoreLocation, upTo day: String) throws -> String? {
        let store = try location.open(readingOnly: true)
        return try storeCall { () throws(StoreError) in try store.readinessRecords(since: "0000-01-01") }
            .last { $0.localDate <= day && !$0.replaysTheSimulator }?.localDate
    }

    /// The simulator's mornings are no runner's: `today` and the word before a run showed one
    /// as the latest measurement.
    private static func judged(_ stored: [ReadinessRecord], today: String) -> ReadinessToday? {
        let records = stored.filter { $0.localDate <= today && !$0.replaysTheSimulator }
        guard let last = records.last else { return nil }
        let latest =
            ReadinessRecord.dayValue(of: records.filter { $0.localDate == last.localDate }) ?? last
        let assessment = ReadinessBaseline.assess(
            records.map(\.baselineMeasurement), today: today)
        return ReadinessToday(latest: latest, assessment: assessment, today: today)
    }

    /// The stored measurements since a local date, when a store exists and can be read (else
    /// none): a measurement or a run is judged against them, never stopped for the store's sake.
    public static func stored(in location: StoreLocation, since date: String) -> [ReadinessRecord] {
        guard let path = try? location.databasePath(), BundledFiles.exists(path),
            let store = try? SessionStore(readingOnly: path)
        else { return [] }
        return (try? store.readinessRecords(since: date)) ?? []
    }

    /// The readiness chart's `days` up to the local date of `startedAt` (a session's UTC
    /// start), judged day by day from the store; nil when none of them was measured.
    public static func trend(_ location: StoreLocation, before startedAt: String, days: Int = 42) -> ReadinessTrend? {
        guard let seconds = UTCTimestamp.unixSeconds(startedAt) else { return nil }
        let last = WallClock.localDate(unixSeconds: seconds)
        guard let lastDay = UTCTimestamp.dayNumber(ofDate: last) else { return nil }
        let first = String(UTCTimestamp.text(unixSeconds: (lastDay - Int64(days + ReadinessBaseline.normalRangeDays)) * 86_400).prefix(10))
        // Before the run: a morning measured after a run past midnight is not charted under it.
        let measurements = stored(in: location, since: first)
            .filter { $0.localDate < last || ($0.localDate == last && $0.takenAt <= startedAt) }
            .map(\.baselineMeasurement)
        let trend = ReadinessTrend(measurements, days: days, endingOn: last)
        return trend.isEmpty ? nil : trend
    }

    /// One line: today's figures, the verdict and the advice; or when it was last measured.
    public var line: String {
        let hrv = latest.figures.hrv
        let figures = "rMSSD \(formatFixed(hrv.rmssd, 1)) ms (ln \(formatFixed(hrv.lnRMSSD, 2)))"
        guard measuredToday else {
            let advice = adviceToday.map { "; \($0)" } ?? ""
            return "Readiness: last measured \(latest.localDate), \(figures)\(advice); measure this morning with `intervalpro readiness`"
        }
        return "Readiness today: \(figures); \(judged): \(assessment.advice)"
    }
}
