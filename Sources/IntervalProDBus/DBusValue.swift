/// A D-Bus type code: one per basic and container type the wire format knows.
public struct DBusTypeCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ character: Unicode.Scalar) { rawValue = Int32(character.value) }

    public static let invalid = DBusTypeCode(rawValue: 0)
    public static let byte = DBusTypeCode("y")
    public static let boolean = DBusTypeCode("b")
    public static let int16 = DBusTypeCode("n")
    public static let uint16 = DBusTypeCode("q")
    public static let int32 = DBusTypeCode("i")
    public static let uint32 = DBusTypeCode("u")
    public static let int64 = DBusTypeCode("x")
    public static let uint64 = DBusTypeCode("t")
    public static let double = DBusTypeCode("d")
    public static let string = DBusTypeCode("s")
    public static let objectPath = DBusTypeCode("o")
    public static let signature = DBusTypeCode("g")
    public static let unixFD = DBusTypeCode("h")
    public static let array = DBusTypeCode("a")
    public static let variant = DBusTypeCode("v")
    public static let structure = DBusTypeCode("r")
    public static let dictEntry = DBusTypeCode("e")
}

/// One D-Bus value, as read from or written to a message.
///
/// Arrays carry their element signature so that an empty one can still be written. Byte
/// arrays (`ay`, every GATT value) have their own case: they are read and written in one
/// piece rather than byte by byte.
public indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor passed over the bus (`h`). One read from a message is a descriptor
    /// of the reader's own, to close.
    case unixFD(Int32)
    case bytes([UInt8])
    case array(elementSignature: String, [DBusValue])
    case dictionary(keySignature: String, valueSignature: String, [DictionaryEntry])
    case variant(DBusValue)
    case structure([DBusValue])

    public struct DictionaryEntry: Equatable, Sendable {
        public var key: DBusValue
        public var value: DBusValue
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }
}

// MARK: - Building and reading values

extension DBusValue {
    /// `a{sv}`: the shape of every property map and of BlueZ's option dictionaries.
    public static func stringVariantMap(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries.map { DictionaryEntry(.string($0.0), .variant($0.1)) })
    }

    /// `as`
    public static func stringArray(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map(DBusValue.string))
    }

    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var bool: Bool? {
        if case .boolean(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type, widened.
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }

    public var fileDescriptor: Int32? {
        if case .unixFD(let fd) = unwrapped { return fd }
        return nil
    }

    public var byteArray: [UInt8]? {
        switch unwrapped {
        case .bytes(let bytes): bytes
        case .array("y", let elements):
            elements.compactMap { if case .byte(let b) = $0 { b } else { nil } }
        default: nil
        }
    }

    public var stringList: [String]? {
        guard case .array(_, let elements) = unwrapped else { return nil }
        return elements.compactMap(\.string)
    }

    /// Entries of a dictionary keyed by strings or object paths (a{sv}, a{oa{...}}, a{sa{sv}}).
    public var stringKeyedEntries: [(String, DBusValue)]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        return entries.compactMap { entry in entry.key.string.map { ($0, entry.value) } }
    }

    /// An `a{sv}` as a Swift dictionary, variants unwrapped.
    public var properties: [String: DBusValue]? {
        stringKeyedEntries.map { Dictionary($0.map { ($0.0, $0.1.unwrapped) }, uniquingKeysWith: { _, last in last }) }
    }
}
