import Testing
@testable import IntervalProCore

let zone170 = CadenceZone(target: 170, tolerance: 5)  // 165...175

func decodePlan(_ text: String) throws -> Plan {
    try PlanDecoder.decode(Array(text.utf8), file: "plan.json")
}

/// In SessionEngine's suites (this file, SessionEngineClockTests.swift and
/// SessionEngineFeedbackTests.swift): in_zone + below + above + no_signal must account for
/// every microsecond of a zoned step.
func expectAccounted(_ result: StepResult, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    if result.step.zone != nil {
        #expect(result.inZone + result.below + result.above + result.noSignal == result.duration, sourceLocation: sourceLocation)
    } else {
        #expect(result.inZone == .zero && result.below == .zero && result.above == .zero, sourceLocation: sourceLocation)
        #expect(result.noSignal <= result.duration, sourceLocation: sourceLocation)
    }
}

@Suite("SessionEngine: zone scoring")
struct SessionEngineScoringTests {
    @Test func zoneBoundsAreInclusive() throws {
        var h = EngineHarness([Fixture.timed(0, 10, zone: zone170)])
        h.rsc(0, 165)  // exactly low: in zone
        h.rsc(2, 175)  // exactly high: in zone
        h.rsc(4, 164)  // below
        h.rsc(6, 176)  // above
        h.rsc(8, 170)
        h.tick(10)
        let summary = try #require(h.summary)
        let step = try #require(summary.steps.first)
        #expect(step.inZone == .seconds(6))
        #expect(step.below == .seconds(2))
        #expect(step.above == .seconds(2))
        #expect(step.noSignal == .zero)
        #expect(step.duration == .seconds(10))
        #expect(step.endedBy == .time)
        #expect(step.inZonePercent == 60)
        #expect(summary.completed)
        expectAccounted(step)
    }

    @Test func fractionalZoneBounds() throws {
        // A {low, high} zone with a fractional target still scores the bounds inclusively.
        var h = EngineHarness([Fixture.timed(0, 4, zone: CadenceZone(target: 170.5, low: 168, high: 173))])
        h.rsc(0, 168)
        h.rsc(1, 173)
        h.rsc(2, 167)
        h.rsc(3, 174)
        h.tick(4)
        let step = try #require(h.summary?.steps.first)
        #expect(step.inZone == .seconds(2))
        #expect(step.below == .seconds(1))
        #expect(step.above == .seconds(1))
    }

    @Test("a single reading counts for 3 s, then no_signal", arguments: [0.0, 1, 2.5, 6.999999, 7])
    func singleReading(readingAt t: Double) throws {
        var h = EngineHarness([Fixture.timed(0, 10, zone: zone170)])
        h.rsc(t, 170)
        h.tick(10)
        let step = try #require(h.summary?.steps.first)
        #expect(step.inZone == .seconds(3))
        #expect(step.noSignal == .seconds(7))
        #expect(step.duration == .seconds(10))
        #expect(step.averageCadence == 170)
        expectAccounted(step)
    }

    @Test func readingNearTheEndIsCutByTheStep() throws {
        var h = EngineHarness([Fixture.timed(0, 10, zone: zone170), Fixture.timed(1, 10, zone: zone170)])
        h.rsc(9, 150)  // below for 1 s in step 0, then 2 s in step 1
        h.tick(20)
        let steps = try #require(h.summary?.steps)
        #expect(steps[0].below == .seconds(1))
        #expect(steps[0].noSignal == .seconds(9))
        #expect(steps[1].below == .seconds(2))
        #expect(steps[1].noSignal == .seconds(8))
        steps.forEach { expectAccounted($0) }
    }

    @Test func stepWithoutZoneCountsOnlyNoSignal() throws {
        var h = EngineHarness([Fixture.timed(0, 10, kind: .rest)])
        h.rsc(0, 170)
        h.tick(10)
        let step = try #require(h.summary?.steps.first)
        #expect(step.inZone == .zero && step.below == .zero && step.above == .zero)
        #expect(step.noSignal == .seconds(7))
        #expect(step.averageCadence == 170)
        #expect(step.inZonePercent == nil)
        #expect(h.summary?.inZonePercent == nil)
    }

    @Test func everyMicrosecondIsAccountedFor() throws {
        var generator = SeededGenerator(seed: 7)
        let timeline = [
            Fixture.timed(0, 37.123457, kind: .warmup, zone: CadenceZone(target: 160, tolerance: 6)),
            Fixture.timed(1, 61.5, zone: zone170),
            Fixture.timed(2, 20, kind: .rest),
            Fixture.timed(3, 45.000001, zone: CadenceZone(target: 178, low: 176, high: 180)),
        ]
        var h = EngineHarness(timeline)
        var micros: Int64 = 0
        while micros < 170_000_000 {
            micros += Int64.random(in: 1...4_500_000, using: &generator)
            let time = SessionTime(microseconds: micros)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: h.send(.tick, at: time)
            case 1: h.send(.notification(Fixture.hr(time.seconds, bpm: UInt16.random(in: 100...190, using: &generator))), at: time)
            default:
                h.send(.notification(Fixture.rsc(time.seconds, spm: UInt8.random(in: 150...190, using: &generator))), at: time)
            }
        }
        h.tick(1000)
        let summary = try #require(h.summary)
        #expect(summary.steps.count == 4)
        summary.steps.forEach { expectAccounted($0) }
        #expect(summary.steps.map(\.duration) == timeline.map { if case .time(let t) = $0.end { t } else { .zero } })
        #expect(summary.duration == SessionTime(microseconds: 163_623_458))
        #expect(summary.completed)
    }
}

@Suite("SessionEngine: averages and heart rate")
struct SessionEngineAverageTests {
    @Test func averagesAreTimeWeighted() throws {
        var h = EngineHarness([Fixture.timed(0, 40, zone: zone170)])
        for k in stride(from: 0, to: 40, by: 2) {
            let t = Double(k)
            h.rsc(t, k < 10 ? 160 : 180)  // 160 for 10 s, 180 for 30 s
            h.hr(t, k < 20 ? 120 : 150)  // 120 for 20 s, 150 for 20 s
        }
        h.hr(31, 190, contact: .notDetected)  // no skin contact: not a heart rate
        h.hr(33, 0, contact: .detected)  // a placeholder
        h.tick(40)
        let summary = try #require(h.summary)
        let step = try #require(summary.steps.first)
        #expect(step.averageCadence == 175)
        #expect(step.averageHeartRate == 135)
        #expect(step.maxHeartRate == 150)
        #expect(step.below == .seconds(10))
        #expect(step.above == .seconds(30))
        #expect(summary.averageCadence == 175)
        #expect(summary.averageWorkCadence == 175)
        #expect(summary.averageHeartRate == 135)
        #expect(summary.maxHeartRate == 150)
    }

    @Test func averagesSkipTimeWithoutSignal() throws {
        var h = EngineHarness([Fixture.timed(0, 20, zone: zone170)])
        h.rsc(0, 160)  // [0, 3)
        h.rsc(10, 180)  // [10, 13)
        h.rsc(12, 171)  // [12, 15): 180 counts only 2 s
        h.tick(20)
        let step = try #require(h.summary?.steps.first)
        #expect(step.averageCadence == Double(160 * 3 + 180 * 2 + 171 * 3) / 8)
        #expect(step.averageHeartRate == nil)
        #expect(step.maxHeartRate == nil)
        #expect(step.noSignal == .seconds(12))
    }

    @Test func totalsAcrossSteps() throws {
        var h = EngineHarness([
            Fixture.timed(0, 10, kind: .warmup, zone: CadenceZone(target: 160, tolerance: 5)),
            Fixture.timed(1, 10, kind: .work, zone: zone170),
            Fixture.timed(2, 20, kind: .rest),
        ])
        for k in stride(from: 0, to: 40, by: 2) {
            h.rsc(Double(k), k < 10 ? 150 : k < 20 ? 172 : 160)
            h.hr(Double(k), k < 10 ? 100 : k < 20 ? 170 : 130)
            if k == 18 { h.hr(19, 181) }
        }
        h.tick(40)
        let summary = try #require(h.summary)
        #expect(summary.steps.map(\.maxHeartRate) == [100, 181, 181])  // 181 is still current when the rest starts
        #expect(summary.maxHeartRate == 181)
        #expect(summary.averageCadence == Double(150 * 10 + 172 * 10 + 160 * 20) / 40)
        #expect(summary.averageWorkCadence == 172)
        #expect(summary.inZonePercent == 50)  // warmup below for 10 s, work in zone for 10 s, rest has no zone
        #expect(summary.steps[0].inZonePercent == 0)
        #expect(summary.steps[1].inZonePercent == 100)
        let expectedHR = Double(100 * 10 + 170 * 9 + 181 * 1 + 130 * 20) / 40
        #expect(summary.averageHeartRate == expectedHR)
    }

    /// The beats of each second go with its sample: those of the heart-rate device only, with
    /// skin contact; the second that ends at a sample holds what arrived up to it.
    @Test func samplesCarryTheBeatsOfTheirSecond() {
        var h = EngineHarness([Fixture.timed(0, 6)])
        h.hr(0.2, 140, rr: [440])
        h.hr(0.9, 141, rr: [430, 435])
        h.hr(1.5, 140, rr: [420])
        h.hr(1.6, 150, device: "other strap", rr: [999])  // not the session's heart-rate device
        h.hr(2.5, 0, contact: .notDetected, rr: [777])  // off the skin: placeholders
        h.hr(3.5, 142, rr: [])
        h.hr(4.0, 143, rr: [410])
        h.tick(6)
        #expect(h.samples.map(\.second) == [0, 1, 2, 3, 4, 5])
        #expect(h.samples.map(\.rrIntervals) == [[], [440, 430, 435], [420], [], [410], []])
    }

    /// A watch broadcasting heart rate without RR intervals, first to send, took heart rate,
    /// and the strap's beats went with the strap's heart rate: a session with every beat sent
    /// had none ("no RR intervals came"). Beats come from the device that sends them, one at a
    /// time, as heart rate does.
    @Test func beatsComeFromTheDeviceThatSendsThemBesideAWatchsHeartRate() {
        var h = EngineHarness([Fixture.timed(0, 12)])
        h.hr(0.1, 138, device: "watch", rr: [])
        h.hr(0.5, 140, device: "strap", rr: [440])
        h.hr(1.1, 139, device: "watch", rr: [])
        h.hr(1.5, 141, device: "strap", rr: [430, 435])
        // A second strap while the first sends beats: not counted twice.
        h.hr(1.6, 150, device: "other strap", rr: [999])
        // The first strap falls silent; the other's beats count once the first's are stale.
        h.hr(3.0, 150, device: "other strap", rr: [998])
        h.hr(4.6, 150, device: "other strap", rr: [997])
        h.tick(6)
        #expect(h.samples.map(\.rrIntervals) == [[], [440], [430, 435], [], [], [997]])
        #expect(h.samples[1].heartRate == 138)
    }

    /// A sensor's total in tenths of a metre, summed in binary: 4,000 tenths fell short of 400 m
    /// and the step ended a reading late.
    @Test func aDistanceStepEndsAtTheReadingThatReachesIt() throws {
        // 20 cm a reading, ten readings a second: 20 m in the first 10 s, then the 400 m step.
        let track = TimelineStep(index: 1, kind: .work, label: nil, repetition: nil, end: .distance(400), zone: zone170)
        var h = EngineHarness([Fixture.timed(0, 10, kind: .warmup), track, Fixture.timed(2, 60, kind: .rest)])
        for reading in 0...2_200 {
            h.rsc(Double(reading) / 10, 170, total: 16_013 + 2 * UInt32(reading))
        }
        let reached = try #require(h.finishedSteps.first { $0.step.index == 1 })
        #expect(reached.endedBy == .distance)
        // 2,000 readings of two tenths, the first the one at 10 s as the step began: the last at 209.9 s.
        #expect(reached.duration == .seconds(199.9))
    }

    @Test func summaryJSON() throws {
        let first = TimelineStep(
            index: 0, kind: .work, label: "Go", repetition: .init(number: 1, count: 2), end: .time(.seconds(10)), zone: zone170)
        var h = EngineHarness([first, Fixture.timed(1, 5, kind: .rest)])
        h.rsc(0, 168, total: 0)
        h.hr(0, 140)
        h.rsc(2, 172, total: 100)
        h.hr(2, 150)
        h.rsc(4, 180, total: 200)
        h.tick(15)
        let summary = try #require(h.summary)
        let expected =
            #"{"summary_version":1,"plan":"Test plan","source":"replay","duration_s":15,"completed":true,"steps":["#
            + #"{"index":0,"kind":"work","label":"Go","repetition":"1/2","target_spm":170,"low_spm":165,"high_spm":175,"duration_s":10,"in_zone_s":4,"below_s":0,"above_s":3,"no_signal_s":3,"in_zone_pct":40,"avg_cadence_spm":174.3,"avg_hr_bpm":146,"max_hr_bpm":150,"distance_m":20,"ended_by":"time","alpha1":null},"#
            + #"{"index":1,"kind":"rest","label":null,"repetition":null,"target_spm":null,"low_spm":null,"high_spm":null,"duration_s":5,"in_zone_s":null,"below_s":null,"above_s":null,"no_signal_s":5,"in_zone_pct":null,"avg_cadence_spm":null,"avg_hr_bpm":null,"max_hr_bpm":null,"distance_m":0,"ended_by":"time","alpha1":null}],"#
            + #""totals":{"in_zone_pct":40,"avg_cadence_spm":174.3,"avg_work_cadence_spm":174.3,"avg_hr_bpm":146,"max_hr_bpm":150,"distance_m":20},"hrv":null}"#
        #expect(summary.json.serialized() == expected)
    }
}

@Suite("SessionEngine: determinism")
struct SessionEngineDeterminismTests {
    static let plan = """
        {"name": "Determinism", "tolerance": 5, "steps": [
          {"kind": "warmup", "duration": 20, "cadence": 165},
          {"repeat": 2, "steps": [
            {"kind": "work", "duration": [15.5, 12.25], "cadence": [172, {"low": 175, "high": 182}]},
            {"kind": "rest", "distance": 30}
          ]},
          {"kind": "work", "duration": "1:00", "cadence": 178},
          {"kind": "cooldown", "duration": "open", "cadence": 160}
        ]}
        """

    /// A scripted ride: readings at irregular times with gaps, a pause, and the source ending.
    static func script(seed: UInt64) -> [(SessionTime, SessionEngine.Event)] {
        var generator = SeededGenerator(seed: seed)
        var events: [(SessionTime, SessionEngine.Event)] = []
        var micros: Int64 = 0
        var total: UInt32 = 0
        var paused = false
        while micros < 200_000_000 {
            let step = Int64.random(in: 50_000...4_000_000, using: &generator)
            micros += step
            let time = SessionTime(microseconds: micros)
            let roll = Int.random(in: 0..<100, using: &generator)
            if paused ? roll < 25 : roll < 3 {
                events.append((time, .command(paused ? .resume : .pause)))
                paused.toggle()
            } else if roll < 30 {
                let hr = HeartRateMeasurement(heartRate: UInt16.random(in: 110...185, using: &generator), sensorContact: .detected)
                events.append((time, .notification(RawNotification(time: time, device: "strap", characteristic: .heartRateMeasurement, bytes: hr.encoded()))))
            } else {
                total += UInt32(step / 30_000)  // about 3.3 m/s
                let m = RSCMeasurement(speedRaw: 850, cadence: UInt8.random(in: 80...95, using: &generator), totalDistanceRaw: total, running: true)
                events.append((time, .notification(RawNotification(time: time, device: "pod", characteristic: .rscMeasurement, bytes: m.encoded()))))
            }
        }
        if paused { events.append((SessionTime(microseconds: micros + 1), .command(.resume))) }
        events.append((SessionTime(microseconds: micros + 2), .sourceEnded))
        events.append((SessionTime(microseconds: micros + 400_000_000), .tick))
        return events
    }

    struct Run {
        var summary: SessionSummary?
        var steps: [SessionEngine.Action]
    }

    /// Runs the script; `extraTicks` adds ticks at these times; `deadlines` also ticks at every `nextDeadline`.
    static func run(_ events: [(SessionTime, SessionEngine.Event)], extraTicks: [SessionTime], deadlines: Bool) throws -> Run {
        let plan = try PlanDecoder.decode(Array(Self.plan.utf8), file: "plan.json")
        // "auto" cadence: the pod sends strides, which the engine must work out by itself.
        var engine = SessionEngine(plan: plan, source: .replay)
        var all = events.map { (time: $0.0, event: $0.1, isTick: false) }
        all += extraTicks.map { (time: $0, event: SessionEngine.Event.tick, isTick: true) }
        // Stable: an extra tick goes before a scripted event at the same time.
        all = all.enumerated().sorted { a, b in
            a.element.time != b.element.time ? a.element.time < b.element.time
                : a.element.isTick != b.element.isTick ? a.element.isTick : a.offset < b.offset
        }.map(\.element)
        var actions: [SessionEngine.Action] = []
        for item in all {
            if deadlines {
                while let deadline = engine.nextDeadline, deadline < item.time {
                    actions += engine.handle(.tick, now: deadline)
                }
            }
            actions += engine.handle(item.event, now: item.time)
        }
        let steps = actions.filter {
            switch $0 {
            case .stepStarted, .stepFinished, .sessionFinished, .applied: true
            default: false
            }
        }
        var summary: SessionSummary?
        for case .sessionFinished(let s) in actions { summary = s }
        return Run(summary: summary, steps: steps)
    }

    @Test("extra ticks at arbitrary times give an identical summary", arguments: [UInt64(1), 2, 3])
    func extraTicksDoNotChangeTheSummary(seed: UInt64) throws {
        let events = Self.script(seed: seed)
        let baseline = try Self.run(events, extraTicks: [], deadlines: false)
        let summary = try #require(baseline.summary)
        // The script really exercises the engine.
        #expect(summary.steps.count == 7)
        #expect(summary.steps.contains { $0.endedBy == .distance })
        #expect(summary.steps.last?.endedBy == .sourceEnded)
        #expect(summary.steps.contains { $0.noSignal > .zero })
        #expect(summary.steps.contains { $0.inZone > .zero })
        #expect(summary.averageCadence.map { $0 > 150 } == true)  // strides were doubled
        summary.steps.forEach { expectAccounted($0) }

        let withDeadlines = try Self.run(events, extraTicks: [], deadlines: true)
        #expect(withDeadlines.summary == summary)
        #expect(withDeadlines.steps == baseline.steps)

        var generator = SeededGenerator(seed: seed &* 1000)
        let end = events[events.count - 2].0.microseconds
        for density in [10, 200, 2000] {
            var ticks = (0..<density).map { _ in SessionTime(microseconds: Int64.random(in: 0...end, using: &generator)) }
            // Ticks exactly on the interesting instants too: every event time and when each reading goes stale.
            ticks += events.prefix(density / 10).map(\.0)
            ticks += events.prefix(density / 10).map { $0.0 + CadenceStream.staleAfter }
            let split = try Self.run(events, extraTicks: ticks, deadlines: density == 200)
            #expect(split.summary == summary, "density \(density)")
            #expect(split.steps == baseline.steps, "density \(density)")
        }
    }
}

@Suite("SessionEngine: 1 Hz samples")
struct SessionEngineSampleTests {
    @Test func oneSamplePerPassedSecondBeforeWhatHappensAfterIt() throws {
        var h = EngineHarness([Fixture.timed(0, 3, zone: CadenceZone(target: 170, tolerance: 5)), Fixture.timed(1, 3)])
        h.rsc(0, 170)
        h.rsc(1.5, 150)
        #expect(h.samples.map(\.second) == [0, 1])
        #expect(h.samples.map(\.zoneStatus) == [.inZone, .inZone])
        h.send(.command(.pause), at: 2.5)
        #expect(h.samples.last?.zoneStatus == .below)  // second 2: 150 since 1.5
        h.send(.command(.resume), at: 4)
        #expect(h.samples.last?.second == 3 && h.samples.last?.zoneStatus == .paused)
        // Step 0 ran 2.5 s before the pause: it ends at 4.5, so second 4 is still its own.
        h.rsc(4.2, 172)
        h.tick(7)
        #expect(h.samples.map(\.second) == Array(0..<7))
        #expect(h.samples.map(\.stepIndex) == [0, 0, 0, 0, 0, 1, 1])
        #expect(h.samples[5].rawCadence == 172 && h.samples[5].zoneStatus == .noZone)
        // The last step ends at 7.5: second 7 is reported, nothing after the end.
        h.send(.command(.finish), at: 9)
        #expect(h.samples.map(\.second) == Array(0..<8))
        #expect(h.summary?.completed == true)
    }

    /// A sample's raw cadence is what the cadence device sent (strides from a per-foot pod),
    /// not what another pod sends while it is ignored.
    @Test func rawCadenceIsTheCadenceDevicesOwn() throws {
        var h = EngineHarness([Fixture.timed(0, 10)], units: ["left-foot": .strides, "other": .steps])
        h.rsc(0, 85, device: "left-foot")
        h.rsc(0.2, 160, device: "other")
        h.tick(2)
        #expect(h.samples.map(\.rawCadence) == [85, 85])
        #expect(h.samples.map(\.cadence) == [170, 170])
        // The first pod falls silent: the other takes over once it is stale.
        h.rsc(6, 164, device: "other")
        h.tick(7)
        #expect(h.samples.last?.rawCadence == 164)
        #expect(h.samples.last?.cadence == 164)
    }
}

extension SessionEngineSampleTests {
    @Test func withoutSamplesAJumpOfDaysIsOneBatch() {
        var engine = SessionEngine(planName: "Open", timeline: [Fixture.step(0, .open)], source: .replay)
        _ = engine.handle(.tick, now: .zero)
        let actions = engine.handle(.tick, now: .seconds(9_999_999))
        #expect(!actions.contains { if case .sample = $0 { true } else { false } })
        #expect(engine.nextSampleSecond == 0)
    }
}
