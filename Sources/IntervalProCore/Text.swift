/// U+FEFF in UTF-8: the byte order mark Windows tools put before UTF-8 text (Notepad,
/// PowerShell), which the readers of plans, recordings and XML pass over.
public let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

/// Text saved as UTF-16 with its byte order mark, as Windows Notepad saves "Unicode": a plan
/// so saved was "invalid JSON: unexpected '\u{FFFD}'", which named no encoding.
public enum UTF16Text {
    /// `bytes` in UTF-8 when they begin with UTF-16's byte order mark (either order); nil
    /// for any other bytes.
    public static func utf8(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0xFF, 0xFE): littleEndian = true
        case (0xFE, 0xFF): littleEndian = false
        default: return nil
        }
        let units = stride(from: 2, to: bytes.count - 1, by: 2).map { i in
            littleEndian ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}

/// Windows-1252, the code page Windows tools save text in when told "ANSI" (Notepad, a .zwo
/// saved on Windows): a file that is not UTF-8 was written so, and read as such rather than
/// refused or shown with U+FFFD ("S\u{FFFD}ance fractionn\u{FFFD}e").
public enum Windows1252 {
    /// `bytes` as they are when they are UTF-8, else each byte read as Windows-1252, in UTF-8.
    public static func utf8(_ bytes: [UInt8]) -> [UInt8] {
        if String(validating: bytes, as: UTF8.self) != nil { return bytes }
        return decoded(bytes)
    }

    /// As `utf8(_:)`, but text that holds UTF-8 of several bytes anywhere is UTF-8 with a byte
    /// damaged: kept as it is (that byte read as U+FFFD), where read as Windows-1252 each of
    /// its other accents became two characters ("SÃ©ance").
    public static func utf8UnlessDamagedUTF8(_ bytes: [UInt8]) -> [UInt8] {
        if let text = UTF16Text.utf8(bytes) { return text }
        if String(validating: bytes, as: UTF8.self) != nil || holdsUTF8Sequence(bytes) { return bytes }
        return decoded(bytes)
    }

    /// Whether a lead byte of UTF-8 is followed by the continuation bytes it asks for, anywhere.
    static func holdsUTF8Sequence(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = (0xC2...0xDF).contains(lead) ? 2 : (0xE0...0xEF).contains(lead) ? 3 : (0xF0...0xF4).contains(lead) ? 4 : 1
            if length > 1, index + length <= bytes.count, bytes[(index + 1)..<(index + length)].allSatisfy({ (0x80...0xBF).contains($0) }) {
                return true
            }
            index += 1
        }
        return false
    }

    private static func decoded(_ bytes: [UInt8]) -> [UInt8] {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.lazy.map(scalar))
        return Array(String(scalars).utf8)
    }

    /// The character a byte stands for; the five bytes the code page leaves undefined stand for
    /// the control characters of the same number, as the WHATWG Encoding Standard reads them.
    public static func scalar(_ byte: UInt8) -> Unicode.Scalar {
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        return Unicode.Scalar(high[Int(byte) - 0x80])!
    }

    private static let high: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]
}

extension Collection<UInt8> {
    /// The bytes after a UTF-8 byte order mark, if they begin with one.
    public var droppingUTF8ByteOrderMark: SubSequence {
        starts(with: utf8ByteOrderMark) ? dropFirst(utf8ByteOrderMark.count) : self[...]
    }
}

extension StringProtocol {
    /// The text without the white space (Unicode's) at either end.
    public var trimmingWhitespace: String {
        // Most text read (XML values, numbers) has none to trim: ASCII other than space and
        // controls at both ends, told from the bytes without decoding.
        let whole = String(self)
        if let first = whole.utf8.first, let last = whole.utf8.last, (0x21..<0x80).contains(first), (0x21..<0x80).contains(last) {
            return whole
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }
}
