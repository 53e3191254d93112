import IntervalProCore
import IntervalProRuntime
import Synchronization
import Testing

/// Collects what the runner reports, and hands it scripted commands.
struct RecordingObserver: SessionObserver {
    var actions: [SessionEngine.Action] = []
    var received: [RecordingEntry] = []
    var refreshedAt: [SessionTime] = []
    var refreshes: Int { refreshedAt.count }
    /// Commands to deliver, each once the engine's step index reaches the given step.
    var script: [(step: Int, command: UserCommand)] = []

    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        self.actions += actions
    }

    mutating func received(_ entry: RecordingEntry) {
        received.append(entry)
    }

    /// The runner's commands as a recording keeps them.
    var commandsApplied: [RecordingEntry] = []

    mutating func commandApplied(_ command: UserCommand, at now: SessionTime) {
        commandsApplied.append(.event(time: now, device: RecordingFormat.runnerDevice, name: command.rawValue))
    }

    mutating func refresh(_ engine: SessionEngine, at now: SessionTime) {
        refreshedAt.append(now)
    }

    mutating func pendingCommands() -> [UserCommand] {
        guard let first = script.first, let stepStarted = actions.lastStepIndex, stepStarted >= first.step else { return [] }
        script.removeFirst()
        return [first.command]
    }
}

extension [SessionEngine.Action] {
    var lastStepIndex: Int? {
        for action in reversed() { if case .stepStarted(let step, _) = action { return step.index } }
        return nil
    }
}

func plan(_ json: String) throws -> Plan {
    try PlanDecoder.decode(Array(json.utf8), file: "test.json")
}

let shortPlan = """
    {"name": "Short", "steps": [
      {"kind": "warmup", "duration": 60, "cadence": 160},
      {"kind": "work", "duration": 60, "cadence": 172},
      {"kind": "rest", "duration": 30},
      {"kind": "cooldown", "duration": "open", "cadence": 158}
    ]}
    """

func simulatedEntries(_ plan: Plan, seed: UInt64 = 9, perFoot: Bool = false, dropouts: [(SessionTime, SessionTime)] = []) async throws
    -> [RecordingEntry]
{
    var configuration = SimulatedRunner.Configuration.covering(plan.timeline())
    configuration.seed = seed
    configuration.perFoot = perFoot
    configuration.dropouts = dropouts.map { (start: $0.0, length: $0.1) }
    var runner = SessionRunner(
        engine: SessionEngine(plan: plan, source: .simulation),
        source: SimulatedRunner(configuration: configuration), observer: RecordingObserver(), pacing: .virtual,
        clock: ContinuousClock())
    _ = try await runner.run()
    return runner.observer.received
}

@Suite struct SessionRunnerTests {
    /// No runner: the plan's clock alone. A render (no one to say "next") gives an open step
    /// five minutes; live, the runner's "next" ends it (it ended after five minutes on its own,
    /// the screen saying "press n"). Its end never closes an open step as it starts.
    @Test(arguments: [true, false])
    func withNoRunnerTheOpenStepEndsAsTheSourceSays(endingUnboundedSteps: Bool) async throws {
        let plan = try plan(shortPlan)
        var observer = RecordingObserver()
        if !endingUnboundedSteps { observer.script = [(step: 3, command: .next)] }
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .metronome), source: NoRunner(endingUnboundedSteps: endingUnboundedSteps),
            observer: observer, pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.source == .metronome && summary.inZonePercent == nil)
        #expect(summary.steps.map(\.step.kind) == [.warmup, .work, .rest, .cooldown])
        #expect(summary.steps[1].duration == .seconds(60) && summary.steps[1].noSignal == .seconds(60))
        #expect(summary.steps[3].endedBy == .next)
        #expect(summary.steps[3].duration == (endingUnboundedSteps ? SimulatedRunner.Configuration.openStepLength : .zero))
        #expect(runner.observer.received.isEmpty)
    }

    @Test func virtualReplayRunsTheWholeTimelineAndEndsTheOpenStepWithTheRecording() async throws {
        let plan = try plan(shortPlan)
        let entries = try await simulatedEntries(plan)
        let last = try #require(entries.last).time
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay),
            source: ReplaySource(header: RecordingHeader(startedAt: nil, devices: []), entries: entries),
            observer: RecordingObserver(), pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.completed)
        #expect(summary.steps.map(\.step.kind) == [.warmup, .work, .rest, .cooldown])
        #expect(summary.steps[0].duration == .seconds(60))
        #expect(summary.steps[2].duration == .seconds(30))
        #expect(summary.steps[3].endedBy == .sourceEnded)
        #expect(summary.steps[3].duration == last - .seconds(150))
        #expect(runner.observer.received.count == entries.count)
    }

    /// A session stopped early (Ctrl-C, q, the page's Finish) replayed on to its plan's end from
    /// its recording, the rest scored as no signal: 96 % in zone live, 32 % replayed.
    @Test func theRunnersCommandsKeptWithTheReadingsReplayToTheSameSummary() async throws {
        let plan = try plan(shortPlan)
        let entries = try await simulatedEntries(plan)
        let header = RecordingHeader(startedAt: nil, devices: [])
        var observer = RecordingObserver()
        observer.script = [(1, .togglePause), (1, .togglePause), (1, .next), (2, .finish)]
        var live = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay), source: ReplaySource(header: header, entries: entries),
            observer: observer, pacing: .virtual, clock: ContinuousClock())
        let ran = try await live.run()
        #expect(!ran.completed && ran.steps.count == 3)
        let kept = live.observer.commandsApplied
        #expect(kept.map { if case .event(_, _, let name) = $0 { name } else { "" } } == ["pause", "resume", "next", "finish"])
        var again = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay), source: ReplaySource(header: header, entries: entries + kept),
            observer: RecordingObserver(), pacing: .virtual, clock: ContinuousClock())
        let replayed = try await again.run()
        #expect(replayed == ran)
    }

    @Test func realTimePacingGivesTheSameSummaryAsVirtualTime() async throws {
        let plan = try plan(shortPlan)
        let entries = try await simulatedEntries(plan, dropouts: [(.seconds(50), .seconds(9))])
        let header = RecordingHeader(startedAt: nil, devices: [])
        var fast = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay), source: ReplaySource(header: header, entries: entries),
            observer: RecordingObserver(), pacing: .virtual, clock: ContinuousClock())
        var paced = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay), source: ReplaySource(header: header, entries: entries),
            observer: RecordingObserver(), pacing: .realTime(speed: 2000), clock: ContinuousClock())
        paced.displayInterval = .milliseconds(1)
        let fastSummary = try await fast.run()
        let pacedSummary = try await paced.run()
        #expect(fastSummary == pacedSummary)
        #expect(fastSummary.json.serialized() == pacedSummary.json.serialized())
        #expect(paced.observer.refreshes > 0)
    }

    /// At 60x a replay takes a few hundred entries a second, and the screen and the page were
    /// refreshed for each: 180 frames a second. On the wall clock, every `displayInterval`.
    @Test func aFastPacedReplayRefreshesOnTheWallClockNotAtEachEntry() async throws {
        let plan = try plan(shortPlan)
        let entries = try await simulatedEntries(plan)
        let clock = SkippingClock()
        var paced = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay),
            source: ReplaySource(header: RecordingHeader(startedAt: nil, devices: []), entries: entries),
            observer: RecordingObserver(), pacing: .realTime(speed: 60), clock: clock)
        let summary = try await paced.run()
        let wall = Double(clock.now.offset.components.seconds) + Double(clock.now.offset.components.attoseconds) * 1e-18
        #expect(entries.count > 500 && summary.duration > .seconds(150))
        // Some 3 s of wall time for 3 minutes of session: four refreshes a second of it.
        #expect(paced.observer.refreshes >= Int(wall / 0.25) - 1, "\(paced.observer.refreshes) in \(wall) s")
        #expect(paced.observer.refreshes <= Int(wall / 0.25) + 6, "\(paced.observer.refreshes) in \(wall) s")
    }

    @Test func nextAndFinishCommandsEndStepsAndTheSession() async throws {
        let plan = try plan(shortPlan)
        let entries = try await simulatedEntries(plan)
        var observer = RecordingObserver()
        observer.script = [(1, .next), (2, .finish)]
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay),
            source: ReplaySource(header: RecordingHeader(startedAt: nil, devices: []), entries: entries),
            observer: observer, pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(!summary.completed)
        #expect(summary.steps.count == 3)
        #expect(summary.steps[1].endedBy == .next)
        #expect(summary.steps[1].duration < .seconds(60))
        #expect(summary.steps[2].endedBy == .finished)
    }

    @Test func anEmptyRecordingScoresEveryTimedStepAsNoSignal() async throws {
        let plan = try plan(#"{"name": "Quiet", "steps": [{"kind": "work", "duration": 20, "cadence": 170}, {"kind": "rest", "duration": 10}]}"#)
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay),
            source: ReplaySource(header: RecordingHeader(startedAt: nil, devices: []), entries: []),
            observer: RecordingObserver(), pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.steps.map(\.noSignal) == [.seconds(20), .seconds(10)])
        #expect(summary.inZonePercent == 0)
        #expect(summary.averageCadence == nil)
    }

    /// Three days between two readings (a recording may hold up to 115 days) come to the
    /// observers a minute at a time, not as 259,200 samples in one batch: that batch had
    /// taken gigabytes.
    @Test func aLongSilenceReachesTheObserversAMinuteAtATime() async throws {
        struct BatchObserver: SessionObserver {
            var samples = 0
            var largestBatch = 0
            mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
                let count = actions.filter { if case .sample = $0 { true } else { false } }.count
                samples += count
                largestBatch = max(largestBatch, count)
            }
        }
        let plan = try plan(#"{"name": "Open", "steps": [{"kind": "work", "duration": "open", "cadence": 170}]}"#)
        let reading = RSCMeasurement(speedRaw: 768, cadence: 170).encoded()
        let silence = SessionTime.seconds(3 * 86_400)
        let entries = [SessionTime.zero, silence].map {
            RecordingEntry.notification(RawNotification(time: $0, device: "pod", characteristic: .rscMeasurement, bytes: reading))
        }
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .replay, reportsSamples: true),
            source: ReplaySource(header: RecordingHeader(startedAt: nil, devices: []), entries: entries),
            observer: BatchObserver(), pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.steps.map(\.duration) == [silence])
        #expect(summary.steps[0].inZone == .seconds(3))
        #expect(runner.observer.samples == 3 * 86_400)
        #expect(runner.observer.largestBatch <= 60)
    }
}

@Suite struct SimulatedRunnerTests {
    @Test func theSameSeedGivesTheSameRun() async throws {
        let plan = try plan(shortPlan)
        let first = try await simulatedEntries(plan, seed: 5)
        let second = try await simulatedEntries(plan, seed: 5)
        let other = try await simulatedEntries(plan, seed: 6)
        #expect(first == second)
        #expect(first != other)
    }

    @Test func emitsPayloadsThatTheParsersAccept() async throws {
        let entries = try await simulatedEntries(try plan(shortPlan))
        var rsc = 0
        var hr = 0
        var beats = 0.0
        var lastHeartRate = SessionTime.zero
        for case .notification(let n) in entries {
            let reading = try SensorReading.decode(try #require(n.characteristic), n.bytes)
            switch reading {
            case .rsc: rsc += 1
            case .heartRate(let m):
                hr += 1
                lastHeartRate = n.time
                // Every beat since the last notification: none to four at these heart rates.
                #expect(m.rrIntervals.count <= 4)
                beats += m.rrIntervals.reduce(0.0) { $0 + Double($1) / 1024 }
            default: Issue.record("unexpected reading \(reading)")
            }
        }
        // The beats fill the time the strap sent them over, to within one beat.
        #expect(abs(beats - lastHeartRate.seconds) < 1.5, "\(beats) s of beats by \(lastHeartRate.seconds) s")
        // 150 s of timed steps plus 5 simulated minutes of open cooldown: RSC at 2 Hz, HR at 1 Hz.
        #expect(rsc == 900)
        #expect(hr == 450)
    }

    @Test func cadenceFollowsTheStepTargets() async throws {
        let plan = try plan(shortPlan)
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .simulation),
            source: SimulatedRunner(configuration: .covering(plan.timeline())), observer: RecordingObserver(),
            pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        let warmup = try #require(summary.steps[0].averageCadence)
        let work = try #require(summary.steps[1].averageCadence)
        #expect(abs(work - 172) < 6)
        #expect(work > warmup)
        #expect(try #require(summary.steps[1].averageHeartRate) > 120)
    }

    /// A track session's lap-button jog: the simulated runner ran the first open step until the
    /// simulation ran out, and every later step lasted 0 s.
    @Test func theSimulatedRunnerEndsAnOpenStepAfterItsFiveMinutes() async throws {
        let plan = try plan(
            """
            {"name": "Track", "steps": [{"kind": "warmup", "duration": 60, "cadence": 160},
              {"repeat": 2, "steps": [{"kind": "work", "duration": 30, "cadence": 180}, {"kind": "rest", "duration": "open"}]},
              {"kind": "cooldown", "duration": 60}]}
            """)
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .simulation),
            source: SimulatedRunner(configuration: .covering(plan.timeline())), observer: RecordingObserver(),
            pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.steps.map(\.duration.seconds) == [60, 30, 300, 30, 300, 60])
        #expect(summary.steps.map(\.endedBy) == [.time, .time, .next, .time, .next, .time])
        #expect(summary.completed)
    }

    /// A plan ending on an open step: the simulation's readings stop half a second before the
    /// runner's "next", and the step ended at 4:59.5 as `source_ended`.
    @Test func theSimulatedRunnerEndsALastOpenStepAfterItsFiveMinutes() async throws {
        let plan = try plan(
            #"{"name": "Jog", "steps": [{"kind": "work", "duration": 30, "cadence": 175}, {"kind": "cooldown", "duration": "open"}]}"#)
        var runner = SessionRunner(
            engine: SessionEngine(plan: plan, source: .simulation),
            source: SimulatedRunner(configuration: .covering(plan.timeline())), observer: RecordingObserver(),
            pacing: .virtual, clock: ContinuousClock())
        let summary = try await runner.run()
        #expect(summary.steps.map(\.duration.seconds) == [30, 300])
        #expect(summary.steps.map(\.endedBy) == [.time, .next])
        #expect(summary.completed)
    }

    /// A simulated session paused for 6 s had no readings for its last 6 s ("no signal" at
    /// 1:52 of 1:56, the end's coaching silenced): the runner stood, and the plan's end came
    /// that much later than the runner ran.
    @Test func theSimulatedRunnerRunsToThePlansEndAfterAPause() throws {
        let plan = try plan(#"{"name": "P", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#)
        var runner = SimulatedRunner(configuration: .covering(plan.timeline()))
        var last = SessionTime.zero
        func time(_ entry: RecordingEntry) -> SessionTime {
            switch entry {
            case .notification(let n): n.time
            case .event(let time, _, _): time
            }
        }
        while let entry = runner.next() {
            last = time(entry)
            if last >= .seconds(20), last < .seconds(20.6) { runner.observe(.applied(.pause)) }
            if last >= .seconds(26), last < .seconds(26.6) { runner.observe(.applied(.resume)) }
        }
        #expect(last >= .seconds(65), "the last reading at \(last.seconds) s of a 66 s session")
    }

    @Test func aPerFootFootpodSendsHalfTheStepRate() async throws {
        let entries = try await simulatedEntries(try plan(shortPlan), perFoot: true)
        let cadences = entries.compactMap { entry -> UInt8? in
            guard case .notification(let n) = entry, n.characteristic == .rscMeasurement else { return nil }
            return try? RSCMeasurement.parse(n.bytes).cadence
        }
        #expect(cadences.allSatisfy { $0 < 110 })
        #expect(cadences.contains { $0 > 70 })
    }

    @Test func aDropoutLeavesAGapWithEvents() async throws {
        let entries = try await simulatedEntries(try plan(shortPlan), dropouts: [(.seconds(40), .seconds(10))])
        let footpod = SimulatedRunner.footpod(perFoot: false).id
        let events = entries.compactMap { entry -> String? in
            if case .event(_, footpod, let name) = entry { return name }
            return nil
        }
        #expect(events == ["disconnected", "connected"])
        let rscTimes = entries.compactMap { entry -> SessionTime? in
            guard case .notification(let n) = entry, n.device == footpod else { return nil }
            return n.time
        }
        #expect(!rscTimes.contains { $0 >= .seconds(40) && $0 < .seconds(50) })
        #expect(rscTimes.contains { $0 >= .seconds(50) })
    }
}

/// A clock whose sleeps return at once, its time moved to their deadline: a session paced in
/// real time, its wall time counted without waiting for it.
final class SkippingClock: Clock, Sendable {
    typealias Instant = ManualClock.Instant
    private let time = Mutex(Duration.zero)

    var now: Instant { Instant(offset: time.withLock { $0 }) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        time.withLock { $0 = max($0, deadline.offset) }
    }
}
