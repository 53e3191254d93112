import Testing
@testable import IntervalProCore

@Suite("SessionEngine: the step clock")
struct SessionEngineClockTests {
    @Test func nextDeadlineFollowsTheSteps() {
        var h = EngineHarness([Fixture.timed(0, 60), Fixture.timed(1, 30)])
        #expect(h.engine.nextDeadline == nil)  // not started
        #expect(h.tick(0) == [.stepStarted(Fixture.timed(0, 60), at: .zero), .feedbackChanged(.noZone)])
        #expect(h.engine.nextDeadline == at(60))
        h.tick(59.999999)
        #expect(h.engine.stepIndex == 0)
        #expect(h.engine.stepElapsed == SessionTime(microseconds: 59_999_999))
        let actions = h.tick(60)
        #expect(actions.count == 3)  // finished, started, and the new step's first feedback
        #expect(h.engine.stepIndex == 1)
        #expect(h.engine.nextDeadline == at(90))
        h.tick(90)
        #expect(h.engine.isFinished)
        #expect(h.engine.nextDeadline == nil)
        #expect(h.engine.currentStep == nil)
    }

    /// A duration that rounds to 0 µs is refused by the decoder; an engine handed such a
    /// step anyway must still move on, or a driver that ticks at deadlines would spin.
    @Test func aZeroLengthStepEndsAsSoonAsItStarts() throws {
        #expect(throws: PlanError.self) {
            try decodePlan(#"{"name": "Tiny", "steps": [{"kind": "work", "duration": 0.0000001}]}"#)
        }
        var h = EngineHarness([Fixture.timed(0, 0), Fixture.timed(1, 10)])
        h.tick(0)
        #expect(h.engine.stepIndex == 1)
        #expect(h.engine.nextDeadline == at(10))
    }

    @Test func pauseAndResumeStopTheStepClock() throws {
        var h = EngineHarness([Fixture.timed(0, 60, zone: zone170), Fixture.timed(1, 30)])
        h.tick(0)
        #expect(h.engine.nextDeadline == at(60))
        h.rsc(19, 170)
        #expect(h.send(.command(.pause), at: 20) == [.applied(.pause)])
        #expect(h.engine.isPaused)
        #expect(h.engine.nextDeadline == nil)
        h.rsc(21, 150)  // arrives while paused, stale by the time the clock runs again
        h.tick(25)
        #expect(h.engine.stepElapsed == .seconds(20))
        #expect(h.send(.command(.pause), at: 26).filter { $0 == .applied(.pause) || $0 == .applied(.resume) } == [])  // already paused
        h.rsc(28, 150)  // still current for 1 s after the resume
        #expect(h.send(.command(.togglePause), at: 30) == [.applied(.resume)])
        #expect(!h.engine.isPaused)
        #expect(h.engine.nextDeadline == at(31))  // the reading at 28 goes stale first: the advice changes
        h.tick(31)
        #expect(h.engine.nextDeadline == at(70))  // moved by the 10 s pause
        #expect(h.send(.command(.resume), at: 31).filter { $0 == .applied(.pause) || $0 == .applied(.resume) } == [])  // not paused
        h.tick(69.999)
        #expect(h.engine.stepIndex == 0)
        h.tick(70)
        #expect(h.engine.stepIndex == 1)
        #expect(h.engine.nextDeadline == at(100))
        #expect(h.send(.command(.togglePause), at: 80) == [.applied(.pause)])
        #expect(h.send(.command(.togglePause), at: 90) == [.applied(.resume)])
        #expect(h.engine.nextDeadline == at(110))
        h.tick(109)
        #expect(h.engine.isFinished == false)
        h.tick(110)
        let summary = try #require(h.summary)
        #expect(summary.steps.map(\.duration) == [.seconds(60), .seconds(30)])
        #expect(summary.duration == .seconds(90))
        let first = summary.steps[0]
        #expect(first.inZone == .seconds(1))  // [19, 20)
        #expect(first.below == .seconds(1))  // [30, 31): the reading from t=28
        #expect(first.noSignal == .seconds(58))
        expectAccounted(first)
    }

    @Test func nextEndsAStepEarly() throws {
        var h = EngineHarness([Fixture.timed(0, 60, zone: zone170), Fixture.timed(1, 30)])
        h.rsc(0, 170)
        let actions = h.send(.command(.next), at: 10)
        #expect(actions.first == .applied(.next))
        guard case .stepFinished(let result, let end) = actions.dropFirst().first, end == .seconds(10) else {
            Issue.record("expected stepFinished, got \(actions)")
            return
        }
        #expect(result.endedBy == .next)
        #expect(result.duration == .seconds(10))
        #expect(result.inZone == .seconds(3))
        #expect(actions.contains(.stepStarted(Fixture.timed(1, 30), at: .seconds(10))))
        #expect(h.engine.nextDeadline == at(40))
        h.tick(40)
        let summary = try #require(h.summary)
        #expect(summary.steps.map(\.endedBy) == [.next, .time])
        #expect(summary.steps.map(\.duration) == [.seconds(10), .seconds(30)])
        #expect(summary.completed)
    }

    @Test func nextOnTheLastStepCompletesTheSession() throws {
        var h = EngineHarness([Fixture.step(0, .open)])
        h.tick(0)
        h.send(.command(.next), at: 42)
        let summary = try #require(h.summary)
        #expect(summary.completed)
        #expect(summary.steps.map(\.endedBy) == [.next])
        #expect(summary.duration == .seconds(42))
    }

    @Test func openStepsEndOnlyOnNextOrSourceEnded() throws {
        var h = EngineHarness([Fixture.step(0, .open, zone: zone170), Fixture.timed(1, 5)])
        h.tick(0)
        #expect(h.engine.nextDeadline == nil)
        h.tick(1000)
        h.send(.deviceEvent(device: "pod", name: "connected"), at: 1100)
        #expect(h.engine.stepIndex == 0)
        #expect(h.engine.stepElapsed == .seconds(1100))
        #expect(h.finishedSteps.isEmpty)
        h.send(.sourceEnded, at: 1200)
        #expect(h.engine.stepIndex == 1)
        #expect(h.finishedSteps.map(\.endedBy) == [.sourceEnded])
        #expect(h.finishedSteps.map(\.duration) == [.seconds(1200)])
        // The following timed step still runs its time after the source ended.
        #expect(h.engine.nextDeadline == at(1205))
        h.tick(1205)
        #expect(h.summary?.completed == true)
    }

    @Test func sourceEndedDuringATimedStepEndsTheFollowingOpenAndDistanceSteps() throws {
        var h = EngineHarness([
            Fixture.timed(0, 10), Fixture.step(1, .open), Fixture.step(2, .distance(100)), Fixture.timed(3, 5),
        ])
        h.tick(0)
        h.send(.sourceEnded, at: 5)
        #expect(h.engine.stepIndex == 0)  // a timed step runs on
        h.tick(10)
        #expect(h.engine.stepIndex == 3)
        h.tick(15)
        let summary = try #require(h.summary)
        #expect(summary.steps.map(\.endedBy) == [.time, .sourceEnded, .sourceEnded, .time])
        #expect(summary.steps.map(\.duration) == [.seconds(10), .zero, .zero, .seconds(5)])
        #expect(summary.completed)
    }

    @Test("what changes the course from outside the plan is reported where it takes effect, before the result it ends")
    func appliedControls() throws {
        var h = EngineHarness([Fixture.timed(0, 10), Fixture.step(1, .open), Fixture.timed(2, 60), Fixture.timed(3, 60)])
        h.tick(0)
        func applied(_ actions: [SessionEngine.Action]) -> [SessionEngine.Control] {
            actions.compactMap { if case .applied(let control) = $0 { control } else { nil } }
        }
        #expect(applied(h.send(.sourceEnded, at: 5)).isEmpty, "a timed step runs on: nothing changed yet")
        let atTen = h.send(.tick, at: 10)
        #expect(applied(atTen) == [.sourceEnded], "the open step that follows ends at once")
        let index = try #require(atTen.firstIndex(of: .applied(.sourceEnded)))
        guard case .stepFinished(let result, _) = atTen[index + 1] else {
            Issue.record("expected the open step's result after it, got \(atTen)")
            return
        }
        #expect(result.endedBy == .sourceEnded)
        #expect(applied(h.send(.command(.pause), at: 12)) == [.pause])
        #expect(applied(h.send(.command(.pause), at: 13)).isEmpty, "already paused")
        #expect(applied(h.send(.command(.togglePause), at: 14)) == [.resume])
        #expect(applied(h.send(.command(.next), at: 20)) == [.next])
        #expect(applied(h.send(.command(.finish), at: 30)) == [.finish])
        #expect(h.summary?.steps.map(\.endedBy) == [.time, .sourceEnded, .next, .finished])
    }

    @Test func distanceStepsEndWhenTheDistanceIsCovered() throws {
        var h = EngineHarness([Fixture.step(0, .distance(100)), Fixture.timed(1, 10)])
        for k in 0...30 {
            h.rsc(Double(k), 170, total: UInt32(50 * k))  // 5 m/s by total distance
            if k == 19 { #expect(h.engine.stepIndex == 0) }
            if k == 20 { #expect(h.engine.stepIndex == 1) }
        }
        let summary = try #require(h.summary)
        #expect(summary.steps[0].endedBy == .distance)
        #expect(summary.steps[0].duration == .seconds(20))
        #expect(summary.steps[0].distance == 100)
        #expect(summary.steps[1].endedBy == .time)
        #expect(summary.steps[1].distance == 45)  // the t=30 reading arrives after the step ended
        #expect(summary.distance == 145)
    }

    @Test func distanceStepsByIntegratedSpeed() throws {
        var h = EngineHarness([Fixture.step(0, .distance(20))])
        h.tick(0)
        #expect(h.engine.distanceInStep == nil)
        for k in 0...3 { h.rsc(Double(k), 170, speedRaw: 1280) }  // 5 m/s
        #expect(h.engine.distanceInStep == 15)
        #expect(!h.engine.isFinished)
        h.tick(100)  // time alone never ends a distance step
        #expect(!h.engine.isFinished)
        h.rsc(101, 170, speedRaw: 1280)  // stale gap: no distance assumed
        h.rsc(102, 170, speedRaw: 1280)
        #expect(h.engine.isFinished)
        #expect(h.summary?.steps.first?.distance == 20)
        #expect(h.summary?.steps.first?.duration == .seconds(102))
    }

    @Test func distanceStepsDoNotEndWhilePaused() throws {
        var h = EngineHarness([Fixture.step(0, .distance(20)), Fixture.timed(1, 10)])
        for k in 0...2 { h.rsc(Double(k), 170, total: UInt32(50 * k)) }
        h.send(.command(.pause), at: 2.5)
        h.rsc(3, 170, total: 150)
        h.rsc(4, 170, total: 200)
        #expect(h.engine.stepIndex == 0)
        h.send(.command(.resume), at: 5)
        h.rsc(5, 170, total: 250)
        #expect(h.engine.stepIndex == 1)
        let result = try #require(h.finishedSteps.first)
        #expect(result.endedBy == .distance)
        #expect(result.distance == 25)
        #expect(result.duration == .seconds(2.5))
    }

    @Test func perRepetitionArraysDriveDurationAndZone() throws {
        let plan = try decodePlan(
            """
            {"name": "Reps", "tolerance": 5, "steps": [
              {"repeat": 2, "steps": [{"kind": "work", "duration": [10, 20], "cadence": [160, 180]}]}
            ]}
            """)
        var h = EngineHarness(plan: plan)
        for k in 0..<30 { h.rsc(Double(k), 170) }
        h.tick(30)
        let summary = try #require(h.summary)
        #expect(summary.plan == "Reps")
        #expect(summary.source == .simulation)
        #expect(summary.steps.map(\.duration) == [.seconds(10), .seconds(20)])
        #expect(summary.steps.map { $0.step.repetition?.description } == ["1/2", "2/2"])
        #expect(summary.steps[0].above == .seconds(10))  // 170 against 155...165
        #expect(summary.steps[1].below == .seconds(20))  // 170 against 175...185
        #expect(summary.completed)
    }

    @Test func finishMidStepIsNotCompleted() throws {
        var h = EngineHarness([Fixture.timed(0, 10), Fixture.timed(1, 10)])
        h.tick(0)
        let actions = h.send(.command(.finish), at: 15)
        // Step 0 finished (time), step 1 started, the finish applied, step 1 finished, session finished.
        #expect(actions.count == 5)
        #expect(actions[2] == .applied(.finish))
        let summary = try #require(h.summary)
        #expect(!summary.completed)
        #expect(summary.steps.map(\.endedBy) == [.time, .finished])
        #expect(summary.steps.map(\.duration) == [.seconds(10), .seconds(5)])
        #expect(h.engine.isFinished)
        #expect(h.engine.currentStep == nil)
        #expect(h.tick(100) == [])
        #expect(h.send(.command(.next), at: 101) == [])
    }

    @Test func finishInTheFirstStepLeavesTheRestOut() throws {
        var h = EngineHarness([Fixture.timed(0, 10), Fixture.timed(1, 10)])
        h.tick(0)
        h.send(.command(.finish), at: 3)
        let summary = try #require(h.summary)
        #expect(!summary.completed)
        #expect(summary.steps.count == 1)
        #expect(summary.duration == .seconds(3))
    }

    @Test func finishInTheLastStepIsNotCompleted() throws {
        var h = EngineHarness([Fixture.step(0, .open)])
        h.tick(0)
        h.send(.command(.finish), at: 3)
        #expect(h.summary?.completed == false)
        #expect(h.summary?.steps.map(\.endedBy) == [.finished])
    }

    @Test func finishAfterThePlanRanOutIsCompleted() throws {
        var h = EngineHarness([Fixture.timed(0, 10)])
        h.tick(0)
        let actions = h.send(.command(.finish), at: 12)  // the step ended at 10, before the command
        #expect(actions.count == 2)
        #expect(h.summary?.completed == true)
        #expect(h.summary?.duration == .seconds(10))
    }

    @Test func timeNeverRunsBackwards() {
        var h = EngineHarness([Fixture.timed(0, 60, zone: zone170)])
        h.tick(10)
        h.rsc(5, 170)  // late: taken as arriving now
        #expect(h.engine.cursor == at(10))
        #expect(h.engine.stream.cadence?.time == at(10))
    }

    @Test func notificationsThatDoNotDecodeAreRejected() {
        var h = EngineHarness([Fixture.timed(0, 60, zone: zone170)])
        h.tick(0)
        let bad = RawNotification(time: at(1), device: "pod", characteristic: .rscMeasurement, bytes: [0x00, 0x01])
        #expect(
            h.send(.notification(bad), at: 1)
                == [.rejectedNotification(device: "pod", error: .gatt(GATTParseError(.rscMeasurement, .truncated(needed: 4, got: 2))))])
        let unknown = RawNotification(time: at(2), device: "pod", characteristicID: "2a5b", bytes: [0x01])
        #expect(h.send(.notification(unknown), at: 2) == [])
        #expect(h.engine.stream.cadence == nil)
        #expect(h.send(.deviceEvent(device: "pod", name: "disconnected"), at: 3) == [.deviceEvent(device: "pod", name: "disconnected")])
        let battery = RawNotification(time: at(4), device: "strap", characteristic: .batteryLevel, bytes: [77])
        h.send(.notification(battery), at: 4)
        #expect(h.engine.stream.batteryLevels == ["strap": 77])
    }
}
