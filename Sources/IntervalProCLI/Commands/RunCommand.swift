public import ArgumentParser
import IntervalProBlueZ
import IntervalProAudio
import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProRuntime
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan: live screen, feedback, and a scored summary.",
        discussion: """
            Without --replay or --simulate, live sensors are used: the heart-rate and running \
            sensors named with --hr/--cadence, else those remembered from the last run, else \
            the best found by scanning. When none is found within --scan-timeout, `run` says \
            so and falls back (--fallback): to a simulated runner, to the bundled recording \
            that matches the plan, or to the metronome and step cues alone (nothing measured or \
            saved); --require-sensor exits 69 instead, and so does a device named with \
            --hr/--cadence that cannot be reached. --no-runner is the metronome alone from the \
            start, without looking for sensors.
            Keys on a terminal: space pause/resume, n next step, q finish. Ctrl-C finishes \
            with the summary.
            """
    )

    @Argument(
        help: """
            The plan: a plan file (JSON, version 1 or 2), intervals.icu text, a Zwift .zwo or a FIT workout; \
            or from the intervals.icu calendar, `today` (today's one planned run) or icu:EVENT_ID.
            """,
        completion: .planFiles)
    var plan: String

    @Option(help: ArgumentHelp("Replay this recording instead of live sensors.", valueName: "file"), completion: .recordingFiles)
    var replay: String?

    @OptionGroup(title: "Activity files (with --replay)") var activity: ActivityOptions

    @Flag(help: "Simulate a runner (HR strap and footpod) instead of live sensors.")
    var simulate = false

    @Option(parsing: .unconditional, help: .seed)
    var seed: UInt64?

    @Flag(help: "Simulated footpod reports strides per minute (one foot), as some sensors do.")
    var perFoot = false

    @Option(
        help: ArgumentHelp(
            "Simulated footpod drops out at START seconds for LENGTH seconds (repeatable).",
            valueName: "start:length"))
    var dropout: [DropoutArgument] = []

    @OptionGroup var options: PacingOptions

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions<HeartRateAndCadence>

    @Flag(help: "Exit with status 69 when no sensor is found, instead of falling back.")
    var requireSensor = false

    @Option(
        help: "With no sensor: simulate a runner (the default), replay the bundled recording for the plan, or the metronome alone.")
    var fallback: SessionRequest.Fallback?

    @Flag(help: "No runner: the metronome and step cues alone, in real time; nothing measured or saved (no sensor on a treadmill).")
    var noRunner = false

    @OptionGroup(title: "Metronome and voice") var audio: AudioOptions

    @OptionGroup(title: "Music") var music: MusicOptions

    @OptionGroup var save: SaveOptions

    @Option(
        help: ArgumentHelp(
            "When the session is saved, upload it: intervals.icu, strava or all (queued if that fails).",
            valueName: "service"))
    var upload: UploadDestination?

    func validate() throws {
        if replay != nil, simulate { throw ValidationError("--replay and --simulate cannot be used together") }
        if noRunner, replay != nil || simulate || requireSensor || fallback != nil {
            throw ValidationError("--no-runner looks for no sensor: drop --replay, --simulate, --require-sensor and --fallback")
        }
        if noRunner, upload != nil { throw ValidationError("--no-runner measures nothing to upload: drop --upload") }
        if noRunner, sensors.hr != nil || sensors.cadence != nil || sensors.antStick != nil {
            throw ValidationError("--no-runner looks for no sensor: drop --hr, --cadence and --ant-stick")
        }
        if noRunner, options.record != nil { throw ValidationError("--no-runner measures nothing to record: drop --record") }
        // Both read standard input: the plan was read, and the recording said "no header line".
        if plan == "-", replay == "-" { throw ValidationError("the plan and --replay cannot both be '-' (standard input)") }
        if requireSensor, fallback != nil { throw ValidationError("--require-sensor exits when no sensor is found: drop --fallback") }
        if requireSensor, replay != nil || simulate {
            throw ValidationError("--require-sensor is for live sensors: drop --replay/--simulate")
        }
        // Given without --simulate, --seed was passed over without a word (a replay has no runner to seed).
        if !simulate, perFoot || !dropout.isEmpty || seed != nil {
            throw ValidationError("--seed, --per-foot and --dropout shape the simulated runner: add --simulate")
        }
        if upload != nil, save.noSave { throw ValidationError("--upload sends the saved session: drop --no-save") }
        if replay == nil, activity.given { throw ValidationError("--strict, --leg and --sport read an activity file: add --replay FILE") }
        if allowRoot, web == nil { throw ValidationError("--allow-root is for the page: add --web PORT, or drop it") }
    }

    @Option(
        help: ArgumentHelp(
            "Also serve the live page on this port (loopback) or HOST:PORT, to watch and control the session from a phone.",
            valueName: "[host:]port"))
    var web: ListenAddress?

    @Flag(help: "With --web: serve the page even as root (it then acts with root's rights).")
    var allowRoot = false

    func run() async throws {
        try await reportingFailures {
            let webStack = try web.map { _ in try WebStackHandOff.stack() }
            let prepared = try await RunPreparation.prepare(
                planArgument: self.plan, upload: upload, verbose: sensors.verbose)
            // Said before the session starts, on stderr so that --json keeps stdout to the summary.
            if let notice = prepared.readinessNotice(store: save.store.location) {
                Terminal.writeStandardError("intervalpro: \(notice)\n")
            }
            var request = SessionRequest(
                plan: prepared.plan, planText: prepared.planText, planFile: self.plan, source: source(for: prepared.plan))
            request.take(options, audio: audio, save: save)
            request.music = music.request(verbose: sensors.verbose)
            let outcome: SessionOutcome
            if let web, let webStack {
                outcome = try await webStack.runAlongside(request, listen: web, allowRoot: allowRoot)
            } else {
                outcome = try await SessionLauncher.run(request)
            }
            try SessionOutput.print(outcome, json: options.json, recordPath: options.record)
            // The summary went to stdout; upload lines go to stderr so that --json stays one document.
            let uploads = try await prepared.upload(outcome, store: save.store.location)
            if !uploads.isEmpty { try UploadCommand.report(uploads, json: false, linesToStandardError: true) }
        }
    }

    private func source(for plan: Plan) -> SessionRequest.Source {
        if let replay { return .replay(path: replay, choice: activity.choice) }
        if noRunner { return .noRunner }
        guard simulate else { return .live(sensors.request, fallback: requireSensor ? nil : fallback ?? .simulate) }
        var configuration = SimulatedRunner.Configuration.covering(plan.timeline())
        configuration.seed = seed ?? 1
        configuration.perFoot = perFoot
        configuration.dropouts = dropout.map { ($0.start, $0.length) }
        return .simulate(configuration)
    }
}

struct DropoutArgument: ExpressibleByArgument {
    var start: SessionTime
    var length: SessionTime

    init?(argument: String) {
        let parts = argument.split(separator: ":")
        guard parts.count == 2, let start = Double(parts[0]), let length = Double(parts[1]),
            (0...86_400).contains(start), length > 0, length <= 86_400
        else { return nil }
        self.start = .seconds(start)
        self.length = .seconds(length)
    }
}

extension SessionRequest.Fallback: ExpressibleByArgument {}
