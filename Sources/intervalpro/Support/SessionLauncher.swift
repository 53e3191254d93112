import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProRuntime
import IntervalProStorage

/// Wires a plan, a source and the options into a running session, prints the summary.
enum SessionLauncher {
    static func run<Source: SessionSource>(
        plan: Plan, source: Source, options: PacingOptions, cadenceUnits: [String: CadenceUnit],
        companions: [any SessionObserver] = [], saving: SessionSaving? = nil,
        wakeOnInput: ((Int32, (@Sendable () -> Void)?) -> Void)? = nil
    ) async throws {
        var units = cadenceUnits
        if let override = options.cadenceUnit?.unit {
            for device in source.devices { units[device.id] = override }
        }
        // Live sensors arrive in real time whatever the options say.
        let pacing: Pacing =
            source.isLive ? .realTime(speed: 1) : options.fast ? .virtual : .realTime(speed: options.speed ?? 1)
        var companions = companions
        let writer = saving?.start(
            plan: plan, source: source.kind, devices: source.devices, cadenceUnits: units, realTime: pacing != .virtual)
        if let writer { companions.append(SessionRecorder(writer: writer)) }
        // The history keeps 1 Hz samples: the engine reports them when the session is saved.
        let engine = SessionEngine(plan: plan, source: source.kind, cadenceUnits: units, reportsSamples: writer != nil)

        var recorder: RecordingWriter?
        if let path = options.record {
            var devices = source.devices
            if let override = options.cadenceUnit?.unit {
                for i in devices.indices where devices[i].cadenceUnit != nil { devices[i].cadenceUnit = override }
            }
            let header = RecordingHeader(startedAt: WallClock.iso8601Now(), devices: devices)
            do {
                recorder = try RecordingWriter(path: path, headerLine: RecordingLine.header(header))
            } catch {
                throw Failure(error)
            }
        }

        let interactive = Terminal.standardOutputIsTerminal && !options.json && pacing != .virtual
        let style: SessionPresenter.Style = interactive ? .screen : .log(toStandardError: options.json)
        // Colour depends on the stream the lines go to: stderr under --json, else stdout.
        let linesGoToTerminal = options.json ? Terminal.standardErrorIsTerminal : Terminal.standardOutputIsTerminal
        let presenter = SessionPresenter(
            style: style, colour: Terminal.wantsColour(isTerminal: linesGoToTerminal), recorder: recorder,
            keyboard: interactive ? RawKeyboard() : nil, timelineCount: engine.timeline.count)
        InterruptSignal.install()
        // A live source waits for arrivals: keys and Ctrl-C are arrivals too.
        if let wakeOnInput {
            if let interrupt = InterruptSignal.descriptor { wakeOnInput(interrupt, InterruptSignal.drain) }
            if let keyboard = presenter.keyboard { wakeOnInput(keyboard.descriptor, nil) }
        }

        var runner = SessionRunner(
            engine: engine, source: source, observer: ObserverGroup(presenter, companions: companions), pacing: pacing,
            clock: ContinuousClock())
        let summary: SessionSummary
        do {
            summary = try await runner.run()
        } catch {
            runner.observer.primary.finish()
            throw Failure("the session stopped: \(error)", status: .ioError)
        }
        runner.observer.primary.finish()
        let saveFailure = writer?.finish(summary)

        if options.json {
            print(summary.json.serialized(pretty: true))
        } else {
            print(SummaryReport.text(summary, colour: Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal)))
        }
        if let path = options.record, runner.observer.primary.recorder != nil {
            Terminal.writeStandardError("intervalpro: recorded to \(path)\n")
        }
        if let saving, !saving.options.noSave {
            guard let writer, saveFailure == nil else { throw ExitCode(ExitStatus.ioError.rawValue) }
            Terminal.writeStandardError("intervalpro: saved as session \(writer.sessionID)\n")
        }
    }
}
