/// FIT timestamps count seconds from 1989-12-31T00:00:00Z.
public enum FITTime {
    /// Seconds from the Unix epoch to FIT's.
    public static let epochOffset: Int64 = 631_065_600
    /// The profile's date_time: "if < 0x10000000 = system time (seconds from device power on)".
    public static let firstAbsolute: Int64 = 0x1000_0000

    /// A date_time for `unixSeconds`, or nil (written as the invalid value, "not known") for
    /// a moment FIT cannot name: one before mid-1998 (a Pi's clock before it is set reads 1970)
    /// or after 2126. Written as it came, 1970 became 2106.
    public static func dateTime(unixSeconds: Int64) -> Int? {
        let seconds = unixSeconds - epochOffset
        guard seconds >= firstAbsolute, seconds < 0xFFFF_FFFF else { return nil }
        return Int(seconds)
    }
}

/// One data message as read: its global number and its fields' raw values, little-endian
/// whatever the file's byte order was.
public struct FITRecord: Sendable {
    /// The FIT profile's message number (0 file_id, 20 record, 27 workout_step, ...).
    public var global: UInt16
    /// 0-based position among the file's data messages, for error messages.
    public var index: Int
    /// Byte offset of the message's header in the file.
    public var offset: Int
    var fields: [UInt8: FieldValue]

    struct FieldValue: Sendable {
        /// The base type number (low 5 bits of the base type byte).
        var type: UInt8
        var bytes: [UInt8]
    }

    /// The field's first value as an integer; nil when absent, not an integer type, or the
    /// type's invalid value ("not given").
    public func integer(_ number: UInt8) -> Int64? {
        guard let field = fields[number], let size = FITFileReader.integerSize(field.type),
            field.bytes.count >= size
        else { return nil }
        return Self.element(field, at: 0, size: size)
    }

    /// Every value of an array field (an `hrv` message's five times), nil where one is the
    /// type's invalid value; empty when the field is absent or not of an integer type.
    public func integers(_ number: UInt8) -> [Int64?] {
        guard let field = fields[number], let size = FITFileReader.integerSize(field.type) else { return [] }
        return (0..<(field.bytes.count / size)).map { Self.element(field, at: $0 * size, size: size) }
    }

    private static func element(_ field: FieldValue, at offset: Int, size: Int) -> Int64? {
        var raw: UInt64 = 0
        for i in 0..<size { raw |= UInt64(field.bytes[offset + i]) << (8 * UInt64(i)) }
        let signed = [1, 3, 5, 14].contains(Int(field.type))
        let bits = UInt64(size * 8)
        if signed {
            let invalid = (UInt64(1) << (bits - 1)) - 1
            if raw == invalid { return nil }
            let shift = 64 - bits
            return Int64(bitPattern: raw << shift) >> Int64(shift)
        }
        // z types (10, 11, 12, 16) use 0 for "not given"; the others all ones.
        if [10, 11, 12, 16].contains(Int(field.type)) { return raw == 0 ? nil : Int64(bitPattern: raw) }
        let allOnes = bits == 64 ? UInt64.max : (UInt64(1) << bits) - 1
        return raw == allOnes ? nil : Int64(bitPattern: raw)
    }

    /// A string field up to its first NUL; nil when absent or empty (see `text`).
    public func string(_ number: UInt8) -> String? { text(number)?.string }

    /// A string field up to its first NUL, and whether bytes in it were not UTF-8, as FIT's
    /// strings are (a name written in Windows-1252): those read as U+FFFD. A character cut in
    /// two at the end, by an encoder that fitted the text to its field, is left out. Such
    /// names were dropped whole: a workout took its file's name, its steps no label.
    public func text(_ number: UInt8) -> (string: String, mended: Bool)? {
        guard let field = fields[number], field.type == 7 else { return nil }
        var text = field.bytes.prefix { $0 != 0 }
        guard !text.isEmpty else { return nil }
        if let string = String(validating: text, as: UTF8.self) { return (string, false) }
        // A lead byte (11xxxxxx) and its continuations (10xxxxxx) short of the length it says.
        if let lead = text.lastIndex(where: { $0 & 0xC0 != 0x80 }), text[lead] >= 0xC0, text.distance(from: lead, to: text.endIndex) < 4 {
            let length = text[lead] >= 0xF0 ? 4 : text[lead] >= 0xE0 ? 3 : 2
            if text.distance(from: lead, to: text.endIndex) < length { text = text[..<lead] }
            guard !text.isEmpty else { return nil }
            if let string = String(validating: text, as: UTF8.self) { return (string, false) }
        }
        return (String(decoding: text, as: UTF8.self), true)
    }

    /// A field's bytes as written (little-endian), whatever its type: a `byte` array such as
    /// a record's compressed_speed_distance, whose values share bits.
    public func bytes(_ number: UInt8) -> [UInt8]? { fields[number]?.bytes }

    public func has(_ number: UInt8) -> Bool { fields[number] != nil }
}

/// A FIT "accumulate" component: a counter that keeps only its low bits in each message,
/// summed back to its whole value (the FIT profile's compressed_speed_distance counts
/// distance in 12 bits). It starts at the first value and adds each step modulo 2^bits.
public struct FITAccumulator: Sendable {
    let bits: Int64
    private var last: Int64?
    private var total: Int64 = 0

    public init(bits: Int64) { self.bits = bits }

    public mutating func add(_ value: Int64) -> Int64 {
        let mask = (Int64(1) << bits) - 1
        total += last.map { (value - $0) & mask } ?? value
        last = value
        return total
    }
}

/// Why a FIT file could not be read, and where.
public struct FITReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Byte offset in the file.
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "byte \(offset): \(message)" }
}

/// Reads a FIT file into its data messages: normal and compressed-timestamp headers,
/// either byte order, developer fields (skipped), chained files, header and file CRCs.
public enum FITFileReader {
    /// Whether `bytes` start like a FIT file (header size 12 or 14, then ".FIT" at byte 8).
    public static func looksLikeFIT(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && (bytes[0] == 12 || bytes[0] == 14) && Array(bytes[8..<12]) == Array(".FIT".utf8)
    }

    static func integerSize(_ type: UInt8) -> Int? {
        switch type {
        case 0, 1, 2, 10, 13: 1
        case 3, 4, 11: 2
        case 5, 6, 12: 4
        case 14, 15, 16: 8
        default: nil  // string, floats
        }
    }

    private struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [(number: UInt8, size: Int, type: UInt8)]
        var developerBytes: Int
    }

    public static func read(_ bytes: [UInt8]) throws(FITReadError) -> [FITRecord] {
        let salvage = try readSalvaging(bytes)
        if let damage = salvage.damage { throw damage }
        return salvage.records
    }

    /// What a damaged file still holds: the messages before the damage, and the damage.
    public struct Salvage: Sendable {
        public var records: [FITRecord]
        /// What was wrong, where; nil for an intact file.
        public var damage: FITReadError?
        /// The bytes read: every message before this offset is in `records`.
        public var readUpTo: Int
    }

    /// Reads as `read` does, except that damage a watch leaves when its battery dies or its
    /// file is cut off (a CRC that does not match, a data size that runs past the end of the
    /// file, a message cut short, bytes that are no message) ends the reading instead of
    /// refusing the file: the messages before it are kept. Only a file that does not start
    /// as FIT is refused.
    public static func readSalvaging(_ bytes: [UInt8]) throws(FITReadError) -> Salvage {
        var salvage = Salvage(records: [], damage: nil, readUpTo: 0)
        var position = 0
        repeat {
            position = try readFile(bytes, at: position, into: &salvage)
        } while salvage.damage == nil && position < bytes.count && bytes.count - position >= 12
            && looksLikeFIT(Array(bytes[position..<(position + 12)]))
        return salvage
    }

    /// Reads one FIT file (of a chain) starting at `start`; returns where the next begins.
    /// Damage after a readable header is noted in `salvage.damage` and ends the reading.
    private static func readFile(_ bytes: [UInt8], at start: Int, into salvage: inout Salvage) throws(FITReadError) -> Int {
        func fail(_ offset: Int, _ message: String) -> FITReadError { FITReadError(offset: offset, message: message) }
        guard bytes.count - start >= 12 else { throw fail(start, "too short for a FIT header (\(bytes.count - start) bytes)") }
        let headerSize = Int(bytes[start])
        guard headerSize == 12 || headerSize == 14, bytes.count - start >= headerSize else {
            throw fail(start, "header size \(headerSize) (expected 12 or 14)")
        }
        guard Array(bytes[(start + 8)..<(start + 12)]) == Array(".FIT".utf8) else {
            throw fail(start + 8, "no \".FIT\" signature: not a FIT file")
        }
        let dataSize = Int(bytes[start + 4]) | Int(bytes[start + 5]) << 8 | Int(bytes[start + 6]) << 16
            | Int(bytes[start + 7]) << 24
        let dataStart = start + headerSize
        var dataEnd = dataStart + dataSize
        // The first damage found; the messages are still read up to where they stop making sense.
        var damage: FITReadError?
        if headerSize == 14 {
            let stored = UInt16(bytes[start + 12]) | UInt16(bytes[start + 13]) << 8
            if stored != 0 && stored != FITChecksum.crc(Array(bytes[start..<(start + 12)])) {
                damage = fail(start + 12, "header CRC does not match: the file is damaged")
            }
        }
        if dataSize == 0 && bytes.count - dataStart > 2 {
            // Some watches write the size when they close the file: one that never closed says 0.
            damage = damage ?? fail(start + 4, "the header's data size is 0: the file was never closed")
            dataEnd = bytes.count
        } else if dataEnd > bytes.count {
            // A watch that stopped before finishing the file: what it wrote runs to the end.
            damage = damage ?? fail(start + 4, "the header announces \(dataSize) bytes of messages, but the file ends first (truncated?)")
            dataEnd = bytes.count
        } else if dataEnd + 2 > bytes.count {
            // Every message is there: the file was cut in its last two bytes, the CRC (it was
            // said to end before its messages did).
            damage = damage ?? fail(dataEnd, "the file ends before its 2-byte CRC: its messages are all there, unchecked")
        } else {
            let storedCRC = UInt16(bytes[dataEnd]) | UInt16(bytes[dataEnd + 1]) << 8
            if storedCRC != FITChecksum.crc(Array(bytes[start..<dataEnd])) {
                damage = damage ?? fail(dataEnd, "file CRC does not match: the file is damaged")
            }
        }
        defer { if salvage.damage == nil { salvage.damage = damage } }
        do throws(FITReadError) {
            try readMessages(bytes, from: dataStart, to: dataEnd, into: &salvage)
        } catch {
            salvage.damage = damage ?? error
            return dataEnd
        }
        salvage.readUpTo = dataEnd
        return damage == nil ? dataEnd + 2 : dataEnd
    }

    /// The messages between `dataStart` and `dataEnd`, appended as they are read, so that
    /// those before an error are kept; `readUpTo` follows the last whole message.
    private static func readMessages(
        _ bytes: [UInt8], from dataStart: Int, to dataEnd: Int, into salvage: inout Salvage
    ) throws(FITReadError) {
        func fail(_ offset: Int, _ message: String) -> FITReadError { FITReadError(offset: offset, message: message) }
        var definitions: [UInt8: Definition] = [:]
        var lastTimestamp: UInt32?
        var p = dataStart
        while p < dataEnd {
            salvage.readUpTo = p
            let headerOffset = p
            let header = bytes[p]
            p += 1
            if header & 0x80 == 0 && header & 0x40 != 0 {
                // Definition message.
                let local = header & 0x0F
                let hasDeveloperFields = header & 0x20 != 0
                guard p + 5 <= dataEnd else { throw fail(headerOffset, "definition message cut short") }
                let bigEndian = bytes[p + 1] == 1
                let global = bigEndian
                    ? UInt16(bytes[p + 2]) << 8 | UInt16(bytes[p + 3]) : UInt16(bytes[p + 2]) | UInt16(bytes[p + 3]) << 8
                let count = Int(bytes[p + 4])
                p += 5
                guard p + 3 * count <= dataEnd else { throw fail(headerOffset, "definition message cut short") }
                var fields: [(number: UInt8, size: Int, type: UInt8)] = []
                for i in 0..<count {
                    fields.append((bytes[p + 3 * i], Int(bytes[p + 3 * i + 1]), bytes[p + 3 * i + 2] & 0x1F))
                }
                p += 3 * count
                var developerBytes = 0
                if hasDeveloperFields {
                    guard p < dataEnd else { throw fail(headerOffset, "definition message cut short") }
                    let developerCount = Int(bytes[p])
                    p += 1
                    guard p + 3 * developerCount <= dataEnd else { throw fail(headerOffset, "definition message cut short") }
                    for i in 0..<developerCount { developerBytes += Int(bytes[p + 3 * i + 1]) }
                    p += 3 * developerCount
                }
                definitions[local] = Definition(
                    global: global, bigEndian: bigEndian, fields: fields, developerBytes: developerBytes)
                continue
            }
            let compressed = header & 0x80 != 0
            let local = compressed ? (header >> 5) & 0x03 : header & 0x0F
            guard let definition = definitions[local] else {
                throw fail(headerOffset, "data message for local type \(local), which no definition precedes")
            }
            let size = definition.fields.reduce(0) { $0 + $1.size } + definition.developerBytes
            guard p + size <= dataEnd else { throw fail(headerOffset, "data message cut short") }
            var fields: [UInt8: FITRecord.FieldValue] = [:]
            var q = p
            for field in definition.fields {
                var value = Array(bytes[q..<(q + field.size)])
                if definition.bigEndian, let width = integerSize(field.type), width > 1, value.count % width == 0 {
                    for element in stride(from: 0, to: value.count, by: width) { value[element..<(element + width)].reverse() }
                }
                fields[field.number] = .init(type: field.type, bytes: value)
                q += field.size
            }
            p += size
            var record = FITRecord(global: definition.global, index: salvage.records.count, offset: headerOffset, fields: fields)
            if compressed {
                // The header holds the low 5 bits of the time; the rest comes from the last full timestamp.
                let offset = UInt32(header & 0x1F)
                guard let last = lastTimestamp else {
                    throw fail(headerOffset, "compressed timestamp before any full timestamp")
                }
                var time = (last & ~0x1F) + offset
                if offset < last & 0x1F { time &+= 0x20 }
                lastTimestamp = time
                record.fields[FITFieldNumber.timestamp] = .init(
                    type: 6, bytes: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: time >> UInt32($0)) })
            } else if let time = record.integer(FITFieldNumber.timestamp) {
                lastTimestamp = UInt32(truncatingIfNeeded: time)
            }
            salvage.records.append(record)
        }
    }
}
