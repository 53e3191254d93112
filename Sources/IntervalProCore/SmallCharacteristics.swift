/// RSC Feature (0x2A54): which optional RSC Measurement fields the sensor supports.
public struct RSCFeature: OptionSet, Equatable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let strideLength = RSCFeature(rawValue: 1 << 0)
    public static let totalDistance = RSCFeature(rawValue: 1 << 1)
    public static let walkingOrRunningStatus = RSCFeature(rawValue: 1 << 2)
    public static let calibrationProcedure = RSCFeature(rawValue: 1 << 3)
    public static let multipleSensorLocations = RSCFeature(rawValue: 1 << 4)

    /// Names of the supported features, in bit order, as `decode --json` prints them.
    public var names: [String] {
        let all: [(RSCFeature, String)] = [
            (.strideLength, "stride_length"), (.totalDistance, "total_distance"),
            (.walkingOrRunningStatus, "walking_or_running_status"),
            (.calibrationProcedure, "calibration_procedure"),
            (.multipleSensorLocations, "multiple_sensor_locations"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }

    public static func parse(_ value: [UInt8]) throws(GATTParseError) -> RSCFeature {
        guard value.count >= 2 else {
            throw GATTParseError(.rscFeature, .truncated(needed: 2, got: value.count))
        }
        var reader = ByteReader(value)
        return RSCFeature(rawValue: reader.uint16())
    }
}

/// Body Sensor Location (0x2A38), read once from an HR sensor.
public enum BodySensorLocation: UInt8, Sendable, CaseIterable {
    case other = 0, chest, wrist, finger, hand, earLobe, foot

    public var name: String {
        switch self {
        case .other: "other"
        case .chest: "chest"
        case .wrist: "wrist"
        case .finger: "finger"
        case .hand: "hand"
        case .earLobe: "ear_lobe"
        case .foot: "foot"
        }
    }

    public static func parse(_ value: [UInt8]) throws(GATTParseError) -> BodySensorLocation {
        guard let raw = value.first else {
            throw GATTParseError(.bodySensorLocation, .truncated(needed: 1, got: 0))
        }
        guard let location = BodySensorLocation(rawValue: raw) else {
            throw GATTParseError(.bodySensorLocation, .invalidValue(field: "location", value: Int(raw)))
        }
        return location
    }
}

/// Battery Level (0x2A19), a percentage.
public struct BatteryLevel: Equatable, Sendable {
    public var percent: UInt8

    public init(percent: UInt8) { self.percent = percent }

    public static func parse(_ value: [UInt8]) throws(GATTParseError) -> BatteryLevel {
        guard let raw = value.first else {
            throw GATTParseError(.batteryLevel, .truncated(needed: 1, got: 0))
        }
        guard raw <= 100 else {
            throw GATTParseError(.batteryLevel, .invalidValue(field: "level", value: Int(raw)))
        }
        return BatteryLevel(percent: raw)
    }
}
