import IntervalProCore

/// What a GPX or TCX point's elements say: its readings, left out where no watch records
/// them, and its time, which places it in the run.
extension ActivityImport {
    /// An element's number, in the range a watch could have recorded (0 up to `limit`).
    static func number(_ element: MarkupElement?, upTo limit: Double, file: String) throws(ImportError) -> Double? {
        // An empty element says no more than a missing one (a writer with no reading at that point).
        guard let element, !element.text.isEmpty else { return nil }
        guard let value = Double(element.text), value.isFinite, value >= 0 else {
            throw ImportError(file: file, place: "\(element.line)", message: "<\(element.name)> holds \"\(element.text)\", not a number")
        }
        guard value <= limit else { throw pastLimit(element, limit, file: file) }
        return value
    }

    static func pastLimit(_ element: MarkupElement, _ limit: Double, file: String) -> ImportError {
        ImportError(file: file, place: "\(element.line)", message: "<\(element.name)> \(element.text) is more than \(JSONValue.format(limit))")
    }

    /// Readings past what a watch records (`<hr>` 300, a speed of 131 m/s), or no number at
    /// all (`<hr>x140</hr>`, a character garbled): a sensor's glitch or a file's damage, left
    /// out of their points with one warning, as a FIT file's are, rather than refusing the
    /// whole run for one of them; refused with --strict, naming it.
    struct OutOfRange {
        let strict: Bool
        private var pastLimit = 0
        private var notNumbers = 0
        private var first: ImportError?

        init(strict: Bool) { self.strict = strict }

        /// `number(_:upTo:file:)`, nil for a reading past `limit` or no number (thrown with --strict).
        mutating func number(_ element: MarkupElement?, upTo limit: Double, file: String) throws(ImportError) -> Double? {
            let value: Double?
            do {
                value = try ActivityImport.number(element, upTo: .infinity, file: file)
            } catch {
                if strict { throw error }
                notNumbers += 1
                if first == nil { first = error }
                return nil
            }
            guard let value, value > limit, let element else { return value }
            let problem = ActivityImport.pastLimit(element, limit, file: file)
            if strict { throw problem }
            pastLimit += 1
            if first == nil { first = problem }
            return nil
        }

        /// The warning, when any was left out.
        var warning: ImportError? {
            guard let first else { return nil }
            func readings(_ count: Int) -> String { count == 1 ? "1 reading" : "\(count) readings" }
            var kinds: [String] = []
            if pastLimit > 0 { kinds.append("\(readings(pastLimit)) past what a watch records") }
            if notNumbers > 0 { kinds.append("\(readings(notNumbers)) that \(notNumbers == 1 ? "is" : "are") no number") }
            return ImportError(
                file: first.file, place: first.place,
                message: "\(first.message): \(kinds.joined(separator: " and ")) left out (`replay --strict` refuses the file)")
        }
    }

    /// What the track points' times say beyond each point's own: the points without one,
    /// which cannot be placed in the run, are left out with a warning, as FIT records without
    /// a timestamp are (a GPX writer may end a track on one), and refused, naming the first,
    /// when no point has a time; a time that names no zone is read as UTC, and said once.
    struct PointTimes {
        let tag: String
        private var untimedCount = 0
        private var firstUntimed: MarkupElement?
        private var firstWithoutZone: MarkupElement?
        /// Points whose time cannot be read (`17:38:2`, a digit lost): they cannot be placed
        /// either, and refused the whole run.
        private var unreadableCount = 0
        private var firstUnreadable: (point: MarkupElement, time: MarkupElement)?

        init(tag: String) { self.tag = tag }

        /// The point's time, in microseconds since the epoch; nil, counted for `warnings`, when
        /// it has none or one that cannot be read.
        mutating func time(of element: MarkupElement) -> Int64? {
            if let time = element.child(tag) {
                guard let microseconds = ISO8601.microseconds(time.text) else {
                    unreadableCount += 1
                    if firstUnreadable == nil { firstUnreadable = (element, time) }
                    return nil
                }
                if firstWithoutZone == nil, ISO8601.namesNoZone(time.text) { firstWithoutZone = time }
                return microseconds
            }
            untimedCount += 1
            if firstUntimed == nil { firstUntimed = element }
            return nil
        }

        /// The warnings, with `format`'s word on a time without a zone; throws when no point has a time.
        func warnings(readAny: Bool, file: String, format: ActivityFormat) throws(ImportError) -> [ImportError] {
            var warnings: [ImportError] = []
            if let first = firstUntimed {
                let refusal = ImportError(file: file, place: "\(first.line)", message: "a <\(first.name)> without a <\(tag)>")
                guard readAny else { throw refusal }
                let points = untimedCount == 1 ? "1 <\(first.name)>" : "\(untimedCount) <\(first.name)>s"
                warnings.append(ImportError(file: file, place: "\(first.line)", message: "\(points) without a <\(tag)> left out (the first here)"))
            }
            if let (point, time) = firstUnreadable {
                let refusal = ImportError(file: file, place: "\(time.line)", message: "<\(time.name)> \"\(time.text)\" is not an ISO 8601 time")
                guard readAny else { throw refusal }
                let points = unreadableCount == 1 ? "1 <\(point.name)>" : "\(unreadableCount) <\(point.name)>s"
                warnings.append(
                    ImportError(
                        file: file, place: "\(time.line)",
                        message: "\(refusal.message): \(points) whose <\(tag)> cannot be read left out (the first here)"))
            }
            if let time = firstWithoutZone {
                // GPX 1.1's schema: "Date and time in are in Univeral Coordinated Time (UTC), not
                // local time!". A recording's `started_at` without a zone is read as local time
                // instead: it is what Python's isoformat() writes of the local clock.
                let why = format == .gpx ? ", as GPX's times are" : ""
                warnings.append(
                    ImportError(
                        file: file, place: "\(time.line)",
                        message: "<\(tag)> \"\(time.text)\" names no time zone: read as UTC\(why); "
                            + "were it the watch's local time, the run is filed hours off"))
            }
            return warnings
        }
    }
}
