import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a saved session as one self-contained HTML page with charts.",
        discussion: """
            The page holds the summary figures, the cadence trace over each step's zone, heart rate \
            and a bar per step split into in zone, below, above and no signal. It loads nothing \
            from the network.
            """
    )

    @Argument(help: .sessionID)
    var session: SessionReference

    @Option(name: .shortAndLong, help: ArgumentHelp("The HTML file to write.", valueName: "file"), completion: .file(extensions: ["html"]))
    var output: String

    @OptionGroup var store: StoreOptions

    func run() throws {
        try reportingFailures {
            let session = try session.resolve(in: try store.open(readingOnly: true), loading: [.samples, .alphaOne])
            guard session.summary != nil else {
                throw LaunchError("session \(session.listing.id) is still running; report on it when it ends", kind: .unavailable)
            }
            let readiness = ReadinessToday.trend(store.location, before: session.listing.startedAt)
            let page = HTMLReport.page(session, readiness: readiness, localStart: WallClock.localDateTime(of: session.listing.startedAt))
            try writeOutput(Array(page.utf8), to: output)
            Terminal.writeStandardError("intervalpro: wrote the report of session \(session.listing.id) to \(output == "-" ? "standard output" : output)\n")
        }
    }
}
