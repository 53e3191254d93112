/// A decoded GATT value: what one notification (or read) meant.
public enum SensorReading: Equatable, Sendable {
    case heartRate(HeartRateMeasurement)
    case rsc(RSCMeasurement)
    case rscFeature(RSCFeature)
    case bodySensorLocation(BodySensorLocation)
    case batteryLevel(BatteryLevel)

    /// Decodes `value` with the parser for `characteristic`.
    public static func decode(
        _ characteristic: GATTCharacteristic, _ value: [UInt8]
    ) throws(GATTParseError) -> SensorReading {
        switch characteristic {
        case .heartRateMeasurement: .heartRate(try HeartRateMeasurement.parse(value))
        case .rscMeasurement: .rsc(try RSCMeasurement.parse(value))
        case .rscFeature: .rscFeature(try RSCFeature.parse(value))
        case .bodySensorLocation: .bodySensorLocation(try BodySensorLocation.parse(value))
        case .batteryLevel: .batteryLevel(try BatteryLevel.parse(value))
        }
    }

    /// The JSON object `intervalpro decode --json` prints: keys carry their units and
    /// absent fields are left out.
    public var json: JSONValue {
        switch self {
        case .heartRate(let m):
            var fields: [(String, JSONValue)] = [
                ("heart_rate_bpm", .int(Int(m.heartRate))),
                ("sensor_contact", .string(m.sensorContact.rawValue)),
            ]
            if let energy = m.energyExpendedKJ { fields.append(("energy_expended_kj", .int(Int(energy)))) }
            if !m.rrIntervals.isEmpty {
                fields.append(("rr_intervals_ms", .array(m.rrIntervalsMs.map { .number($0.rounded(toPlaces: 3)) })))
            }
            return .object(fields)
        case .rsc(let m):
            var fields: [(String, JSONValue)] = [
                ("speed_mps", .number(m.speedMps.rounded(toPlaces: 4))),
                ("cadence_per_min", .int(Int(m.cadence))),
            ]
            if let stride = m.strideLengthM { fields.append(("stride_length_m", .number(stride))) }
            if let distance = m.totalDistanceM { fields.append(("total_distance_m", .number(distance))) }
            fields.append(("running", .bool(m.running)))
            return .object(fields)
        case .rscFeature(let f):
            return .object([("features", .array(f.names.map { .string($0) }))])
        case .bodySensorLocation(let location):
            return .object([("body_sensor_location", .string(location.name))])
        case .batteryLevel(let level):
            return .object([("battery_level_percent", .int(Int(level.percent)))])
        }
    }
}

extension Double {
    /// Rounds half away from zero to `places` decimals, for stable printed figures.
    public func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
