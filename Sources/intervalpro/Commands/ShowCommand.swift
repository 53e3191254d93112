import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a saved session: its steps as scored.",
        discussion: "With --json: the JSON summary (version 1) with session_id, started_at, status and devices added."
    )

    @Argument(help: "The session id (see `intervalpro history`), or `last`.")
    var session: SessionReference

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "With --json, add the 1 Hz samples (cadence, heart rate, speed, distance, zone).")
    var samples = false

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingFailures {
            let session = try session.resolve(in: try store.open(readingOnly: true), loading: json && samples ? .samples : [])
            if json {
                var value = session.json
                if samples, case .object(let members) = value {
                    value = .object(members + [("samples", .array(session.samples.map(\.json)))])
                }
                print(value.serialized(pretty: true))
                return
            }
            let listing = session.listing
            print("Session \(listing.id), \(HistoryCommand.displayDate(listing.startedAt)) UTC, \(listing.status.rawValue)")
            guard let summary = session.summary else {
                print("still running: no scored steps yet")
                return
            }
            print(SummaryReport.text(summary, colour: Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal)))
        }
    }
}
