/// UTC timestamps as the store keeps them ("2026-03-01T07:30:00Z").
public enum UTCTimestamp {
    /// Seconds since 1970-01-01T00:00:00Z, or nil when the text is not of that form.
    public static func unixSeconds(_ text: String) -> Int64? {
        guard text.utf8.count == 20, text.utf8.last == UInt8(ascii: "Z") else { return nil }
        return ISO8601.microseconds(text).map { $0 / 1_000_000 }
    }

    /// Days since 1970 of a calendar date written "YYYY-MM-DD" (a local date, as the store and
    /// the command line take them); nil for anything else, a 31 April or a 29 February of a
    /// common year among them (day arithmetic alone would take those for 1 May and 1 March).
    public static func dayNumber(ofDate text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }),
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return self.text(unixSeconds: days * 86_400).hasPrefix(text) ? days : nil
    }

    /// The days of `month` (1 to 12) in `year` of the Gregorian calendar: February 29th
    /// every fourth year but centuries, but every fourth century.
    public static func daysIn(month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (civil calendar arithmetic with
    /// March-based years, so that leap days fall at the end of a year).
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// "2026-03-01T07:30:00Z" for seconds since 1970.
    public static func text(unixSeconds: Int64) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondsOfDay = unixSeconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):"
            + "\(two(secondsOfDay % 60))Z"
    }
}

/// ISO 8601 times as TCX and GPX writers write them: "2026-03-01T07:30:00Z", with fractions
/// of a second and "+02:00" offsets (or "+0200", "+02"); "t" and "z" in lower case too, as
/// RFC 3339 (section 5.6) allows.
public enum ISO8601 {
    /// Whether a time `microseconds` reads names no zone ("2026-03-01T07:30:00", as Python's
    /// `datetime.now().isoformat()` writes): `microseconds` reads it as UTC.
    public static func namesNoZone(_ text: String) -> Bool {
        text.utf8.dropFirst(19).allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2C }
    }

    /// Microseconds since 1970-01-01T00:00:00Z, or nil when the text is not such a time.
    public static func microseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x74 || bytes[10] == 0x20,
            bytes[13] == 0x3A, bytes[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...UTCTimestamp.daysIn(month: month, of: year)).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        // ISO 8601 allows a comma as well as a point before the fraction.
        if index < bytes.count, bytes[index] == 0x2E || bytes[index] == 0x2C {
            index += 1
            var scale: Int64 = 100_000
            let digitsStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                micros += Int64(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > digitsStart else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            switch bytes[index] {
            case 0x5A, 0x7A:  // Z, z
                guard index + 1 == bytes.count else { return nil }
            case 0x2B, 0x2D:  // + -: "+02:00", or ISO 8601's basic "+0200" and "+02"
                let minutesAt: Int? =
                    switch bytes.count - index {
                    case 6 where bytes[index + 3] == 0x3A: index + 4
                    case 5: index + 3
                    case 3: nil
                    default: -1
                    }
                guard minutesAt != -1, let hours = number((index + 1)..<(index + 3)), hours < 24,
                    let minutes = minutesAt.map({ number($0..<($0 + 2)) }) ?? 0, minutes < 60
                else { return nil }
                offsetSeconds = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2B ? 1 : -1)
            default:
                return nil
            }
        }
        let seconds = UTCTimestamp.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600
            + minute * 60 + second - offsetSeconds
        return seconds * 1_000_000 + micros
    }
}
