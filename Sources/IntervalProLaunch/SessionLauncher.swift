import IntervalProBlueZ
public import IntervalProCore
import IntervalProAudio
import IntervalProEventLoop
import IntervalProIO
import IntervalProMPRIS
public import IntervalProFormats
public import IntervalProRuntime
import IntervalProStorage
import Logging

/// A session to start, as `run` and the web page ask for one: the plan, where values come
/// from and what to do when live sensors are not there, pacing, sound and saving.
public struct SessionRequest: Sendable {
    public enum Source: Sendable {
        /// Live sensors; with none found, the fallback (none: fail, exit status 69). Without
        /// a fallback a cadence sensor is required, heart rate alone is not enough.
        case live(SensorRequest, fallback: Fallback?)
        case simulate(SimulatedRunner.Configuration)
        /// A recording file, or a FIT, TCX or GPX activity, read as `choice` says.
        case replay(path: String, choice: ActivityChoice = .init())
        /// No runner: the plan's clicks and step cues alone, nothing measured or saved
        /// (`NoRunner`: no sensor on a treadmill).
        case noRunner
    }

    /// What runs when no live sensor is found.
    public enum Fallback: String, Sendable, CaseIterable {
        /// A simulated runner.
        case simulate
        /// The bundled recording that matches the plan (else the first session's).
        case recording
        /// No runner: the metronome and the step cues alone (`Source.noRunner`).
        case metronome
    }

    public var plan: Plan
    /// The plan as the history keeps it (see `loadPlanKeepingText`).
    public var planText: String
    /// The plan's file or example name: the `recording` fallback is the bundled recording of
    /// the same name.
    public var planFile: String
    public var source: Source
    /// Session time per wall-clock second for replays and simulations; nil is real time.
    public var speed: Double?
    /// Replay on virtual time, as fast as possible.
    public var fast = false
    /// The cadence unit of every RSC device, overriding what the source says.
    public var cadenceUnit: CadenceUnit?
    /// Also write what the source delivered to this recording file.
    public var recordPath: String?
    public var audio = AudioChoice()
    /// The runner's music player: ducked for cues, paused with the session; nil: left alone.
    public var music: MusicRequest?
    /// Where the session is saved; nil: not saved.
    public var store: StoreLocation?
    /// Where the live screen or its lines go, and whether keys and Ctrl-C steer it.
    public var display = SessionDisplay.none

    public init(plan: Plan, planText: String, planFile: String, source: Source) {
        self.plan = plan
        self.planText = planText
        self.planFile = planFile
        self.source = source
    }
}

/// How a session ended.
public struct SessionOutcome: Sendable {
    public var summary: SessionSummary
    /// The saved session's id; nil when it was not saved.
    public var savedSessionID: Int64?
    /// Saving was asked for and failed (said on stderr as it happened).
    public var saveFailed: Bool
    /// The recording file asked for was written to the end.
    public var recorded: Bool
    /// The session's row when saving failed part way: still marked running, for whoever
    /// outlives the session (a server) to close as interrupted (`SessionStore.closeAbandoned`).
    public var unsavedSessionID: Int64? = nil
    /// How much of it was saved before saving failed (the store keeps it, as interrupted).
    public var savedThrough: SessionTime? = nil
    /// The session had a runner to measure (not the metronome alone).
    public var measured: Bool { summary.source != .metronome }

    /// What saving came to, when it failed: the part kept, or nothing.
    public var saveFailure: String? {
        guard saveFailed else { return nil }
        if let id = unsavedSessionID, let savedThrough, savedThrough > .zero {
            return "the session was saved in the history only up to \(formatClock(savedThrough.seconds)) (session \(id), kept as interrupted): its store could not be written (said when it happened)"
        }
        return "the session was not saved in the history: its store could not be written (said when it happened)"
    }
}

/// Starts sessions: the launch policy `run` and the web page share. Chooses the source
/// (live sensors, else the fallback), opens the audio and the store, runs the session to
/// its summary, and tells a follower (the web page) when one is given.
public enum SessionLauncher {
    /// Runs the session to its end. Throws a `LaunchError` for what the user can act on: no
    /// sensor without a fallback (69), a recording that cannot be read (65, 66), a session
    /// that stopped (74).
    public static func run(_ request: SessionRequest, follower: (any SessionFollower)? = nil) async throws -> SessionOutcome {
        if let path = request.recordPath {
            do throws(FileError) { try RecordingWriter.checkTarget(path) } catch { throw LaunchError(error) }
        }
        switch request.source {
        case .simulate(let configuration):
            return try await runSimulated(request, configuration, follower: follower)
        case .replay(let path, let choice):
            return try await runReplay(request, path: path, choice: choice, follower: follower)
        case .noRunner:
            return try await runWithoutRunner(request, follower: follower)
        case .live(let sensors, let fallback):
            do {
                return try await runLive(request, sensors, requireCadence: fallback == nil, follower: follower)
            } catch let unavailable as LiveSensorConnection.UnavailableError {
                // A device named with --hr or --cadence is required: a stick path mistyped, or
                // a stick not plugged in, gave a whole session of a simulated runner instead.
                if fallback != nil, let named = sensors.heartRate ?? sensors.cadence {
                    throw LaunchError(
                        "\(unavailable); \(named) was named, so no simulated runner or recording takes its place",
                        kind: .unavailable)
                }
                switch fallback {
                case nil:
                    throw LaunchError("\(unavailable)", kind: .unavailable)
                case .simulate:
                    logger.notice("\(unavailable); simulating a runner instead")
                    // The page showed only a badge: the runner on the treadmill is told why.
                    follower?.notice("\(unavailable): a simulated runner instead, not yours")
                    var configuration = SimulatedRunner.Configuration.covering(request.plan.timeline())
                    configuration.seed = 1
                    return try await runSimulated(request, configuration, follower: follower)
                case .recording:
                    guard let recording = bundledRecording(for: request.planFile) else {
                        // Another plan's recording scored against this one reads as a runner who
                        // never found a zone (0.4 % in a work step): a runner of this plan instead.
                        logger.notice("\(unavailable); no recording of this plan is bundled: simulating a runner instead")
                        follower?.notice("\(unavailable): a simulated runner instead, not yours")
                        return try await runSimulated(request, .covering(request.plan.timeline()), follower: follower)
                    }
                    logger.notice("\(unavailable)")
                    logger.notice("replaying the bundled recording \(recording)")
                    follower?.notice("\(unavailable): the plan's bundled recording instead, not yours")
                    return try await runReplay(request, path: recording, follower: follower)
                case .metronome:
                    logger.notice("\(unavailable); the metronome and the step cues alone, nothing measured or saved")
                    follower?.notice("\(unavailable): the metronome alone, nothing measured or saved")
                    return try await runWithoutRunner(request, follower: follower)
                }
            }
        }
    }

    private static func runSimulated(
        _ request: SessionRequest, _ configuration: SimulatedRunner.Configuration, follower: (any SessionFollower)?
    ) async throws -> SessionOutcome {
        try await runSession(request, source: SimulatedRunner(configuration: configuration), cadenceUnits: [:], follower: follower)
    }

    /// The plan's clock alone: nothing is measured, so nothing is kept (a session of no
    /// figures would sit in the history and its trends as 0 % in zone).
    private static func runWithoutRunner(_ request: SessionRequest, follower: (any SessionFollower)?) async throws -> SessionOutcome {
        var request = request
        request.store = nil
        let (audio, note) = request.audio.withoutRunner(plan: request.plan)
        request.audio = audio
        if let note {
            warn(note)
            follower?.notice(note)
        }
        // The runner is there to press "next" (n, the page): an open or distance step waits for it.
        // On virtual time (--fast) no one can: the steps end as a render's do.
        return try await runSession(
            request, source: NoRunner(endingUnboundedSteps: request.fast), cadenceUnits: [:], follower: follower)
    }

    private static func runReplay(
        _ request: SessionRequest, path: String, choice: ActivityChoice = .init(), follower: (any SessionFollower)?
    ) async throws -> SessionOutcome {
        let recording = try loadRecording(path, choice: choice)
        // A runner's event of another name ("lap", "Pause") was passed over without a word.
        let unknown = recording.entries.compactMap { entry -> String? in
            guard case .event(_, RecordingFormat.runnerDevice, let name) = entry, UserCommand(rawValue: name) == nil else { return nil }
            return name
        }
        if !unknown.isEmpty {
            let names = Set(unknown).sorted().joined(separator: ", ")
            logger.warning(
                "\(path): \(unknown.count) of the runner's events (\(RecordingFormat.runnerDevice)) name no command: \(names); left out (the commands are pause, resume, next and finish)")
        }
        var request = request
        // Scored, not kept: saved second by second, a replay of three lines weeks apart against
        // an open step made a session of weeks and 289 MB in the store (`history import` refuses it).
        if request.store != nil, let gap = recording.firstGap(atLeast: .seconds(86_400)) {
            logger.warning(
                "\(path): readings a day or more apart (\(formatClock(gap.from.seconds)) to \(formatClock(gap.to.seconds))): not one run to keep, so not saved")
            request.store = nil
        }
        return try await runSession(
            request, source: ReplaySource(header: recording.header, entries: recording.entries),
            cadenceUnits: recording.header.cadenceUnits, follower: follower)
    }

    /// A session on live sensors: Bluetooth, an ANT stick, or both (`LiveSensorSet`). Throws
    /// `UnavailableError` before anything started when there is no sensor to use.
    private static func runLive(
        _ request: SessionRequest, _ sensorRequest: SensorRequest, requireCadence: Bool, follower: (any SessionFollower)?
    ) async throws -> SessionOutcome {
        // Another intervalpro recording a live session (the page of `serve`, another terminal)
        // has the sensors: a run beside it fell back to a simulated runner, saved as a second
        // session of the same minutes. A server's own sessions are its own; it refuses beside
        // another's (`SessionHost`).
        if let store = try? (request.store ?? StoreLocation()).open(readingOnly: true),
            let other = try? store.sessionsRunning(
                elsewhereThan: ProcessIdentity.current(), from: .live, isRunning: ProcessIdentity.isRunning
            ).first
        {
            throw LaunchError(
                "session \(other) is being recorded from live sensors by another intervalpro (the page of `serve`, or "
                    + "another terminal), which has them: finish it there first", kind: .unavailable)
        }
        // Start-up is over: its pages go back before the sensors and the session need theirs.
        CodePages.giveBack()
        let sensors: LiveSensorSet
        do {
            // Ctrl-C at the terminal ends connecting too; a server keeps its own handling.
            sensors = try await LiveSensorSet.connect(
                sensorRequest, cadenceUnit: request.cadenceUnit, requireCadence: requireCadence,
                interrupt: request.display.steering ? .ctrlC() : nil)
        } catch is LiveSensorConnection.InterruptedError {
            throw LaunchError("stopped while connecting to the sensors; nothing was kept", kind: .cancelled)
        }
        // Live sensors arrive in real time, and so does the metronome.
        var realTime = request
        if request.fast || request.speed.map({ $0 != 1 }) ?? false {
            logger.notice("live sensors run in real time; --fast and --speed apply to the fallback only")
            realTime.fast = false
            realTime.speed = nil
        }
        sensors.feed.begin()
        let outcome: SessionOutcome
        do {
            // The session runs on the sensors' loop: a value reaches the engine in the same wake-up.
            outcome = try await sensors.run {
                try await runSession(
                    realTime, source: LiveSource(feed: sensors.feed, arrivals: sensors.arrivals, devices: sensors.devices),
                    cadenceUnits: sensors.devices.cadenceUnits, probe: LatencyProbe(feed: sensors.feed), follower: follower,
                    wake: { [arrivals = sensors.arrivals] in arrivals.raiseSoon() },
                    wakeOnInput: { descriptor, drain in sensors.wakeOnInput(descriptor, drain: drain) })
            }
        } catch {
            await sensors.stop()
            throw error
        }
        await sensors.stop()
        return outcome
    }

    /// Wires a plan, a source and the request into a running session.
    private static func runSession<Source: SessionSource>(
        _ request: SessionRequest, source: Source, cadenceUnits: [String: CadenceUnit], probe: LatencyProbe? = nil,
        follower: (any SessionFollower)?, wake: (@Sendable () -> Void)? = nil,
        wakeOnInput: ((Int32, (@Sendable () -> Void)?) -> Void)? = nil
    ) async throws -> SessionOutcome {
        let plan = request.plan
        let units = source.devices.cadenceUnitsOverridden(cadenceUnits, by: request.cadenceUnit)
        // Live sensors arrive in real time whatever the request says.
        let pacing: Pacing =
            source.isLive ? .realTime(speed: 1) : request.fast ? .virtual : .realTime(speed: request.speed ?? 1)
        var recorder: RecordingWriter?
        if let path = request.recordPath {
            // With the plan, as a session's export carries it: imported, the recording is scored
            // against it again.
            let header = RecordingHeader(
                startedAt: WallClock.iso8601Now(), devices: source.devices.declaringCadenceUnit(request.cadenceUnit),
                planText: request.planText)
            do {
                recorder = try RecordingWriter(path: path, headerLine: RecordingLine.header(header))
                recorder?.syncsEachSecond = pacing != .virtual
            } catch {
                throw LaunchError(error)
            }
        }

        var companions: [any SessionObserver] = []
        // Sound that cannot play is said to the page too: a phone's runner who chose the
        // metronome heard nothing, and only the server's journal said why.
        let audio = request.audio.liveAudio(plan: plan, realTime: pacing == .realTime(speed: 1)) { text in
            warn(text)
            follower?.notice(text)
        }
        defer { audio?.finish() }
        // Music is followed when the session runs in real time. It hears the time before the
        // audio, which may synthesise a cue on hearing it (`SessionOrigin`).
        let music = pacing == .realTime(speed: 1) ? request.music.flatMap { MusicCompanion.start($0) } : nil
        if pacing != .realTime(speed: 1), request.music?.explicitlyRequested == true {
            let text = "the music player is followed only in real time (without --speed or --fast); it is left alone"
            warn(text)
            follower?.notice(text)
        }
        if let music {
            companions.append(music)
            audio?.cueSent = music.cueSent
        }
        if let audio { companions.append(audio) }
        if let probe { companions.append(probe) }
        let nowPlaying: @Sendable () -> String? = { [link = music?.link] in link?.nowPlaying }
        // Saving that stops is said on stderr, and to the page when one follows.
        var tell: (@Sendable (String) -> Void)?
        if let follower { tell = { text in follower.notice(text) } }
        let saving = request.store.flatMap { location in
            SessionSaving(location: location, planText: request.planText).start(
                plan: plan, source: source.kind, devices: source.devices, cadenceUnits: units,
                realTime: pacing != .virtual, tell: tell)
        }
        if let saving { companions.append(saving) }
        // Alpha 1 from the samples' beats, on its own thread; the screen and the page show it.
        let alphaOne = AlphaOneAnalysis()
        companions.append(alphaOne)
        if let follower { companions.append(follower.companion(devices: source.devices, nowPlaying: nowPlaying)) }
        // 1 Hz samples: the history keeps them, alpha 1 is computed from their beats.
        let engine = SessionEngine(
            plan: plan, source: source.kind, cadenceUnits: units, reportsSamples: true)

        // The screen wants real time; a replay on virtual time writes lines. Keys steer whatever
        // is drawn: with the summary to a file (--json), space, n and q did nothing.
        let display = request.display
        let screen = pacing == .virtual ? nil : display.screen
        let presenter = SessionPresenter(
            style: screen.map { .screen($0) } ?? .lines(display.lines), recorder: recorder,
            keyboard: pacing != .virtual && display.steering ? RawKeyboard() : nil, takesInterrupt: display.steering,
            devices: source.devices, nowPlaying: nowPlaying)
        if display.steering {
            InterruptSignal.install()
            // A live source waits for arrivals: keys and Ctrl-C are arrivals too.
            if let wakeOnInput {
                if let interrupt = InterruptSignal.descriptor { wakeOnInput(interrupt, InterruptSignal.drain) }
                if let keyboard = presenter.keyboard { wakeOnInput(keyboard.descriptor, nil) }
            }
        }

        var runner = SessionRunner(
            engine: engine, source: source,
            observer: ObserverGroup(presenter, companions: companions, decorate: { $0.alphaOne = alphaOne.latest }),
            pacing: pacing, clock: ContinuousClock())
        if audio != nil { runner.liveRefreshInterval = LiveAudio.refreshInterval }
        // A replay or a simulation waits on its clock: a command from the page rings it awake.
        var wake = wake
        var inputWake: InputWake?
        if wake == nil, !source.isLive {
            let doorbell = Doorbell()
            runner.doorbell = doorbell
            wake = { doorbell.ring() }
            // And so do a key and Ctrl-C, when they steer it.
            var inputs: [InputWake.Input] = []
            if let keyboard = presenter.keyboard { inputs.append(.init(descriptor: keyboard.descriptor, take: keyboard.readArrivedKeys)) }
            if display.steering, let interrupt = InterruptSignal.descriptor {
                inputs.append(.init(descriptor: interrupt, take: { InterruptSignal.drain(); return true }))
            }
            if pacing != .virtual, !inputs.isEmpty { inputWake = try? InputWake(inputs, ring: doorbell.ring) }
        }
        // Held until the session ends.
        defer { withExtendedLifetime(inputWake) {} }
        follower?.sessionStarted(wake: wake)
        defer { follower?.sessionEnded() }
        var summary: SessionSummary
        do {
            summary = try await runner.run()
        } catch {
            runner.observer.primary.finish()
            await music?.link.finish()
            throw LaunchError("the session stopped: \(error)", kind: .io)
        }
        runner.observer.primary.finish()
        summary.hrv = await alphaOne.finish().summary
        let writer = saving?.finishing(runner.engine)
        let saveFailure = writer?.finish(summary)
        let savedID = saveFailure == nil ? writer?.sessionID : nil
        let notSaved: String? =
            if let saveFailure { "not saved: \(saveFailure.reason)" } else if request.store != nil && writer == nil { "not saved: the session store could not be opened" } else { nil }
        follower?.sessionFinished(summary, at: runner.engine.cursor, sessionID: savedID, notSaved: notSaved)
        // The summary cue plays out (ducked), then the volume goes back and music this paused
        // plays, before anything is printed.
        audio?.finish()
        await music?.link.finish()
        return SessionOutcome(
            summary: summary, savedSessionID: savedID, saveFailed: request.store != nil && savedID == nil,
            recorded: request.recordPath != nil && runner.observer.primary.recorder != nil,
            unsavedSessionID: saveFailure == nil ? nil : writer?.sessionID, savedThrough: saveFailure == nil ? nil : writer?.savedThrough)
    }

    /// The bundled recording of an example plan: the one of the same name, if there is one (and none
    /// where the bundled recordings are not found: a binary copied out of its package simulates,
    /// as for a plan without one, rather than stop the run with 69).
    static func bundledRecording(for planFile: String) -> String? {
        guard let directory = BundledFiles.recordingsDirectory(), BundledFiles.isExamplePlan(resolvePlan(planFile)) else { return nil }
        let matching = "\(directory)/\(BundledFiles.stem(of: planFile)).jsonl"
        return BundledFiles.exists(matching) ? matching : nil
    }
}
