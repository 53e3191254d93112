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
        subcommands: [HistoryListCommand.self, HistoryImportCommand.self],
        defaultSubcommand: HistoryListCommand.self
    )

    static func figure(_ value: Double?, _ places: Int = 0) -> String {
        value.map { JSONValue.format($0.rounded(toPlaces: places)) } ?? "-"
    }

    /// "2026-03-01 07:30" from "2026-03-01T07:30:00Z" (UTC, as stored).
    static func displayDate(_ iso: String) -> String {
        guard iso.count >= 16 else { return iso }
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }
}

struct HistoryListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List saved sessions, newest first (by start time).",
        discussion: """
            Status is finished, interrupted (the process died; scored up to the last second saved) or running. \
            Source is live, replay, simulation, or imported (`history import`).
            """
    )

    @Option(help: "Show at most this many sessions.")
    var limit: Int = 20

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        try await reportingFailures {
            let store = try store.open(readingOnly: true)
            let listings = try storeCall { () throws(StoreError) in try store.listings(limit: limit) }
            if json {
                print(JSONValue.object([("sessions", .array(listings.map(\.json)))]).serialized(pretty: true))
            } else if listings.isEmpty {
                print("No sessions saved yet. `intervalpro run PLAN` saves each session it runs.")
            } else {
                print(Self.table(listings).joined(separator: "\n"))
            }
        }
    }

    static func table(_ listings: [SessionListing]) -> [String] {
        let rows = listings.map { s -> [String] in
            [
                "\(s.id)", HistoryCommand.displayDate(s.startedAt), s.planName, s.source.rawValue, s.duration.map(formatClock) ?? "-",
                s.inZonePercent.map { HistoryCommand.figure($0, 1) + "%" } ?? "-", HistoryCommand.figure(s.averageWorkCadence),
                HistoryCommand.figure(s.averageHeartRate), s.status.rawValue + (s.completed == false && s.status == .finished ? " (early)" : ""),
            ]
        }
        return TextTable.render(
            header: ["id", "date", "plan", "source", "time", "in zone", "work spm", "HR", "status"], rows: rows,
            rightAligned: [0, 4, 5, 6, 7])
    }
}
