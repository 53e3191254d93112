import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct TrendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "In-zone % and average work cadence per session over the last weeks, as a chart.",
        discussion: "With --json: each session's figures, weekly means and the work cadence trend in spm per week."
    )

    @Option(help: "How many weeks back to look.")
    var weeks: Int = 12

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

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
            if json {
                print(trends.json.serialized(pretty: true))
            } else {
                print(trends.chart(width: max(20, Terminal.columns - 8)).joined(separator: "\n"))
            }
        }
    }
}
