public import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage
import IntervalProLaunch

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a saved session as FIT, TCX or a recording (jsonl).",
        discussion: """
            fit: a FIT activity for Garmin Connect, Strava, intervals.icu (records at 1 Hz, a lap per \
            step). tcx: Training Center XML with per-foot RunCadence, as Garmin writes it. jsonl: the \
            recording format, replayable with `intervalpro replay FILE --plan PLAN`.
            """
    )

    @Argument(help: .sessionID)
    var session: SessionReference

    @Option(help: "fit, tcx or jsonl.")
    var format: SessionExport

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file"), completion: .file())
    var output: String

    @OptionGroup var store: StoreOptions

    func validate() throws {
        // A FIT file's bytes onto the screen, as gzip refuses to; TCX and jsonl are text.
        if format == .fit, output == "-", Terminal.standardOutputIsTerminal {
            throw ValidationError("a FIT file is not written to a terminal: redirect it (-o - > run.fit), or give -o FILE")
        }
    }

    func run() throws {
        try reportingFailures {
            let session = try session.resolve(
                in: try store.open(readingOnly: true), loading: format == .jsonl ? .entries : .samples)
            if format != .jsonl, session.summary == nil {
                throw LaunchError("session \(session.listing.id) is still running; export it when it ends", kind: .unavailable)
            }
            try writeOutput(format.encode(session), to: output)
            Terminal.writeStandardError("intervalpro: wrote session \(session.listing.id) to \(output == "-" ? "standard output" : output)\n")
        }
    }
}

extension SessionExport: ExpressibleByArgument {}
