public import IntervalProCore
public import IntervalProHistory
public import IntervalProHRV
import IntervalProIO
public import IntervalProStorage

/// In-zone % and work cadence per session over the last weeks, with morning readiness over the
/// same days: what `trends` prints and the page's history charts, read once from the store.
public struct TrendsReport: Sendable {
    public let trends: Trends
    public let readiness: ReadinessTrend

    /// - Parameters:
    ///   - days: how many days of readiness (the terminal shows as many as it has columns).
    public init(store: SessionStore, weeks: Int, days: Int? = nil) throws(StoreError) {
        let now = UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0
        let since = UTCTimestamp.text(unixSeconds: now - Int64(weeks) * 7 * 86_400)
        trends = Trends(
            listings: try store.listings(since: since), weeks: weeks, now: now, utcOffset: WallClock.utcOffset(at:))
        let today = WallClock.localDateToday()
        let days = days ?? weeks * 7
        let first = String(UTCTimestamp.text(unixSeconds: now - Int64(days + 60) * 86_400).prefix(10))
        let measurements = try store.readinessRecords(since: first)
            .map(\.baselineMeasurement)
        readiness = ReadinessTrend(measurements, days: days, endingOn: today)
    }

    /// `trends --json` and `GET /api/trends`: each session's figures, weekly means, the work
    /// cadence trend, and each day's readiness.
    public var json: JSONValue {
        guard case .object(var members) = trends.json else { return trends.json }
        members.append(("readiness", Self.json(readiness)))
        return .object(members)
    }

    static func json(_ trend: ReadinessTrend) -> JSONValue {
        func value(_ x: Double?) -> JSONValue { .nullable(x?.rounded(toPlaces: 4)) }
        return .array(
            trend.days.filter { $0.value != nil || $0.baseline != nil }.map { day in
                .object([
                    ("date", .string(day.date)), ("ln_rmssd", value(day.value)), ("baseline_ln_rmssd", value(day.baseline)),
                    ("normal_low", value(day.normalLow)), ("normal_high", value(day.normalHigh)),
                ])
            })
    }
}
