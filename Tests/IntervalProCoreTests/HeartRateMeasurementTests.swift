import AllocationCounter
import Testing
@testable import IntervalProCore

@Suite("Heart Rate Measurement (0x2A37)")
struct HeartRateMeasurementTests {
    /// RR interval lists tried with the RR flag, with their values in milliseconds worked out by hand.
    static let rrVariants: [(wire: [UInt16], ms: [Double])] = [
        ([], []),
        ([1024], [1000]),
        ([512, 800, 65535, 0], [500, 781.25, 63999.0234375, 0]),
    ]

    /// The length the flags require, worked out from the specification, not from the parser.
    static func fixedLength(flags: UInt8) -> Int {
        1 + (flags & 0x01 != 0 ? 2 : 1) + (flags & 0x08 != 0 ? 2 : 0)
    }

    static func expectedContact(flags: UInt8) -> HeartRateMeasurement.SensorContact {
        switch (flags & 0x04 != 0, flags & 0x02 != 0) {
        case (false, _): .unsupported
        case (true, false): .notDetected
        case (true, true): .detected
        }
    }

    /// Builds a packet byte by byte for `flags`, independent of the encoder.
    static func packet(flags: UInt8, heartRate: UInt16, energy: UInt16, rr: [UInt16], trailing: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [flags]
        if flags & 0x01 != 0 {
            bytes += [UInt8(heartRate & 0xFF), UInt8(heartRate >> 8)]
        } else {
            bytes.append(UInt8(truncatingIfNeeded: heartRate))
        }
        if flags & 0x08 != 0 { bytes += [UInt8(energy & 0xFF), UInt8(energy >> 8)] }
        for interval in rr { bytes += [UInt8(interval & 0xFF), UInt8(interval >> 8)] }
        return bytes + trailing
    }

    @Test("every flag combination decodes every field", arguments: 0..<32)
    func everyFlagCombination(rawFlags: Int) throws {
        let flags = UInt8(rawFlags)
        let wide = flags & 0x01 != 0
        let heartRate: UInt16 = wide ? 0x01A4 : 0xB4  // 420 (only fits 16 bits) or 180
        let hasEnergy = flags & 0x08 != 0
        let hasRR = flags & 0x10 != 0
        let variants = hasRR ? Self.rrVariants : [([], [])]
        for variant in variants {
            // With the RR flag an odd last byte is padding; without it, extra bytes are ignored.
            for trailing in [[], [0xAA]] as [[UInt8]] {
                let bytes = Self.packet(flags: flags, heartRate: heartRate, energy: 0xBEEF, rr: variant.wire, trailing: trailing)
                let m = try HeartRateMeasurement.parse(bytes)
                #expect(m.heartRate == heartRate, "flags \(flags)")
                #expect(m.sensorContact == Self.expectedContact(flags: flags), "flags \(flags)")
                #expect(m.energyExpendedKJ == (hasEnergy ? 0xBEEF : nil), "flags \(flags)")
                #expect(Array(m.rrIntervals) == variant.wire, "flags \(flags), trailing \(trailing)")
                #expect(m.rrIntervalsMs == variant.ms, "flags \(flags)")
            }
        }
    }

    @Test("every length shorter than the flags require is truncated(needed:got:)", arguments: 0..<32)
    func truncatedAtEveryLength(rawFlags: Int) {
        let flags = UInt8(rawFlags)
        let needed = Self.fixedLength(flags: flags)
        let full = Self.packet(flags: flags, heartRate: 300, energy: 7, rr: [1024], trailing: [])
        for length in 1..<needed {
            #expect(throws: GATTParseError(.heartRateMeasurement, .truncated(needed: needed, got: length))) {
                try HeartRateMeasurement.parse(Array(full.prefix(length)))
            }
        }
        // Exactly the fixed part is enough, RR flag or not.
        #expect(throws: Never.self) { try HeartRateMeasurement.parse(Array(full.prefix(needed))) }
    }

    @Test func emptyPacketIsTruncated() {
        #expect(throws: GATTParseError(.heartRateMeasurement, .truncated(needed: 2, got: 0))) {
            try HeartRateMeasurement.parse([])
        }
    }

    @Test("sensor contact bits", arguments: [
        (UInt8(0x00), HeartRateMeasurement.SensorContact.unsupported),
        (0x02, .unsupported),  // "detected" without "supported" means nothing
        (0x04, .notDetected),
        (0x06, .detected),
    ])
    func sensorContact(flags: UInt8, contact: HeartRateMeasurement.SensorContact) throws {
        #expect(try HeartRateMeasurement.parse([flags, 60]).sensorContact == contact)
    }

    @Test func realPackets() throws {
        // A strap with contact, an RR flag and no intervals in this packet.
        #expect(try HeartRateMeasurement.parse([0x16, 0x48]) == HeartRateMeasurement(heartRate: 72, sensorContact: .detected))
        // Two RR intervals, 828 and 837 / 1024 s.
        let m = try HeartRateMeasurement.parse([0x16, 0x4A, 0x3C, 0x03, 0x45, 0x03])
        #expect(m.heartRate == 74)
        #expect(m.rrIntervals == [828, 837])
        #expect(m.rrIntervalsMs == [808.59375, 817.3828125])
        // 16-bit heart rate holding a small value, energy 0x0102.
        let wide = try HeartRateMeasurement.parse([0x09, 0x48, 0x00, 0x02, 0x01])
        #expect(wide == HeartRateMeasurement(heartRate: 72, energyExpendedKJ: 258))
    }

    @Test func reservedFlagBitsAreIgnored() throws {
        #expect(try HeartRateMeasurement.parse([0xE0, 150]) == HeartRateMeasurement(heartRate: 150))
    }

    @Test func oddTrailingByteIsIgnored() throws {
        #expect(try HeartRateMeasurement.parse([0x10, 100, 0x99]).rrIntervals == [])
        #expect(try HeartRateMeasurement.parse([0x10, 100, 0x00, 0x04, 0x99]).rrIntervals == [1024])
        #expect(try HeartRateMeasurement.parse([0x18, 100, 0x01, 0x00, 0x00, 0x02, 0x00, 0x04, 0x7F]).rrIntervals == [512, 1024])
    }

    @Test func rrIntervalUnitConversion() {
        let m = HeartRateMeasurement(heartRate: 60, rrIntervals: [1, 1024, 2048, 768])
        #expect(m.rrIntervalsMs == [0.9765625, 1000, 2000, 750])
    }

    @Test func encoderUsesTheSmallestForm() {
        #expect(HeartRateMeasurement(heartRate: 72).encoded() == [0x00, 72])
        #expect(HeartRateMeasurement(heartRate: 255).encoded() == [0x00, 0xFF])
        #expect(HeartRateMeasurement(heartRate: 256).encoded() == [0x01, 0x00, 0x01])
        #expect(HeartRateMeasurement(heartRate: 60, sensorContact: .notDetected).encoded() == [0x04, 60])
        #expect(
            HeartRateMeasurement(heartRate: 300, sensorContact: .detected, energyExpendedKJ: 5, rrIntervals: [1024])
                .encoded() == [0x1F, 0x2C, 0x01, 0x05, 0x00, 0x00, 0x04])
    }

    /// The intervals are held in the measurement itself: a value with nine of them costs the
    /// parser no allocation more than the same value without them (a debug build allocates
    /// for other reasons, so the two are compared rather than counted).
    @Test func rrIntervalsAreHeldWithoutAllocating() throws {
        let withoutRR: [UInt8] = [0x06, 100]
        let withRR: [UInt8] = [0x16, 100] + Array(repeating: [0x00, 0x04], count: 9).joined()
        func allocations(_ value: [UInt8]) throws -> Int {
            let before = intervalpro_allocations_on_this_thread()
            let m = try HeartRateMeasurement.parse(value)
            let after = intervalpro_allocations_on_this_thread()
            #expect(m.heartRate == 100)
            return after - before
        }
        _ = try allocations(withRR)  // first use of anything lazily set up
        #expect(try allocations(withRR) == allocations(withoutRR))
        let m = try HeartRateMeasurement.parse(withRR)
        #expect(Array(m.rrIntervals) == Array(repeating: 1024, count: 9))
        #expect(m.rrIntervals == RRIntervals(Array(repeating: 1024, count: 9)))
        #expect(m.rrIntervals.hashValue == RRIntervals(Array(repeating: 1024, count: 9)).hashValue)
        #expect(m.rrIntervals != [1024])
    }

    @Test func encodeParseRoundTrips() throws {
        let contacts: [HeartRateMeasurement.SensorContact] = [.unsupported, .notDetected, .detected]
        var count = 0
        for heartRate: UInt16 in [0, 1, 72, 254, 255, 256, 1000, 65535] {
            for contact in contacts {
                for energy: UInt16? in [nil, 0, 1, 0x1234, 65535] {
                    for rr: [UInt16] in [[], [0], [1024], [1, 2, 3, 65535], Array(repeating: 700, count: 9), distinct(12), distinct(13)] {
                        let m = HeartRateMeasurement(
                            heartRate: heartRate, sensorContact: contact, energyExpendedKJ: energy, rrIntervals: RRIntervals(rr))
                        #expect(try HeartRateMeasurement.parse(m.encoded()) == m)
                        count += 1
                    }
                }
            }
        }
        #expect(count == 8 * 3 * 5 * 7)
    }

    /// Intervals that all differ, so that each one's place counts: 12 fill the measurement's
    /// own room, 13 go to an array.
    private func distinct(_ count: Int) -> [UInt16] {
        (0..<count).map { UInt16(0x0101 * ($0 + 1)) ^ 0x8000 }
    }

    /// A larger ATT MTU lets a strap send more intervals than fit in a measurement's own room:
    /// they are read in order, and compare equal to the same intervals made from a list.
    @Test func manyIntervalsAreReadInOrder() throws {
        for count in [11, 12, 13, 100, 255] {
            let intervals = distinct(count)
            let value: [UInt8] = [0x10, 70] + intervals.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            let m = try HeartRateMeasurement.parse(value)
            #expect(Array(m.rrIntervals) == intervals)
            #expect(m.rrIntervals == RRIntervals(intervals))
            #expect(m.rrIntervals.hashValue == RRIntervals(intervals).hashValue)
            #expect(m.rrIntervals.milliseconds.count == count)
        }
    }

    @Test func canonicalPacketsSurviveParseThenEncode() throws {
        let packets: [[UInt8]] = [[0x00, 72], [0x06, 180], [0x01, 0x2C, 0x01], [0x1E, 90, 0x10, 0x00, 0x00, 0x04, 0x00, 0x02]]
        for packet in packets {
            #expect(try HeartRateMeasurement.parse(packet).encoded() == packet)
        }
    }

    @Test func errorDescription() {
        #expect(
            GATTParseError(.heartRateMeasurement, .truncated(needed: 5, got: 1)).description
                == "Heart Rate Measurement (0x2A37): value is 1 byte long, its flags need 5")
        #expect(
            GATTParseError(.heartRateMeasurement, .truncated(needed: 2, got: 0)).description
                == "Heart Rate Measurement (0x2A37): value is 0 bytes long, its flags need 2")
    }
}
