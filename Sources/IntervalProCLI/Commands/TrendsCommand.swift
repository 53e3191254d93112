import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct TrendsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trends",
        abstract: "In-zone % and average work cadence per session over the last weeks, and morning readiness, as charts.",
        discussion: """
            With --json: each session's figures, weekly means, the work cadence trend in spm per week, and \
            each day's readiness (ln rMSSD, its 7-day baseline and the normal range).
            """
    )

    @Option(parsing: .unconditional, help: "How many weeks back to look.")
    var weeks: Int = 12

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard (1...520).contains(weeks) else { throw ValidationError("--weeks must be between 1 and 520") }
    }

    func run() throws {
        try reportingFailures {
            let store = try store.open(readingOnly: true)
            // Morning readiness over the same weeks, as many days as the terminal shows.
            let days = json ? weeks * 7 : min(weeks * 7, max(10, Terminal.columns - 8))
            let report = try storeCall { () throws(StoreError) in try TrendsReport(store: store, weeks: weeks, days: days) }
            let (trends, readiness) = (report.trends, report.readiness)
            if json {
                print(report.json.serialized(pretty: true))
            } else {
                print(trends.chart(width: max(10, Terminal.columns - 8)).joined(separator: "\n"))
                if !readiness.isEmpty {
                    print("\nReadiness: ln rMSSD each morning (●), its 7-day baseline (─) and your normal range (░)")
                    print(readiness.chart().joined(separator: "\n"))
                    // Narrower than the weeks asked, the older mornings were left out without a word.
                    if days < weeks * 7 {
                        print("The last \(days) of \(weeks * 7) days: a wider terminal (or COLUMNS) shows more, and `--json` lists them all.")
                    }
                }
            }
        }
    }
}
