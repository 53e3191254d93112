public import IntervalProCore
public import IntervalProLaunch
public import IntervalProRuntime
import Synchronization

/// The live state of the session a process runs, for readers elsewhere (the web page): the
/// latest state as JSON, a stream of every state published, and commands sent back.
///
/// The session side publishes (through `LiveStatePublisher`); readers never reach into the
/// engine. Each state carries a `seq` one higher than the last, so a reader can tell when it
/// missed one.
public final class LiveStateHub: Sendable {
    /// How many states a slow reader may fall behind before the oldest are dropped (it then
    /// sees a gap in `seq`): memory stays bounded whatever the reader does.
    public static let readerBacklog = 256

    private struct State {
        var seq = 0
        var text = ""
        /// What `text` says, member by member.
        var members: [(String, JSONValue)] = []
        var running = false
        /// What runs is a readiness measurement: `finish` (which cancels it) is its one command.
        var measuring = false
        var readers: [Int: AsyncStream<String>.Continuation] = [:]
        var nextReader = 0
        var commands: [UserCommand] = []
        /// The number of the step running, as the last state shows it, and the step a `next`
        /// waiting in `commands` ends.
        var step: Int?
        var nextQueuedFor: Int?
        /// The steps of the running session's plan, as its state shows them.
        var stepCount: Int?
        var notice: String?
        var wake: (@Sendable () -> Void)?
        /// Readers inside `forEachState`, and who waits for them to be done.
        var delivering = 0
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Held while states are handed to the readers, so that each reader gets them in order,
    /// and never with `state` held: a reader's stream ends (`onTermination`, which takes
    /// `state`) under its task's lock, which `yield` takes too. Yielding with `state` held,
    /// a phone's socket closing during a fast replay deadlocked the server: every route hung,
    /// and only SIGKILL ended it.
    private let delivery = Mutex(())

    public init() {
        publish([("status", .string("idle"))])
    }

    /// The latest state, as JSON text.
    public var current: String { state.withLock { $0.text } }

    public var isRunning: Bool { state.withLock { $0.running } }

    /// A session accepted whose first state is not published yet.
    var isStarting: Bool {
        state.withLock { state in
            guard state.running, case .string("starting")? = state.members.first(where: { $0.0 == "status" })?.1 else { return false }
            return true
        }
    }

    /// Every state from now on, starting with the current one. The stream ends when the
    /// reader's task is cancelled or `stop` is called.
    public func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: String.self, bufferingPolicy: .bufferingNewest(Self.readerBacklog))
        let id = delivery.withLock { _ in
            let (id, text) = state.withLock { state in
                let id = state.nextReader
                state.nextReader += 1
                state.readers[id] = continuation
                return (id, state.text)
            }
            continuation.yield(text)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.readers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `body` with every state from now on, until `stop` (or cancellation, or `body`
    /// throwing); `stop(waitingUpTo:)` waits for such readers to have handed on what they had.
    public func forEachState(_ body: (String) async throws -> Void) async rethrows {
        let states = subscribe()
        state.withLock { $0.delivering += 1 }
        defer {
            let waiting = state.withLock { state in
                state.delivering -= 1
                guard state.delivering == 0 else { return [CheckedContinuation<Void, Never>]() }
                defer { state.drained.removeAll() }
                return state.drained
            }
            for waiter in waiting { waiter.resume() }
        }
        for await text in states { try await body(text) }
    }

    /// Ends every reader's stream (the session is over, the server is shutting down).
    public func stop() {
        let readers = state.withLock { state in
            defer { state.readers.removeAll() }
            return Array(state.readers.values)
        }
        for reader in readers { reader.finish() }
    }

    /// Ends every reader's stream, then waits until the readers in `forEachState` have
    /// handed on what they had (the finished state) or `limit` passes.
    public func stop(waitingUpTo limit: Duration) async {
        stop()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    let done = self.state.withLock { state in
                        if state.delivering == 0 { return true }
                        state.drained.append(waiter)
                        return false
                    }
                    if done { waiter.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Queues a command for the running session; false when none runs.
    public func send(_ command: UserCommand) -> Bool {
        send(command, endingStep: nil) != .noSession
    }

    public enum Sent: Equatable, Sendable {
        case queued
        /// A `next` for a step that has ended, or that a `next` queued already ends.
        case stepAlreadyEnded
        /// A `next` for a step past the plan's last: it has `count`.
        case noSuchStep(count: Int)
        case noSession
        /// Pause, resume or next while a readiness measurement runs: it has no steps to skip,
        /// and a pause would spoil it (they were answered "accepted" and did nothing).
        case notDuringMeasurement
    }

    /// Queues a command; a `next` given `endingStep` (the step number the sender saw) only
    /// while that step runs and no `next` waits to end it: two phones tapping Next on the
    /// same step, or one tapping before it heard the step change, skipped two steps.
    public func send(_ command: UserCommand, endingStep: Int?) -> Sent {
        let outcome: (Sent, (@Sendable () -> Void)?) = state.withLock { state in
            guard state.running else { return (.noSession, nil) }
            if state.measuring, command != .finish { return (.notDuringMeasurement, nil) }
            if command == .next, let endingStep {
                if let count = state.stepCount, endingStep > count { return (.noSuchStep(count: count), nil) }
                guard state.step == endingStep, state.nextQueuedFor != endingStep else { return (.stepAlreadyEnded, nil) }
                state.nextQueuedFor = endingStep
            }
            state.commands.append(command)
            return (.queued, state.wake)
        }
        outcome.1?()
        return outcome.0
    }

    /// A session of `plan` is accepted, and starts once its recording is read or its sensors
    /// connect: the state says so at once, and commands are kept for it from now on. Until its
    /// first state, a start answered 201 left the previous session's state shown, and a
    /// command sent then was refused, "no session is running", and lost.
    public func sessionAccepted(plan: String, steps: Int) {
        state.withLock { state in
            state.running = true
            state.measuring = false
            state.commands.removeAll()
            state.nextQueuedFor = nil
            state.wake = nil
        }
        // A `next` for its first step ends that step once it runs.
        publish([("status", .string("starting")), ("plan", .string(plan)), ("sessionId", .null)], step: 1, of: steps)
    }

    /// An accepted session did not start (its recording unreadable, no sensor found): said,
    /// and the commands kept for it dropped.
    public func sessionNotStarted(_ reason: String) {
        sessionEnded()
        publish([("status", .string("idle")), ("notice", .string(reason))])
    }

    /// A session starts: commands are taken from now on (and those sent since it was accepted);
    /// `wake` rouses a runner that waits on its source (live sensors) rather than on a timer.
    public func sessionStarted(wake: (@Sendable () -> Void)?) {
        let queued = state.withLock { state in
            state.running = true
            state.measuring = false
            state.wake = wake
            return !state.commands.isEmpty
        }
        if queued { wake?() }
    }

    public func sessionEnded() {
        state.withLock { state in
            state.running = false
            state.commands.removeAll()
            state.wake = nil
        }
    }

    /// A notice for the running session's page (saving stopped), shown with its next state.
    public func notice(_ text: String) {
        state.withLock { $0.notice = text }
    }

    func takeNotice() -> String? {
        state.withLock { state in
            defer { state.notice = nil }
            return state.notice
        }
    }

    func takeCommands() -> [UserCommand] {
        state.withLock { state in
            defer { state.commands.removeAll() }
            return state.commands
        }
    }

    /// A readiness measurement takes the hub as a session does: no session starts meanwhile,
    /// its states reach the same readers (`"status": "readiness"`), and `finish` cancels it.
    public func readinessStarted() {
        sessionStarted(wake: nil)
        state.withLock { $0.measuring = true }
    }

    public func readinessEnded() {
        sessionEnded()
        state.withLock { $0.measuring = false }
    }

    public func publishReadiness(_ members: [(String, JSONValue)]) {
        publish([("status", .string("readiness"))] + members)
    }

    /// The measurement's done state again, amended (what came of sending it on), unless the
    /// page has moved on: a session or a measurement started meanwhile is not drawn over.
    public func amendReadiness(_ shown: [(String, JSONValue)], to amended: [(String, JSONValue)]) {
        let expected = JSONValue.object([("status", .string("readiness"))] + shown).serialized(pretty: false)
        let current = state.withLock { JSONValue.object($0.members).serialized(pretty: false) }
        guard !isRunning, current == expected else { return }
        publishReadiness(amended)
    }

    /// True when `finish` was sent since the last call (the measurement is to be cancelled).
    public func takeFinish() -> Bool { takeCommands().contains(.finish) }

    /// The finished session was deleted: the state no longer names it (its report link gave a
    /// 404 to every phone still showing the summary).
    public func sessionDeleted(_ id: Int64) {
        let members = state.withLock { $0.members }
        guard let index = members.firstIndex(where: { $0.0 == "sessionId" }), case .int(let shown) = members[index].1, shown == Int(id)
        else { return }
        var forgotten = members
        forgotten[index].1 = .null
        publish(forgotten)
    }

    /// Publishes a state: `seq` first, then `members`; `step` the number of the step it shows
    /// running, of `count`.
    func publish(_ members: [(String, JSONValue)], step: Int? = nil, of count: Int? = nil) {
        delivery.withLock { _ in
            let (text, readers) = state.withLock { state in
                state.members = members
                state.step = step
                state.stepCount = count
                state.seq += 1
                state.text = JSONValue.object([("seq", .int(state.seq))] + members).serialized(pretty: false)
                return (state.text, Array(state.readers.values))
            }
            for reader in readers { reader.yield(text) }
        }
    }
}

/// Publishes a running session's state to a `LiveStateHub` whenever what it shows changes,
/// and hands the hub's commands to the runner. A companion of the session like the screen:
/// it sees the same engine output, and adds no timer of its own.
public struct LiveStatePublisher: SessionObserver {
    let hub: LiveStateHub
    /// What the runner's music player plays.
    let nowPlaying: @Sendable () -> String?
    /// The session's devices: notices name them.
    let devices: [RecordedDevice]
    private var last: SessionView?
    private var lastMusic: String?
    private var notice: String?

    public init(hub: LiveStateHub, devices: [RecordedDevice] = [], nowPlaying: @escaping @Sendable () -> String? = { nil }) {
        self.hub = hub
        self.devices = devices
        self.nowPlaying = nowPlaying
    }

    public mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        for action in actions {
            if case .deviceEvent(let device, let name) = action { notice = "\(devices.displayName(of: device)) \(name)" }
        }
    }

    /// Every batch and every tick of a running session: a state is published only when what
    /// the page shows changed. The finished state, with the summary and the saved id, comes
    /// from the launcher.
    public func showsView(after actions: [SessionEngine.Action]?, of engine: SessionEngine) -> Bool { !engine.isFinished }

    public mutating func show(_ view: SessionView) { show(view, force: false) }

    public mutating func notice(_ text: String) {
        notice = text
        if let last { show(last, force: true) }
    }

    public mutating func pendingCommands() -> [UserCommand] {
        if let text = hub.takeNotice() { notice(text) }
        return hub.takeCommands()
    }

    private mutating func show(_ view: SessionView, force: Bool) {
        let music = nowPlaying()
        if !force, let last, last.sameShown(as: view), music == lastMusic { return }
        last = view
        lastMusic = music
        hub.publish(Self.members(view, notice: notice, music: music), step: view.step.map { $0.index + 1 }, of: view.step?.count)
    }

    /// The finished session: its summary, and the saved session's id.
    static func finished(
        _ summary: SessionSummary, at position: SessionTime, sessionID: Int64?, notice: String? = nil, to hub: LiveStateHub
    ) {
        var members: [(String, JSONValue)] = [
            ("status", .string("finished")),
            ("sessionTime", .number(summary.duration.seconds.rounded(toPlaces: 3))),
            ("position", .number(position.seconds.rounded(toPlaces: 3))),
            ("plan", .string(summary.plan)),
            ("source", .string(summary.source.rawValue)),
            ("paused", .bool(false)),
        ]
        members += [
            ("step", .null), ("cadence", .null), ("zone", .null), ("advice", .null), ("heartRate", .null),
            ("alpha1", .null),
            ("inZonePercent", .nullable(summary.inZonePercent?.rounded(toPlaces: 1))), ("signal", .bool(false)),
            ("notice", notice.map(JSONValue.string) ?? .null), ("music", .null), ("summary", summary.json),
            ("sessionId", sessionID.map { .int(Int($0)) } ?? .null),
            // Whole numbers from the exact averages, as `show` and the screen print them: the
            // summary's are rounded to a tenth, and rounding 151.5 again said 152 beside 151.
            ("averageCadence", .nullable(summary.averageCadence?.rounded())),
            ("averageHeartRate", .nullable(summary.averageHeartRate?.rounded())),
        ]
        hub.publish(members)
    }

    /// `{"status": "scored", "value": 0.82, "artifactPercent": 1.2}`, or null without beats.
    static func alphaOneMember(_ window: AlphaWindow?) -> JSONValue {
        guard let window else { return .null }
        return .object([
            ("status", .string(window.status.rawValue)),
            ("value", .nullable(window.alpha1?.rounded(toPlaces: 2))),
            ("artifactPercent", .number((100 * window.artifactShare).rounded(toPlaces: 1))),
        ])
    }

    /// The state's members for a running session (see docs/reference/web-api.md, "State").
    static func members(_ view: SessionView, notice: String?, music: String?) -> [(String, JSONValue)] {
        let step: JSONValue = view.step.map { step in
            let end: String =
                switch step.end {
                case .time: "time"
                case .distance: "distance"
                case .open: "open"
                }
            return .object([
                ("number", .int(step.index + 1)),
                ("count", .int(step.count)),
                ("title", .string(step.title)),
                ("end", .string(end)),
                ("timeLeft", step.secondsLeft.map { .int($0) } ?? .null),
                ("distanceLeft", .nullable(step.metresLeft?.rounded())),
                ("elapsed", .int(Int(step.elapsed.microseconds / 1_000_000))),
                ("progress", .nullable(step.progress?.rounded(toPlaces: 3))),
            ])
        } ?? .null
        let zone: JSONValue = view.step?.zone.map { zone in
            .object([("low", .number(zone.low)), ("target", .number(zone.target)), ("high", .number(zone.high))])
        } ?? .null
        let kind: String =
            switch view.feedback {
            case .faster: "faster"
            case .slower: "slower"
            case .inZone: "inZone"
            case .noSignal: "noSignal"
            case .noZone: "noZone"
            }
        return [
            ("status", .string("running")),
            ("sessionTime", .number(view.runTime.seconds.rounded(toPlaces: 3))),
            ("position", .number(view.time.seconds.rounded(toPlaces: 3))),
            ("plan", .string(view.planName)),
            ("source", .string(view.source.rawValue)),
            ("paused", .bool(view.isPaused)),
            ("step", step),
            ("cadence", view.cadence.map { .int(Int($0.rounded())) } ?? .null),
            ("zone", zone),
            ("advice", .object([("kind", .string(kind)), ("text", .string(view.feedback.description))])),
            ("heartRate", view.heartRate.map { .int($0) } ?? .null),
            ("alpha1", alphaOneMember(view.alphaOne)),
            ("inZonePercent", .nullable(view.inZonePercent?.rounded(toPlaces: 1))),
            ("signal", .bool(view.hasSignal)),
            ("notice", notice.map { .string($0) } ?? .null),
            ("music", music.map { .string($0) } ?? .null),
            ("summary", .null),
            ("sessionId", .null),
        ]
    }
}

/// The launcher's sessions reach the page through the hub.
extension LiveStateHub: SessionFollower {
    public func companion(devices: [RecordedDevice], nowPlaying: @escaping @Sendable () -> String?) -> any SessionObserver {
        LiveStatePublisher(hub: self, devices: devices, nowPlaying: nowPlaying)
    }

    public func sessionFinished(_ summary: SessionSummary, at position: SessionTime, sessionID: Int64?, notSaved: String?) {
        LiveStatePublisher.finished(summary, at: position, sessionID: sessionID, notice: notSaved, to: self)
    }
}
