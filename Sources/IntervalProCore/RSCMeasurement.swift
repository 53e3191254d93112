/// RSC Measurement (0x2A53): speed and cadence from a footpod, HRM-Pro, Stryd or watch.
public struct RSCMeasurement: Equatable, Sendable {
    /// Instantaneous speed in the wire unit of 1/256 m/s.
    public var speedRaw: UInt16
    /// Instantaneous cadence per minute exactly as sent: some sensors count steps, some
    /// strides (one foot); `CadenceUnit` decides which.
    public var cadence: UInt8
    /// Stride length in 1/100 m.
    public var strideLengthRaw: UInt16?
    /// Total distance in 1/10 m.
    public var totalDistanceRaw: UInt32?
    /// The walking/running status bit (true: running).
    public var running: Bool

    public init(
        speedRaw: UInt16, cadence: UInt8, strideLengthRaw: UInt16? = nil,
        totalDistanceRaw: UInt32? = nil, running: Bool = false
    ) {
        self.speedRaw = speedRaw
        self.cadence = cadence
        self.strideLengthRaw = strideLengthRaw
        self.totalDistanceRaw = totalDistanceRaw
        self.running = running
    }

    public var speedMps: Double { Double(speedRaw) / 256 }
    public var strideLengthM: Double? { strideLengthRaw.map { Double($0) / 100 } }
    public var totalDistanceM: Double? { totalDistanceRaw.map { Double($0) / 10 } }

    private enum Flag {
        static let strideLength: UInt8 = 1 << 0
        static let totalDistance: UInt8 = 1 << 1
        static let running: UInt8 = 1 << 2
    }

    public static func parse(_ value: [UInt8]) throws(GATTParseError) -> RSCMeasurement {
        guard let flags = value.first else {
            throw GATTParseError(.rscMeasurement, .truncated(needed: 4, got: 0))
        }
        let hasStride = flags & Flag.strideLength != 0
        let hasDistance = flags & Flag.totalDistance != 0
        let needed = 4 + (hasStride ? 2 : 0) + (hasDistance ? 4 : 0)
        guard value.count >= needed else {
            throw GATTParseError(.rscMeasurement, .truncated(needed: needed, got: value.count))
        }
        var reader = ByteReader(value)
        _ = reader.uint8()
        let speed = reader.uint16()
        let cadence = reader.uint8()
        let stride = hasStride ? reader.uint16() : nil
        let distance = hasDistance ? reader.uint32() : nil
        return RSCMeasurement(
            speedRaw: speed, cadence: cadence, strideLengthRaw: stride, totalDistanceRaw: distance,
            running: flags & Flag.running != 0)
    }

    public func encoded() -> [UInt8] {
        var flags: UInt8 = 0
        if strideLengthRaw != nil { flags |= Flag.strideLength }
        if totalDistanceRaw != nil { flags |= Flag.totalDistance }
        if running { flags |= Flag.running }
        var writer = ByteWriter(capacity: 10)
        writer.uint8(flags)
        writer.uint16(speedRaw)
        writer.uint8(cadence)
        if let strideLengthRaw { writer.uint16(strideLengthRaw) }
        if let totalDistanceRaw { writer.uint32(totalDistanceRaw) }
        return writer.bytes
    }
}
