import IntervalProCore
import IntervalProRuntime
import Synchronization
import Testing

/// A clock that moves only when told: whoever sleeps on it waits until `advance` passes its
/// deadline (or its task is cancelled).
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var next = 0
        /// Whoever waits in `someoneSleeps()` for the first sleep.
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Returns once something is asleep on this clock. It waits without spinning: on a test
    /// process's busy pool, a task yielding in a loop holds a thread the sleeper needs.
    func someoneSleeps() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let asleep = state.withLock { state in
                if !state.sleepers.isEmpty { return true }
                state.watchers.append(continuation)
                return false
            }
            if asleep { continuation.resume() }
        }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state in
                    if state.now >= deadline || Task.isCancelled { return (true, [CheckedContinuation<Void, Never>]()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    defer { state.watchers = [] }
                    return (false, state.watchers)
                }
                if resumeNow { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }
}

/// Sends `finish` once told to.
final class FinishSwitch: Sendable {
    let pressed = Mutex(false)
}

struct FinishOnRequest: SessionObserver {
    let button: FinishSwitch

    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {}

    mutating func pendingCommands() -> [UserCommand] {
        button.pressed.withLock { pressed in
            defer { pressed = false }
            return pressed ? [.finish] : []
        }
    }
}

@Suite struct DoorbellTests {
    @Test func aRingWhileNobodyWaitsIsKeptForTheNextWait() async {
        let doorbell = Doorbell()
        doorbell.ring()
        await doorbell.wait()
    }

    // A runner that ignored the doorbell would sleep on the stand-in clock for ever: the
    // time limit turns that into a failure. It is generous because it is not a speed test: in
    // `make test` this process runs some 600 tests on two busy cores, and one minute was
    // once not enough for a session to reach its first sleep.
    /// A ten-minute step on a replay with nothing in it, paced in real time on `clock`, asleep
    /// on it once this returns; `finish` is sent when `button` is pressed.
    static func sleepingSession(
        clock: ManualClock, button: FinishSwitch, doorbell: Doorbell?
    ) async throws -> Task<SessionSummary, any Error> {
        let plan = try plan(#"{"name": "Long", "steps": [{"kind": "work", "duration": 600, "cadence": 170}]}"#)
        let session = Task {
            var runner = SessionRunner(
                engine: SessionEngine(plan: plan, source: .replay),
                source: ReplaySource(header: RecordingHeader(startedAt: nil, devices: []), entries: []),
                observer: FinishOnRequest(button: button), pacing: .realTime(speed: 1), clock: clock)
            runner.doorbell = doorbell
            return try await runner.run()
        }
        await clock.someoneSleeps()
        return session
    }

    @Test(
        "a session paced in real time acts on a command when the doorbell rings, not when its clock next comes round",
        .timeLimit(.minutes(5)))
    func aCommandWakesARealTimeSession() async throws {
        let clock = ManualClock()
        let button = FinishSwitch()
        let doorbell = Doorbell()
        let session = try await Self.sleepingSession(clock: clock, button: button, doorbell: doorbell)
        button.pressed.withLock { $0 = true }
        doorbell.ring()
        let summary = try await session.value
        #expect(summary.steps.first?.endedBy == .finished)
        #expect(clock.now == ManualClock.Instant(offset: .zero), "the clock never moved: the doorbell woke the runner")
    }

    @Test(.timeLimit(.minutes(5)))
    func withoutADoorbellTheRunnerWaitsForItsClock() async throws {
        let clock = ManualClock()
        let button = FinishSwitch()
        let session = try await Self.sleepingSession(clock: clock, button: button, doorbell: nil)
        button.pressed.withLock { $0 = true }
        // Nothing rings: the command waits for the runner's next look, a display interval on.
        clock.advance(by: .milliseconds(250))
        let summary = try await session.value
        #expect(summary.steps.first?.endedBy == .finished)
        #expect(clock.now == ManualClock.Instant(offset: .milliseconds(250)))
    }
}

/// Hands the runner the commands queued from the test.
final class CommandQueue: Sendable {
    let queued = Mutex<[UserCommand]>([])
    func push(_ command: UserCommand) { queued.withLock { $0.append(command) } }
}

/// Takes the queued commands, and keeps the ones applied as a recording does.
struct QueuedCommands: SessionObserver {
    let queue: CommandQueue
    var applied: [RecordingEntry] = []

    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {}

    mutating func pendingCommands() -> [UserCommand] {
        queue.queued.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
    }

    mutating func commandApplied(_ command: UserCommand, at now: SessionTime) {
        applied.append(.event(time: now, device: RecordingFormat.runnerDevice, name: command.rawValue))
    }
}

@Suite struct CommandAtAReadingTests {
    /// A key taken as the clock reached a reading was applied before that reading, which a
    /// replay of the recording puts after it: the reading's metres went to the step the key
    /// ended live and to the next one replayed.
    @Test(
        "a command taken as the clock reaches a reading follows it, as its recording replays",
        .timeLimit(.minutes(5)))
    func commandFollowsTheReadingOfItsTime() async throws {
        let plan = try plan(#"{"name": "Two", "steps": [{"kind": "work", "duration": 600, "cadence": 170}, {"kind": "work", "duration": 600, "cadence": 170}]}"#)
        // 2.56 m/s at 170 spm, every half second.
        let entries = (1...6).map { half in
            RecordingEntry.notification(
                RawNotification(time: .seconds(Double(half) / 2), device: "D", characteristic: .rscMeasurement, bytes: [0x00, 0x90, 0x02, 0xAA]))
        }
        let header = RecordingHeader(startedAt: nil, devices: [])
        let clock = ManualClock()
        let queue = CommandQueue()
        let session = Task {
            var runner = SessionRunner(
                engine: SessionEngine(plan: plan, source: .replay), source: ReplaySource(header: header, entries: entries),
                observer: QueuedCommands(queue: queue), pacing: .realTime(speed: 1), clock: clock)
            runner.displayInterval = .seconds(10)
            let summary = try await runner.run()
            return (summary, runner.observer.applied)
        }
        // Asleep until the reading at 0.5 s, then 1 s; `n` arrives as the clock reaches 1 s.
        for half in 1...2 {
            await clock.someoneSleeps()
            if half == 2 { queue.push(.next) }
            clock.advance(by: .milliseconds(500))
        }
        await clock.someoneSleeps()
        queue.push(.finish)
        clock.advance(by: .milliseconds(500))
        let (live, applied) = try await session.value
        #expect(applied.map(\.time) == [.seconds(1), .seconds(1.5)])
        #expect(live.steps.count == 2 && live.steps[0].endedBy == .next)

        var replay = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay), source: ReplaySource(header: header, entries: entries + applied),
            observer: QueuedCommands(queue: CommandQueue()), pacing: .virtual, clock: clock)
        let replayed = try await replay.run()
        #expect(replayed.steps.map(\.distance) == live.steps.map(\.distance))
        #expect(replayed == live)
    }
}
