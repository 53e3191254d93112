import ArgumentParser
import IntervalProCore
import IntervalProLaunch

struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "List today's planned runs from the intervals.icu calendar.",
        discussion: "Run one with `intervalpro run icu:ID`, or `intervalpro run today` when there is one."
    )

    @Option(help: ArgumentHelp("Another day (YYYY-MM-DD).", valueName: "date"))
    var date: String?

    @Flag(help: "Print the list as JSON.")
    var json = false

    @OptionGroup var options: ServiceOptions

    // The readiness said beside the runs is read from the store `readiness --db` kept it in.
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let date, UTCTimestamp.dayNumber(ofDate: date) == nil {
            throw ValidationError("--date must be a day written YYYY-MM-DD, like 2026-11-24")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let report = try await TodayReport.read(date: date, context: try options.context(), store: store.location)
            let text = json ? report.json.serialized(pretty: true) : report.lines.joined(separator: "\n")
            if !text.isEmpty { print(text) }
            if let failure = report.calendarFailure { throw failure }
        }
    }
}
