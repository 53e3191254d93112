/// The GATT characteristics IntervalPro understands, by their 16-bit assigned numbers.
public enum GATTCharacteristic: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    case heartRateMeasurement = 0x2A37
    case bodySensorLocation = 0x2A38
    case batteryLevel = 0x2A19
    case rscMeasurement = 0x2A53
    case rscFeature = 0x2A54

    /// Lower-case short form as used in recordings ("2a37").
    public var shortID: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The full 128-bit UUID string BlueZ uses for this characteristic.
    public var uuid: String { "0000\(shortID)-0000-1000-8000-00805f9b34fb" }

    public var description: String {
        switch self {
        case .heartRateMeasurement: "Heart Rate Measurement (0x2A37)"
        case .bodySensorLocation: "Body Sensor Location (0x2A38)"
        case .batteryLevel: "Battery Level (0x2A19)"
        case .rscMeasurement: "RSC Measurement (0x2A53)"
        case .rscFeature: "RSC Feature (0x2A54)"
        }
    }

    /// Accepts "2a37", "0x2A37" or the full Bluetooth base UUID form, case-insensitively.
    public init?(identifier: String) {
        var text = identifier.lowercased()
        let baseSuffix = "-0000-1000-8000-00805f9b34fb"
        if text.count == 36 {
            guard text.hasPrefix("0000"), text.hasSuffix(baseSuffix) else { return nil }
            text = String(text.dropFirst(4).prefix(4))
        } else if text.hasPrefix("0x") {
            text = String(text.dropFirst(2))
        }
        guard text.count == 4, let value = UInt16(text, radix: 16) else { return nil }
        self.init(rawValue: value)
    }
}

/// Why a GATT value could not be decoded. Parsers throw this and never trap.
public struct GATTParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The value is shorter than its flags (or the characteristic) require.
        case truncated(needed: Int, got: Int)
        /// A field holds a value the specification reserves or forbids.
        case invalidValue(field: String, value: Int)
    }

    public let characteristic: GATTCharacteristic
    public let reason: Reason

    public init(_ characteristic: GATTCharacteristic, _ reason: Reason) {
        self.characteristic = characteristic
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .truncated(let needed, let got):
            "\(characteristic): value is \(got) byte\(got == 1 ? "" : "s") long, its flags need \(needed)"
        case .invalidValue(let field, let value):
            "\(characteristic): \(field) has the reserved value \(value)"
        }
    }
}
