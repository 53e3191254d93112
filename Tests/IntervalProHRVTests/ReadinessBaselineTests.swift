import IntervalProCore
import Testing
@testable import IntervalProHRV

@Suite("Readiness baseline and verdict")
struct ReadinessBaselineTests {
    /// "2026-11-01" plus `offset` days (November then December).
    static func date(_ offset: Int) -> String {
        let day = offset + 1
        return day <= 30 ? "2026-11-\(day < 10 ? "0" : "")\(day)" : "2026-12-\(day - 30 < 10 ? "0" : "")\(day - 30)"
    }

    static func month(_ values: [Double]) -> [ReadinessBaseline.Measurement] {
        values.enumerated().map { ReadinessBaseline.Measurement(date: date($0.offset), lnRMSSD: $0.element) }
    }

    @Test func buildsUntilSevenDays() {
        let six = Self.month([4.0, 4.1, 4.2, 4.0, 4.1, 4.2])
        let assessment = ReadinessBaseline.assess(six, today: Self.date(5))
        #expect(assessment.verdict == .building)
        #expect(assessment.summary == "building your baseline (6 of 7 days)")
        #expect(assessment.baseline == nil)
        #expect(ReadinessBaseline.assess(Self.month([4.0, 4.1, 4.2, 4.0, 4.1, 4.2, 4.1]), today: Self.date(6)).verdict == .within)
    }

    /// The same morning every day (one file filed under many days): a range of no width, and
    /// the means' rounding read "below" one day (rest advised) and "above" another.
    @Test func morningsAllAlikeAreWithinEveryDay() {
        let value = 3.673_286_515_297_601
        let measurements = Self.month(Array(repeating: value, count: 60))
        for today in 6..<60 {
            let assessment = ReadinessBaseline.assess(measurements, today: Self.date(today))
            #expect(assessment.verdict == .within, "day \(today): \(assessment.verdict)")
            #expect(!assessment.dropToday, "day \(today)")
        }
    }

    @Test func aMonthWorkedOutByHand() throws {
        // 30 days alternating 4.0 and 4.2 (mean 4.1, sample SD 0.10169), the last week at 3.9.
        var values = (0..<23).map { $0 % 2 == 0 ? 4.0 : 4.2 }
        values += Array(repeating: 3.9, count: 7)
        let assessment = ReadinessBaseline.assess(Self.month(values), today: Self.date(29))
        let mean = values.reduce(0, +) / 30
        let sd = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / 29).squareRoot()
        #expect(assessment.verdict == .below)
        #expect(abs(try #require(assessment.baseline) - 3.9) < 1e-12)
        #expect(abs(try #require(assessment.normalLow) - (mean - 0.5 * sd)) < 1e-12)
        #expect(abs(try #require(assessment.normalHigh) - (mean + 0.5 * sd)) < 1e-12)
        #expect(assessment.daysMeasured == 30)
        #expect(assessment.daysThisWeek == 7)
        #expect(assessment.suggestsEasing)
        #expect(assessment.advice == "keep today's running easy, no hard intervals, or rest")
    }

    /// A morning of rMSSD 0 saved before such were refused holds ln rMSSD -inf: taken in, it
    /// left no baseline and no normal range, and the verdict "within".
    @Test func aMeasurementWithoutAnLnRMSSDIsNoDaysValue() {
        var values = (0..<23).map { $0 % 2 == 0 ? 4.0 : 4.2 }
        values += Array(repeating: 3.9, count: 7)
        let month = Self.month(values)
        let expected = ReadinessBaseline.assess(month, today: Self.date(29))
        #expect(expected.verdict == .below)
        // On a day of its own, and after a day's morning.
        let ownDay = month.enumerated().map { $0.offset == 26 ? .init(date: $0.element.date, lnRMSSD: -.infinity) : $0.element }
        let withoutDay26 = ReadinessBaseline.assess(month.enumerated().filter { $0.offset != 26 }.map(\.element), today: Self.date(29))
        #expect(ReadinessBaseline.assess(ownDay, today: Self.date(29)) == withoutDay26)
        #expect(withoutDay26.verdict == .below && abs((withoutDay26.baseline ?? 0) - 3.9) < 1e-12)
        let afterMorning = month + [.init(date: Self.date(29), lnRMSSD: -.infinity)]
        #expect(ReadinessBaseline.assess(afterMorning, today: Self.date(29)) == expected)
        // The charts of `trends` and the report read the days as judged (their scale took the -inf).
        let trend = ReadinessTrend(ownDay, days: 30, endingOn: Self.date(29))
        #expect(trend == ReadinessTrend(month.enumerated().filter { $0.offset != 26 }.map(\.element), days: 30, endingOn: Self.date(29)))
        #expect(trend.chart().count > 8)
    }

    @Test func theLastMeasurementOfADayCounts() {
        var measurements = Self.month(Array(repeating: 4.1, count: 10))
        measurements.append(.init(date: Self.date(9), lnRMSSD: 4.5))
        let assessment = ReadinessBaseline.assess(measurements, today: Self.date(9))
        #expect(assessment.today == 4.5)
        #expect(assessment.daysMeasured == 10)
    }

    @Test("a later measurement of the day does not replace its morning's; a day measured only later takes its last")
    func theMorningIsTheDaysValue() {
        var measurements = Self.month(Array(repeating: 4.2, count: 10))
        // An evening's reading after a run, low: the morning stays the day's value.
        measurements.append(ReadinessBaseline.Measurement(date: Self.date(9), lnRMSSD: 3.2, morning: false))
        var assessment = ReadinessBaseline.assess(measurements, today: Self.date(9))
        #expect(assessment.today == 4.2)
        #expect(assessment.verdict == .within && !assessment.dropToday)
        // A second morning measurement replaces the first (a runner who moved during it).
        measurements.append(ReadinessBaseline.Measurement(date: Self.date(9), lnRMSSD: 4.1, morning: true))
        #expect(ReadinessBaseline.assess(measurements, today: Self.date(9)).today == 4.1)
        // A day measured only in the afternoon (a night shift's waking) counts with its last.
        measurements.append(ReadinessBaseline.Measurement(date: Self.date(10), lnRMSSD: 4.0, morning: false))
        measurements.append(ReadinessBaseline.Measurement(date: Self.date(10), lnRMSSD: 4.3, morning: false))
        assessment = ReadinessBaseline.assess(measurements, today: Self.date(10))
        #expect(assessment.today == 4.3 && assessment.daysMeasured == 11)
        #expect(ReadinessBaseline.dayValue(of: [1, 2, 3], morning: { $0 == 2 }) == 2)
        #expect(ReadinessBaseline.dayValue(of: [1, 2, 3], morning: { _ in false }) == 3)
    }

    @Test func aboveAndWithin() {
        let steady = (0..<20).map { $0 % 2 == 0 ? 4.0 : 4.2 }
        #expect(ReadinessBaseline.assess(Self.month(steady), today: Self.date(19)).verdict == .within)
        let rising = steady + Array(repeating: 4.4, count: 7)
        #expect(ReadinessBaseline.assess(Self.month(rising), today: Self.date(26)).verdict == .above)
    }

    @Test func fewerThanThreeThisWeekGivesNoVerdict() {
        // Ten days measured, then a gap: only two of the last seven days.
        var measurements = Self.month(Array(repeating: 4.1, count: 10))
        measurements.append(.init(date: Self.date(14), lnRMSSD: 4.0))
        measurements.append(.init(date: Self.date(16), lnRMSSD: 4.2))
        let assessment = ReadinessBaseline.assess(measurements, today: Self.date(16))
        #expect(assessment.verdict == .fewThisWeek)
        #expect(assessment.daysThisWeek == 2)
        // What gives a verdict again, as readiness.md's table says (it said "measure each morning").
        #expect(assessment.advice.contains("measure at least 3 mornings a week"), "\(assessment.advice)")
    }

    @Test func aOneDayDropIsFlaggedWhileTheWeekIsStillWithin() {
        let values = (0..<29).map { $0 % 2 == 0 ? 4.0 : 4.2 } + [3.7]
        let assessment = ReadinessBaseline.assess(Self.month(values), today: Self.date(29))
        #expect(assessment.dropToday)
        #expect(assessment.verdict == .within)
        #expect(assessment.suggestsEasing)
        #expect(assessment.advice.contains("dropped"))
    }

    @Test func measurementsOlderThanSixtyDaysAndFutureOnesAreLeftOut() throws {
        let old = ReadinessBaseline.Measurement(date: "2026-08-01", lnRMSSD: 9)
        let future = ReadinessBaseline.Measurement(date: "2027-01-01", lnRMSSD: 9)
        let assessment = ReadinessBaseline.assess([old, future] + Self.month(Array(repeating: 4.1, count: 8)), today: Self.date(7))
        #expect(assessment.daysMeasured == 8)
        #expect(abs(try #require(assessment.normalMean) - 4.1) < 1e-12)
    }

    @Test func theTrendJudgesEachDayAsThatDaysAssessment() throws {
        var values = (0..<23).map { $0 % 2 == 0 ? 4.0 : 4.2 }
        values += Array(repeating: 3.9, count: 7)
        let measurements = Self.month(values).filter { $0.date != Self.date(12) }
        let trend = ReadinessTrend(measurements, days: 20, endingOn: Self.date(29))
        #expect(trend.days.count == 20)
        #expect(trend.days.first?.date == Self.date(10))
        #expect(trend.days.last?.date == Self.date(29))
        #expect(trend.days.first { $0.date == Self.date(12) }?.value == nil, "a day not measured has no value")
        for day in trend.days {
            let assessment = ReadinessBaseline.assess(measurements, today: day.date)
            #expect(day.baseline == assessment.baseline && day.normalLow == assessment.normalLow, "\(day.date)")
        }
        let chart = trend.chart(height: 6)
        #expect(chart.count == 8)
        #expect(chart.joined().contains("●") && chart.joined().contains("─") && chart.joined().contains("░"))
        #expect(ReadinessTrend([], days: 5, endingOn: Self.date(3)).isEmpty)
    }

    /// Over more than the 60 days of the range, in no order, some days measured twice: each
    /// day is what that day's assessment of all the measurements says.
    @Test func aLongTrendIsEachDaysAssessmentOfEveryMeasurement() throws {
        func date(_ day: Int) -> String { String(UTCTimestamp.text(unixSeconds: Int64(20_000 + day) * 86_400).prefix(10)) }
        var measurements = (0..<200).filter { $0 % 9 != 4 }.map { (day: Int) -> ReadinessBaseline.Measurement in
            let lnRMSSD: Double = 4 + Double((day * 37) % 23) / 40
            return ReadinessBaseline.Measurement(date: date(day), lnRMSSD: lnRMSSD)
        }
        measurements += (0..<200).filter { $0 % 13 == 0 }.map { ReadinessBaseline.Measurement(date: date($0), lnRMSSD: 3.7) }
        // A fixed scramble of their order.
        measurements = measurements.enumerated().sorted { ($0.offset * 7919) % 211 < ($1.offset * 7919) % 211 }.map(\.element)
        let trend = ReadinessTrend(measurements, days: 150, endingOn: date(199))
        #expect(trend.days.count == 150)
        for day in trend.days {
            let assessment = ReadinessBaseline.assess(measurements, today: day.date)
            #expect(
                day.value == assessment.today && day.baseline == assessment.baseline && day.normalLow == assessment.normalLow
                    && day.normalHigh == assessment.normalHigh, "\(day.date)")
        }
    }
}
