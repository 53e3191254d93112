import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Saved sessions: list them, or import the runs a watch recorded.",
        usage: "intervalpro history [list] [<options>]\nintervalpro history import <path> ... [<options>]",
        discussion: "Without a subcommand it lists: its options (--limit, --json, --db, ...) are list's, in 'intervalpro help history list'.",
        subcommands: [HistoryListCommand.self, HistoryImportCommand.self],
        defaultSubcommand: HistoryListCommand.self
    )
}

struct HistoryListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List saved sessions, newest first (by start time).",
        discussion: """
            Status is finished, interrupted (the process died; scored up to the last second saved) or running. \
            Source is live, replay, simulation, or imported (`history import`).
            """
    )

    @Option(parsing: .unconditional, help: "Show at most this many sessions.")
    var limit: Int = 20

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        try reportingFailures {
            let store = try store.open(readingOnly: true)
            let listings = try storeCall { () throws(StoreError) in try store.listings(limit: limit) }
            // How many there are in all, as the page's list says: a script taking its ids from
            // the first 20 lost the older sessions without a sign.
            let total = listings.count < limit ? listings.count : try storeCall { () throws(StoreError) in try store.sessionCount() }
            if json {
                print(JSONValue.object([("sessions", .array(listings.map(\.json))), ("total", .int(total))]).serialized(pretty: true))
            } else if listings.isEmpty {
                print("No sessions saved yet. `intervalpro run PLAN` saves each session it runs.")
            } else {
                print(HistoryReport.sessions(listings, width: Terminal.fittingColumns).joined(separator: "\n"))
                if total > listings.count { print("The newest \(listings.count) of \(total) sessions: --limit \(total) lists them all.") }
            }
        }
    }
}
