import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a saved session: its steps as scored.",
        discussion: """
            With --json: the JSON summary (version 1) with session_id, started_at, status, simulated, devices \
            and, once uploaded or queued, uploads added.
            """
    )

    @Argument(help: .sessionID)
    var session: SessionReference

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "With --json, add the 1 Hz samples (cadence, heart rate, speed, distance, zone, RR intervals) and alpha 1's windows.")
    var samples = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        // It was passed over without a word.
        if samples, !json { throw ValidationError("--samples adds to the JSON: add --json") }
    }

    func run() throws {
        try reportingFailures {
            let sessionStore = try store.open(readingOnly: true)
            // Samples hold the beats alpha 1 is computed from.
            let session = try session.resolve(in: sessionStore, loading: [.samples, .alphaOne])
            let uploads = try storeCall { () throws(StoreError) in try sessionStore.uploads(session: session.listing.id) }
            if json {
                var value = session.json
                if !uploads.isEmpty, case .object(let members) = value {
                    value = .object(members + [("uploads", .array(uploads.map(HistoryReport.json)))])
                }
                if samples, case .object(let members) = value {
                    value = .object(
                        members + [
                            ("samples", .array(session.samples.map(\.json))),
                            ("alpha1_windows", .array(session.alphaWindows.map(\.json))),
                        ])
                }
                print(value.serialized(pretty: true))
                return
            }
            let colour = Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal)
            print(HistoryReport.session(session, uploads: uploads, colour: colour, width: Terminal.fittingColumns).joined(separator: "\n"))
        }
    }
}
