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
}

