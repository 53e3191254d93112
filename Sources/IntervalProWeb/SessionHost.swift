public import IntervalProCore
import IntervalProHRV
import IntervalProStorage
public import IntervalProLaunch
import IntervalProIO
import IntervalProRuntime
import Synchronization
import Logging

/// The sessions a server runs: at most one at a time, started from the page through the
/// same launcher `run` uses, with its state published to `hub`.
public final class SessionHost: Sendable {
    public let hub: LiveStateHub
    /// What a session started from the page gets besides its plan and source.
    public struct Defaults: Sendable {
        public var sensors: SensorRequest
        public var audio: AudioChoice
        public var music: MusicRequest?
        /// Where sessions are saved (and the history is read from).
        public var store: StoreLocation
        /// Where a session's lines go: the server's log.
        public var display: SessionDisplay

        public init(sensors: SensorRequest, audio: AudioChoice, music: MusicRequest?, store: StoreLocation, display: SessionDisplay) {
            self.sensors = sensors
            self.audio = audio
            self.music = music
            self.store = store
            self.display = display
        }
    }

    /// Nil: the server shows a session started elsewhere (`run --web`) and starts none.
    let defaults: Defaults?
    /// The running session's task; `busy` from the moment one is accepted.
    private struct Running {
        var busy = false
        var task: Task<Void, Never>?
    }

    private let running = Mutex(Running())
    /// Sessions this server gave up saving part way (the disk was full): still marked running
    /// in the store, and as this process lives on, no other would close them.
    private let abandoned = Mutex<Set<Int64>>([])

    /// The page's sensor scan: what it found so far, whether it still runs, what went wrong.
    public struct ScanState: Sendable {
        public var scanning = false
        public var secondsLeft = 0
        public var sensors: [ScannedSensor] = []
        public var problems: [String] = []
    }

    private let scan = Mutex(ScanState())
    public var scanState: ScanState { scan.withLock { $0 } }

    public init(hub: LiveStateHub, defaults: Defaults?) {
        self.hub = hub
        self.defaults = defaults
    }

    public enum Source: String, Sendable, CaseIterable {
        case live, simulate, recording
        /// No runner: the metronome and the step cues alone.
        case metronome
    }

    public enum StartError: Error, Equatable {
        /// This server shows one session and starts none.
        case notHere
        case busy
        /// Session `session` is recorded by another program (`intervalpro run` in a terminal):
        /// said as such, where "a session is running" left the page's idle view unexplained.
        case busyElsewhere(session: Int64)
        /// The plan could not be read (with the reader's message).
        case unreadable(String)
    }

    /// The metronome and voice chosen on the start page for one session, on top of the
    /// server's own choice (`serve`'s options) and the plan's.
    public struct SoundChoice: Sendable, Equatable {
        public var metronome: MetronomeMode?
        public var volume: Double?
        public var voice: CueLanguage?
        public var noVoice = false

        public init(metronome: MetronomeMode? = nil, volume: Double? = nil, voice: CueLanguage? = nil, noVoice: Bool = false) {
            self.metronome = metronome
            self.volume = volume
            self.voice = voice
            self.noVoice = noVoice
        }
    }

    /// Starts a session of a plan file in the background; its state reaches the hub.
    public func start(
        plan: WebCatalogue.Entry, source: Source, recording: WebCatalogue.Entry?, speed: Double?, sound: SoundChoice = .init()
    ) throws(StartError) {
        guard defaults != nil else { throw .notHere }
        let loaded: (plan: Plan, text: String)
        do {
            loaded = try loadPlanKeepingText(plan.path)
        } catch let failure as LaunchError {
            throw .unreadable(failure.message)
        } catch {
            throw .unreadable("\(error)")
        }
        try start(loaded: loaded, planFile: plan.path, source: source, recording: recording, speed: speed, sound: sound)
    }

    /// Starts a session of a plan already read (a planned run from intervals.icu, named after
    /// its event); `planFile` finds its bundled recording, if any.
    public func start(
        loaded: (plan: Plan, text: String), planFile: String, source: Source, recording: WebCatalogue.Entry?, speed: Double?,
        sound: SoundChoice = .init()
    ) throws(StartError) {
        guard let defaults else { throw .notHere }
        let timeline = loaded.plan.timeline()
        let requestSource: SessionRequest.Source =
            switch source {
            case .live: .live(defaults.sensors, fallback: .simulate)
            case .simulate: .simulate(.covering(timeline))
            case .recording: .replay(path: recording?.path ?? "")
            case .metronome: .noRunner
            }
        var request = SessionRequest(plan: loaded.plan, planText: loaded.text, planFile: planFile, source: requestSource)
        request.speed = speed
        request.audio = defaults.audio
        if let metronome = sound.metronome { request.audio.mode = metronome }
        if let volume = sound.volume { request.audio.volume = volume }
        if let voice = sound.voice {
            request.audio.voice = voice
            request.audio.noVoice = false
        }
        if sound.noVoice { request.audio.noVoice = true }
        request.music = defaults.music
        request.store = defaults.store
        request.display = defaults.display
        try claim()
        let (name, hub, accepted) = (loaded.plan.name, self.hub, request)
        hub.sessionAccepted(plan: name, steps: timeline.count)
        occupy {
            var failure: String?
            do {
                let outcome = try await SessionLauncher.run(accepted, follower: hub)
                let saved = outcome.savedSessionID.map { ", saved as session \($0)" } ?? ""
                logger.notice("session of \(name) finished\(saved)")
                if let unsaved = outcome.unsavedSessionID {
                    self.abandoned.withLock { _ = $0.insert(unsaved) }
                    self.closeAbandonedSessions()
                }
            } catch let launch as LaunchError {
                failure = launch.message
            } catch {
                failure = "\(error)"
            }
            guard let failure else { return }
            logger.error("\(failure)")
            // Started, it ended as sessions end; not started, the state still says it is starting.
            if hub.isStarting { hub.sessionNotStarted(failure) }
        }
    }

    /// Starts a readiness measurement on the live strap in the background (`duration`
    /// minutes scored); its progress and result reach the hub as `"status": "readiness"`
    /// states, and it is saved as `readiness` saves one.
    public func startReadiness(duration: Double) throws(StartError) {
        guard let defaults else { throw .notHere }
        try claim()
        let hub = self.hub
        hub.readinessStarted()
        hub.publishReadiness([("phase", .string("connecting"))])
        occupy {
            // Sent on once the slot is free: a service that does not answer held the page's
            // next session off for two minutes after "done".
            var sendOn: (@Sendable () async -> Void)?
            let settings = ReadinessMeasurement.Settings(duration: .seconds(duration * 60))
            do {
                let outcome = try await ReadinessRun.live(
                    defaults.sensors, settings: settings, interruptible: false, stop: { hub.takeFinish() },
                    status: { status in hub.publishReadiness(Self.progress(status)) })
                if let outcome {
                    if let notSet = ReadinessRun.clockNotSet() { logger.warning("readiness: \(notSet)") }
                    // One reading of the clock: the day, the moment and the clock time of it.
                    let takenAt = WallClock.iso8601Now()
                    let now = UTCTimestamp.unixSeconds(takenAt) ?? 0
                    let scored = try ReadinessRun.score(
                        outcome, source: .live, localDate: WallClock.localDate(unixSeconds: now), takenAt: takenAt,
                        localTime: WallClock.localTime(unixSeconds: now), save: defaults.store, store: defaults.store)
                    var result = ReadinessJSON.measurement(scored.record)
                    result.append(("assessment", ReadinessJSON.assessment(scored.assessment)))
                    result.append(("not_saved", scored.saveFailure.map(JSONValue.string) ?? .null))
                    hub.publishReadiness([("phase", .string("done")), ("result", .object(result))])
                    if let failure = scored.saveFailure {
                        logger.warning("readiness measured, not saved: \(failure)")
                    } else {
                        logger.notice("readiness measured, saved as measurement \(scored.record.id ?? 0)")
                    }
                    // As `readiness` sends it when the account asks for every measurement: the
                    // phone's never reached intervals.icu, which kept an earlier one as the day's.
                    if scored.saveFailure == nil, let id = scored.record.id,
                        let services = try? ReadinessReport.services(required: false, verbose: false)
                    {
                        let shown = result
                        sendOn = {
                            guard let written = try? await ReadinessCheck.sendToWellness(
                                readiness: id, store: defaults.store, services: services, asked: false),
                                let said = UploadReport([], wellness: [written]).lines.first?.text
                            else { return }
                            logger.notice("\(said)")
                            let done: [(String, JSONValue)] = [("phase", .string("done")), ("result", .object(shown))]
                            hub.amendReadiness(
                                done, to: [("phase", .string("done")), ("result", .object(shown + [("wellness", .string(said))]))])
                        }
                    }
                } else {
                    hub.publishReadiness([("phase", .string("cancelled"))])
                }
            } catch let failure as LaunchError {
                hub.publishReadiness([("phase", .string("failed")), ("error", .string(failure.message))])
                logger.notice("readiness: \(failure.message)")
            } catch {
                hub.publishReadiness([("phase", .string("failed")), ("error", .string("\(error)"))])
            }
            hub.readinessEnded()
            if let sendOn { Task { await sendOn() } }
        }
    }

    /// Scans for sensors in the background as `scan` does, Bluetooth and ANT+; never while a
    /// session or a measurement runs (it would take their radio), and neither starts meanwhile.
    public func startScan(seconds: Double) throws(StartError) {
        guard let defaults else { throw .notHere }
        try claim()
        scan.withLock { $0 = ScanState(scanning: true, secondsLeft: Int(seconds.rounded(.up))) }
        let progress: @Sendable ([ScannedSensor], Int) -> Void = { [weak self] found, left in
            self?.scan.withLock { state in
                state.sensors = found
                state.secondsLeft = left
            }
        }
        occupy { [weak self] in
            do {
                let result = try await SensorScan.run(
                    adapter: defaults.sensors.adapter, antStick: defaults.sensors.antStick, seconds: seconds, progress: progress)
                self?.scan.withLock { $0 = ScanState(scanning: false, sensors: result.sensors, problems: result.problems) }
            } catch {
                self?.scan.withLock { state in
                    state.scanning = false
                    state.secondsLeft = 0
                    state.problems = ["\(error)"]
                }
            }
        }
    }

    /// Closes the sessions this server gave up saving as interrupted, scored up to what was
    /// saved, once the store takes the write (after the session, at the next start, when the
    /// history is read or a session deleted); those it still refuses wait for the next time.
    public func closeAbandonedSessions() {
        let waiting = abandoned.withLock { $0 }
        guard !waiting.isEmpty, let location = defaults?.store, let store = try? location.open() else { return }
        for id in waiting {
            do throws(StoreError) {
                if try store.closeAbandoned(session: id) != nil {
                    logger.notice("session \(id) kept as interrupted, scored up to what was saved")
                }
                abandoned.withLock { _ = $0.remove(id) }
            } catch {
                continue
            }
        }
    }

    /// Claims the one slot sessions, measurements and scans share (one radio, one sound
    /// output); `.busy` when it is taken, or a session another program records runs (an
    /// `intervalpro run` in a terminal: the page's scan or session would take its sensors).
    private func claim() throws(StartError) {
        closeAbandonedSessions()
        if let store = try? defaults?.store.open(readingOnly: true),
            let elsewhere = try? store.sessionsRunning(elsewhereThan: ProcessIdentity.current(), isRunning: ProcessIdentity.isRunning),
            let session = elsewhere.first
        {
            throw .busyElsewhere(session: session)
        }
        let hub = self.hub
        let accepted = running.withLock { running in
            guard !running.busy, !hub.isRunning else { return false }
            running.busy = true
            return true
        }
        guard accepted else { throw .busy }
    }

    /// Runs `work` in the background in the claimed slot, and frees the slot when it is done.
    private func occupy(_ work: @escaping @Sendable () async -> Void) {
        let hub = self.hub
        let task = Task { [weak self] in
            await work()
            self?.running.withLock { $0 = Running() }
            IdleMemory.releaseWhenIdle(hub)
        }
        running.withLock { if $0.busy { $0.task = task } }
    }

    static func progress(_ status: ReadinessRun.Status) -> [(String, JSONValue)] {
        let p = status.progress
        let phase: String =
            switch p.phase {
            case .waiting: "waiting"
            case .settling: "settling"
            case .measuring: "measuring"
            case .noContact: "noContact"
            case .noSignal: "noSignal"
            case .complete: "complete"
            }
        return [
            ("phase", .string(phase)), ("timeLeft", .number(p.timeLeft.seconds.rounded())),
            ("heartRate", p.heartRate.map { .int(Int($0)) } ?? .null), ("aboveRestingRate", .bool(p.aboveRestingRate)),
            ("intervalsFromHeartRate", .bool(p.intervalsFromHeartRate)),
            ("beats", .int(p.beats)),
            ("artifacts", .int(status.artifactsSoFar)), ("device", status.device.map { .string($0.label) } ?? .null),
        ]
    }

    /// Finishes the running session, if any, and waits until it is saved.
    public func finishRunning() async {
        guard let task = running.withLock({ $0.task }) else { return }
        _ = hub.send(.finish)
        await task.value
    }
}
