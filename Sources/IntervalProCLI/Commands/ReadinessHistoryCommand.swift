import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProIO
import IntervalProLaunch
import IntervalProStorage

struct ReadinessHistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List readiness measurements, oldest first, with today's verdict."
    )

    @Option(parsing: .unconditional, help: "Show at most this many measurements (the latest).")
    var limit: Int = 30

    // A bare list since version 1: today's verdict is in `today --json` (readiness.assessment).
    @Flag(help: "Print the measurements as a JSON list (today's verdict as JSON: `today --json`).")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try reportingFailures {
            let opened = try store.open(readingOnly: true)
            let records = try storeCall { () throws(StoreError) in try opened.readinessRecords(limit: limit) }
            if json {
                print(ReadinessJSON.history(records).serialized(pretty: true))
                return
            }
            guard !records.isEmpty else {
                print("No readiness measurements saved yet. `intervalpro readiness` takes one.")
                return
            }
            print(HistoryReport.readiness(records).joined(separator: "\n"))
            // More than --limit were left out without a word, as `history` once did.
            let total = try storeCall { () throws(StoreError) in try opened.readinessCount() }
            if total > records.count { print("The latest \(records.count) of \(total) measurements: --limit \(total) lists them all.") }
            // Today's verdict, from the week's measurements whether or not today was measured (it
            // was the latest measurement's, its advice for a day long past).
            let today = WallClock.localDateToday()
            if let judged = ReadinessToday.read(store.location, today: today) {
                let last = judged.measuredToday ? "" : " (last measured \(judged.latest.localDate))"
                print("Today, \(today)\(last): \(judged.assessment.summary); \(judged.assessment.advice)")
            } else {
                // Listed above, the simulator's mornings are no runner's (a tour's replay).
                let simulated = records.contains { $0.replaysTheSimulator } ? " (the simulator's are kept out)" : ""
                print("Today, \(today): no measurement in the last \(ReadinessBaseline.normalRangeDays) days\(simulated), no verdict.")
            }
        }
    }
}
