import IntervalProCore
import Testing

@Suite("NotificationDecoder: GATT values and ANT+ pages as readings")
struct NotificationDecoderTests {
    func ant(_ profile: ANTPlusProfile, _ bytes: [UInt8], at seconds: Double = 0, device: String = "ant:1") -> RawNotification {
        RawNotification(time: .seconds(seconds), device: device, characteristicID: profile.rawValue, bytes: bytes)
    }

    @Test("a heart-rate page is a Heart Rate Measurement with the RR interval its beat completes")
    func heartRatePages() throws {
        var decoder = NotificationDecoder()
        let first = try decoder.decode(ant(.heartRate, [0, 0, 0, 0, 0x00, 0x04, 1, 60]))
        #expect(first == .heartRate(HeartRateMeasurement(heartRate: 60, sensorContact: .unsupported, rrIntervals: [])))
        let second = try decoder.decode(ant(.heartRate, [0, 0, 0, 0, 0x00, 0x08, 2, 60], at: 1))
        #expect(second == .heartRate(HeartRateMeasurement(heartRate: 60, sensorContact: .unsupported, rrIntervals: [1024])))
        // Another strap's beats are its own.
        let other = try decoder.decode(ant(.heartRate, [0, 0, 0, 0, 0x00, 0x0C, 3, 61], device: "ant:2"))
        #expect(other == .heartRate(HeartRateMeasurement(heartRate: 61, sensorContact: .unsupported, rrIntervals: [])))
    }

    @Test("a foot pod's page 2 is an RSC Measurement in steps, with the distance its page 1s added up across the rollover")
    func strideSpeedPages() throws {
        var decoder = NotificationDecoder()
        #expect(try decoder.decode(ant(.strideSpeed, [1, 0, 0, 250, 0x00, 0, 0, 0])) == nil)
        #expect(try decoder.decode(ant(.strideSpeed, [1, 0, 0, 4, 0x80, 0, 0, 0])) == nil)  // 250 → 4.5: 10.5 m
        let reading = try decoder.decode(ant(.strideSpeed, [2, 0, 0, 85, 0x83, 0x20, 0, 0x01]))
        #expect(reading == .rsc(RSCMeasurement(speedRaw: 800, cadence: 171, totalDistanceRaw: 105, running: true)))
        #expect(try decoder.decode(ant(.strideSpeed, [80, 0xFF, 0xFF, 1, 1, 0, 1, 0])) == nil)
        #expect(throws: NotificationParseError.antPage(.strideSpeed, length: 3)) { try decoder.decode(ant(.strideSpeed, [2, 0, 0])) }
        // A characteristic nothing here reads carries no reading.
        #expect(try decoder.decode(RawNotification(time: .zero, device: "x", characteristicID: "ant-bike", bytes: [])) == nil)
    }

    /// A pod out of range for 30 s at 12 m/s, counting on: 360 m run, one whole rollover
    /// unseen. Each was lost (600 m read as 332).
    @Test("across a gap, the rollovers the pod's speed gives are counted")
    func rolloversAcrossAGap() throws {
        var decoder = NotificationDecoder()
        func page1(_ metres: Int, speed: UInt8, at seconds: Double) -> RawNotification {
            ant(.strideSpeed, [1, 0, 0, UInt8(metres % 256), speed & 0x0F, 0, 0, 0], at: seconds)
        }
        func distance(at seconds: Double) throws -> UInt32? {
            guard case .rsc(let rsc) = try decoder.decode(ant(.strideSpeed, [2, 0, 0, 85, 0x0C, 0, 0, 0x01], at: seconds)) else { return nil }
            return rsc.totalDistanceRaw
        }
        _ = try decoder.decode(page1(0, speed: 12, at: 0))
        _ = try decoder.decode(page1(12, speed: 12, at: 1))
        #expect(try distance(at: 1) == 120)
        // Back 30 s later, 372 m on: the page says 372 - 256 = 116.
        _ = try decoder.decode(page1(372, speed: 12, at: 31))
        #expect(try distance(at: 31) == 3720)
        // A second later, at a walk: one step, no rollover made up.
        _ = try decoder.decode(page1(373, speed: 1, at: 32))
        #expect(try distance(at: 32) == 3730)
    }

    /// Page 1 as a pod sends it at `received` s, running at `stridesPerSecond` and 3 m/s since 0:
    /// its strides so far, the time of its last one on its own clock (rolling over at 256 s),
    /// its distance.
    func page1(at received: Double, stridesPerSecond: Double = 1.5, speed: UInt8 = 3, startingAt podStart: Double = 0) -> RawNotification {
        let strides = (received * stridesPerSecond).rounded(.down)
        let podTime = (podStart + strides / stridesPerSecond).truncatingRemainder(dividingBy: 256)
        let metres = Int(received * Double(speed))
        return ant(
            .strideSpeed,
            [1, UInt8(Int((podTime * 200).rounded()) % 200), UInt8(Int(podTime)), UInt8(metres % 256), speed & 0x0F, 0,
             UInt8(Int(strides) % 256), 0],
            at: received)
    }

    /// The profile asks a pod for page 1 only: one that sent no page 2 gave no cadence at all.
    @Test("a pod that sends page 1 alone has its cadence counted from its strides, over its own clock")
    func cadenceFromPageOne() throws {
        var decoder = NotificationDecoder()
        var readings: [(Double, RSCMeasurement?)] = []
        for quarter in 0..<48 {
            let seconds = Double(quarter) / 4
            // From 200 s on the pod's clock: it rolls over at 256 s on the way.
            guard case let reading? = try decoder.decode(page1(at: seconds, startingAt: 250)) else {
                readings.append((seconds, nil))
                continue
            }
            guard case .rsc(let rsc) = reading else { Issue.record("not RSC: \(reading)"); return }
            readings.append((seconds, rsc))
        }
        // Nothing until the counts cover 2 s of the pod's clock; then 1.5 strides a second, 180 steps a minute.
        #expect(readings.prefix { $0.1 == nil }.count == 8)
        let counted = readings.compactMap(\.1)
        #expect(counted.allSatisfy { $0.cadence == 180 && $0.running && $0.speedRaw == 768 }, "\(counted)")
        #expect(counted.last?.totalDistanceRaw == 350)
        // Standing: its speed 0, its count the same: cadence 0.
        let standing = try decoder.decode(
            ant(.strideSpeed, [1, 0, 0, 35, 0, 0, 17, 0], at: 12.25))
        #expect(standing == .rsc(RSCMeasurement(speedRaw: 0, cadence: 0, totalDistanceRaw: 350, running: false)))
        // Out of range for 10 s: counted again from the pages after the gap.
        #expect(try decoder.decode(page1(at: 22.25, startingAt: 250)) == nil)
    }

    /// Page 2 comes every few pages: the pod's own cadence is used, and its page 1s give none.
    @Test("a pod that sends page 2 has its cadence from it alone")
    func pageTwoWins() throws {
        var decoder = NotificationDecoder()
        var fromPageOne = 0
        for quarter in 0..<40 {
            let seconds = Double(quarter) / 4
            if quarter % 4 == 3 {
                let reading = try decoder.decode(ant(.strideSpeed, [2, 0, 0, 85, 0x03, 0, 0, 0x01], at: seconds))
                guard case .rsc(let rsc) = reading else { Issue.record("page 2 gave \(String(describing: reading))"); return }
                #expect(rsc.cadence == 170)
            } else if try decoder.decode(page1(at: seconds)) != nil {
                fromPageOne += 1
            }
        }
        #expect(fromPageOne == 0)
    }
}
