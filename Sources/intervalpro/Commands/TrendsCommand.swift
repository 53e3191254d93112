import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct TrendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "In-zone % and average work cadence per session over the last weeks, and morning readiness, as charts.",
        discussion: """
            With --json: each session's figures, weekly means, the work cadence trend in spm per week, and \
            each day's readiness (ln rMSSD, its 7-day baseline and the normal range).
            """
    )

    @Option(help: "How many weeks back to look.")
    var weeks: Int = 12

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

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

    func validate() throws {
        guard (1...520).contains(weeks) else { throw ValidationError("--weeks must be between 1 and 520") }
    }

    func run() async throws {
        try await reportingFailures {
            let store = try store.open(readingOnly: true)
            let now = UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0
            let since = UTCTimestamp.text(unixSeconds: now - Int64(weeks) * 7 * 86_400)
            let listings = try storeCall { () throws(StoreError) in try store.listings(since: since) }
            let trends = Trends(listings: listings, weeks: weeks, now: now)
            // Morning readiness over the same weeks, as many days as the terminal shows.
            let today = WallClock.localDateToday()
            let days = json ? weeks * 7 : min(weeks * 7, max(14, Terminal.columns - 8))
            let first = String(UTCTimestamp.text(unixSeconds: now - Int64(days + 60) * 86_400).prefix(10))
            let measurements = try storeCall { () throws(StoreError) in try store.readinessRecords(since: first) }
                .map { ReadinessBaseline.Measurement(date: $0.localDate, lnRMSSD: $0.figures.hrv.lnRMSSD) }
            let readiness = ReadinessTrend(measurements, days: days, endingOn: today)
            if json {
                guard case .object(var members) = trends.json else { return }
                members.append(("readiness", Self.json(readiness)))
                print(JSONValue.object(members).serialized(pretty: true))
            } else {
                print(trends.chart(width: max(20, Terminal.columns - 8)).joined(separator: "\n"))
                if !readiness.isEmpty {
                    print("\nReadiness: ln rMSSD each morning (●), its 7-day baseline (─) and your normal range (░)")
                    print(readiness.chart().joined(separator: "\n"))
                }
            }
        }
    }
}
