import IntervalProCore

/// The runner's own baseline and today's verdict, from their stored measurements only
/// (different straps and positions give different rMSSD, so no population norm is used).
///
/// The method HRV4Training publishes (Altini, "The importance of normal values", 2022) and the
/// HRV-guided training studies use (Plews et al. 2013, IJSPP 8(6):688; Vesterinen et al. 2016,
/// MSSE 48(7):1347; Javaloyes et al. 2019, IJSPP 14(1):23):
/// - the daily value is ln rMSSD, the last measurement of the day's morning: the method is a
///   measurement just after waking, so one taken later the same day (an evening's, after a
///   run) does not replace it; a day measured only later (a night shift's waking) takes its last;
/// - the **baseline** is the mean of the daily values of the last 7 days;
/// - the **normal range** is the mean of the daily values of the last 60 days ± 0.5 × their
///   standard deviation (the smallest worthwhile change);
/// - the baseline below the range calls for an easier day, above it is reported as such;
/// - a week with fewer than 3 measurements gives no verdict (Plews et al. 2014, IJSPP 9(5):783:
///   at least 3 valid days a week);
/// - until 7 days are measured the baseline is still being built.
///
/// A one-day drop: today's value more than one standard deviation (twice the smallest
/// worthwhile change) below the 60-day mean. The threshold is Kiviniemi et al.'s daily rule
/// (2007, Eur J Appl Physiol 101(6):743: a morning below the reference mean − SD prescribed low
/// intensity or rest), whose reference was 10 days of high-frequency power; IntervalPro takes
/// ln rMSSD over the 60 days its normal range is made of.
public enum ReadinessBaseline {
    public static let baselineDays = 7
    public static let normalRangeDays = 60
    public static let daysToBuild = 7
    public static let weeklyMinimum = 3
    /// The half-width of the normal range, in standard deviations.
    public static let rangeWidth = 0.5
    /// How far below the 60-day mean today's value must fall to count as a drop, in standard deviations.
    public static let dropDepth = 1.0

    /// One stored measurement: its local date ("2026-11-25"), ln rMSSD, and whether it was
    /// taken in the morning (local time, before `morningEndsAtHour`).
    public struct Measurement: Equatable, Sendable {
        public var date: String
        public var lnRMSSD: Double
        public var morning: Bool
        /// Whether its time of day is known: one that is not (RR text replayed) counts as a
        /// morning's, after those known to be.
        public var timeKnown: Bool

        public init(date: String, lnRMSSD: Double, morning: Bool = true, timeKnown: Bool = true) {
            self.date = date
            self.lnRMSSD = lnRMSSD
            self.morning = morning
            self.timeKnown = timeKnown
        }
    }

    /// A measurement from this local hour on is not a morning's.
    public static let morningEndsAtHour = 12

    /// Which of one day's measurements (in the order taken) is the day's value: the last taken
    /// in the morning (one whose time is known before one whose time is not), or without one
    /// the last.
    public static func dayValue<Element>(
        of measurements: some BidirectionalCollection<Element>, morning: (Element) -> Bool,
        timeKnown: (Element) -> Bool = { _ in true }
    ) -> Element? {
        // RR text replayed in the evening, its time unknown, took the place of the day's 06:45.
        measurements.last { morning($0) && timeKnown($0) } ?? measurements.last(where: morning) ?? measurements.last
    }

    /// `measurements` in the order they were taken; `today` a local date.
    public static func assess(_ measurements: [Measurement], today: String) -> ReadinessAssessment {
        guard let todayNumber = UTCTimestamp.dayNumber(ofDate: today) else {
            return ReadinessAssessment(verdict: .building, daysMeasured: 0, daysThisWeek: 0)
        }
        var byDay: [Int64: [Measurement]] = [:]
        // A measurement without an ln rMSSD (rMSSD 0, saved before such were refused) is no
        // day's value: taken in, its -inf left no baseline, no normal range, and "within".
        for measurement in measurements where measurement.lnRMSSD.isFinite {
            guard let day = UTCTimestamp.dayNumber(ofDate: measurement.date), day <= todayNumber, day > todayNumber - Int64(normalRangeDays)
            else { continue }
            byDay[day, default: []].append(measurement)
        }
        let daily = byDay.compactMapValues { dayValue(of: $0, morning: \.morning, timeKnown: \.timeKnown)?.lnRMSSD }
        // In day order, so that the same measurements always give the same sums to the last bit.
        let days = daily.sorted { $0.key < $1.key }
        let week = days.filter { $0.key > todayNumber - Int64(baselineDays) }.map(\.value)
        var assessment = ReadinessAssessment(
            verdict: .building, daysMeasured: daily.count, daysThisWeek: week.count, today: daily[todayNumber])
        guard daily.count >= daysToBuild else { return assessment }
        let values = days.map(\.value)
        let mean = values.reduce(0, +) / Double(values.count)
        let sd = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
        assessment.normalMean = mean
        assessment.normalLow = mean - rangeWidth * sd
        assessment.normalHigh = mean + rangeWidth * sd
        if let value = assessment.today { assessment.dropToday = value < mean - dropDepth * sd - rounding }
        guard week.count >= weeklyMinimum else {
            assessment.verdict = .fewThisWeek
            return assessment
        }
        let baseline = week.reduce(0, +) / Double(week.count)
        assessment.baseline = baseline
        assessment.verdict =
            baseline < mean - rangeWidth * sd - rounding ? .below : baseline > mean + rangeWidth * sd + rounding ? .above : .within
        return assessment
    }

    /// Differences of ln rMSSD this small are the sums' rounding, not the runner: mornings all
    /// alike (a range of no width) read "below" one day and "above" the next, 1e-16 apart,
    /// and advised rest.
    static let rounding = 1e-9

    /// The first local date the assessment of `today` reads: 59 days before it.
    public static func windowStart(today: String) -> String? {
        guard let day = UTCTimestamp.dayNumber(ofDate: today) else { return nil }
        return String(UTCTimestamp.text(unixSeconds: (day - Int64(normalRangeDays - 1)) * 86_400).prefix(10))
    }
}

/// Where the runner stands today.
public struct ReadinessAssessment: Equatable, Sendable {
    public enum Verdict: String, Sendable {
        /// Fewer than 7 days measured.
        case building
        /// Fewer than 3 measurements in the last 7 days.
        case fewThisWeek = "few_this_week"
        case within
        case below
        case above
    }

    public var verdict: Verdict
    /// Days with a measurement in the last 60.
    public var daysMeasured: Int
    /// Days with a measurement in the last 7.
    public var daysThisWeek: Int
    /// Today's ln rMSSD, when measured today.
    public var today: Double?
    /// The 7-day mean of ln rMSSD.
    public var baseline: Double?
    public var normalMean: Double?
    public var normalLow: Double?
    public var normalHigh: Double?
    /// Today's value fell well below the 60-day mean.
    public var dropToday = false

    public init(verdict: Verdict, daysMeasured: Int, daysThisWeek: Int, today: Double? = nil) {
        self.verdict = verdict
        self.daysMeasured = daysMeasured
        self.daysThisWeek = daysThisWeek
        self.today = today
    }

    /// Whether today's hard session should be eased.
    public var suggestsEasing: Bool { verdict == .below || dropToday }

    /// One line on the verdict.
    public var summary: String {
        switch verdict {
        case .building:
            "building your baseline (\(daysMeasured) of \(ReadinessBaseline.daysToBuild) days)"
        case .fewThisWeek:
            "too few measurements this week for a verdict (\(daysThisWeek) of \(ReadinessBaseline.weeklyMinimum) in the last 7 days)"
        case .within: "within your normal range"
        case .below: "below your normal range"
        case .above: "above your normal range"
        }
    }

    /// What the HRV-guided training studies prescribed below the normal range (Kiviniemi et al.
    /// 2007; Vesterinen et al. 2016; Javaloyes et al. 2019): low intensity or rest, in place of
    /// the planned hard session.
    static let easyDay = "keep today's running easy, no hard intervals, or rest"

    /// What to make of it for today's run.
    public var advice: String {
        if dropToday && verdict != .below {
            return "today's value dropped well below your usual: \(Self.easyDay)"
        }
        switch verdict {
        case .building:
            return "no advice yet: measure each morning, and run by feel meanwhile"
        case .fewThisWeek:
            // What gives a verdict again: three mornings of the last seven (readiness.md's table).
            return "no advice without a verdict: measure at least \(ReadinessBaseline.weeklyMinimum) mornings a week, and run by feel meanwhile"
        case .within:
            return "run today's session as planned"
        case .below:
            return Self.easyDay
        case .above:
            return "usually a sign of good recovery; if you feel run down or unwell, keep today easy"
        }
    }
}

/// Day by day over a span: each day's value, its 7-day baseline and the normal range as
/// `ReadinessBaseline.assess` judges them on that day, for the charts of `trends` and the report.
public struct ReadinessTrend: Equatable, Sendable {
    public struct Day: Equatable, Sendable {
        public var date: String
        /// The day's ln rMSSD (`ReadinessBaseline.dayValue`), when measured.
        public var value: Double?
        public var baseline: Double?
        public var normalLow: Double?
        public var normalHigh: Double?
    }

    public var days: [Day]

    /// The `count` days ending with `last` (a local date), from `measurements` in the order taken.
    public init(_ measurements: [ReadinessBaseline.Measurement], days count: Int, endingOn last: String) {
        guard let lastDay = UTCTimestamp.dayNumber(ofDate: last), count > 0 else {
            days = []
            return
        }
        // Each day is judged on its own 60 days' measurements, found by walking a window along
        // them in day order (same-day ones in the order taken): every day read them all, and a
        // ten-year store's 520 weeks took 10 s.
        let dated = measurements.enumerated()
            .compactMap { entry in UTCTimestamp.dayNumber(ofDate: entry.element.date).map { (day: $0, order: entry.offset) } }
            .sorted { ($0.day, $0.order) < ($1.day, $1.order) }
        var (lower, upper) = (0, 0)
        days = (0..<Int64(count)).reversed().map { back in
            let dayNumber = lastDay - back
            while upper < dated.count, dated[upper].day <= dayNumber { upper += 1 }
            while lower < upper, dated[lower].day <= dayNumber - Int64(ReadinessBaseline.normalRangeDays) { lower += 1 }
            let date = String(UTCTimestamp.text(unixSeconds: dayNumber * 86_400).prefix(10))
            let assessment = ReadinessBaseline.assess(dated[lower..<upper].map { measurements[$0.order] }, today: date)
            return Day(
                date: date, value: assessment.today, baseline: assessment.baseline, normalLow: assessment.normalLow,
                normalHigh: assessment.normalHigh)
        }
    }

    public var isEmpty: Bool { days.allSatisfy { $0.value == nil } }

    /// The terminal chart: a column per day, the normal range shaded (░), the 7-day baseline
    /// (─) and the day's value (●), ln rMSSD on the axis.
    public func chart(height: Int = 8) -> [String] {
        let values = days.flatMap { [$0.value, $0.baseline, $0.normalLow, $0.normalHigh].compactMap { $0 } }
        guard let lowest = values.min(), let highest = values.max() else { return ["No readiness measurements."] }
        let low = ((lowest - 0.05) * 10).rounded(.down) / 10
        let high = max(low + 0.4, ((highest + 0.05) * 10).rounded(.up) / 10)
        func row(_ value: Double) -> Int { min(height, max(1, Int(((value - low) / (high - low) * Double(height - 1)).rounded()) + 1)) }
        func label(_ value: Double) -> String {
            let hundredths = Int((value * 100).rounded())
            return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
        }
        var lines: [String] = []
        for level in stride(from: height, through: 1, by: -1) {
            let axis = level == height ? label(high) : level == 1 ? label(low) : "    "
            let cells = days.map { day -> String in
                if let value = day.value, row(value) == level { return "●" }
                if let baseline = day.baseline, row(baseline) == level { return "─" }
                if let lowBand = day.normalLow, let highBand = day.normalHigh, row(lowBand) <= level, level <= row(highBand) {
                    return "░"
                }
                return " "
            }
            lines.append("\(axis) │" + cells.joined())
        }
        lines.append("     └" + String(repeating: "─", count: days.count))
        if let first = days.first?.date, let last = days.last?.date {
            let gap = max(1, days.count - 10)
            lines.append("      " + first.dropFirst(5) + String(repeating: " ", count: gap) + last.dropFirst(5))
        }
        return lines
    }
}
