import IntervalProCore
import Testing
@testable import IntervalProHRV

/// A strap at one value a second, each carrying the beats of that second.
struct Strap {
    var intervals: [Double]
    var contact: HeartRateMeasurement.SensorContact = .detected
    private var next = 0
    private var elapsed = 0.0

    init(intervals: [Double]) { self.intervals = intervals }

    /// The value sent at the end of second `second` (beats that ended within it).
    mutating func value(endingAt second: Int) -> HeartRateMeasurement {
        var sent: [UInt16] = []
        while next < intervals.count, elapsed + intervals[next] <= Double(second) * 1000 {
            elapsed += intervals[next]
            sent.append(UInt16((intervals[next] * 1.024).rounded()))
            next += 1
        }
        return HeartRateMeasurement(heartRate: 60, sensorContact: contact, rrIntervals: RRIntervals(sent))
    }
}

@Suite("Readiness measurement")
struct ReadinessMeasurementTests {
    static func settings(minutes: Int = 2) -> ReadinessMeasurement.Settings {
        ReadinessMeasurement.Settings(duration: .seconds(minutes * 60))
    }

    @Test func settlesThirtySecondsThenScoresTheDuration() throws {
        var measurement = ReadinessMeasurement(settings: Self.settings())
        var strap = Strap(intervals: restingIntervals(count: 400))
        #expect(measurement.phase == .waiting)
        var phases: [Int: ReadinessMeasurement.Phase] = [:]
        for second in 1...200 where !measurement.isComplete {
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
            phases[second] = measurement.phase
        }
        #expect(phases[10] == .settling)
        #expect(phases[31] == .measuring)
        // Counted from the first value, at 1 s: 150 s of contact end at 151 s.
        #expect(phases[150] == .measuring)
        #expect(phases[151] == .complete)
        #expect(phases[152] == nil, "no value is taken once complete")
        #expect(measurement.progress.timeLeft == .zero)
        // Beats after the first 30 s of contact: about 120 at 1000 ms.
        #expect((118...122).contains(measurement.beats))
        let figures = try measurement.result().get()
        #expect(figures.artifactsCorrected == 0)
        #expect(figures.hrv.meanHeartRate > 59 && figures.hrv.meanHeartRate < 61)
        #expect(figures.hrv.rmssd > 10)
    }

    @Test func noContactPausesTheCountAndStartsANewStretch() throws {
        var measurement = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        var strap = Strap(intervals: restingIntervals(count: 400))
        var second = 0
        while !measurement.isComplete && second < 300 {
            second += 1
            strap.contact = (50..<60).contains(second) ? .notDetected : .detected
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
            if second == 55 {
                #expect(measurement.phase == .noContact)
                #expect(measurement.progress.timeLeft == .seconds(41))
            }
        }
        // 90 s of contact from the first value at 1 s, 10 s of it lost: complete at 101 s, not 91.
        #expect(second == 101)
        #expect(measurement.segments.count == 2)
        #expect(try measurement.result().get().hrv.beats == measurement.beats)
    }

    @Test func silencePausesTheCountAfterTheStalenessWindow() {
        var measurement = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        var strap = Strap(intervals: restingIntervals(count: 400))
        for second in 1...40 { measurement.receive(strap.value(endingAt: second), at: .seconds(second)) }
        let counted = measurement.contactTime
        measurement.advance(to: .seconds(50))
        #expect(measurement.phase == .noSignal)
        #expect(measurement.contactTime == counted + .seconds(3))
        measurement.advance(to: .seconds(60))
        #expect(measurement.contactTime == counted + .seconds(3))
        measurement.receive(strap.value(endingAt: 61), at: .seconds(61))
        #expect(measurement.phase == .measuring)
        measurement.receive(strap.value(endingAt: 62), at: .seconds(62))
        #expect(measurement.segments.count == 2, "the values after the silence start a new stretch")
    }

    /// An interval no heart beats at (an app's export where the signal was lost for 10 s, or
    /// two beats a strap missed at rest) is a pause, not a beat: no difference is taken across
    /// it. Scored as a beat, one such interval gave an rMSSD of 613 ms for a morning of 40.
    @Test func anIntervalLongerThanAHeartbeatIsAPause() throws {
        var measurement = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        let beat = HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: [1000, 1040])
        for second in 1...40 { measurement.receive(beat, at: .seconds(second)) }
        measurement.receive(HeartRateMeasurement(heartRate: 6, sensorContact: .detected, rrIntervals: [10_240]), at: .seconds(41))
        for second in 42...60 { measurement.receive(beat, at: .seconds(second)) }
        measurement.receive(HeartRateMeasurement(heartRate: 30, sensorContact: .detected, rrIntervals: [1000, 2049, 1040]), at: .seconds(61))
        for second in 62...100 { measurement.receive(beat, at: .seconds(second)) }
        #expect(measurement.segments.count == 3)
        #expect(!measurement.segments.joined().contains { $0 > 2048 })
        #expect(measurement.intervalsLeftOut == 2)
        let figures = try measurement.result().get()
        // Every difference within a stretch is 40 (or 40 back): 40 units, 39.06 ms.
        #expect(abs(figures.hrv.rmssd - 40 * 1000 / 1024) < 0.01, "rMSSD \(figures.hrv.rmssd)")
        // The lost intervals are the measurement's artifacts, counted among its intervals.
        #expect(figures.artifactsCorrected == 2)
        #expect(figures.beatsReceived == measurement.beats + 2)
        #expect(measurement.artifactsSoFar() == 2)
    }

    /// hrv-analysis's `remove_outliers` bounds a heartbeat at 300 ms too: two intervals of 1
    /// and 5 ms (an export's "1 005" split at its space) were scored as beats, and a morning
    /// of 40 ms read 115.
    @Test func anIntervalShorterThanAHeartbeatIsLeftOut() throws {
        var measurement = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        let beat = HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: [1000, 1040])
        for second in 1...50 { measurement.receive(beat, at: .seconds(second)) }
        measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: [1000, 1, 5, 1040]), at: .seconds(51))
        measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: [1000, 307, 1040]), at: .seconds(52))
        for second in 53...100 { measurement.receive(beat, at: .seconds(second)) }
        #expect(!measurement.segments.joined().contains { $0 < 308 })
        #expect(measurement.intervalsLeftOut == 3)
        let figures = try measurement.result().get()
        #expect(abs(figures.hrv.rmssd - 40 * 1000 / 1024) < 0.01, "rMSSD \(figures.hrv.rmssd)")
        #expect(figures.artifactsCorrected == 3)
    }

    @Test("an ANT+ strap's missed pages start a new stretch: no difference is taken across the beats they held")
    func missedANTPagesStartANewStretch() throws {
        // One page a beat, intervals alternating 1000 and 1040 (1/1024 s): every true
        // successive difference is 40. Pages of beats 60 and 61 are lost (no page 4 to
        // bridge them), and that of beat 75, whose next page is a page 4 giving beat 76's
        // interval. Joined across either gap, two intervals of a kind meet: a difference of 0.
        var decoder = NotificationDecoder()
        var measurement = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        var time: UInt32 = 0
        var beatTimes: [UInt32] = [0]
        for beat in 1...120 {
            time += beat % 2 == 0 ? 1000 : 1040
            beatTimes.append(time)
        }
        for beat in 0...120 where ![60, 61, 75].contains(beat) {
            let now = UInt16(truncatingIfNeeded: beatTimes[beat])
            let previous = UInt16(truncatingIfNeeded: beatTimes[max(0, beat - 1)])
            let page: UInt8 = beat == 76 ? 4 : 0
            let bytes = [page, 0, UInt8(previous & 0xFF), UInt8(previous >> 8), UInt8(now & 0xFF), UInt8(now >> 8), UInt8(beat % 256), 60]
            let notification = RawNotification(
                time: SessionTime(microseconds: Int64(beatTimes[beat]) * 1_000_000 / 1024), device: "ant:hr:1",
                characteristicID: "ant-hr", bytes: bytes)
            guard case .heartRate(let value)? = try decoder.decode(notification) else {
                Issue.record("page of beat \(beat) gave no heart rate")
                continue
            }
            measurement.receive(value, at: notification.time)
        }
        #expect(measurement.isComplete)
        #expect(measurement.segments.count == 3, "stretches \(measurement.segments.map(\.count))")
        let figures = try measurement.result().get()
        #expect(abs(figures.hrv.rmssd - 40 * 1000 / 1024) < 1e-9, "rMSSD \(figures.hrv.rmssd)")
    }

    @Test func aStrapWithoutRRIsFoundOutWithinTenValues() {
        var measurement = ReadinessMeasurement(settings: Self.settings())
        for second in 1...9 {
            measurement.receive(HeartRateMeasurement(heartRate: 58, sensorContact: .detected), at: .seconds(second))
        }
        #expect(!measurement.progress.sendsNoRR)
        measurement.receive(HeartRateMeasurement(heartRate: 58, sensorContact: .detected), at: .seconds(10))
        #expect(measurement.progress.sendsNoRR)
        #expect(measurement.result() == .failure(.noRRIntervals))
    }

    @Test func valuesWithNoneAndWithNineIntervalsCountEveryInterval() {
        var measurement = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        for second in 1...31 { measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected), at: .seconds(second)) }
        measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: RRIntervals(Array(repeating: 1024, count: 9))), at: .seconds(32))
        measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected), at: .seconds(33))
        measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .unsupported, rrIntervals: [1000, 1030]), at: .seconds(34))
        #expect(measurement.beats == 11)
        #expect(measurement.segments == [Array(repeating: 1024, count: 9) + [1000, 1030]])
    }

    @Test func tooManyArtifactsRefuseTheMeasurement() throws {
        var intervals = restingIntervals(count: 400)
        // Every 12th beat of the scored part missed: about 8 %.
        for k in stride(from: 300, through: 40, by: -12) {
            intervals.replaceSubrange(k...k + 1, with: [intervals[k] + intervals[k + 1]])
        }
        var measurement = ReadinessMeasurement(settings: Self.settings())
        var strap = Strap(intervals: intervals)
        for second in 1...200 where !measurement.isComplete {
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
        }
        guard case .failure(.tooManyArtifacts(let corrected, let beats, let limit)) = measurement.result() else {
            Issue.record("expected a refusal, got \(measurement.result())")
            return
        }
        #expect(Double(corrected) / Double(beats) > limit)
        #expect(measurement.artifactsSoFar() == corrected)
    }

    @Test func aFewArtifactsAreCorrectedAndScored() throws {
        // At 75 bpm: a missed beat's 1.6 s is within a heartbeat's longest, so it is corrected.
        var intervals = restingIntervals(count: 400, mean: 800)
        intervals.replaceSubrange(100...101, with: [intervals[100] + intervals[101]])
        var measurement = ReadinessMeasurement(settings: Self.settings())
        var strap = Strap(intervals: intervals)
        for second in 1...200 where !measurement.isComplete {
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
        }
        let figures = try measurement.result().get()
        #expect(figures.artifactsCorrected == 1)
        #expect(figures.hrv.beats == figures.beatsReceived + 1, "the missed beat is put back")
    }

    @Test func aHeartOverARestingRateIsRefusedNotJudged() throws {
        // A run's beats: 133 bpm, with the variability of a resting series.
        let running = restingIntervals(count: 600, mean: 60_000.0 / 133, swing: 18)
        var measurement = ReadinessMeasurement(settings: Self.settings())
        var strap = Strap(intervals: running)
        for second in 1...200 where !measurement.isComplete {
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
        }
        guard case .failure(.notAtRest(let heartRate, let limit)) = measurement.result() else {
            Issue.record("expected a refusal, got \(measurement.result())")
            return
        }
        #expect(abs(heartRate - 133) < 2)
        #expect(limit == 100)
        #expect(ReadinessRefusal.notAtRest(heartRate: heartRate, limit: limit).description.contains("averaged 133 bpm"))
        // Just over the limit, as many decimals as tell the two apart: "averaged 100 bpm, over the 100 bpm" was said of 100.03.
        #expect(ReadinessRefusal.notAtRest(heartRate: 100.03, limit: 100).description.contains("averaged 100.03 bpm, over the 100 bpm"))
        #expect(ReadinessRefusal.notAtRest(heartRate: 100.4, limit: 100).description.contains("averaged 100.4 bpm"))
        #expect(ReadinessRefusal.notAtRest(heartRate: 100.6, limit: 100).description.contains("averaged 101 bpm"))

        // Just under the limit, a heart is judged.
        var underLimit = ReadinessMeasurement(settings: Self.settings(minutes: 1))
        var calm = Strap(intervals: restingIntervals(count: 300, mean: 602))
        for second in 1...100 where !underLimit.isComplete {
            underLimit.receive(calm.value(endingAt: second), at: .seconds(second))
        }
        let figures = try underLimit.result().get()
        #expect(figures.hrv.meanHeartRate > 99 && figures.hrv.meanHeartRate <= 100)
    }

    @Test func aHeartRateOverARestingOneShowsWhileItLasts() {
        var measurement = ReadinessMeasurement(settings: Self.settings())
        #expect(!measurement.progress.aboveRestingRate, "nothing received")
        measurement.receive(HeartRateMeasurement(heartRate: 101, sensorContact: .detected), at: .seconds(1))
        #expect(measurement.progress.aboveRestingRate)
        measurement.receive(HeartRateMeasurement(heartRate: 100, sensorContact: .detected), at: .seconds(2))
        #expect(!measurement.progress.aboveRestingRate)
    }

    /// Fuzzing found it: the same interval from start to end gave rMSSD 0 and ln rMSSD -inf,
    /// saved as a morning like any other.
    @Test func intervalsThatNeverChangeAreRefusedNotScored() throws {
        var measurement = ReadinessMeasurement(settings: Self.settings())
        var strap = Strap(intervals: Array(repeating: 1000, count: 200))
        for second in 1...200 where !measurement.isComplete {
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
        }
        #expect(measurement.isComplete)
        #expect(measurement.result() == .failure(.noBeatToBeatVariation))
        #expect(ReadinessRefusal.noBeatToBeatVariation.description.contains("measure with a chest strap that times the beats"))

        // One interval apart from the rest is no beat timed: 199 of 200 are 60 bpm's 1,000 ms.
        var intervals = Array(repeating: 1000.0, count: 200)
        intervals[100] = 1010
        let uneven = Self.measured(intervals)
        guard case .failure(.intervalsFromHeartRate(let share)) = uneven.result() else {
            Issue.record("scored: \(uneven.result())")
            return
        }
        #expect(share > 0.99)
    }

    /// A sensor that sends 60,000 / its heart rate as the RR interval, the rate changing by
    /// 1 bpm now and then: rMSSD is not 0, and such a morning was scored, as one of very low
    /// variability.
    @Test func intervalsWorkedOutFromAWholeHeartRateAreRefused() throws {
        for (rate, roundedToMilliseconds) in [(48, true), (55, false), (75, true), (95, false)] {
            var state: UInt64 = 0x2545_F491_4F6C_DD1D &+ UInt64(rate)
            var heartRate = Double(rate)
            let intervals = (0..<400).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                heartRate += [-1, 0, 0, 1][Int(state >> 62)]
                let exact = 60_000 / heartRate
                // As the sensor rounds it: to the millisecond, then (by `Strap`) to 1/1024 s.
                return roundedToMilliseconds ? exact.rounded() : exact
            }
            let measurement = Self.measured(intervals)
            guard case .failure(.intervalsFromHeartRate(let share)) = measurement.result() else {
                Issue.record("\(rate) bpm: \(measurement.result())")
                continue
            }
            #expect(share == 1, "\(rate) bpm")
            #expect(
                ReadinessRefusal.intervalsFromHeartRate(share: share).description.hasPrefix(
                    "100.0 % of the RR intervals are exactly 60,000 / a whole heart rate"))
        }
    }

    /// Beats timed one by one fall within 1 ms of a whole rate's interval by chance: a third of
    /// them at most at rest, where the gap between two rates' intervals is smallest (100 bpm).
    @Test func beatsTimedOneByOneAreNotTakenForAHeartRatesIntervals() throws {
        for mean in [1333.0, 1000, 750, 602] {
            let intervals = restingIntervals(count: 400, mean: mean, swing: 25)
            let units = intervals.map { UInt16(($0 * 1.024).rounded()) }
            #expect(ReadinessMeasurement.shareFromWholeHeartRates(units) < 0.4, "mean \(mean) ms")
            let measurement = Self.measured(intervals)
            #expect(throws: Never.self, "mean \(mean) ms") { try measurement.result().get() }
        }
        // 991 / 1024 s is 967.8 ms, 62 bpm's 967.7; 1,024 is 60 bpm's 1,000 ms; 1,000 / 1024 s
        // (976.6 ms) lies between 61 bpm's 983.6 and 62's.
        #expect(ReadinessMeasurement.shareFromWholeHeartRates([991, 1000, 1024]) == 2.0 / 3)
    }

    /// A two-minute measurement of `intervals` sent by a `Strap`, run until complete.
    static func measured(_ intervals: [Double]) -> ReadinessMeasurement {
        var measurement = ReadinessMeasurement(settings: settings())
        var strap = Strap(intervals: intervals)
        for second in 1...400 where !measurement.isComplete {
            measurement.receive(strap.value(endingAt: second), at: .seconds(second))
        }
        return measurement
    }

    @Test func refusalsSayWhatToDo() {
        #expect(ReadinessRefusal.tooManyArtifacts(corrected: 9, beats: 120, limit: 0.04).description.contains("7.5 %"))
        #expect(ReadinessRefusal.tooManyArtifacts(corrected: 9, beats: 120, limit: 0.04).description.contains("wet the strap"))
        #expect(ReadinessRefusal.noRRIntervals.description.contains("no RR intervals"))
    }
}
