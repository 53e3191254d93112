/// Heart Rate Measurement (0x2A37), as notified by HR straps and watches broadcasting HR.
public struct HeartRateMeasurement: Equatable, Sendable {
    public enum SensorContact: String, Sendable {
        case unsupported
        case notDetected = "not_detected"
        case detected
    }

    public var heartRate: UInt16
    public var sensorContact: SensorContact
    /// Cumulative energy expended in kilojoules, when the sensor sends it.
    public var energyExpendedKJ: UInt16?
    /// RR intervals in the wire unit of 1/1024 s, oldest first.
    public var rrIntervals: RRIntervals
    /// Beats the strap counted went by unseen before these intervals (an ANT+ strap's pages
    /// were missed): the first does not follow the last one received. A Bluetooth value cannot
    /// tell (false).
    public var beatsLostBefore = false

    public init(
        heartRate: UInt16, sensorContact: SensorContact = .unsupported,
        energyExpendedKJ: UInt16? = nil, rrIntervals: RRIntervals = []
    ) {
        self.heartRate = heartRate
        self.sensorContact = sensorContact
        self.energyExpendedKJ = energyExpendedKJ
        self.rrIntervals = rrIntervals
    }

    /// RR intervals converted to milliseconds.
    public var rrIntervalsMs: [Double] { rrIntervals.milliseconds }

    private enum Flag {
        static let heartRateIsUInt16: UInt8 = 1 << 0
        static let contactDetected: UInt8 = 1 << 1
        static let contactSupported: UInt8 = 1 << 2
        static let energyExpended: UInt8 = 1 << 3
        static let rrIntervals: UInt8 = 1 << 4
    }

    public static func parse(_ value: [UInt8]) throws(GATTParseError) -> HeartRateMeasurement {
        guard let flags = value.first else {
            throw GATTParseError(.heartRateMeasurement, .truncated(needed: 2, got: 0))
        }
        let wideHeartRate = flags & Flag.heartRateIsUInt16 != 0
        let hasEnergy = flags & Flag.energyExpended != 0
        let fixedLength = 1 + (wideHeartRate ? 2 : 1) + (hasEnergy ? 2 : 0)
        guard value.count >= fixedLength else {
            throw GATTParseError(.heartRateMeasurement, .truncated(needed: fixedLength, got: value.count))
        }

        var reader = ByteReader(value)
        _ = reader.uint8()
        let heartRate = wideHeartRate ? reader.uint16() : UInt16(reader.uint8())
        let contact: SensorContact =
            switch (flags & Flag.contactSupported != 0, flags & Flag.contactDetected != 0) {
            case (false, _): .unsupported
            case (true, false): .notDetected
            case (true, true): .detected
            }
        let energy = hasEnergy ? reader.uint16() : nil
        // Any number of intervals fill the rest of the value; an odd last byte is padding.
        let intervals =
            flags & Flag.rrIntervals != 0
            ? RRIntervals(bytes: value, offset: reader.offset, count: reader.remaining / 2) : .none
        return HeartRateMeasurement(
            heartRate: heartRate, sensorContact: contact, energyExpendedKJ: energy, rrIntervals: intervals)
    }

    /// The wire form; uses the 8-bit heart rate format whenever the value fits.
    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0
        if heartRate > UInt8.max { flags |= Flag.heartRateIsUInt16 }
        switch sensorContact {
        case .unsupported: break
        case .notDetected: flags |= Flag.contactSupported
        case .detected: flags |= Flag.contactSupported | Flag.contactDetected
        }
        if energyExpendedKJ != nil { flags |= Flag.energyExpended }
        if !rrIntervals.isEmpty { flags |= Flag.rrIntervals }

        var writer = ByteWriter(capacity: 5 + 2 * rrIntervals.count)
        writer.uint8(flags)
        if heartRate > UInt8.max { writer.uint16(heartRate) } else { writer.uint8(UInt8(heartRate)) }
        if let energyExpendedKJ { writer.uint16(energyExpendedKJ) }
        for interval in rrIntervals { writer.uint16(interval) }
        return writer.bytes
    }
}
