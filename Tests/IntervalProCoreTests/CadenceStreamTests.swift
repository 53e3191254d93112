import Testing
@testable import IntervalProCore

private func rsc(_ cadence: UInt8, speedRaw: UInt16 = 768, running: Bool = false, total: UInt32? = nil) -> RSCMeasurement {
    RSCMeasurement(speedRaw: speedRaw, cadence: cadence, totalDistanceRaw: total, running: running)
}

/// 3 m/s, clearly moving.
private let moving: UInt16 = 768

@Suite("CadenceNormaliser")
struct CadenceNormaliserTests {
    @Test func stepsAreTakenAsSent() {
        var n = CadenceNormaliser(unit: .steps)
        #expect(n.settled == .steps)
        #expect(n.stepsPerMinute(rsc(85, speedRaw: moving)) == 85)
        #expect(n.stepsPerMinute(rsc(170, speedRaw: moving)) == 170)
        #expect(n.stepsPerMinute(rsc(60, speedRaw: 0)) == 60)
        #expect(n.settled == .steps)
    }

    @Test func stridesAreDoubled() {
        var n = CadenceNormaliser(unit: .strides)
        #expect(n.settled == .strides)
        #expect(n.stepsPerMinute(rsc(85, speedRaw: moving)) == 170)
        #expect(n.stepsPerMinute(rsc(90, speedRaw: 0)) == 180)  // configured: doubled even standing
        #expect(n.stepsPerMinute(rsc(0)) == 0)
        #expect(n.stepsPerMinute(rsc(255, speedRaw: moving)) == 510)
    }

    @Test func autoDoublesMovingReadingsBelow120AndSettlesAfterFive() {
        var n = CadenceNormaliser(unit: .auto)
        #expect(n.configured == .auto)
        #expect(n.settled == nil)
        for i in 1...4 {
            #expect(n.stepsPerMinute(rsc(85, speedRaw: moving)) == 170, "reading \(i)")
            #expect(n.settled == nil, "reading \(i)")
        }
        #expect(n.stepsPerMinute(rsc(86, speedRaw: moving)) == 172)
        #expect(n.settled == .strides)
        // Settled: even a standing reading or one above 120 is now doubled.
        #expect(n.stepsPerMinute(rsc(40, speedRaw: 0)) == 80)
        #expect(n.stepsPerMinute(rsc(150, speedRaw: moving)) == 300)
    }

    /// A step-counting footpod's average ramping up from a standing start, five readings under
    /// 120 with the running bit set, settled strides and doubled the whole run to 332 spm.
    @Test func autoSettlesStepsWhenStridesNoRunnerReachesFollow() {
        var n = CadenceNormaliser(unit: .auto)
        for cadence in [70, 90, 105, 112, 118] as [UInt8] { _ = n.stepsPerMinute(rsc(cadence, speedRaw: 0, running: true)) }
        #expect(n.settled == .strides)
        // Four in a row, then one a runner's strides do reach: no evidence yet.
        for _ in 1...4 { #expect(n.stepsPerMinute(rsc(166, speedRaw: moving)) == 332) }
        #expect(n.stepsPerMinute(rsc(120, speedRaw: moving)) == 240)
        for _ in 1...4 { _ = n.stepsPerMinute(rsc(166, speedRaw: moving)) }
        #expect(n.settled == .strides)
        #expect(n.stepsPerMinute(rsc(166, speedRaw: moving)) == 166)
        #expect(n.settled == .steps)
        #expect(n.stepsPerMinute(rsc(168, speedRaw: moving)) == 168)
        // A unit set by the user (or a recording's header) stays as set.
        var configured = CadenceNormaliser(unit: .strides)
        for _ in 1...10 { _ = configured.stepsPerMinute(rsc(166, speedRaw: moving)) }
        #expect(configured.settled == .strides)
    }

    @Test func autoSettlesOnStepsToo() {
        var n = CadenceNormaliser(unit: .auto)
        for _ in 1...5 { #expect(n.stepsPerMinute(rsc(172, speedRaw: moving)) == 172) }
        #expect(n.settled == .steps)
        #expect(n.stepsPerMinute(rsc(85, speedRaw: moving)) == 85)
    }

    @Test func autoLeavesStandingReadingsAlone() {
        var n = CadenceNormaliser(unit: .auto)
        // Walking about before the start: slow, running bit clear.
        for _ in 1...10 { #expect(n.stepsPerMinute(rsc(60, speedRaw: 256)) == 60) }
        #expect(n.settled == nil)
        // Moving at cadence 0 is no evidence either.
        for _ in 1...10 { #expect(n.stepsPerMinute(rsc(0, speedRaw: moving)) == 0) }
        #expect(n.settled == nil)
    }

    @Test func autoNeedsFiveInARow() {
        var n = CadenceNormaliser(unit: .auto)
        for _ in 1...4 { _ = n.stepsPerMinute(rsc(85, speedRaw: moving)) }
        #expect(n.stepsPerMinute(rsc(170, speedRaw: moving)) == 170)  // disagrees: streak restarts
        for _ in 1...4 { _ = n.stepsPerMinute(rsc(85, speedRaw: moving)) }
        #expect(n.settled == nil)
        _ = n.stepsPerMinute(rsc(85, speedRaw: moving))
        #expect(n.settled == .strides)
    }

    @Test func movingMeansSpeedOrTheRunningBit() {
        var slow = CadenceNormaliser(unit: .auto)
        #expect(slow.stepsPerMinute(rsc(80, speedRaw: 460)) == 80)  // 1.797 m/s: standing
        var fast = CadenceNormaliser(unit: .auto)
        #expect(fast.stepsPerMinute(rsc(80, speedRaw: 461)) == 160)  // 1.801 m/s: moving
        var flagged = CadenceNormaliser(unit: .auto)
        #expect(flagged.stepsPerMinute(rsc(80, speedRaw: 0, running: true)) == 160)
    }

    @Test func thresholdIs120() {
        var a = CadenceNormaliser(unit: .auto)
        #expect(a.stepsPerMinute(rsc(119, speedRaw: moving)) == 238)
        var b = CadenceNormaliser(unit: .auto)
        #expect(b.stepsPerMinute(rsc(120, speedRaw: moving)) == 120)
    }
}

@Suite("CadenceStream")
struct CadenceStreamTests {
    @Test func freshStreamHasNothing() {
        let stream = CadenceStream()
        #expect(stream.cadence == nil)
        #expect(stream.heartRate == nil)
        #expect(stream.distance == nil)
        #expect(stream.currentCadence(at: .zero) == nil)
        #expect(stream.currentSmoothedCadence(at: .zero) == nil)
        #expect(stream.cadenceUnit(of: "pod") == nil)
    }

    @Test func configuredUnitsPerDevice() {
        var stream = CadenceStream(units: ["pod": .strides, "watch": .steps])
        stream.ingest(.rsc(rsc(85, speedRaw: 0)), from: "pod", at: at(0))
        #expect(stream.currentCadence(at: at(0)) == 170)
        #expect(stream.cadenceUnit(of: "pod") == .strides)
        #expect(stream.cadenceUnit(of: "watch") == nil)  // no readings yet
    }

    @Test func autoUnitThroughTheStream() {
        var stream = CadenceStream()
        for i in 0..<5 {
            stream.ingest(.rsc(rsc(88, speedRaw: moving)), from: "pod", at: at(Double(i)))
            #expect(stream.currentCadence(at: at(Double(i))) == 176)
            #expect(stream.cadenceUnit(of: "pod") == (i < 4 ? .auto : .strides))
        }
    }

    @Test func stalenessAfterThreeSeconds() {
        var stream = CadenceStream(units: ["pod": .steps])
        stream.ingest(.rsc(rsc(170)), from: "pod", at: at(1))
        stream.ingest(.heartRate(HeartRateMeasurement(heartRate: 150, sensorContact: .detected)), from: "strap", at: at(1))
        for now in [at(1), at(2.5), SessionTime(microseconds: 3_999_999)] {
            #expect(stream.currentCadence(at: now) == 170)
            #expect(stream.currentHeartRate(at: now) == 150)
            #expect(stream.currentSmoothedCadence(at: now) == 170)
            #expect(stream.isCurrent(stream.cadence, at: now))
        }
        for now in [at(4), at(4.000001), at(100)] {
            #expect(stream.currentCadence(at: now) == nil)
            #expect(stream.currentHeartRate(at: now) == nil)
            #expect(stream.currentSmoothedCadence(at: now) == nil)
            #expect(!stream.isCurrent(stream.cadence, at: now))
        }
        // The last values are still there, only no longer current.
        #expect(stream.cadence == TimedValue(value: 170, time: at(1)))
        #expect(stream.speed == TimedValue(value: 3, time: at(1)))
        #expect(CadenceStream.staleAfter == .seconds(3))
    }

    @Test func smoothingFormula() throws {
        var stream = CadenceStream(units: ["pod": .steps])
        func feed(_ cadence: UInt8, _ seconds: Double) -> Double? {
            stream.ingest(.rsc(rsc(cadence)), from: "pod", at: at(seconds))
            return stream.smoothedCadence
        }
        #expect(feed(160, 0) == 160)  // first reading starts the filter
        #expect(feed(170, 1) == 162.5)  // 160 + 10 × 1 / (3 + 1)
        #expect(feed(180, 3) == 169.5)  // 162.5 + 17.5 × 2 / (3 + 2)
        let s = try #require(feed(169, 3.5))  // 169.5 − 0.5 × 0.5 / 3.5
        #expect(abs(s - (169.5 - 0.5 * 0.5 / 3.5)) < 1e-9)
        #expect(feed(150, 7) == 150)  // 3.5 s gap: restarts from the reading
        #expect(feed(170, 10) == 170)  // exactly 3 s: stale, restarts
        let t = try #require(feed(160, 12.5))  // 2.5 s: smoothed, 170 − 10 × 2.5 / 5.5
        #expect(abs(t - (170 - 10 * 2.5 / 5.5)) < 1e-9)
        #expect(stream.currentCadence(at: at(12.5)) == 160)  // the raw value is not smoothed
    }

    @Test func smoothingUsesNormalisedCadence() {
        var stream = CadenceStream(units: ["pod": .strides])
        stream.ingest(.rsc(rsc(80)), from: "pod", at: at(0))
        stream.ingest(.rsc(rsc(90)), from: "pod", at: at(1))
        #expect(stream.smoothedCadence == 165.0)  // 160 + (180 − 160) × 1 / 4
    }

    @Test func heartRateNeedsContactAndAValue() {
        var stream = CadenceStream()
        stream.ingest(.heartRate(HeartRateMeasurement(heartRate: 70, sensorContact: .notDetected)), from: "strap", at: at(0))
        #expect(stream.heartRate == nil)
        #expect(stream.heartRateDevice == nil)
        stream.ingest(.heartRate(HeartRateMeasurement(heartRate: 0, sensorContact: .detected)), from: "strap", at: at(0))
        #expect(stream.heartRate == nil)
        stream.ingest(.heartRate(HeartRateMeasurement(heartRate: 120, sensorContact: .unsupported)), from: "watch", at: at(1))
        #expect(stream.currentHeartRate(at: at(1)) == 120)
        stream.ingest(.heartRate(HeartRateMeasurement(heartRate: 200, sensorContact: .notDetected)), from: "watch", at: at(2))
        #expect(stream.heartRate == TimedValue(value: 120, time: at(1)))
        stream.ingest(.heartRate(HeartRateMeasurement(heartRate: 125, sensorContact: .detected)), from: "watch", at: at(2))
        #expect(stream.heartRate == TimedValue(value: 125, time: at(2)))
        #expect(stream.heartRateDevice == "watch")
    }

    @Test func distanceFromTotalDistance() {
        var stream = CadenceStream(units: ["pod": .steps])
        // Speed is ignored when the sensor reports total distance (10 m/s would add far more).
        stream.ingest(.rsc(rsc(170, speedRaw: 2560, total: 1000)), from: "pod", at: at(0))
        #expect(stream.distance == 0)  // the first total is the baseline
        stream.ingest(.rsc(rsc(170, speedRaw: 2560, total: 1100)), from: "pod", at: at(1))
        #expect(stream.distance == 10)
        stream.ingest(.rsc(rsc(170, speedRaw: 2560, total: 1250)), from: "pod", at: at(2))
        #expect(stream.distance == 25)
        // The sensor's total resets: take it as a new baseline, never subtract.
        stream.ingest(.rsc(rsc(170, speedRaw: 2560, total: 50)), from: "pod", at: at(3))
        #expect(stream.distance == 25)
        stream.ingest(.rsc(rsc(170, speedRaw: 2560, total: 150)), from: "pod", at: at(4))
        #expect(stream.distance == 35)
        // A long gap does not matter for total distance.
        stream.ingest(.rsc(rsc(170, speedRaw: 2560, total: 1150)), from: "pod", at: at(60))
        #expect(stream.distance == 135)
    }

    /// A Suunto corrects its distance back a few metres, 358 times a run: each step back was
    /// counted again once passed (16.3 km of a 15.2 km run). And seconds without a total (a
    /// watch's distances left out as damage) counted their speed, then the whole step of the
    /// total over them: counted twice.
    @Test func aTotalCorrectedBackIsNotRunAgainAndSpeedBetweenTotalsIsNotCountedTwice() {
        var stream = CadenceStream(units: ["pod": .steps])
        stream.ingest(.rsc(rsc(170, total: 1000)), from: "pod", at: at(0))
        stream.ingest(.rsc(rsc(170, total: 1030)), from: "pod", at: at(1))
        stream.ingest(.rsc(rsc(170, total: 1005)), from: "pod", at: at(2))  // 2.5 m back: a correction
        #expect(stream.distance == 3)
        stream.ingest(.rsc(rsc(170, total: 1040)), from: "pod", at: at(3))  // counted from 1030, the highest
        #expect(stream.distance == 4)
        // Three seconds without a total at 3 m/s, then the total 12 m on: 12 m, not 9 + 12.
        for second in 4...6 { stream.ingest(.rsc(rsc(170, speedRaw: 768)), from: "pod", at: at(Double(second))) }
        #expect(stream.distance == 13)
        stream.ingest(.rsc(rsc(170, total: 1160)), from: "pod", at: at(7))
        #expect(stream.distance == 16)
        // A total far below (more than 50 m back) is the sensor started again: counted from.
        stream.ingest(.rsc(rsc(170, total: 100)), from: "pod", at: at(8))
        stream.ingest(.rsc(rsc(170, total: 130)), from: "pod", at: at(9))
        #expect(stream.distance == 19)
    }

    /// Values that arrived while the sensors were connecting all come at time zero: a pod
    /// heard for 20 s while a strap was looked for put that distance into the session.
    @Test func distanceBeforeTheSessionBeganIsNotTheSessions() {
        var stream = CadenceStream(units: ["pod": .steps])
        for total in stride(from: UInt32(0), through: 600, by: 30) {
            stream.ingest(.rsc(rsc(170, speedRaw: 768, total: total)), from: "pod", at: at(0))
        }
        #expect(stream.distance == 0)
        stream.ingest(.rsc(rsc(170, speedRaw: 768, total: 630)), from: "pod", at: at(1))
        #expect(stream.distance == 3)
    }

    /// A footpod out for 20 s while a phone's GPS (a device of no cadence) counted the metres:
    /// back, its own total had run on over the gap, and its jump counted the gap again.
    @Test func aDropoutAPhoneCoveredIsNotCountedTwice() {
        var stream = CadenceStream(units: ["pod": .steps, "phone": CadenceUnit.none])
        stream.ingest(.rsc(rsc(170, total: 0)), from: "pod", at: at(0))
        stream.ingest(.rsc(rsc(170, total: 30)), from: "pod", at: at(1))
        #expect(stream.distance == 3)
        // The phone's total: its baseline while the pod counts, then 4 m a second in the gap.
        stream.ingest(.rsc(rsc(0, total: 1000)), from: "phone", at: at(1))
        for second in 5...24 { stream.ingest(.rsc(rsc(0, total: UInt32(1000 + 40 * (second - 1)))), from: "phone", at: at(Double(second))) }
        // From its last total (at 1 s) on, once the pod went stale.
        let covered = stream.distance ?? 0
        #expect(covered == 3 + 4 * 23)
        // The pod back: its total ran on 63 m over the gap, then 3 m in its next second.
        stream.ingest(.rsc(rsc(170, total: 660)), from: "pod", at: at(25))
        stream.ingest(.rsc(rsc(170, total: 690)), from: "pod", at: at(26))
        #expect(stream.distance == covered + 3)
        // Alone, a pod's jump over its own dropout is what it ran, and counts.
        var alone = CadenceStream(units: ["pod": .steps])
        alone.ingest(.rsc(rsc(170, total: 0)), from: "pod", at: at(0))
        alone.ingest(.rsc(rsc(170, total: 660)), from: "pod", at: at(25))
        #expect(alone.distance == 66)
    }

    /// A watch's footpod and its GPS, each sending its total every second: the pod stops
    /// after 10 s. The GPS's totals of the 3 s the pod's cadence stays current moved its mark
    /// on uncounted: 6 m lost at each dropout (360 m of an hour's run, and as many again at
    /// each FIT export imported again).
    @Test func theMetresBeforeAPodGoesStaleAreCountedOnce() {
        for podFirst in [true, false] {
            var stream = CadenceStream(units: ["pod": .steps, "gps": CadenceUnit.none])
            for second in 0...20 {
                let pod = SensorReading.rsc(rsc(170, total: UInt32(30 * second))), gps = SensorReading.rsc(rsc(0, total: UInt32(1000 + 30 * second)))
                let sent = second > 10 ? [("gps", gps)] : podFirst ? [("pod", pod), ("gps", gps)] : [("gps", gps), ("pod", pod)]
                for (device, reading) in sent { stream.ingest(reading, from: device, at: at(Double(second))) }
            }
            #expect(stream.distance == 60, "pod first: \(podFirst)")
        }
    }

    @Test func distanceFromIntegratedSpeed() {
        var stream = CadenceStream(units: ["pod": .steps])
        stream.ingest(.rsc(rsc(170, speedRaw: 512)), from: "pod", at: at(0))  // 2 m/s
        #expect(stream.distance == 0)
        stream.ingest(.rsc(rsc(170, speedRaw: 768)), from: "pod", at: at(1))  // the 2 m/s held for 1 s
        #expect(stream.distance == 2)
        stream.ingest(.rsc(rsc(170, speedRaw: 1024)), from: "pod", at: at(2.5))  // 3 m/s × 1.5 s
        #expect(stream.distance == 6.5)
        stream.ingest(.rsc(rsc(170, speedRaw: 0)), from: "pod", at: at(4.5))  // 4 m/s × 2 s
        #expect(stream.distance == 14.5)
        stream.ingest(.rsc(rsc(170, speedRaw: 1024)), from: "pod", at: at(5))  // 0 m/s × 0.5 s
        #expect(stream.distance == 14.5)
        // More than the staleness window since the last reading: nothing is assumed about the gap.
        stream.ingest(.rsc(rsc(170, speedRaw: 1024)), from: "pod", at: at(9))
        #expect(stream.distance == 14.5)
        stream.ingest(.rsc(rsc(170, speedRaw: 1024)), from: "pod", at: at(10))
        #expect(stream.distance == 18.5)
    }

    @Test func firstRSCDeviceWinsUntilItGoesStale() {
        var stream = CadenceStream(units: ["pod": .steps, "watch": .steps])
        stream.ingest(.rsc(rsc(170)), from: "pod", at: at(0))
        stream.ingest(.rsc(rsc(180)), from: "watch", at: at(1))
        #expect(stream.cadenceDevice == "pod")
        #expect(stream.cadence == TimedValue(value: 170, time: at(0)))
        stream.ingest(.rsc(rsc(172)), from: "pod", at: at(2))
        stream.ingest(.rsc(rsc(181)), from: "watch", at: at(4.999))
        #expect(stream.cadenceDevice == "pod")
        #expect(stream.currentCadence(at: at(4.999)) == 172)
        #expect(stream.cadenceUnit(of: "watch") == nil)  // ignored readings do not even reach a normaliser
        // The pod's last reading (t=2) is stale at t=5: the watch takes over, smoothing restarts.
        stream.ingest(.rsc(rsc(182)), from: "watch", at: at(5))
        #expect(stream.cadenceDevice == "watch")
        #expect(stream.currentCadence(at: at(5)) == 182)
        #expect(stream.smoothedCadence == 182)
        // And now the pod is the one ignored.
        stream.ingest(.rsc(rsc(150)), from: "pod", at: at(6))
        #expect(stream.currentCadence(at: at(6)) == 182)
        #expect(stream.cadenceDevice == "watch")
    }

    @Test func firstHeartRateDeviceWinsUntilItGoesStale() {
        var stream = CadenceStream()
        let hr = { (bpm: UInt16) in SensorReading.heartRate(HeartRateMeasurement(heartRate: bpm, sensorContact: .detected)) }
        stream.ingest(hr(140), from: "strap", at: at(0))
        stream.ingest(hr(150), from: "watch", at: at(1))
        #expect(stream.heartRateDevice == "strap")
        #expect(stream.currentHeartRate(at: at(1)) == 140)
        stream.ingest(hr(151), from: "watch", at: at(3))
        #expect(stream.heartRateDevice == "watch")
        #expect(stream.currentHeartRate(at: at(3)) == 151)
        // Heart rate from an RSC device does not make it the heart-rate device.
        #expect(stream.cadenceDevice == nil)
    }

    /// A watch and a footpod both send RSC with total distance. Only one is listened to at
    /// a time "so that they are not counted twice" (CadenceStream's contract).
    @Test func switchingBackToADeviceDoesNotCountItsGapTwice() {
        var stream = CadenceStream(units: ["pod": .steps, "watch": .steps])
        stream.ingest(.rsc(rsc(170, total: 0)), from: "pod", at: at(0))
        stream.ingest(.rsc(rsc(170, total: 100)), from: "pod", at: at(1))
        #expect(stream.distance == 10)
        // The pod drops out; the watch takes over and covers 50 m.
        stream.ingest(.rsc(rsc(170, total: 5000)), from: "watch", at: at(5))
        stream.ingest(.rsc(rsc(170, total: 5500)), from: "watch", at: at(6))
        #expect(stream.cadenceDevice == "watch")
        #expect(stream.distance == 60)
        // The pod is back (ignored while the watch is current); its total now includes
        // the 60 m the watch already counted.
        stream.ingest(.rsc(rsc(170, total: 700)), from: "pod", at: at(6.5))
        #expect(stream.distance == 60)
        // The watch goes quiet; the pod takes over at the very same total: no new distance.
        stream.ingest(.rsc(rsc(170, total: 700)), from: "pod", at: at(10))
        #expect(stream.cadenceDevice == "pod")
        #expect(stream.distance == 60)
    }

    @Test func batteryAndIgnoredReadings() {
        var stream = CadenceStream()
        stream.ingest(.batteryLevel(BatteryLevel(percent: 80)), from: "strap", at: at(0))
        stream.ingest(.batteryLevel(BatteryLevel(percent: 55)), from: "pod", at: at(0))
        stream.ingest(.batteryLevel(BatteryLevel(percent: 79)), from: "strap", at: at(1))
        #expect(stream.batteryLevels == ["strap": 79, "pod": 55])
        stream.ingest(.rscFeature([.strideLength]), from: "pod", at: at(2))
        stream.ingest(.bodySensorLocation(.chest), from: "strap", at: at(2))
        #expect(stream.cadence == nil)
        #expect(stream.heartRate == nil)
        #expect(stream.cadenceDevice == nil)
    }

    /// A run a watch recorded without a footpod: its GPS's distance, with 0 in the RSC cadence
    /// field, counts; its cadence never does; and a footpod's own distance comes first.
    @Test func aDeviceOfNoCadenceGivesDistanceAlone() {
        var stream = CadenceStream(units: ["gps": .none, "pod": .steps])
        for second in 0...10 {
            stream.ingest(.rsc(rsc(0, speedRaw: moving, total: UInt32(second * 30))), from: "gps", at: .seconds(Double(second)))
        }
        #expect(stream.cadence == nil)
        #expect(stream.cadenceDevice == nil)
        #expect(stream.distance == 30)
        #expect(stream.speed?.value == 3)
        // A footpod's readings: its distance, not the GPS's beside it.
        stream.ingest(.rsc(rsc(170, speedRaw: moving, total: 1000)), from: "pod", at: .seconds(11))
        stream.ingest(.rsc(rsc(0, speedRaw: moving, total: 360)), from: "gps", at: .seconds(12))
        stream.ingest(.rsc(rsc(172, speedRaw: moving, total: 1040)), from: "pod", at: .seconds(12))
        #expect(stream.currentCadence(at: .seconds(12)) == 172)
        #expect(stream.distance == 34)
    }
}
