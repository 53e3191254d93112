public import IntervalProCore

/// In-zone % and average work cadence per session over the last weeks: "is my work
/// cadence rising?"
public struct Trends: Sendable {
    public struct Point: Equatable, Sendable {
        public var id: Int64
        public var startedAt: String
        public var planName: String
        public var inZonePercent: Double?
        public var averageWorkCadence: Double?
    }

    /// Sessions of one week (Monday to Sunday, in the runner's local time).
    public struct Week: Equatable, Sendable {
        /// The week's Monday, "2026-03-02".
        public var monday: String
        public var sessions: Int
        public var inZonePercent: Double?
        public var averageWorkCadence: Double?
    }

    public var weeks: Int
    public var since: String
    public var points: [Point]
    public var weekly: [Week]
    /// Least-squares slope of the work cadence, spm per week (nil under two sessions).
    public var workCadencePerWeek: Double?
    /// Simulated sessions of those weeks, left out: a made-up runner's cadence is no trend of
    /// the runner's (the README's tour saves one, and it counted in the weekly means). Replays
    /// of the simulator's recordings (the bundled ones) count here too.
    public var simulatedLeftOut: Int
    /// The local midnight (as seconds since 1970 read as UTC) of each point's Monday.
    private var mondays: [Int64] = []
    /// Each point's start on the runner's clock, as UTC text: the chart's dates are the weeks'.
    private var localStarts: [String] = []

    /// The trend of `listings` (any order) over the `weeks` weeks before `now` (seconds
    /// since 1970). Sessions still running and simulated ones are left out, and so are those dated more than a day
    /// after `now`: a watch's clock set wrong once put a run in 2028, and the chart of the last
    /// 52 weeks ran to it, every week of this year off its end. `utcOffset` gives the runner's clock
    /// at a moment (seconds east of UTC): a week is the runner's, Monday to Sunday where they
    /// live (counted in UTC, a New York runner's Sunday evening runs fell in the next week).
    public init(
        listings: [SessionListing], weeks: Int, now: Int64, utcOffset: (Int64) -> Int64 = { _ in 0 }
    ) {
        self.weeks = weeks
        let start = now - Int64(weeks) * 7 * 86_400
        since = UTCTimestamp.text(unixSeconds: start)
        let ended = listings.filter {
            $0.status != .running && (start...now + 86_400).contains(UTCTimestamp.unixSeconds($0.startedAt) ?? 0)
        }
        // A replay of the simulator's recording is left out as a simulated session is.
        let kept = ended.filter { !$0.isSimulated }
            .sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
        simulatedLeftOut = ended.count - kept.count
        points = kept.map {
            Point(
                id: $0.id, startedAt: $0.startedAt, planName: $0.planName, inZonePercent: $0.inZonePercent,
                averageWorkCadence: $0.averageWorkCadence)
        }
        let localSeconds = points.map { point in
            let seconds = UTCTimestamp.unixSeconds(point.startedAt) ?? 0
            return seconds + utcOffset(seconds)
        }
        mondays = localSeconds.map(Self.monday(of:))
        localStarts = localSeconds.map { UTCTimestamp.text(unixSeconds: $0) }
        var weekly: [Week] = []
        var grouped: [(Int64, [Point])] = []
        for (point, monday) in zip(points, mondays) {
            if let index = grouped.firstIndex(where: { $0.0 == monday }) {
                // In time order a later point is in the same or a later week, unless a clock
                // change moved it back: it joins its week wherever that is.
                grouped[index].1.append(point)
            } else {
                grouped.append((monday, [point]))
            }
        }
        grouped.sort { $0.0 < $1.0 }
        for (monday, group) in grouped {
            weekly.append(
                Week(
                    monday: String(UTCTimestamp.text(unixSeconds: monday).prefix(10)), sessions: group.count,
                    inZonePercent: Self.mean(group.compactMap(\.inZonePercent)),
                    averageWorkCadence: Self.mean(group.compactMap(\.averageWorkCadence))))
        }
        self.weekly = weekly
        let cadencePoints = points.compactMap { point in
            point.averageWorkCadence.map { (Double(UTCTimestamp.unixSeconds(point.startedAt) ?? 0) / (7 * 86_400), $0) }
        }
        workCadencePerWeek = Self.slope(cadencePoints)
    }

    /// Midnight UTC of the Monday of the week holding `seconds` (1970-01-01 was a Thursday).
    static func monday(of seconds: Int64) -> Int64 {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let weekday = ((day + 3) % 7 + 7) % 7  // 0 = Monday
        return (day - weekday) * 86_400
    }

    static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        // Sessions less than a week apart say nothing about a trend per week.
        guard points.count >= 2, let first = points.map(\.x).min(), let last = points.map(\.x).max(), last - first >= 1
        else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n
        let meanY = points.reduce(0) { $0 + $1.y } / n
        let sxx = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        guard sxx > 0 else { return nil }
        return points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) } / sxx
    }

    public var json: JSONValue {
        func rounded(_ value: Double?, _ places: Int) -> JSONValue { .nullable(value?.rounded(toPlaces: places)) }
        return .object([
            ("weeks", .int(weeks)),
            ("since", .string(since)),
            ("work_cadence_trend_spm_per_week", rounded(workCadencePerWeek, 2)),
            ("simulated_left_out", .int(simulatedLeftOut)),
            (
                "sessions",
                .array(
                    points.map { p in
                        .object([
                            ("session_id", .int(Int(p.id))), ("started_at", .string(p.startedAt)),
                            ("plan", .string(p.planName)), ("in_zone_pct", rounded(p.inZonePercent, 2)),
                            ("avg_work_cadence_spm", rounded(p.averageWorkCadence, 1)),
                        ])
                    })
            ),
            (
                "by_week",
                .array(
                    weekly.map { w in
                        .object([
                            ("week_of", .string(w.monday)), ("sessions", .int(w.sessions)),
                            ("in_zone_pct", rounded(w.inZonePercent, 2)),
                            ("avg_work_cadence_spm", rounded(w.averageWorkCadence, 1)),
                        ])
                    })
            ),
        ])
    }

    /// The terminal chart: in-zone % as bars and work cadence as points, one column per
    /// session, oldest on the left; when there are more sessions than `width` columns (a year
    /// of runs), one column per week (its sessions' means), an empty one for a week without.
    public func chart(width: Int = 60, height: Int = 8) -> [String] {
        // Interrupted sessions are charted too: "no finished sessions" was said of them.
        guard !points.isEmpty else {
            // "No sessions ended", then "2 simulated sessions left out": they had.
            let sessions = simulatedLeftOut > 0 ? "No sessions but simulated ones" : "No sessions"
            return (["\(sessions) ended in the last \(weeks) weeks."] + simulatedNotice).map(\.printable)
        }
        let columns = max(1, width)
        let perWeek = points.count > columns
        // The weeks from the first session's to the last's, when shown a column each.
        var spanned = 0
        let shown: [(date: String, inZone: Double?, cadence: Double?)]
        if perWeek {
            var byMonday: [String: Week] = [:]
            for week in weekly { byMonday[week.monday] = week }
            let last = mondays.max() ?? 0
            let first = mondays.min() ?? 0
            spanned = Int((last - first) / (7 * 86_400)) + 1
            let count = min(columns, spanned)
            shown = (0..<count).reversed().map { back in
                let monday = String(UTCTimestamp.text(unixSeconds: last - Int64(back) * 7 * 86_400).prefix(10))
                return (monday, byMonday[monday]?.inZonePercent, byMonday[monday]?.averageWorkCadence)
            }
        } else {
            shown = zip(points, localStarts).map { ($1, $0.inZonePercent, $0.averageWorkCadence) }
        }
        let unit = perWeek ? "week (mean of its sessions)" : "session"
        var lines: [String] = []
        if shown.contains(where: { $0.inZone != nil }) {
            lines.append("In zone % per \(unit)")
            lines += TextChart.columns(
                shown.map(\.inZone), low: 0, high: 100, height: height, style: .bars, label: { "\(Int($0))" })
            lines.append(TextChart.axis(shown.map(\.date), indent: 5))
        } else {
            lines.append("In zone %: no session with a cadence zone (imported runs have none)")
        }
        lines.append("")
        let cadences = shown.compactMap(\.cadence)
        lines.append("Average work cadence per \(unit) (spm)")
        if let low = cadences.min(), let high = cadences.max() {
            let floor = (low - 2).rounded(.down)
            let ceiling = max(floor + 4, (high + 2).rounded(.up))
            lines += TextChart.columns(
                shown.map(\.cadence), low: floor, high: ceiling, height: height, style: .points,
                label: { "\(Int($0.rounded()))" })
            lines.append(TextChart.axis(shown.map(\.date), indent: 5))
        } else {
            lines.append("  no work steps with cadence yet")
        }
        if spanned > shown.count {
            // The older weeks were left out without a word, the trend below still theirs.
            lines.append("")
            lines.append("The last \(shown.count) of \(spanned) weeks: a wider terminal (or COLUMNS) shows more, and `--json` lists them all.")
        }
        if let slope = workCadencePerWeek {
            let sign = slope >= 0 ? "+" : ""
            lines.append("")
            lines.append("Work cadence trend: \(sign)\(JSONValue.format(slope.rounded(toPlaces: 1))) spm per week")
        }
        if !simulatedNotice.isEmpty { lines += [""] + simulatedNotice }
        return lines.map(\.printable)
    }

    private var simulatedNotice: [String] {
        guard simulatedLeftOut > 0 else { return [] }
        let sessions = simulatedLeftOut == 1 ? "1 simulated session" : "\(simulatedLeftOut) simulated sessions"
        return ["\(sessions) left out: a simulated runner's cadence is not yours."]
    }
}

/// Column charts drawn with text, for the terminal.
public enum TextChart {
    public enum Style: Sendable { case bars, points }

    /// `height` rows, one column per value (nil: an empty column), with a y-axis labelled
    /// at the top and bottom.
    public static func columns(
        _ values: [Double?], low: Double, high: Double, height: Int, style: Style, label: (Double) -> String
    ) -> [String] {
        let span = max(high - low, 1e-9)
        let levels: [Int?] = values.map { value in
            value.map { min(height, max(0, Int((($0 - low) / span * Double(height)).rounded()))) }
        }
        let labelWidth = max(label(high).count, label(low).count)
        func pad(_ text: String) -> String { String(repeating: " ", count: labelWidth - text.count) + text }
        var lines: [String] = []
        for row in stride(from: height, through: 1, by: -1) {
            let axis = row == height ? pad(label(high)) : String(repeating: " ", count: labelWidth)
            let cells = levels.map { level -> String in
                guard let level else { return " " }
                switch style {
                case .bars: return level >= row ? "█" : " "
                case .points: return level == row || (row == 1 && level == 0) ? "●" : " "
                }
            }
            lines.append("\(axis) │" + cells.joined())
        }
        lines.append(pad(label(low)) + " └" + String(repeating: "─", count: values.count))
        return lines.map(\.printable)
    }

    /// Dates ("03-01") under the first and last columns; `indent` is the y-axis width.
    public static func axis(_ dates: [String], indent: Int) -> String {
        guard let first = dates.first, let last = dates.last else { return "" }
        // Month and day; with the year where the dates are of different years ("07-14" to
        // "01-29" read as half a year, not a year and a half).
        let years = first.prefix(4) != last.prefix(4)
        func short(_ iso: String) -> String { years ? String(iso.prefix(10)) : String(iso.dropFirst(5).prefix(5)) }
        let margin = String(repeating: " ", count: indent)
        guard dates.count > 1 else { return margin + short(first) }
        // The last date ends under the last column when there is room for both.
        let gap = dates.count - 2 * short(first).count
        return margin + short(first) + (gap >= 1 ? String(repeating: " ", count: gap) : " … ") + short(last)
    }
}
