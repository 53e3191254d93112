import ArgumentParser
import IntervalProAudio
import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProRuntime

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recording or a watch's activity: scored against a plan, or as stream statistics.",
        discussion: "Without --plan, prints what the recording holds: devices, counts, cadence, heart rate, gaps."
    )

    @Argument(
        help: "The recording (JSON Lines, recording format version 1), or a FIT, TCX or GPX activity a watch recorded; gzipped, or alone in a zip archive.",
        completion: .recordingFiles)
    var recording: String

    @Option(help: ArgumentHelp("Score the recording against this plan.", valueName: "file"), completion: .planFiles)
    var plan: String?

    @OptionGroup(title: "Activity files") var activity: ActivityOptions

    @OptionGroup var options: PacingOptions

    @OptionGroup(title: "Metronome and voice (with --plan)") var audio: AudioOptions

    @OptionGroup(title: "Music (with --plan)") var music: MusicOptions

    @Flag(name: .shortAndLong, help: "Say on stderr what is done to the music player.")
    var verbose = false

    @OptionGroup var save: SaveOptions

    func validate() throws {
        // Both read standard input: the recording was read, and the plan said "not a plan".
        if recording == "-", plan == "-" { throw ValidationError("the recording and --plan cannot both be '-' (standard input)") }
        // Without a plan there is no session to sound: --volume 0.5 was passed over, exit 0.
        if plan == nil, audio.isGiven || music.isGiven {
            throw ValidationError("the metronome, voice and music options shape a scored session's sound: add --plan PLAN, or drop them")
        }
    }

    func run() async throws {
        try await reportingFailures {
            if let plan {
                let (plan, planText) = try loadPlanKeepingText(plan)
                var request = SessionRequest(
                    plan: plan, planText: planText, planFile: self.plan ?? "", source: .replay(path: recording, choice: activity.choice))
                request.take(options, audio: audio, save: save)
                request.music = music.request(verbose: verbose)
                let outcome = try await SessionLauncher.run(request)
                try SessionOutput.print(outcome, json: options.json, recordPath: options.record)
                return
            }
            let recording = try loadRecording(recording, choice: activity.choice)
            let units = recording.header.devices.cadenceUnitsOverridden(recording.header.cadenceUnits, by: options.cadenceUnit?.unit)
            if let record = options.record { try writeRecording(recording, to: record) }
            let statistics = StreamStatistics(
                header: recording.header, entries: recording.entries, units: units,
                outOfOrderLines: recording.outOfOrderLines)
            if options.json {
                print(statistics.json.serialized(pretty: true))
            } else {
                print(statistics.text)
            }
        }
    }
}
