/// Where cadence stood against the step's zone at one moment.
public enum ZoneStatus: String, Sendable, CaseIterable {
    case inZone = "in_zone"
    case below, above
    /// The step has a zone but no cadence reading was current.
    case noSignal = "no_signal"
    /// The step has no zone.
    case noZone = "no_zone"
    case paused
}

/// The state of a session at one whole second of session time, as stored and exported.
public struct SessionSample: Equatable, Sendable {
    /// Whole seconds since the session began.
    public var second: Int
    public var stepIndex: Int?
    /// Cadence per minute exactly as the sensor sent it (steps or strides).
    public var rawCadence: Int?
    /// Cadence in steps per minute, after the device's unit was applied.
    public var cadence: Int?
    public var heartRate: Int?
    public var speed: Double?
    /// Metres since the session began.
    public var distance: Double?
    public var zoneStatus: ZoneStatus
    /// The RR intervals the heart-rate device sent during the second that ends here, in the
    /// wire unit of 1/1024 s, oldest first: the beat-to-beat data HRV during the run and the
    /// FIT export's `hrv` messages are made of.
    public var rrIntervals: [UInt16]

    public init(
        second: Int, stepIndex: Int?, rawCadence: Int?, cadence: Int?, heartRate: Int?, speed: Double?,
        distance: Double?, zoneStatus: ZoneStatus, rrIntervals: [UInt16] = []
    ) {
        self.second = second
        self.stepIndex = stepIndex
        self.rawCadence = rawCadence
        self.cadence = cadence
        self.heartRate = heartRate
        self.speed = speed
        self.distance = distance
        self.zoneStatus = zoneStatus
        self.rrIntervals = rrIntervals
    }
}
