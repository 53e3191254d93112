import ArgumentParser
import IntervalProCore
import IntervalProHRV
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProNetwork
import IntervalProStorage

struct ReadinessMeasureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Take a readiness measurement (the default).",
        discussion: """
            Exit status: 65 when the measurement is refused (too many artifacts, too few beats, \
            a recording too short), 69 when no strap is found or it sends no RR intervals, 130 \
            after Ctrl-C. Nothing is saved in those cases.
            """
    )

    @Option(help: ArgumentHelp("Minutes scored after the 30 s of settling: 1 to 5.", valueName: "minutes"))
    var duration: Double = 2

    @Option(
        help: ArgumentHelp("Measure from a recording instead of live sensors (--hr picks its strap).", valueName: "file"),
        completion: .recordingFiles)
    var replay: String?

    @Option(help: ArgumentHelp("File the measurement under this local date (default: today).", valueName: "YYYY-MM-DD"))
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

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions

    func validate() throws {
        guard duration >= 1, duration <= 5 else { throw ValidationError("--duration must be from 1 to 5 minutes") }
        if let date, ReadinessBaseline.dayNumber(date) == nil {
            throw ValidationError("--date takes a date as YYYY-MM-DD")
        }
        if upload, noSave { throw ValidationError("--upload sends the saved measurement: drop --no-save") }
    }

    func run() async throws {
        try await reportingFailures {
            // An account that --upload needs is checked before the runner lies down, not after.
            let services = try ReadinessReport.services(required: upload, verbose: sensors.verbose)
            let settings = ReadinessMeasurement.Settings(duration: .seconds(duration * 60))
            let outcome: ReadinessRun.Outcome
            if let replay {
                outcome = try ReadinessRun.replay(replay, device: sensors.hr, settings: settings)
            } else {
                let screen = Terminal.standardErrorIsTerminal ? ReadinessScreen() : nil
                guard let measured = try await ReadinessRun.live(sensors.request, settings: settings, status: { screen?.show($0) })
                else {
                    screen?.clear()
                    throw LaunchError("measurement cancelled; nothing was saved", kind: .cancelled)
                }
                screen?.clear()
                outcome = measured
            }
            let deviceLabel = outcome.device?.label ?? "the strap"
            let scored = try ReadinessRun.score(
                outcome, source: replay == nil ? .live : .replay, localDate: date ?? WallClock.localDateToday(),
                takenAt: WallClock.iso8601Now(), save: noSave ? nil : store.location, store: store.location)
            let (record, assessment, localDate) = (scored.record, scored.assessment, scored.record.localDate)
            // Read before anything is written: what a watch or ring gave intervals.icu for the day.
            var wellness: Wellness?
            if let services { wellness = await ReadinessReport.wellness(on: localDate, context: services) }
            if json {
                print(
                    ReadinessReport.json(record, assessment: assessment, settle: settings.settle, wellness: wellness)
                        .serialized(pretty: true))
            } else {
                print(
                    ReadinessReport.text(
                        record, deviceLabel: deviceLabel, assessment: assessment, settle: settings.settle, wellness: wellness))
            }
            // --upload, or the account's setting to send every measurement.
            let send = upload || services?.accounts.intervalsICU?.readinessToWellness == true
            if send, let services, let id = record.id {
                let writer = WellnessWriter(store: try store.open(), context: services)
                let result = try await asyncStoreCall { () async throws(StoreError) in try await writer.send(readiness: id) }
                try UploadCommand.report([], wellness: [result], json: false, linesToStandardError: true)
            }
        }
    }
}
