import Testing
@testable import IntervalProCore

@Suite("RSC Measurement (0x2A53)")
struct RSCMeasurementTests {
    static func neededLength(flags: UInt8) -> Int {
        4 + (flags & 0x01 != 0 ? 2 : 0) + (flags & 0x02 != 0 ? 4 : 0)
    }

    /// speed 0x0280 (2.5 m/s), cadence 172, stride 0x0081 (1.29 m), distance 0x00012345 (7456.5 m).
    static func packet(flags: UInt8) -> [UInt8] {
        var bytes: [UInt8] = [flags, 0x80, 0x02, 172]
        if flags & 0x01 != 0 { bytes += [0x81, 0x00] }
        if flags & 0x02 != 0 { bytes += [0x45, 0x23, 0x01, 0x00] }
        return bytes
    }

    @Test("every flag combination decodes every field", arguments: 0..<8)
    func everyFlagCombination(rawFlags: Int) throws {
        let flags = UInt8(rawFlags)
        let m = try RSCMeasurement.parse(Self.packet(flags: flags))
        #expect(m.speedRaw == 0x0280)
        #expect(m.speedMps == 2.5)
        #expect(m.cadence == 172)
        #expect(m.strideLengthRaw == (flags & 0x01 != 0 ? 0x81 : nil))
        #expect(m.strideLengthM == (flags & 0x01 != 0 ? 1.29 : nil))
        #expect(m.totalDistanceRaw == (flags & 0x02 != 0 ? 0x12345 : nil))
        #expect(m.totalDistanceM == (flags & 0x02 != 0 ? 7456.5 : nil))
        #expect(m.running == (flags & 0x04 != 0))
        // Trailing bytes beyond the flagged fields are ignored.
        #expect(try RSCMeasurement.parse(Self.packet(flags: flags) + [0xFF, 0xFF]) == m)
    }

    @Test("every length shorter than the flags require is truncated(needed:got:)", arguments: 0..<8)
    func truncatedAtEveryLength(rawFlags: Int) {
        let flags = UInt8(rawFlags)
        let needed = Self.neededLength(flags: flags)
        let full = Self.packet(flags: flags)
        #expect(full.count == needed)
        for length in 1..<needed {
            #expect(throws: GATTParseError(.rscMeasurement, .truncated(needed: needed, got: length))) {
                try RSCMeasurement.parse(Array(full.prefix(length)))
            }
        }
    }

    @Test func emptyPacketIsTruncated() {
        #expect(throws: GATTParseError(.rscMeasurement, .truncated(needed: 4, got: 0))) {
            try RSCMeasurement.parse([])
        }
    }

    @Test func reservedFlagBitsAreIgnored() throws {
        let m = try RSCMeasurement.parse([0xF8, 0x00, 0x03, 180])
        #expect(m == RSCMeasurement(speedRaw: 768, cadence: 180))
    }

    @Test func unitConversions() {
        let m = RSCMeasurement(speedRaw: 1, cadence: 0, strideLengthRaw: 123, totalDistanceRaw: 12345)
        #expect(m.speedMps == 0.00390625)
        #expect(m.strideLengthM == 1.23)
        #expect(m.totalDistanceM == 1234.5)
        #expect(RSCMeasurement(speedRaw: 65535, cadence: 255).speedMps == 255.99609375)
        #expect(RSCMeasurement(speedRaw: 0, cadence: 0).strideLengthM == nil)
        #expect(RSCMeasurement(speedRaw: 0, cadence: 0).totalDistanceM == nil)
        #expect(RSCMeasurement(speedRaw: 0, cadence: 0, totalDistanceRaw: UInt32.max).totalDistanceM == 429496729.5)
    }

    @Test func encoderLayout() {
        #expect(RSCMeasurement(speedRaw: 768, cadence: 170).encoded() == [0x00, 0x00, 0x03, 170])
        #expect(
            RSCMeasurement(speedRaw: 0x0102, cadence: 90, strideLengthRaw: 0x0304, totalDistanceRaw: 0x0506_0708, running: true)
                .encoded() == [0x07, 0x02, 0x01, 90, 0x04, 0x03, 0x08, 0x07, 0x06, 0x05])
        #expect(RSCMeasurement(speedRaw: 0, cadence: 0, totalDistanceRaw: 0).encoded() == [0x02, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func encodeParseRoundTrips() throws {
        var count = 0
        for speed: UInt16 in [0, 1, 255, 256, 768, 0x8000, 65535] {
            for cadence: UInt8 in [0, 1, 85, 119, 120, 180, 255] {
                for stride: UInt16? in [nil, 0, 110, 65535] {
                    for distance: UInt32? in [nil, 0, 1, 0x00FF_FF00, UInt32.max] {
                        for running in [false, true] {
                            let m = RSCMeasurement(
                                speedRaw: speed, cadence: cadence, strideLengthRaw: stride, totalDistanceRaw: distance,
                                running: running)
                            #expect(try RSCMeasurement.parse(m.encoded()) == m)
                            count += 1
                        }
                    }
                }
            }
        }
        #expect(count == 7 * 7 * 4 * 5 * 2)
    }

    @Test func errorDescription() {
        #expect(
            GATTParseError(.rscMeasurement, .truncated(needed: 10, got: 6)).description
                == "RSC Measurement (0x2A53): value is 6 bytes long, its flags need 10")
    }
}
