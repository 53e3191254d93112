import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage
import Synchronization

struct ReadinessMeasureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Take a readiness measurement (the default).",
        // Past 12 options, all optional, ArgumentParser writes "<options>", as if they were needed.
        usage: "intervalpro readiness measure [<options>]",
        discussion: """
            Exit status: 65 when the measurement is refused (too many artifacts, too few beats, \
            intervals that do not vary from beat to beat or are worked out from a heart rate, \
            a recording too short), 69 when no strap is found or it sends no RR intervals, 130 \
            after Ctrl-C. Nothing is saved in those cases.
            """
    )

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Minutes scored after the 30 s of settling: 1 to 5.", valueName: "minutes"))
    var duration: Double = 2

    @Option(
        help: ArgumentHelp("Measure from a recording, an activity or RR interval text, not live sensors (--hr picks a strap).", valueName: "file"),
        completion: .readinessFiles)
    var replay: String?

    @Option(help: ArgumentHelp("File the measurement under this local date (default: the day a replayed file was recorded, else today).", valueName: "YYYY-MM-DD"))
    var date: String?

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Do not save the measurement.")
    var noSave = false

    @Flag(
        help: """
            Write it to intervals.icu's wellness for the day (hrv, restingHR); queued if that fails. \
            `account add intervals.icu --readiness-to-wellness` does this every time.
            """)
    var upload = false

    @OptionGroup var store: StoreOptions

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions<HeartRateAlone>

    func validate() throws {
        guard duration >= 1, duration <= 5 else { throw ValidationError("--duration must be from 1 to 5 minutes") }
        if let date {
            guard let day = UTCTimestamp.dayNumber(ofDate: date) else {
                throw ValidationError("--date takes a day written YYYY-MM-DD, like 2026-11-24")
            }
            // A morning not yet come (a slip of the year) would sit where no verdict reads it.
            let today = WallClock.localDateToday()
            if let todayNumber = UTCTimestamp.dayNumber(ofDate: today), day > todayNumber {
                throw ValidationError("--date \(date) is after today, \(today): a measurement is filed under the day it was taken")
            }
        }
        if upload, noSave { throw ValidationError("--upload sends the saved measurement: drop --no-save") }
        // The option group is the run's; a measurement listens to the strap alone.
        if sensors.cadence != nil { throw ValidationError("readiness measures with the heart-rate strap alone: drop --cadence") }
    }

    func run() async throws {
        try await reportingFailures {
            var check = ReadinessCheck(
                source: replay.map { .replay(path: $0, device: sensors.hr) } ?? .live(sensors.request),
                settings: ReadinessMeasurement.Settings(duration: .seconds(duration * 60)), store: store.location)
            (check.date, check.save, check.upload, check.verbose) = (date, !noSave, upload, sensors.verbose)
            // The live line on a terminal, drawn over itself; elsewhere, a line for each change.
            let line: ProgressLine? = replay == nil ? ProgressLine() : nil
            let said = LastStatus()
            let result: ReadinessCheck.Result
            do {
                result = try await check.run { status in
                    guard let line else { return }
                    if line.shown { return line.draw(status.line) }
                    if let text = said.status.withLock({ said in defer { said = status }; return status.plainLine(after: said) }) {
                        Terminal.writeStandardError("intervalpro: \(text)\n")
                    }
                }
            } catch {
                line?.clear()
                throw error
            }
            line?.clear()
            print(json ? check.json(result).serialized(pretty: true) : check.text(result))
            if let failure = result.scored.saveFailure {
                throw LaunchError("the measurement was not saved: \(failure)", kind: .io)
            }
            if let write = try await check.sendToWellness(result) { try UploadCommand.report([], wellness: [write], json: false, linesToStandardError: true) }
        }
    }
}

/// The status a measurement last reported, for the plain lines said at its changes.
private final class LastStatus: Sendable {
    let status = Mutex<ReadinessRun.Status?>(nil)
}
