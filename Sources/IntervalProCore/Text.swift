/// U+FEFF in UTF-8: the byte order mark Windows tools put before UTF-8 text (Notepad,
/// PowerShell), which the readers of plans, recordings and XML pass over.
public let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

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
