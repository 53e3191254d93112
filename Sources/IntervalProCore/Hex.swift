/// Hexadecimal text <-> bytes, as recordings and `intervalpro decode` spell raw values.
public enum Hex {
    /// Decodes hex digits; spaces, colons and dashes between byte pairs are allowed, as
    /// are a leading "0x". Returns nil for anything else or an odd number of digits.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        var utf8 = Substring(text).utf8[...]
        if utf8.starts(with: "0x".utf8) || utf8.starts(with: "0X".utf8) { utf8 = utf8.dropFirst(2) }
        for byte in utf8 {
            if let digit = hexDigitValue(byte) {
                if let h = high {
                    bytes.append(h << 4 | digit)
                    high = nil
                } else {
                    high = digit
                }
            } else if high == nil, byte == UInt8(ascii: " ") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") {
                continue
            } else {
                return nil
            }
        }
        return high == nil ? bytes : nil
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
