import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProStorage

struct HistoryImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import the runs a watch recorded: a FIT, TCX or GPX file, a folder, or an export archive.",
        discussion: """
            Each PATH is an activity file (gzipped or not), a folder (read at any depth), or a zip archive: \
            a Strava bulk export, a Garmin Connect export (zips inside a zip) or any mix. Each \
            running activity becomes a session (source "imported", the watch's start time, no plan: \
            its cadence, heart rate and distance), listed by `history` and drawn by `trends` and \
            `report`. An activity imported before (same start time, same device), or exported from a \
            session of this store, is skipped, so importing again adds nothing. Other sports and files that hold no activity are left out; \
            a damaged file is read up to the damage, as `replay` reads it. Exits 65 when the paths hold \
            activity files and none could be read; 66, before anything is read, when one is not there.
            """
    )

    @Argument(help: "Activity files, folders, or zip archives (`~/Downloads/*.gpx`).", completion: .file())
    var paths: [String]

    @Flag(help: "Print what was imported and skipped as JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    func run() throws {
        try reportingFailures {
            // Ctrl-C finishes the files being read and says what was done.
            InterruptSignal.install()
            let progress = ProgressLine()
            let report = try HistoryImport.run(paths, into: store.location) { done, total in
                progress.draw("Importing: \(done) of \(total) files")
            }
            progress.clear()
            let failed = report.imported.isEmpty && report.duplicates.isEmpty && report.notRuns.isEmpty && !report.unreadable.isEmpty
            if json {
                print(report.json.serialized(pretty: true))
            } else if failed {
                // Nothing could be read: said where errors are, as the exit status says it.
                Terminal.writeStandardError(report.lines(paths: paths, db: store.db).joined(separator: "\n") + "\n")
            } else {
                print(report.lines(paths: paths, db: store.db).joined(separator: "\n"))
            }
            // The store could not be written: an I/O failure, said where errors are.
            if let failure = report.storeFailure { throw LaunchError(failure, kind: .io) }
            // Files left out by a failure here, not by what they hold: import again once it is mended.
            if report.notReadHere > 0 {
                throw LaunchError(
                    "\(report.notReadHere) of the files could not be read here (above): an import run again takes them", kind: .io)
            }
            // Said in one line where errors are, as every failure is (it ended on the list alone).
            if failed {
                throw LaunchError("none of the activity files could be read (\(json ? "`unreadable` lists them" : "above"))", kind: .invalidData)
            }
            if report.interruptedAfter != nil { throw ExitCode(ExitStatus.cancelled.rawValue) }
        }
    }
}
