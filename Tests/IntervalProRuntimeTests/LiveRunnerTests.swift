import IntervalProCore
import IntervalProRuntime
import Testing

/// A live source that answers each wait with the next scripted poll, and remembers how
/// long the runner was willing to wait each time.
struct ScriptedLiveSource: SessionSource {
    var polls: [LivePoll]
    var timeouts: [Duration?] = []

    var kind: SessionSourceKind { .live }
    var devices: [RecordedDevice] { [] }
    var isLive: Bool { true }
    mutating func next() async throws -> RecordingEntry? { nil }
    mutating func wait(timeout: Duration?) async -> LivePoll {
        timeouts.append(timeout)
        return polls.removeFirst()
    }
}

/// A live source whose sensor arrives at given times: each wait returns at the next arrival
/// if it comes within the timeout, else when the timeout runs out, as a poll on the sensor's
/// socket would.
struct ArrivingLiveSource: SessionSource {
    var arrivals: [SessionTime]
    var now = SessionTime.zero
    /// When the runner woke with nothing arrived: for the clock or a deadline.
    var emptyWakes: [SessionTime] = []

    var kind: SessionSourceKind { .live }
    var devices: [RecordedDevice] { [] }
    var isLive: Bool { true }
    mutating func next() async throws -> RecordingEntry? { nil }
    mutating func wait(timeout: Duration?) async -> LivePoll {
        let limit = timeout.map { now + SessionTime(microseconds: Int64($0 / .microseconds(1))) }
        if let arrival = arrivals.first, limit.map({ arrival <= $0 }) ?? true {
            arrivals.removeFirst()
            now = max(now, arrival)
            return LivePoll(now: now, entries: [
                .notification(RawNotification(time: now, device: "D", characteristic: .rscMeasurement, bytes: [0x00, 0x90, 0x02, 0xAA]))
            ])
        }
        now = limit ?? now
        emptyWakes.append(now)
        return LivePoll(now: now, entries: [])
    }
}

@Suite struct LiveRunnerTests {
    /// A 3-second work step, then an open cooldown that `q` finishes.
    let twoSteps = """
        {"name": "Live", "steps": [
          {"kind": "work", "duration": 3, "cadence": 170},
          {"kind": "cooldown", "duration": "open"}
        ]}
        """

    func rsc(at seconds: Double) -> RecordingEntry {
        .notification(
            RawNotification(
                time: .seconds(seconds), device: "D", characteristic: .rscMeasurement, bytes: [0x00, 0x90, 0x02, 0xAA]))
    }

    @Test("the runner waits for arrivals up to the engine's deadline or the screen's second, never a poll interval")
    func waitsOnArrivals() async throws {
        let source = ScriptedLiveSource(polls: [
            LivePoll(now: .zero, entries: []),
            LivePoll(now: .seconds(0.4), entries: [rsc(at: 0.4)]),
            LivePoll(now: .seconds(1.0), entries: []),
            LivePoll(now: .seconds(2.0), entries: []),
            LivePoll(now: .seconds(3.0), entries: []),
            LivePoll(now: .seconds(3.5), entries: [], notices: ["sensor lost"]),
        ])
        var observer = RecordingObserver()
        observer.script = [(step: 1, command: .finish)]
        var runner = SessionRunner(
            engine: SessionEngine(plan: try plan(twoSteps), source: .live), source: source, observer: observer,
            pacing: .realTime(speed: 1), clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.steps.count == 2)
        // First look at once; then up to the screen's next second (1 s after the last
        // redraw, or an eighth of a second after the sensor's next arrival is due: 1.525 s
        // once it arrived at 0.4), or the step's end at 3 s, whichever is sooner.
        #expect(
            runner.source.timeouts == [.zero, .seconds(1), .seconds(0.6), .seconds(0.525), .seconds(1), .seconds(1)],
            "\(runner.source.timeouts)")
        #expect(runner.observer.received == [rsc(at: 0.4)])
        #expect(runner.observer.refreshes >= 3)
    }

    /// Runs a 12-second step against a sensor arriving at `arrivals`: when the clock was
    /// redrawn, and when the runner woke with nothing arrived.
    func clock(
        arrivals: [SessionTime], seconds: Int = 12, refreshInterval: SessionTime? = nil
    ) async throws -> (refreshes: [SessionTime], emptyWakes: [SessionTime]) {
        let oneStep = #"{"name": "Live", "steps": [{"kind": "work", "duration": \#(seconds), "cadence": 170}]}"#
        var runner = SessionRunner(
            engine: SessionEngine(plan: try plan(oneStep), source: .live), source: ArrivingLiveSource(arrivals: arrivals),
            observer: RecordingObserver(), pacing: .realTime(speed: 1), clock: ContinuousClock())
        if let refreshInterval { runner.liveRefreshInterval = refreshInterval }
        _ = try await runner.run()
        return (runner.observer.refreshedAt, runner.source.emptyWakes)
    }

    /// Arrivals `perSecond` a second from `phase`, each up to `jitter` early or late.
    func arrivals(perSecond: Int, phase: Double, jitter: Double) -> [SessionTime] {
        var generator = SplitMix64(seed: 7)
        return (0..<(12 * perSecond)).map { i in
            let offset = (Double(generator.next() % 2001) / 1000 - 1) * jitter
            return .seconds(phase + Double(i) / Double(perSecond) + offset)
        }.filter { $0 < .seconds(12) }
    }

    @Test(
        "a sensor's arrivals carry the screen's clock: the runner wakes for it only when nothing arrives",
        arguments: [(1, 0.6, 0.05), (2, 0.3, 0.05), (4, 0.1, 0.03), (4, 0.24, 0.01), (10, 0.05, 0.02)])
    func arrivalsCarryTheClock(perSecond: Int, phase: Double, jitter: Double) async throws {
        let (refreshes, emptyWakes) = try await clock(arrivals: arrivals(perSecond: perSecond, phase: phase, jitter: jitter))
        // With nothing arrived, the runner woke for its first look, the step's end and at
        // most once for the clock, before it has seen when the sensor arrives.
        let forTheClock = emptyWakes.filter { $0 > .zero && $0 < .seconds(12) }
        #expect(emptyWakes.first == .zero && emptyWakes.last == .seconds(12), "\(emptyWakes)")
        #expect(forTheClock.count <= 1 && forTheClock.allSatisfy { $0 <= .seconds(1) }, "\(emptyWakes)")
        // Still about once a second: none more than a second and a quarter after the last.
        #expect(refreshes.count >= 11, "\(refreshes)")
        for (before, after) in zip(refreshes, refreshes.dropFirst()) {
            #expect(after - before <= .seconds(1.25), "\(refreshes)")
        }
    }

    /// Live sound renders half a second ahead of the last call: called in once a second, with
    /// each reading, a card ran dry for half of every second.
    @Test("with live sound the runner calls in every quarter of a second, readings or not")
    func liveSoundIsCalledInEveryQuarterSecond() async throws {
        let (refreshes, _) = try await clock(
            arrivals: arrivals(perSecond: 1, phase: 0.6, jitter: 0.05).filter { $0 < .seconds(4) }, seconds: 4,
            refreshInterval: .seconds(0.25))
        #expect(refreshes.count >= 12, "\(refreshes)")
        for (before, after) in zip(refreshes, refreshes.dropFirst()) {
            #expect(after - before <= .seconds(0.4), "\(refreshes)")
        }
    }

    @Test("with nothing arriving the runner wakes for the clock each second, on the second")
    func silenceWakesEachSecond() async throws {
        let (refreshes, emptyWakes) = try await clock(arrivals: [])
        #expect(emptyWakes == (0...12).map { .seconds($0) })
        #expect(refreshes == (0...11).map { .seconds($0) })
    }
}
