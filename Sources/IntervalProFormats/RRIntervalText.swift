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
        guard let first = contentLines(bytes.prefix(4096)).first else { return false }
        let fields = split(first.text)
        return fields.allSatisfy { number($0) != nil } || fields.contains(where: namesIntervals)
    }

    /// The intervals in milliseconds, in the file's order.
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [Double] {
        var lines = contentLines(bytes[...])[...]
        guard let first = lines.first else { throw ImportError(file: file, message: "the file is empty: no RR intervals in it") }
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
        var intervals: [Double] = []
        for line in lines {
            let fields = split(line.text)
            let values = column.map { $0 < fields.count ? [fields[$0]] : [] } ?? fields
            for field in values where !field.isEmpty {
                guard let value = number(field), value > 0 else {
                    throw ImportError(file: file, place: "\(line.number)", message: "'\(field)' is not an RR interval (a number of milliseconds or seconds)")
                }
                intervals.append(value)
            }
        }
        guard !intervals.isEmpty else { throw ImportError(file: file, message: "no RR intervals in the file") }
        // Seconds (0.3 to 2 for a heart at rest) when most are below 10: no heart beats 10 ms apart.
        let median = intervals.sorted()[intervals.count / 2]
        if median < 10 { intervals = intervals.map { $0 * 1000 } }
        // What a Heart Rate Measurement carries: 1/1024 s in 16 bits.
        if let index = intervals.firstIndex(where: { $0 * 1.024 >= Double(UInt16.max) + 0.5 }) {
            throw ImportError(
                file: file,
                message: "interval \(index + 1) lasts \(JSONValue.format((intervals[index] / 1000).rounded())) s: not a heartbeat (a pause in the recording?)")
        }
        return intervals
    }

    /// The device an RR interval text is read as.
    public static let device = RecordedDevice(id: "rr-intervals", name: "RR interval text")

    /// The intervals (milliseconds) as the Heart Rate Measurements a strap would have sent: one
    /// at the beat that begins the first interval, without one (so that the recording lasts
    /// as long as its beats), then one a beat, at the time it ended, with the beat's rate and
    /// the interval in 1/1024 s. The text does not say when it was measured: no start time.
    public static func recording(_ intervals: [Double]) -> ParsedRecording {
        func rate(_ interval: Double) -> Int { max(1, ActivityImport.rounded(60_000 / interval)) }
        var time = 0.0
        var points = [ActivityPoint(time: 0, heartRate: intervals.first.map(rate))]
        points.reserveCapacity(intervals.count + 1)
        for interval in intervals {
            time += interval
            points.append(
                ActivityPoint(
                    time: ActivityImport.rounded(time * 1000), heartRate: rate(interval),
                    rrIntervals: [ActivityImport.rounded(interval * 1.024)]))
        }
        var recording = ActivityImport.recording(points, start: 0, device: device)
        recording.header.startedAt = nil
        return recording
    }

    // MARK: - Reading the text

    private static func contentLines(_ bytes: ArraySlice<UInt8>) -> [(number: Int, text: Substring)] {
        let text = String(decoding: bytes.droppingUTF8ByteOrderMark, as: UTF8.self)
        // `\.isNewline`: "\r\n" is one Character, and a file saved on Windows has them.
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().compactMap {
            let line = $0.element.drop { $0 == " " || $0 == "\t" }
            return line.isEmpty || line.first == "#" ? nil : ($0.offset + 1, line)
        }
    }

    /// A line's fields: split on semicolons or tabs when it has them (a comma may then be a
    /// decimal comma), else on commas when it has them, else on spaces.
    static func split(_ line: Substring) -> [String] {
        let fields: [Substring]
        if line.contains(";") || line.contains("\t") {
            fields = line.split(omittingEmptySubsequences: false) { $0 == ";" || $0 == "\t" }
        } else if line.contains(",") {
            fields = line.split(separator: ",", omittingEmptySubsequences: false)
        } else {
            fields = line.split(separator: " ")
        }
        var trimmed = fields.map { $0.trimmingWhitespace }
        // A header or row ending in its separator (`HR [bpm];HRV [ms];`) has no last field.
        if trimmed.count > 1, trimmed.last == "" { trimmed.removeLast() }
        return trimmed
    }

    /// A number as a field holds it: "812", "812.5", "0.812", or "0,812" with a decimal comma.
    static func number(_ field: String) -> Double? {
        guard let first = field.first, first.isNumber || first == "." else { return nil }
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
