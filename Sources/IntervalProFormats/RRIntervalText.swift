public import IntervalProCore

/// RR intervals as text, the way HRV apps hand them out: one interval a line (Elite HRV's
/// export, Kubios' text input), many on a line (Welltory's `RR.txt`), or a table whose header
/// names the column (Polar Sensor Logger's `Phone timestamp;RR-interval [ms]`, HRV Logger's
/// `date,rr,since start`). Milliseconds, or seconds when the values are that small.
///
/// Read for a readiness measurement: the beats become the Heart Rate Measurements a strap
/// would have sent, one a beat, at the time the beat ended.
public enum RRIntervalText {
    /// The first word of a column header that holds the intervals: RR, RRI, IBI (inter-beat
    /// interval), NN, PP or PPI (an optical sensor's pulse-to-pulse interval, Polar's word).
    static let columnNames: Set<String> = ["rr", "rri", "ibi", "nn", "pp", "ppi"]

    /// Whether `bytes` look like RR interval text: the first line that is not blank or a `#`
    /// comment holds only numbers, or is a header naming an RR column.
    public static func recognises(_ bytes: [UInt8]) -> Bool {
        let opening = Array(bytes.prefix(8192))
        let lines = contentLines((UTF16Text.utf8(opening) ?? opening).prefix(4096))
        guard let first = lines.first else { return false }
        let fields = split(first.text)
        return fields.allSatisfy { number($0) != nil } || fields.contains(where: namesIntervals)
            || writtenWithDecimalCommas(lines.prefix(1))
    }

    /// The intervals in milliseconds, in the file's order.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [Double] {
        // Notepad's "Unicode" and Excel's "Unicode text" are UTF-16: it was "binary data".
        var lines = contentLines((UTF16Text.utf8(bytes) ?? bytes)[...])[...]
        guard let first = lines.first else { throw ImportError(file: file, message: "the file is empty: no RR intervals in it") }
        if writtenWithDecimalCommas(lines) {
            return try milliseconds(
                lines.compactMap { line in
                    let text = line.text.trimmingWhitespace
                    return number(text).map { (value: $0, line: line.number, text: text) }
                }, file: file)
        }
        // A header names the column; without one, every number is an interval.
        var column: Int?
        let firstFields = split(first.text)
        if !firstFields.allSatisfy({ number($0) != nil }) {
            guard let named = firstFields.firstIndex(where: namesIntervals) else {
                throw ImportError(
                    file: file, place: "\(first.number)",
                    message: "a header without a column of RR intervals (\(firstFields.joined(separator: ", "))): name that column RR")
            }
            column = named
            lines = lines.dropFirst()
        } else if firstFields.count > 1, lines.count > 1, lines.allSatisfy({ split($0.text).count == firstFields.count }) {
            // A table of numbers without names: one of its columns may be a time.
            throw ImportError(
                file: file, place: "\(first.number)",
                message: "every line holds \(firstFields.count) numbers and no header names them: which holds the RR intervals? Name its column RR in a first line")
        }
        var intervals: [(value: Double, line: Int, text: String)] = []
        for line in lines {
            let fields = split(line.text)
            let values = column.map { $0 < fields.count ? [fields[$0]] : [] } ?? fields
            for field in values where !field.isEmpty {
                // 0 is an interval under the 300 ms of a heartbeat, left out as one of 1 ms is
                // (rhenanbartels/hrv's real recording ends on one: the morning was refused).
                guard let value = number(field), value >= 0 else {
                    // Quoted short: a 50 MB line of damage was quoted whole on stderr.
                    let shown = field.count > 40 ? field.prefix(40) + "…" : field
                    throw ImportError(file: file, place: "\(line.number)", message: "'\(shown)' is not an RR interval (a number of milliseconds or seconds)")
                }
                intervals.append((value, line.number, field))
            }
        }
        guard !intervals.isEmpty else { throw ImportError(file: file, message: "no RR intervals in the file") }
        return try milliseconds(intervals, file: file)
    }

    /// One interval a line written with a decimal comma, as a European locale's export has
    /// it ("1,126" seconds, "812,5" milliseconds): every line two runs of digits around one
    /// comma, the first under 4 (seconds) or the second of one or two digits. Two intervals a
    /// line ("812,790") never read so: no heart beats 100 ms apart, nor 4 s.
    static func writtenWithDecimalCommas(_ lines: some Collection<(number: Int, text: Substring)>) -> Bool {
        !lines.isEmpty
            && lines.allSatisfy { line in
                let parts = line.text.trimmingWhitespace.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else {
                    return false
                }
                return (Int(parts[0]) ?? 4) < 4 || parts[1].count <= 2
            }
    }

    /// The intervals read, in milliseconds, each with its line and text.
    private static func milliseconds(_ read: [(value: Double, line: Int, text: String)], file: String) throws(ImportError) -> [Double] {
        var intervals = read.map(\.value)
        // Seconds (0.3 to 2 for a heart at rest) when most are below 10: no heart beats 10 ms apart.
        let median = intervals.sorted()[intervals.count / 2]
        if median < 10 { intervals = intervals.map { $0 * 1000 } }
        // Neither: no heart beats 10 to 250 ms apart at rest, but it beats 40 to 200 times a
        // minute. A file of heart rates was "0:11 of heart-rate values" from a two-minute morning.
        if median >= 10, median < 250 {
            throw ImportError(
                file: file,
                message: "its numbers (\(JSONValue.format(median)) in the middle) are neither milliseconds nor seconds between beats"
                    + (median >= 25 ? ": heart rates in beats per minute? Readiness needs the RR intervals (an app's RR or IBI export)" : ""))
        }
        // An interval over the 64 s a Heart Rate Measurement carries is beats lost, as one of
        // 10 s is (`RRIntervals.heartbeat`): it refused the whole morning. One that puts the beats
        // after it past the 115 days a recording holds is no pause: they could not be placed,
        // and "1e308" on line 51 of 400 left a morning of 0:43, without a word of that line.
        var total = 0.0
        for (index, interval) in intervals.enumerated() {
            total += interval
            guard total <= RecordingParser.latestTime * 1000 else {
                throw ImportError(
                    file: file, place: "\(read[index].line)",
                    message: "'\(read[index].text)' puts the beats after it past the 115 days a recording holds: not an RR interval (a number of milliseconds or seconds)")
            }
        }
        return intervals
    }

    /// The device an RR interval text is read as.
    public static let device = RecordedDevice(id: "rr-intervals", name: "RR interval text")

    /// The intervals (milliseconds) as the Heart Rate Measurements a strap would have sent: one
    /// at the beat that begins the first interval, without one (so that the recording lasts
    /// as long as its beats), then one a beat, at the time it ended, with the beat's rate and
    /// the interval in 1/1024 s. It starts at `startedAt` when the text says (`timeWritten`);
    /// a list of numbers does not.
    ///
    /// A beat followed by an interval longer than a heartbeat's (`RRIntervals.heartbeat`) is
    /// not held over it as a watch's point is (`ActivityImport.smartRecordingHold`): no beat
    /// was timed there, so the strap was silent, and a measurement's count waits as it does
    /// for a strap that stops sending. Held, a gap of 10 s took 10 s of the scored time and
    /// one of 30 s took 3.
    public static func recording(_ intervals: [Double], startedAt: String? = nil) -> ParsedRecording {
        func rate(_ interval: Double) -> Int { max(1, ActivityImport.rounded(60_000 / interval)) }
        func units(_ interval: Double) -> UInt16 { ActivityImport.rounded(interval * 1.024) }
        var time = 0.0
        var points = [ActivityPoint(time: 0, heartRate: intervals.first.map(rate))]
        points.reserveCapacity(intervals.count + 1)
        for interval in intervals {
            points[points.count - 1].pausedAfter = units(interval) > RRIntervals.heartbeat.upperBound
            time += interval
            points.append(ActivityPoint(time: ActivityImport.rounded(time * 1000), heartRate: rate(interval), rrIntervals: [units(interval)]))
        }
        var recording = ActivityImport.recording(points, start: 0, device: device)
        recording.header.startedAt = startedAt
        return recording
    }

    /// When a table's beats were taken, where a column holds times (Polar Sensor Logger's
    /// `Phone timestamp`, HRV Logger's `date`): its first row's first field that is an ISO 8601
    /// time, as written (the phone's local time when it names no zone). Nil for numbers alone.
    /// Such a file renamed, or HRV Logger's, whose name holds no time, was "undated".
    public static func timeWritten(_ bytes: [UInt8]) -> String? {
        let lines = contentLines((UTF16Text.utf8(bytes) ?? bytes)[...])
        guard lines.count > 1, !split(lines[0].text).allSatisfy({ number($0) != nil }) else { return nil }
        return split(lines[1].text).lazy.map(joiningZone).first { ISO8601.microseconds($0) != nil }
    }

    /// HRV Logger's time, "2026-06-01 06:01:00 +0000", as ISO 8601 writes it: its zone after a
    /// space, which ISO 8601 has not, left its files undated ("neither the file nor its name
    /// says when it was measured") and filed them under the day they were read.
    static func joiningZone(_ field: String) -> String {
        let parts = field.split(separator: " ")
        guard parts.count == 3, let zone = parts.last, zone.count == 5 || zone.count == 6, let sign = zone.first, sign == "+" || sign == "-"
        else { return field }
        let digits = zone.dropFirst().filter { $0 != ":" }
        guard digits.count == 4, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return field }
        return "\(parts[0]) \(parts[1])\(sign)\(digits.prefix(2)):\(digits.suffix(2))"
    }

    /// A local date and time, as a file's name gives it.
    public struct NamedTime: Equatable, Sendable {
        public var year, month, day, hour, minute, second: Int

        public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        }

        /// "2026-11-25".
        public var date: String { "\(year)-\(Self.two(month))-\(Self.two(day))" }

        /// "2026-11-25 06:30:00".
        public var text: String { "\(date) \(Self.two(hour)):\(Self.two(minute)):\(Self.two(second))" }

        /// Whether the calendar has this date and the clock this time (a leap second too).
        public var exists: Bool { UTCTimestamp.dayNumber(ofDate: date) != nil && hour < 24 && minute < 60 && second < 61 }

        private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    }

    /// The local time an HRV app writes in the names of its files, since the text itself does
    /// not say when it was measured: Elite HRV's "2026-11-25 06-30-00.txt" (a date, a space or
    /// `_` or `T`, the time with `-`, `:` or `.`), Polar Sensor Logger's
    /// "Polar_H10_A1B2C3D4_20261125_063000_RR.txt". The last of the name's folders and file
    /// that holds one; nil when none does, or the date does not exist.
    public static func time(inName name: String) -> NamedTime? {
        timesWritten(inName: name).last { $0.exists }
    }

    /// The date and time a name is written with when no such moment exists ("2026-02-30
    /// 06-30-00.txt", a slip of the hand or of an app): said as such, where "no date in the
    /// name" sent the reader looking for one. Nil when the name holds a real one, or none.
    public static func impossibleTime(inName name: String) -> NamedTime? {
        let written = timesWritten(inName: name)
        return written.contains { $0.exists } ? nil : written.last
    }

    /// The date and time patterns of `time(inName:)` the name holds, in order, whether or not
    /// they exist.
    static func timesWritten(inName name: String) -> [NamedTime] {
        // Runs of digits and what separates them, in order.
        var runs: [(digits: String, after: Character?)] = []
        var digits = ""
        for character in name {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else {
                if !digits.isEmpty { runs.append((digits, character)) }
                digits = ""
            }
        }
        if !digits.isEmpty { runs.append((digits, nil)) }
        var found: [NamedTime] = []
        for start in runs.indices {
            func run(_ offset: Int) -> (digits: String, after: Character?)? {
                start + offset < runs.count ? runs[start + offset] : nil
            }
            var time: NamedTime?
            if let y = run(0), y.digits.count == 4, y.after == "-", let m = run(1), m.digits.count == 2, m.after == "-",
                let d = run(2), d.digits.count == 2, [" ", "_", "T"].contains(d.after),
                let h = run(3), h.digits.count == 2, let mi = run(4), mi.digits.count == 2, let s = run(5), s.digits.count == 2,
                let separator = h.after, ["-", ":", "."].contains(separator), mi.after == separator
            {
                time = NamedTime(year: Int(y.digits)!, month: Int(m.digits)!, day: Int(d.digits)!, hour: Int(h.digits)!, minute: Int(mi.digits)!, second: Int(s.digits)!)
            } else if let date = run(0), date.digits.count == 8, date.after == "_", let clock = run(1), clock.digits.count == 6 {
                func part(_ text: String, _ from: Int, _ count: Int) -> Int {
                    Int(text.dropFirst(from).prefix(count))!
                }
                time = NamedTime(
                    year: part(date.digits, 0, 4), month: part(date.digits, 4, 2), day: part(date.digits, 6, 2),
                    hour: part(clock.digits, 0, 2), minute: part(clock.digits, 2, 2), second: part(clock.digits, 4, 2))
            }
            if let time { found.append(time) }
        }
        return found
    }

    // MARK: - Reading the text

    private static func contentLines(_ bytes: ArraySlice<UInt8>) -> [(number: Int, text: Substring)] {
        let text = String(decoding: bytes.droppingUTF8ByteOrderMark, as: UTF8.self)
        // `\.isNewline`: "\r\n" is one Character, and a file saved on Windows has them.
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().compactMap {
            var line = $0.element.drop { $0 == " " || $0 == "\t" }
            // A note after the values ("1000 # deep breath"), as a line of its own is passed
            // over; a header's `#` ("Beat #;RR") is no note.
            if let hash = line.firstIndex(of: "#"), hash != line.startIndex, [" ", "\t"].contains(line[line.index(before: hash)]),
                split(line[..<hash]).allSatisfy({ number($0) != nil })
            {
                line = line[..<hash]
            }
            return line.isEmpty || line.first == "#" ? nil : ($0.offset + 1, line)
        }
    }

    /// A line's fields: split on semicolons or tabs when it has them (a comma may then be a
    /// decimal comma), else on commas when it has them, else on spaces; never inside a CSV
    /// writer's quotes, which a name with a space or a comma gets (`"RR-interval [ms]"`).
    static func split(_ line: Substring) -> [String] {
        let bytes = Array(line.utf8)
        let (quote, semicolon, tab, comma, space) = (UInt8(ascii: "\""), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: ","), UInt8(ascii: " "))
        // The separators outside quotes (a quote opens and closes a quoted run).
        var (semicolonsOrTabs, commas, quoted) = (false, false, false)
        for byte in bytes {
            if byte == quote {
                quoted.toggle()
            } else if !quoted {
                semicolonsOrTabs = semicolonsOrTabs || byte == semicolon || byte == tab
                commas = commas || byte == comma
            }
        }
        let separates: (UInt8) -> Bool =
            if semicolonsOrTabs { { $0 == semicolon || $0 == tab } } else if commas { { $0 == comma } } else { { $0 == space } }
        var fields = CSV.rows(bytes, separatedBy: separates).first ?? []
        // Runs of spaces are one separator.
        if separates(space) { fields.removeAll { $0.isEmpty } }
        // A quoted field after a space (`date, "rr"`) keeps its quotes through CSV's reading.
        var trimmed = fields.map { field in
            let text = field.trimmingWhitespace
            return text.count >= 2 && text.first == "\"" && text.last == "\"" ? String(text.dropFirst().dropLast()) : text
        }
        // A header or row ending in its separator (`HR [bpm];HRV [ms];`) has no last field.
        if trimmed.count > 1, trimmed.last == "" { trimmed.removeLast() }
        return trimmed
    }

    /// A number as a field holds it: "812", "812.5", "0.812", "0,812" with a decimal comma, or
    /// "8.12e-01" as numpy writes it. Not hexadecimal, which `Double` reads too ("0x3ed" was
    /// taken as 1005 ms).
    static func number(_ field: String) -> Double? {
        guard let first = field.first, first.isASCII, first.isNumber || first == "." else { return nil }
        guard field.allSatisfy({ $0.isASCII && ($0.isNumber || ".,eE+-".contains($0)) }) else { return nil }
        let value = Double(field) ?? (field.contains(".") ? nil : Double(String(field.map { $0 == "," ? "." : $0 })))
        return value.flatMap { $0.isFinite ? $0 : nil }
    }

    /// Whether a header's field names the intervals: its first word is one of `columnNames`
    /// ("RR-interval [ms]", "rr", "RRI", "IBI (ms)", "PP-interval [ms]").
    static func namesIntervals(_ field: String) -> Bool {
        let word = field.lowercased().prefix { $0.isLetter }
        return columnNames.contains(String(word))
    }
}
