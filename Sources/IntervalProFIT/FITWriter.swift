/// The FIT binary format (Garmin's Flexible and Interoperable Data Transfer): a header,
/// definition and data messages with developer fields, and the CRC. Bytes in and out only:
/// what the messages mean (activities, workouts) is for the modules that use them.
///
/// The base types this module writes (`FITFileReader` reads every base type).
public enum FITBaseType: UInt8, Sendable {
    case enumeration = 0x00
    case sint8 = 0x01
    case uint8 = 0x02
    case string = 0x07
    case byte = 0x0D
    case sint16 = 0x83
    case uint16 = 0x84
    case uint32 = 0x86
    case uint32z = 0x8C

    /// Bytes of one value (strings and byte arrays give their own length).
    var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .string, .byte: 1
        case .sint16, .uint16: 2
        case .uint32, .uint32z: 4
        }
    }

    /// The value that means "not given".
    var invalid: UInt64 {
        switch self {
        case .enumeration, .uint8, .byte: 0xFF
        case .sint8: 0x7F
        case .sint16: 0x7FFF
        case .uint16: 0xFFFF
        case .uint32: 0xFFFF_FFFF
        case .uint32z, .string: 0
        }
    }
}

/// One field's value in a data message.
public enum FITValue: Sendable, Equatable {
    /// An integer; nil writes the type's invalid value.
    case integer(UInt64?)
    case string(String)
    case bytes([UInt8])
    /// An array field of integers; nil elements write the type's invalid value.
    case integers([UInt64?])

    public static func int(_ value: Int?) -> FITValue { .integer(value.map { UInt64(truncatingIfNeeded: $0) }) }
}

public struct FITField: Sendable {
    public var number: UInt8
    public var type: FITBaseType
    public var value: FITValue

    public init(_ number: UInt8, _ type: FITBaseType, _ value: FITValue) {
        self.number = number
        self.type = type
        self.value = value
    }

    var size: Int {
        switch value {
        case .integer: type.size
        case .string(let text): text.utf8.count + 1
        case .bytes(let bytes): bytes.count
        case .integers(let numbers): numbers.count * type.size
        }
    }
}

/// A field defined by a developer (described by a field_description message).
public struct FITDeveloperField: Sendable {
    public var number: UInt8
    public var developerIndex: UInt8
    public var type: FITBaseType
    public var value: FITValue

    public init(_ number: UInt8, developerIndex: UInt8 = 0, _ type: FITBaseType, _ value: FITValue) {
        self.number = number
        self.developerIndex = developerIndex
        self.type = type
        self.value = value
    }
}

public struct FITMessage: Sendable {
    public var global: UInt16
    public var fields: [FITField]
    public var developerFields: [FITDeveloperField]

    public init(_ global: UInt16, _ fields: [FITField], developer: [FITDeveloperField] = []) {
        self.global = global
        self.fields = fields
        developerFields = developer
    }
}

/// Writes messages into a FIT file: definitions as needed (one local type per global
/// message, redefined when the layout changes), little-endian data, header and CRCs.
public struct FITFileWriter {
    private var body: [UInt8] = []
    private var localTypes: [UInt16: UInt8] = [:]
    private var layouts: [UInt8: [UInt8]] = [:]
    /// FIT profile version written in the header (major × 100 + minor).
    public var profileVersion: UInt16 = 2132

    public init() {}

    public mutating func write(_ message: FITMessage) {
        let local: UInt8
        if let known = localTypes[message.global] {
            local = known
        } else {
            local = UInt8(localTypes.count % 16)
            localTypes[message.global] = local
        }
        var definition: [UInt8] = [0, 0]  // reserved, little-endian architecture
        append(message.global, size: 2, to: &definition)
        definition.append(UInt8(message.fields.count))
        for field in message.fields {
            definition += [field.number, UInt8(field.size), field.type.rawValue]
        }
        let hasDeveloperFields = !message.developerFields.isEmpty
        if hasDeveloperFields {
            definition.append(UInt8(message.developerFields.count))
            for field in message.developerFields {
                definition += [field.number, UInt8(field.type.size), field.developerIndex]
            }
        }
        if layouts[local] != definition {
            layouts[local] = definition
            body.append(0x40 | (hasDeveloperFields ? 0x20 : 0) | local)
            body += definition
        }
        body.append(local)
        for field in message.fields { encode(field.value, field.type, size: field.size) }
        for field in message.developerFields { encode(field.value, field.type, size: field.type.size) }
    }

    private mutating func encode(_ value: FITValue, _ type: FITBaseType, size: Int) {
        switch value {
        case .integer(let number):
            append(number ?? type.invalid, size: size, to: &body)
        case .string(let text):
            body += Array(text.utf8) + [0]
        case .bytes(let bytes):
            body += bytes
        case .integers(let numbers):
            for number in numbers { append(number ?? type.invalid, size: type.size, to: &body) }
        }
    }

    private func append(_ value: some FixedWidthInteger, size: Int, to bytes: inout [UInt8]) {
        let value = UInt64(truncatingIfNeeded: value)
        for i in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    /// The whole file: 14-byte header (with its CRC), the messages, the file CRC.
    public func fileBytes() -> [UInt8] {
        var header: [UInt8] = [14, 0x20]  // header size, protocol version 2.0
        append(profileVersion, size: 2, to: &header)
        append(UInt32(body.count), size: 4, to: &header)
        header += Array(".FIT".utf8)
        append(FITChecksum.crc(header), size: 2, to: &header)
        var file = header + body
        append(FITChecksum.crc(file), size: 2, to: &file)
        return file
    }
}

/// FIT's 16-bit CRC: the reflected polynomial 0xA001 (CRC-16/ARC), initial value 0.
public enum FITChecksum {
    public static func crc(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1
            }
        }
        return crc
    }
}
