/// The GATT characteristics IntervalPro understands, by their 16-bit assigned numbers.
public enum GATTCharacteristic: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    case heartRateMeasurement = 0x2A37
    case bodySensorLocation = 0x2A38
    case batteryLevel = 0x2A19
    case rscMeasurement = 0x2A53
    case rscFeature = 0x2A54

    /// Lower-case short form as used in recordings ("2a37").
    public var shortID: String { BluetoothUUID.shortText(rawValue) }

    /// The full 128-bit UUID string BlueZ uses for this characteristic.
    public var uuid: String { BluetoothUUID.fullText(rawValue) }

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
        guard let value = BluetoothUUID.value(of: identifier) else { return nil }
        self.init(rawValue: value)
    }
}

/// 16-bit Bluetooth SIG numbers and their text forms: the one conversion that recordings,
/// BlueZ's UUID strings and the tests share.
public enum BluetoothUUID {
    /// The Bluetooth base UUID after the 16-bit number.
    public static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// "2a37": lower case, four digits, as recordings write it.
    public static func shortText(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// "00002a37-0000-1000-8000-00805f9b34fb", as BlueZ writes it.
    public static func fullText(_ value: UInt16) -> String { "0000" + shortText(value) + baseSuffix }

    /// The number in "2a37", "0x2A37" or the full base-UUID form, in any case; nil for
    /// anything else (a vendor's own 128-bit UUID). Read from the UTF-8 bytes, since a
    /// replay asks this of every line.
    public static func value(of text: String) -> UInt16? {
        let utf8 = text.utf8
        switch utf8.count {
        case 4:
            return hexValue(utf8[...])
        case 6:
            guard utf8.starts(with: "0x".utf8, by: { lowercasedASCII($0) == $1 }) else { return nil }
            return hexValue(utf8.dropFirst(2))
        case 36:
            guard utf8.starts(with: "0000".utf8),
                utf8.suffix(baseSuffix.utf8.count).elementsEqual(baseSuffix.utf8, by: { lowercasedASCII($0) == $1 })
            else { return nil }
            return hexValue(utf8.dropFirst(4).prefix(4))
        default:
            return nil
        }
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Four hex digits, in any case.
    private static func hexValue(_ digits: Substring.UTF8View) -> UInt16? {
        guard digits.count == 4 else { return nil }
        var value: UInt16 = 0
        for byte in digits {
            guard let digit = hexDigitValue(byte) else { return nil }
            value = value << 4 | UInt16(digit)
        }
        return value
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
