/// The notification line IntervalPro writes, `{"t":12.250,"dev":"…","char":"2a53","hex":"04a802ae"}`,
/// read without building a JSON tree: a replay spends most of its time on these lines.
///
/// Only that exact shape is taken (those keys in that order, no white space, plain strings
/// without escapes, a time in plain decimal, hex digits); any other line, however valid, is
/// left to the general reader (`nil`), so what is accepted and what each value means do not
/// change. Device ids and characteristics repeat on every line, so the last few seen are kept
/// and reused rather than made again.
struct RecordingLineScanner {
    /// The last few device ids and characteristics, each with what it reads as: a
    /// characteristic's number is read once, not on every line.
    private var names: [(bytes: [UInt8], text: String, characteristic: GATTCharacteristic?)] = []

    struct Line {
        var seconds: Double
        var device: String
        /// The characteristic as written, and which it is (nil: one IntervalPro does not know).
        var characteristicID: String
        var characteristic: GATTCharacteristic?
        var bytes: [UInt8]
    }

    mutating func notification(_ line: ArraySlice<UInt8>) -> Line? {
        line.withUnsafeBufferPointer { notification(in: $0) }
    }

    /// The same, on the line's bytes in place: read byte by byte, without a bounds check each.
    private mutating func notification(in line: UnsafeBufferPointer<UInt8>) -> Line? {
        var cursor = Cursor(line)
        guard cursor.take(#"{"t":"#),
            let seconds = cursor.decimal(),
            cursor.take(#","dev":""#), let device = cursor.plainString().map({ name($0).text }),
            cursor.take(#","char":""#), let characteristic = cursor.plainString().map({ name($0) }),
            cursor.take(#","hex":""#), let bytes = cursor.hexString(),
            cursor.take("}"), cursor.atEndIgnoringWhitespace
        else { return nil }
        return Line(
            seconds: seconds, device: device, characteristicID: characteristic.text,
            characteristic: characteristic.characteristic, bytes: bytes)
    }

    private mutating func name(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> (text: String, characteristic: GATTCharacteristic?) {
        if let known = names.first(where: { known in known.bytes.withUnsafeBufferPointer { Self.same($0, bytes) } }) {
            return (known.text, known.characteristic)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let characteristic = GATTCharacteristic(identifier: text)
        if names.count == 8 { names.removeFirst() }
        names.append((Array(bytes), text, characteristic))
        return (text, characteristic)
    }

    /// Whether `a` and `b` hold the same bytes, compared in place: `elementsEqual` walked a
    /// slice through its generic iterator, five keys and two names on every line.
    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard a.count == b.count else { return false }
        let b = UnsafeBufferPointer(rebasing: b)
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }

    private struct Cursor {
        let line: UnsafeBufferPointer<UInt8>
        var index: Int

        init(_ line: UnsafeBufferPointer<UInt8>) {
            self.line = line
            index = line.startIndex
        }

        mutating func take(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard line.endIndex - index >= count else { return false }
            let matches = literal.withUTF8Buffer { RecordingLineScanner.same($0, line[index..<index + count]) }
            if matches { index += count }
            return matches
        }

        /// Digits, optionally a point and more digits, as the JSON reader reads such a number.
        mutating func decimal() -> Double? {
            let start = index
            // The digits as one integer while it is exact in a Double (15 digits always are).
            var mantissa: UInt64 = 0
            var digits = 0
            var fractionDigits = 0
            while index < line.endIndex, line[index] &- 0x30 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(line[index] &- 0x30)
                digits += 1
                index += 1
            }
            guard index > start else { return nil }
            if index < line.endIndex, line[index] == UInt8(ascii: ".") {
                index += 1
                let fraction = index
                while index < line.endIndex, line[index] &- 0x30 < 10 {
                    mantissa = mantissa &* 10 &+ UInt64(line[index] &- 0x30)
                    digits += 1
                    index += 1
                }
                fractionDigits = index - fraction
                guard fractionDigits > 0 else { return nil }
            }
            // A leading zero followed by digits is not JSON: the general reader says so.
            if line[start] == UInt8(ascii: "0"), index > start + 1, line[start + 1] != UInt8(ascii: ".") { return nil }
            // Both operands exact, so the one rounding of the division gives the nearest Double to
            // the decimal, the value strtod gives; longer numbers go through strtod itself.
            if digits <= 15, fractionDigits < Self.powersOfTen.count {
                return Double(mantissa) / Self.powersOfTen[fractionDigits]
            }
            return Double(String(decoding: line[start..<index], as: UTF8.self))
        }

        private static let powersOfTen: [Double] = (0...15).map { exponent in
            (0..<exponent).reduce(1.0) { value, _ in value * 10 }
        }

        /// The bytes up to the closing quote, which it steps over; nil at an escape, a control
        /// character or a non-ASCII byte (the general reader handles those).
        mutating func plainString() -> Slice<UnsafeBufferPointer<UInt8>>? {
            let start = index
            while index < line.endIndex {
                let byte = line[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return line[start..<index]
                }
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        /// An even number of hex digits up to the closing quote, decoded.
        mutating func hexString() -> [UInt8]? {
            guard let digits = plainString(), digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            var i = digits.startIndex
            while i < digits.endIndex {
                guard let high = hexDigitValue(digits[i]), let low = hexDigitValue(digits[i + 1]) else { return nil }
                bytes.append(high << 4 | low)
                i += 2
            }
            return bytes
        }

        var atEndIgnoringWhitespace: Bool {
            line[index...].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        }
    }
}
