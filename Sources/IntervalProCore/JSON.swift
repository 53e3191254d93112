/// A small JSON reader that keeps where every value and key came from, so that plan and
/// recording errors can name a line, a column and a JSON path. (Foundation's decoders
/// report only the coding path, and the core stays free of Foundation.)
public struct JSONNode: Sendable {
    public struct Member: Sendable {
        public var key: String
        public var keyOffset: Int
        public var value: JSONNode
    }

    public enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double, isInteger: Bool)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    public var kind: Kind
    /// Byte offset of the value's first character in the parsed text.
    public var offset: Int

    public var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var isNull: Bool {
        if case .null = kind { return true }
        return false
    }

    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let n, _) = kind { return n }
        return nil
    }
}

extension JSONNode {
    /// The value to be written again: what a reader does not know is kept as it came.
    public var value: JSONValue {
        switch kind {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number, let isInteger): isInteger && abs(number) < 9e15 ? .int(Int(number)) : .number(number)
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(\.value))
        case .object(let members): .object(members.map { ($0.key, $0.value.value) })
        }
    }
}

public struct JSONSyntaxError: Error, Equatable, Sendable {
    public var offset: Int
    public var message: String
}

/// Line and column (both from 1) of a byte offset in a text, computed only when an error
/// needs them.
public struct SourceLocation: Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The position of byte `offset`; a byte order mark is not a column (editors do not show it).
    /// Columns count characters as an editor does, not bytes: "é" is one (an error after it was
    /// said a column too far).
    public init(offset: Int, in bytes: [UInt8]) {
        var line = 1
        var lineStart = bytes.starts(with: utf8ByteOrderMark) && offset >= utf8ByteOrderMark.count
            ? utf8ByteOrderMark.count : 0
        let end = min(offset, bytes.count)
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        // A UTF-8 continuation byte (10xxxxxx) is part of the character before it.
        let characters = bytes[min(lineStart, end)..<end].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        self.init(line: line, column: characters + max(0, offset - end) + 1)
    }

    public var description: String { "\(line):\(column)" }
}

public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maxDepth = 64

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON document; anything but white space after it is an error. A byte order
    /// mark before it is passed over, as RFC 8259 (section 8.1) allows a parser to: Windows
    /// editors save UTF-8 with one.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes)
        if bytes.starts(with: utf8ByteOrderMark) { parser.index = utf8ByteOrderMark.count }
        parser.skipWhitespace()
        let node = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected '\(parser.currentCharacter)' after the JSON value")
        }
        return node
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    private var currentCharacter: String {
        guard index < bytes.count else { return "end of input" }
        return String(decoding: [bytes[index]], as: UTF8.self)
    }

    private func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? index, message: message)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(kind: try object(), offset: start)
        case UInt8(ascii: "["): return JSONNode(kind: try array(), offset: start)
        case UInt8(ascii: "\""): return JSONNode(kind: .string(try string()), offset: start)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(kind: .bool(true), offset: start)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(kind: .bool(false), offset: start)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(kind: .null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(kind: try number(), offset: start)
        default:
            throw error("unexpected '\(currentCharacter)', expected a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = index
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count, bytes[index] == byte else {
                throw error("invalid literal, expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONNode.Kind {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONNode.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a key in double quotes, found '\(currentCharacter)'")
            }
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            if members.contains(where: { $0.key == key }) {
                throw error("duplicate key \"\(key)\"", at: keyOffset)
            }
            members.append(JSONNode.Member(key: key, keyOffset: keyOffset, value: try value()))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            throw error("expected ',' or '}' in an object, found '\(currentCharacter)'")
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONNode.Kind {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw error("expected ',' or ']' in an array, found '\(currentCharacter)'")
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        // Fast path: no escapes, copy the bytes straight through.
        var scan = index
        while scan < bytes.count, bytes[scan] != UInt8(ascii: "\""), bytes[scan] != UInt8(ascii: "\\"),
            bytes[scan] >= 0x20
        {
            scan += 1
        }
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            let text = String(decoding: bytes[index..<scan], as: UTF8.self)
            index = scan + 1
            return text
        }
        var scalars: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                scalars.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append(0x22)
            case UInt8(ascii: "\\"): scalars.append(0x5C)
            case UInt8(ascii: "/"): scalars.append(0x2F)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count,
                    bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                {
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw error("invalid escape '\\\(String(decoding: [escape], as: UTF8.self))'", at: index - 2)
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexDigitValue(bytes[index]) else { throw error("invalid \\u escape") }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONNode.Kind {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
        return .number(value, isInteger: isInteger)
    }
}

@inline(__always) func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

@inline(__always) func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// JSON output with keys in the order given, for summaries and `--json` reports.
public indirect enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// Text that is already valid JSON, written as is (e.g. a number with fixed decimals).
    case literal(String)

    /// Compact (one line) or pretty (two-space indented) text.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .number(let d): out += Self.format(d)
        case .literal(let text): out += text
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            // Arrays of scalars stay on one line even when pretty: they read better.
            let inline = !pretty || elements.allSatisfy(\.isScalar)
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += inline && pretty ? ", " : "," }
                if !inline { Self.newLine(into: &out, indent: indent + 1) }
                element.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !inline { Self.newLine(into: &out, indent: indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                if pretty { Self.newLine(into: &out, indent: indent + 1) }
                Self.writeString(key, into: &out)
                out += pretty ? ": " : ":"
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newLine(into: &out, indent: indent) }
            out += "}"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// Integral values print without a fraction ("600", not "600.0").
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }

    /// A line break and two spaces a level, appended where they go (not built as strings first).
    private static func newLine(into out: inout String, indent: Int) {
        out += "\n"
        for _ in 0..<indent { out += "  " }
    }

    private static func writeString(_ string: String, into out: inout String) {
        out += "\""
        defer { out += "\"" }
        // Most strings need no escape: appended whole rather than a scalar at a time. DEL and
        // the C1 controls (U+0080-U+009F, 0xC2 0x80-0x9F in UTF-8) are escaped too, though JSON
        // allows them raw: `history --json` on a terminal passed a name's CSI (U+009B) to it.
        guard string.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 })
        else {
            out += string
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}

extension JSONValue {
    /// `.number` for a value, `.null` for nil: summaries print absent figures as null.
    public static func nullable(_ value: Double?) -> JSONValue {
        value.map { .number($0) } ?? .null
    }
}
