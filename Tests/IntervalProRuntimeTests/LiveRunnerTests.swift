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
        // redraw), or the step's end at 3 s, whichever is sooner.
        #expect(
            runner.source.timeouts == [.zero, .seconds(1), .seconds(0.6), .seconds(1), .seconds(1), .seconds(1)],
            "\(runner.source.timeouts)")
        #expect(runner.observer.received == [rsc(at: 0.4)])
        #expect(runner.observer.refreshes >= 3)
    }
}
