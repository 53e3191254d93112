import ArgumentParser
import IntervalProBlueZ
import IntervalProAudio
import IntervalProCore
import IntervalProIO
import IntervalProRuntime

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan: live screen, feedback, and a scored summary.",
        discussion: """
            Without --replay or --simulate, live sensors are used: the heart-rate and running \
            sensors named with --hr/--cadence, else those remembered from the last run, else \
            the best found by scanning. When none is found within --scan-timeout, `run` says \
            so and falls back (--fallback): to a simulated runner, or to the bundled \
            recording that matches the plan; --require-sensor exits 69 instead.
            Keys on a terminal: space pause/resume, n next step, q finish. Ctrl-C finishes \
            with the summary.
            """
    )

    @Argument(
        help: "The plan: a plan file (JSON, version 1 or 2), intervals.icu text, a Zwift .zwo or a FIT workout.",
        completion: .planFiles)
    var plan: String

    @Option(help: ArgumentHelp("Replay this recording instead of live sensors.", valueName: "file"), completion: .recordingFiles)
    var replay: String?

    @Flag(help: "Simulate a runner (HR strap and footpod) instead of live sensors.")
    var simulate = false

    @Option(help: "Seed of the simulated runner (same seed, same run).")
    var seed: UInt64 = 1

    @Flag(help: "Simulated footpod reports strides per minute (one foot), as some sensors do.")
    var perFoot = false

    @Option(
        help: ArgumentHelp(
            "Simulated footpod drops out at START seconds for LENGTH seconds (repeatable).",
            valueName: "start:length"))
    var dropout: [DropoutArgument] = []

    @OptionGroup var options: PacingOptions

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions

    @Flag(help: "Exit with status 69 when no sensor is found, instead of falling back.")
    var requireSensor = false

    @Option(help: "With no sensor: simulate a runner, or replay the bundled recording for the plan.")
    var fallback: Fallback = .simulate

    enum Fallback: String, ExpressibleByArgument, CaseIterable {
        case simulate, recording
    }

    @OptionGroup(title: "Metronome and voice") var audio: AudioOptions

    @OptionGroup var save: SaveOptions

    func validate() throws {
        if replay != nil, simulate { throw ValidationError("--replay and --simulate cannot be used together") }
        if requireSensor, replay != nil || simulate {
            throw ValidationError("--require-sensor is for live sensors: drop --replay/--simulate")
        }
        if !simulate, perFoot || !dropout.isEmpty {
            throw ValidationError("--per-foot and --dropout shape the simulated runner: add --simulate")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let (plan, planText) = try loadPlanKeepingText(plan)
            let saving = SessionSaving(options: save, planText: planText)
            if simulate {
                try await runSimulated(plan, saving: saving)
                return
            }
            if replay == nil {
                do {
                    try await runLive(plan, saving: saving)
                    return
                } catch let unavailable as LiveSensorConnection.Unavailable {
                    if requireSensor { throw Failure("\(unavailable)", status: .unavailable) }
                    if fallback == .simulate {
                        Terminal.writeStandardError("intervalpro: \(unavailable); simulating a runner instead\n")
                        try await runSimulated(plan, saving: saving)
                        return
                    }
                    Terminal.writeStandardError("intervalpro: \(unavailable)\n")
                }
            }
            let path = try replay ?? bundledRecording()
            let recording = try loadRecording(path)
            try await withAudio(plan, pacing: options) { companions in
                try await SessionLauncher.run(
                    plan: plan, source: ReplaySource(header: recording.header, entries: recording.entries),
                    options: options, cadenceUnits: recording.header.cadenceUnits, companions: companions,
                    saving: saving)
            }
        }
    }

    /// Runs a session with the metronome and voice playing beside it (when the options
    /// and the pacing allow sound).
    private func withAudio(
        _ plan: Plan, pacing: PacingOptions, _ session: ([any SessionObserver]) async throws -> Void
    ) async throws {
        let live = audio.liveAudio(plan: plan, pacing: pacing)
        defer { live?.finish() }
        try await session(live.map { [$0] } ?? [])
    }

    private func runSimulated(_ plan: Plan, saving: SessionSaving) async throws {
        var configuration = SimulatedRunner.Configuration.covering(plan.timeline())
        configuration.seed = seed
        configuration.perFoot = perFoot
        configuration.dropouts = dropout.map { ($0.start, $0.length) }
        try await withAudio(plan, pacing: options) { companions in
            try await SessionLauncher.run(
                plan: plan, source: SimulatedRunner(configuration: configuration), options: options,
                cadenceUnits: [:], companions: companions, saving: saving)
        }
    }

    /// A session on live sensors; throws `Unavailable` before anything started when there
    /// is no sensor to use.
    private func runLive(_ plan: Plan, saving: SessionSaving) async throws {
        let connection = try await LiveSensorConnection.connect(
            sensors, cadenceUnit: options.cadenceUnit?.unit, requireCadence: requireSensor)
        // Live sensors arrive in real time, so the metronome plays whatever --speed said.
        var realTime = options
        if options.fast || options.speed.map({ $0 != 1 }) ?? false {
            Terminal.writeStandardError(
                "intervalpro: live sensors run in real time; --fast and --speed apply to the fallback only\n")
            realTime.fast = false
            realTime.speed = nil
        }
        connection.sensors.feed.begin()
        let units = Dictionary(
            connection.devices.compactMap { d in d.cadenceUnit.map { (d.id, $0) } }, uniquingKeysWith: { a, _ in a })
        let sensors = connection.sensors
        do {
            // The session runs on the sensors' loop: a value reaches the engine in the same wake-up.
            try await sensors.run {
                try await withAudio(plan, pacing: realTime) { companions in
                    try await SessionLauncher.run(
                        plan: plan, source: LiveSource(sensors: sensors, devices: connection.devices),
                        options: realTime, cadenceUnits: units,
                        companions: companions + [LatencyProbe(feed: sensors.feed)].compactMap { $0 }, saving: saving,
                        wakeOnInput: { descriptor, drain in sensors.wakeOnInput(descriptor, drain: drain) })
                }
            }
        } catch {
            await connection.sensors.stop()
            throw error
        }
        await connection.sensors.stop()
    }

    private func bundledRecording() throws -> String {
        guard let directory = BundledFiles.recordingsDirectory() else {
            throw Failure(
                "no bundled recordings were found; use --simulate or --replay FILE", status: .unavailable)
        }
        let matching = "\(directory)/\(BundledFiles.stem(of: plan)).jsonl"
        let path = BundledFiles.exists(matching) ? matching : "\(directory)/first-cadence-session.jsonl"
        Terminal.writeStandardError("intervalpro: replaying the bundled recording \(path)\n")
        return path
    }
}

extension RecordingHeader {
    /// The cadence units the recording's header declares, by device id.
    var cadenceUnits: [String: CadenceUnit] {
        Dictionary(devices.compactMap { d in d.cadenceUnit.map { (d.id, $0) } }, uniquingKeysWith: { a, _ in a })
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
