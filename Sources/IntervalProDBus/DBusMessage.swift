internal import CDBus

/// A D-Bus message type.
public struct DBusMessageType: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let methodCall = DBusMessageType(rawValue: DBUS_MESSAGE_TYPE_METHOD_CALL)
    public static let methodReturn = DBusMessageType(rawValue: DBUS_MESSAGE_TYPE_METHOD_RETURN)
    public static let error = DBusMessageType(rawValue: DBUS_MESSAGE_TYPE_ERROR)
    public static let signal = DBusMessageType(rawValue: DBUS_MESSAGE_TYPE_SIGNAL)
}

/// One D-Bus message. Owns a reference to libdbus's message and releases it in deinit.
///
/// Not shared between threads: a message is built, sent, or read by one thread at a time.
public final class DBusMessage: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    init(owning raw: OpaquePointer) { self.raw = raw }

    deinit { libdbus.message_unref(raw) }

    /// A method call to `destination`. Names and paths are checked first: libdbus treats a
    /// malformed one as a programming error and may abort.
    public convenience init(
        methodCallTo destination: String, path: String, interface: String, member: String,
        arguments: [DBusValue] = []
    ) throws(DBusCallError) {
        guard libdbus.validate_bus_name(destination, nil) != 0, libdbus.validate_path(path, nil) != 0,
            libdbus.validate_interface(interface, nil) != 0, libdbus.validate_member(member, nil) != 0
        else {
            throw DBusCallError(.invalidArgs, "malformed method call \(destination) \(path) \(interface).\(member)")
        }
        guard let raw = libdbus.message_new_method_call(destination, path, interface, member) else {
            throw DBusCallError(.noMemory, "out of memory")
        }
        self.init(owning: raw)
        try append(arguments)
    }

    /// A signal from `path`.
    public convenience init(signalFrom path: String, interface: String, member: String, arguments: [DBusValue] = [])
        throws(DBusCallError)
    {
        guard libdbus.validate_path(path, nil) != 0, libdbus.validate_interface(interface, nil) != 0,
            libdbus.validate_member(member, nil) != 0
        else { throw DBusCallError(.invalidArgs, "malformed signal \(path) \(interface).\(member)") }
        guard let raw = libdbus.message_new_signal(path, interface, member) else {
            throw DBusCallError(.noMemory, "out of memory")
        }
        self.init(owning: raw)
        try append(arguments)
    }

    /// The reply to a method call, carrying `arguments`.
    public convenience init(replyTo call: DBusMessage, arguments: [DBusValue] = []) throws(DBusCallError) {
        guard let raw = libdbus.message_new_method_return(call.raw) else { throw DBusCallError(.noMemory, "out of memory") }
        self.init(owning: raw)
        try append(arguments)
    }

    /// An error reply to a method call.
    public convenience init(errorReplyTo call: DBusMessage, _ failure: DBusCallError) throws(DBusCallError) {
        guard libdbus.validate_error_name(failure.name.rawValue, nil) != 0,
            let raw = libdbus.message_new_error(call.raw, failure.name.rawValue, failure.message)
        else { throw DBusCallError(.invalidArgs, "malformed error name \(failure.name)") }
        self.init(owning: raw)
    }

    public var type: DBusMessageType { DBusMessageType(rawValue: libdbus.message_get_type(raw)) }
    public var serial: UInt32 { libdbus.message_get_serial(raw) }
    public var replySerial: UInt32 { libdbus.message_get_reply_serial(raw) }
    public var sender: String? { libdbus.message_get_sender(raw).map { String(cString: $0) } }
    public var destination: String? { libdbus.message_get_destination(raw).map { String(cString: $0) } }
    public var path: String? { libdbus.message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { libdbus.message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { libdbus.message_get_member(raw).map { String(cString: $0) } }
    public var signature: String { libdbus.message_get_signature(raw).map { String(cString: $0) } ?? "" }
    public var errorName: DBusErrorName? {
        libdbus.message_get_error_name(raw).map { DBusErrorName(rawValue: String(cString: $0)) }
    }

    /// The reply does not matter (e.g. a fire-and-forget call): the peer need not send one.
    public var expectsNoReply: Bool {
        get { libdbus.message_get_no_reply(raw) != 0 }
        set { libdbus.message_set_no_reply(raw, newValue ? 1 : 0) }
    }

    /// An error reply, as a Swift error; nil for any other message.
    public var failure: DBusCallError? {
        guard type == .error, let name = errorName else { return nil }
        let message = (try? arguments().first?.string) ?? nil
        return DBusCallError(name, message ?? "")
    }

    // MARK: Arguments

    /// Every argument of the message, in order.
    public func arguments() throws(DBusCallError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard libdbus.message_iter_init(raw, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            values.append(try Self.read(&iter))
        } while libdbus.message_iter_next(&iter) != 0
        return values
    }

    /// Appends arguments to the message's body.
    public func append(_ values: [DBusValue]) throws(DBusCallError) {
        guard !values.isEmpty else { return }
        var iter = DBusMessageIter()
        libdbus.message_iter_init_append(raw, &iter)
        for value in values { try Self.write(value, to: &iter) }
    }

    private static func read(_ iter: inout DBusMessageIter) throws(DBusCallError) -> DBusValue {
        let type = DBusTypeCode(rawValue: libdbus.message_iter_get_arg_type(&iter))
        func basic<T>(_ initial: T) -> T {
            var value = initial
            withUnsafeMutablePointer(to: &value) { libdbus.message_iter_get_basic(&iter, $0) }
            return value
        }
        func text() -> String {
            var pointer: UnsafePointer<CChar>?
            withUnsafeMutablePointer(to: &pointer) { libdbus.message_iter_get_basic(&iter, $0) }
            return pointer.map { String(cString: $0) } ?? ""
        }
        switch type {
        case .byte: return .byte(basic(UInt8(0)))
        case .boolean: return .boolean(basic(dbus_bool_t(0)) != 0)
        case .int16: return .int16(basic(Int16(0)))
        case .uint16: return .uint16(basic(UInt16(0)))
        case .int32: return .int32(basic(Int32(0)))
        case .uint32: return .uint32(basic(UInt32(0)))
        case .int64: return .int64(basic(Int64(0)))
        case .uint64: return .uint64(basic(UInt64(0)))
        case .double: return .double(basic(Double(0)))
        case .string: return .string(text())
        case .objectPath: return .objectPath(text())
        case .signature: return .signature(text())
        // libdbus hands over a duplicate of the descriptor each time: the reader owns it.
        case .unixFD: return .unixFD(basic(Int32(-1)))
        case .variant:
            var inner = DBusMessageIter()
            libdbus.message_iter_recurse(&iter, &inner)
            return .variant(try read(&inner))
        case .structure:
            var inner = DBusMessageIter()
            libdbus.message_iter_recurse(&iter, &inner)
            var fields: [DBusValue] = []
            while libdbus.message_iter_get_arg_type(&inner) != DBusTypeCode.invalid.rawValue {
                fields.append(try read(&inner))
                _ = libdbus.message_iter_next(&inner)
            }
            return .structure(fields)
        case .array:
            return try readArray(&iter)
        default:
            throw DBusCallError(.unexpectedReply, "unsupported D-Bus type '\(Character(Unicode.Scalar(UInt8(truncatingIfNeeded: type.rawValue))))'")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter) throws(DBusCallError) -> DBusValue {
        let elementType = DBusTypeCode(rawValue: libdbus.message_iter_get_element_type(&iter))
        let signature = libdbus.message_iter_get_signature(&iter).map { pointer in
            defer { libdbus.free(pointer) }
            return String(cString: pointer)
        } ?? "a"
        let elementSignature = String(signature.dropFirst())
        var inner = DBusMessageIter()
        libdbus.message_iter_recurse(&iter, &inner)
        if elementType == .byte {
            var pointer: UnsafeMutableRawPointer?
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &pointer) { libdbus.message_iter_get_fixed_array(&inner, $0, &count) }
            guard let pointer, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: Int(count))))
        }
        if elementType == .dictEntry {
            // "{kv}": the key is one basic type code, the value the rest.
            let body = elementSignature.dropFirst().dropLast()
            let keySignature = String(body.prefix(1))
            let valueSignature = String(body.dropFirst())
            var entries: [DBusValue.DictionaryEntry] = []
            while libdbus.message_iter_get_arg_type(&inner) == DBusTypeCode.dictEntry.rawValue {
                var pair = DBusMessageIter()
                libdbus.message_iter_recurse(&inner, &pair)
                let key = try read(&pair)
                _ = libdbus.message_iter_next(&pair)
                let value = try read(&pair)
                entries.append(.init(key, value))
                _ = libdbus.message_iter_next(&inner)
            }
            return .dictionary(keySignature: keySignature, valueSignature: valueSignature, entries)
        }
        var elements: [DBusValue] = []
        while libdbus.message_iter_get_arg_type(&inner) != DBusTypeCode.invalid.rawValue {
            elements.append(try read(&inner))
            _ = libdbus.message_iter_next(&inner)
        }
        return .array(elementSignature: elementSignature, elements)
    }

    private static func write(_ value: DBusValue, to iter: inout DBusMessageIter) throws(DBusCallError) {
        func basic<T>(_ type: DBusTypeCode, _ value: T) throws(DBusCallError) {
            var copy = value
            let ok = withUnsafePointer(to: &copy) { libdbus.message_iter_append_basic(&iter, type.rawValue, $0) }
            guard ok != 0 else { throw DBusCallError(.noMemory, "could not append a \(type) value") }
        }
        func text(_ type: DBusTypeCode, _ string: String) throws(DBusCallError) {
            let valid: Bool =
                switch type {
                case .objectPath: libdbus.validate_path(string, nil) != 0
                case .signature: libdbus.signature_validate(string, nil) != 0
                default: libdbus.validate_utf8(string, nil) != 0
                }
            guard valid else { throw DBusCallError(.invalidArgs, "not a valid D-Bus \(type.name): \(string)") }
            let ok = string.withCString { pointer in
                var p: UnsafePointer<CChar>? = pointer
                return withUnsafePointer(to: &p) { libdbus.message_iter_append_basic(&iter, type.rawValue, $0) }
            }
            guard ok != 0 else { throw DBusCallError(.noMemory, "could not append a string") }
        }
        func container(_ type: DBusTypeCode, _ signature: String?, _ body: (inout DBusMessageIter) throws(DBusCallError) -> Void) throws(DBusCallError) {
            try openContainer(in: &iter, type, signature, body)
        }

        switch value {
        case .byte(let v): try basic(.byte, v)
        case .boolean(let v): try basic(.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try basic(.int16, v)
        case .uint16(let v): try basic(.uint16, v)
        case .int32(let v): try basic(.int32, v)
        case .uint32(let v): try basic(.uint32, v)
        case .int64(let v): try basic(.int64, v)
        case .uint64(let v): try basic(.uint64, v)
        case .double(let v): try basic(.double, v)
        case .string(let s): try text(.string, s)
        case .objectPath(let s): try text(.objectPath, s)
        case .signature(let s): try text(.signature, s)
        // libdbus sends a duplicate: the caller keeps its own descriptor.
        case .unixFD(let fd): try basic(.unixFD, fd)
        case .bytes(let bytes):
            try container(.array, "y") { (inner: inout DBusMessageIter) throws(DBusCallError) in
                let ok = bytes.withUnsafeBytes { buffer in
                    var base = buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
                    return withUnsafePointer(to: &base) {
                        libdbus.message_iter_append_fixed_array(&inner, DBusTypeCode.byte.rawValue, $0, Int32(buffer.count))
                    }
                }
                guard ok != 0 else { throw DBusCallError(.noMemory, "could not append bytes") }
            }
        case .array(let elementSignature, let elements):
            try checkSignature(elementSignature)
            try container(.array, elementSignature) { (inner: inout DBusMessageIter) throws(DBusCallError) in
                for element in elements {
                    guard element.signature == elementSignature else {
                        throw DBusCallError(.invalidArgs, "array of \(elementSignature) holds a \(element.signature)")
                    }
                    try write(element, to: &inner)
                }
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            try checkSignature("a{\(keySignature)\(valueSignature)}")
            try container(.array, "{\(keySignature)\(valueSignature)}") { (inner: inout DBusMessageIter) throws(DBusCallError) in
                for entry in entries {
                    try openContainer(in: &inner, .dictEntry, nil) { (pair: inout DBusMessageIter) throws(DBusCallError) in
                        try write(entry.key, to: &pair)
                        try write(entry.value, to: &pair)
                    }
                }
            }
        case .variant(let inside):
            try container(.variant, inside.signature) { (inner: inout DBusMessageIter) throws(DBusCallError) in try write(inside, to: &inner) }
        case .structure(let fields):
            try container(.structure, nil) { (inner: inout DBusMessageIter) throws(DBusCallError) in
                for field in fields { try write(field, to: &inner) }
            }
        }
    }

    /// Opens a container inside `parent`, lets `body` fill it, and closes it (or abandons
    /// it when `body` throws, as libdbus requires).
    private static func openContainer(
        in parent: inout DBusMessageIter, _ type: DBusTypeCode, _ signature: String?,
        _ body: (inout DBusMessageIter) throws(DBusCallError) -> Void
    ) throws(DBusCallError) {
        var inner = DBusMessageIter()
        let opened =
            if let signature { libdbus.message_iter_open_container(&parent, type.rawValue, signature, &inner) }
            else { libdbus.message_iter_open_container(&parent, type.rawValue, nil, &inner) }
        guard opened != 0 else { throw DBusCallError(.noMemory, "could not open a container") }
        do {
            try body(&inner)
        } catch {
            libdbus.message_iter_abandon_container(&parent, &inner)
            throw error
        }
        guard libdbus.message_iter_close_container(&parent, &inner) != 0 else {
            throw DBusCallError(.noMemory, "could not close a container")
        }
    }

    private static func checkSignature(_ signature: String) throws(DBusCallError) {
        guard libdbus.signature_validate_single(signature, nil) != 0 else {
            throw DBusCallError(.invalidArgs, "not a single complete D-Bus type: \(signature)")
        }
    }
}

extension DBusTypeCode {
    var name: String {
        switch self {
        case .objectPath: "object path"
        case .signature: "signature"
        default: "string"
        }
    }
}
