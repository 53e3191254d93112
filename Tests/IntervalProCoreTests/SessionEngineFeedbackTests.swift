import Testing
@testable import IntervalProCore

@Suite("SessionEngine: feedback")
struct SessionEngineFeedbackTests {
    @Test func texts() {
        #expect(Feedback.faster(7).description == "faster +7 spm")
        #expect(Feedback.slower(12).description == "slower -12 spm")
        #expect(Feedback.inZone.description == "in zone")
        #expect(Feedback.noSignal.description == "no signal")
        #expect(Feedback.noZone.description == "free pace")
    }

    @Test func evaluate() {
        #expect(Feedback.evaluate(smoothed: 170, zone: nil, previous: .inZone) == .noZone)
        #expect(Feedback.evaluate(smoothed: nil, zone: zone170, previous: .inZone) == .noSignal)
        #expect(Feedback.evaluate(smoothed: 160, zone: zone170, previous: .noZone) == .faster(10))
        #expect(Feedback.evaluate(smoothed: 164.4, zone: zone170, previous: .faster(6)) == .faster(6))
        // As shown, to the whole spm: 164.5 shows as the bound, 165.
        #expect(Feedback.evaluate(smoothed: 164.5, zone: zone170, previous: .faster(6)) == .inZone)
        #expect(Feedback.evaluate(smoothed: 165, zone: zone170, previous: .faster(5)) == .inZone)
        #expect(Feedback.evaluate(smoothed: 175, zone: zone170, previous: .slower(5)) == .inZone)
        #expect(Feedback.evaluate(smoothed: 175.5, zone: zone170, previous: .slower(5)) == .slower(6))
        #expect(Feedback.evaluate(smoothed: 184.4, zone: zone170, previous: .noSignal) == .slower(14))
        // Hysteresis: once in zone, leaving takes 1.5 spm beyond a bound.
        #expect(Feedback.evaluate(smoothed: 163.5, zone: zone170, previous: .inZone) == .inZone)
        #expect(Feedback.evaluate(smoothed: 163.49, zone: zone170, previous: .inZone) == .faster(7))
        #expect(Feedback.evaluate(smoothed: 176.4, zone: zone170, previous: .inZone) == .inZone)
        #expect(Feedback.evaluate(smoothed: 176.5, zone: zone170, previous: .inZone) == .slower(7))
        #expect(Feedback.evaluate(smoothed: 164, zone: zone170, previous: .faster(6)) == .faster(6))
        // At least 1 spm of advice, even right next to a zero-width zone.
        let exact = CadenceZone(target: 170, tolerance: 0)
        #expect(Feedback.evaluate(smoothed: 169.4, zone: exact, previous: .noZone) == .faster(1))
        #expect(Feedback.evaluate(smoothed: 170.6, zone: exact, previous: .noZone) == .slower(1))
        #expect(Feedback.evaluate(smoothed: 169.8, zone: exact, previous: .noZone) == .inZone)
    }

    @Test func hysteresisInTheEngine() throws {
        var h = EngineHarness([Fixture.timed(0, 120, zone: zone170)])
        h.rsc(0, 160)  // smoothed 160
        h.tick(5)  // the reading is stale
        h.rsc(10, 165)  // restarts at 165: exactly the low bound
        // Wobble just under the low bound, by less than the 1.5 spm margin.
        let wobble: [UInt8] = [164, 166, 164, 165, 164, 164, 166, 164]
        for (i, spm) in wobble.enumerated() {
            h.rsc(11 + Double(i), spm)
            h.tick(11.5 + Double(i))
            #expect(h.engine.feedback == .inZone, "after \(spm) at \(11 + i)")
        }
        for k in 19...30 {
            h.rsc(Double(k), 164)
            #expect(h.engine.feedback == .inZone)
        }
        h.rsc(31, 160)  // smoothed falls to about 163.0: out
        #expect(h.feedbackChanges == [.faster(10), .noSignal, .inZone, .faster(7)])
        #expect(h.feedbackChanges.map(\.description) == ["faster +10 spm", "no signal", "in zone", "faster +7 spm"])
        // Scoring uses raw readings, not the smoothed value: the 164s count as below.
        h.send(.command(.finish), at: 32)
        let step = try #require(h.summary?.steps.first)
        expectAccounted(step)
        #expect(step.below > .seconds(15))
    }

    /// The smoothed cadence came closer to 165 at each reading and stopped, in floating point,
    /// just short of it: "faster +5 spm" for the whole step, scored in zone throughout.
    @Test func aCadenceHeldOnABoundComesIntoZone() {
        var h = EngineHarness([Fixture.timed(0, 300, zone: zone170)])
        for second in 0..<30 { h.rsc(Double(second), 160) }
        for second in 30..<300 { h.rsc(Double(second), 165) }
        #expect(h.engine.feedback == .inZone)
        var h2 = EngineHarness([Fixture.timed(0, 300, zone: zone170)])
        for second in 0..<30 { h2.rsc(Double(second), 180) }
        for second in 30..<300 { h2.rsc(Double(second), 175) }
        #expect(h2.engine.feedback == .inZone)
    }

    /// A replay on virtual time has no tick where the cadence goes stale unless the engine asks
    /// for one: its lines never said the signal was lost (the summary counted it).
    @Test func theCadenceGoingStaleIsADeadline() {
        var h = EngineHarness([Fixture.timed(0, 120, zone: zone170), Fixture.timed(1, 60, kind: .rest)])
        h.rsc(0, 170)
        h.rsc(10, 170)
        #expect(h.engine.nextDeadline == .seconds(13))
        h.tick(13)
        #expect(h.engine.feedback == .noSignal)
        #expect(h.engine.nextDeadline == .seconds(120), "stale already: the step's end")
        h.rsc(130, 170)
        #expect(h.engine.nextDeadline == .seconds(180), "no zone, no advice to change")
    }

    @Test func slowerAdviceAndFreePace() {
        var h = EngineHarness([Fixture.timed(0, 10, zone: zone170), Fixture.timed(1, 10, kind: .rest)])
        h.rsc(0, 185)
        #expect(h.engine.feedback == .slower(15))
        h.rsc(9, 175)  // restart after a stale gap: exactly the high bound
        #expect(h.engine.feedback == .inZone)
        h.rsc(10, 175)  // the next step has no zone
        #expect(h.engine.feedback == .noZone)
        #expect(h.feedbackChanges.prefix(2).map(\.description) == ["slower -15 spm", "in zone"])
    }
}
