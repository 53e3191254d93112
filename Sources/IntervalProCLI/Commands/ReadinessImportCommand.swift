import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProIO
import IntervalProLaunch

struct ReadinessImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import mornings measured with another app, each under its own day: the baseline stands at once.",
        discussion: """
            Each PATH is a file, a folder (read at any depth) or a zip archive: Elite HRV's export \
            (RR intervals, a file per morning named by its date and time), Polar Sensor Logger's \
            _RR.txt files, recordings, or watch activities with beats. A file is filed at the \
            time it says it began, or its name says (RR interval text); a file with neither is \
            left out (`readiness --replay FILE --date YYYY-MM-DD` files one). A morning shorter \
            than --duration after settling is scored as long as it holds, from a minute. A \
            morning imported before is skipped. Exits 65 when the paths hold mornings and none \
            could be taken; 66, before anything is read, when one is not there. Ctrl-C finishes the file being read, prints what was imported and exits 130.
            """
    )

    @Argument(help: "Files, folders, or zip archives.", completion: .file())
    var paths: [String]

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Minutes scored after the 30 s of settling: 1 to 5.", valueName: "minutes"))
    var duration: Double = 2

    @Flag(help: "Print what was imported and left out as JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard duration >= 1, duration <= 5 else { throw ValidationError("--duration must be from 1 to 5 minutes") }
    }

    func run() throws {
        try reportingFailures {
            // Ctrl-C finishes the file being read and says what was done.
            InterruptSignal.install()
            let progress = ProgressLine()
            let report = try ReadinessImport.run(
                paths, settings: ReadinessMeasurement.Settings(duration: .seconds(duration * 60)), store: store.location
            ) { done, total in
                progress.draw("Importing: \(done) of \(total) files")
            }
            progress.clear()
            print(json ? report.json.serialized(pretty: true) : report.lines(paths: paths, db: store.db).joined(separator: "\n"))
            if let failure = report.storeFailure { throw LaunchError(failure, kind: .io) }
            if report.nothingTaken { throw ExitCode(ExitStatus.dataError.rawValue) }
            if report.interruptedAfter != nil { throw ExitCode(ExitStatus.cancelled.rawValue) }
        }
    }
}
