import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProRuntime

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan: live screen, feedback, and a scored summary.",
        discussion: """
            Without --replay or --simulate, live sensors would be used; until BlueZ support \
            lands, `run` says so and replays the bundled recording that matches the plan \
            (Recordings/<plan name>.jsonl, else the first cadence session).
            Keys on a terminal: space pause/resume, n next step, q finish. Ctrl-C finishes \
            with the summary.
            """
    )

    @Argument(help: "The plan file (JSON, plan format version 1).")
    var plan: String

    @Option(help: ArgumentHelp("Replay this recording instead of live sensors.", valueName: "file"))
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

    @OptionGroup var save: SaveOptions

    func validate() throws {
        if replay != nil, simulate { throw ValidationError("--replay and --simulate cannot be used together") }
        if !simulate, perFoot || !dropout.isEmpty {
            throw ValidationError("--per-foot and --dropout shape the simulated runner: add --simulate")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let (plan, planText) = try loadPlanKeepingText(plan)
            let saving = SessionSaving(options: save, planText: planText)
            if simulate {
                var configuration = SimulatedRunner.Configuration.covering(plan.timeline())
                configuration.seed = seed
                configuration.perFoot = perFoot
                configuration.dropouts = dropout.map { ($0.start, $0.length) }
                try await SessionLauncher.run(
                    plan: plan, source: SimulatedRunner(configuration: configuration), options: options,
                    cadenceUnits: [:], saving: saving)
                return
            }
            let path = try replay ?? bundledRecording()
            let recording = try loadRecording(path)
            try await SessionLauncher.run(
                plan: plan, source: ReplaySource(header: recording.header, entries: recording.entries),
                options: options, cadenceUnits: recording.header.cadenceUnits, saving: saving)
        }
    }

    private func bundledRecording() throws -> String {
        guard let directory = BundledFiles.recordingsDirectory() else {
            throw Failure(
                "live sensors are not supported yet and no bundled recordings were found; use --simulate or --replay FILE",
                status: .unavailable)
        }
        let matching = "\(directory)/\(BundledFiles.stem(of: plan)).jsonl"
        let path = BundledFiles.exists(matching) ? matching : "\(directory)/first-cadence-session.jsonl"
        Terminal.writeStandardError(
            "intervalpro: live sensors are not supported yet; replaying the bundled recording \(path) (--simulate for a simulated runner)\n"
        )
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
