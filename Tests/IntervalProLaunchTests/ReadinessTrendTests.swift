import Foundation
import IntervalProCore
import IntervalProHRV
import IntervalProIO
import IntervalProStorage
import Testing

@testable import IntervalProLaunch

/// The readiness a session's report charts: the mornings before the run.
@Suite("Readiness before a run")
struct ReadinessTrendTests {
    static func record(takenAt: Int64, localDate: String, ln: Double) -> ReadinessRecord {
        let hrv = TimeDomainHRV(beats: 120, meanInterval: 1000, meanHeartRate: 60, rmssd: exp(ln), lnRMSSD: ln, sdnn: 50)
        return ReadinessRecord(
            takenAt: UTCTimestamp.text(unixSeconds: takenAt), localDate: localDate,
            localTime: WallClock.localTime(unixSeconds: takenAt), source: .live, device: nil,
            figures: ReadinessFigures(scoredDuration: .seconds(120), hrv: hrv, artifactsCorrected: 0, beatsReceived: 120),
            rrSegments: [])
    }

    /// A new folder of its own, for a store.
    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ip-readiness-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// "Readiness today: rMSSD 32.3 ms (ln 3.48), within your normal range" was read as
    /// today's value, on the morning it fell well below: the verdict is the 7-day baseline's.
    @Test("the line before a run says the verdict is the 7-day baseline's")
    func theVerdictIsTheBaselines() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/store.sqlite"
        let store = try SessionStore(path: path)
        let first: Int64 = 1_794_040_200  // 2026-11-07T08:30:00Z, a morning in any zone from UTC-8 to UTC+3
        for day in 0..<10 {
            let moment = first + Int64(day) * 86_400
            let ln = day == 9 ? 3.4 : (day.isMultiple(of: 2) ? 4.0 : 4.1)
            try store.saveReadiness(Self.record(takenAt: moment, localDate: WallClock.localDate(unixSeconds: moment), ln: ln))
        }
        let today = WallClock.localDate(unixSeconds: first + 9 * 86_400)
        let readiness = try #require(ReadinessToday.read(StoreLocation(path: path), today: today))
        #expect(readiness.line.hasPrefix("Readiness today: rMSSD 30.0 ms (ln 3.40); your 7-day baseline is "), "\(readiness.line)")
        #expect(readiness.line.contains("today's value dropped well below your usual"), "\(readiness.line)")
    }

    /// "baseline ln rMSSD 4.16 … normal range 4.16-4.23", said to be below it.
    @Test("the baseline is shown with as many places as tell it from the range's edges")
    func theBaselineIsToldFromTheRangesEdges() {
        var assessment = ReadinessAssessment(verdict: .below, daysMeasured: 30, daysThisWeek: 7, today: 4.1)
        assessment.baseline = 4.1641
        assessment.normalLow = 4.1645
        assessment.normalHigh = 4.23
        let record = Self.record(takenAt: 1_794_040_200, localDate: "2026-11-07", ln: 4.1)
        let text = ReadinessReport.text(record, deviceLabel: "H10", assessment: assessment, settle: .seconds(30), wellness: nil)
        #expect(text.contains("baseline    ln rMSSD 4.164 over the 7 mornings of the last 7 days; normal range 4.165-4.230"), "\(text)")
        assessment.baseline = 4.12
        let apart = ReadinessReport.text(record, deviceLabel: "H10", assessment: assessment, settle: .seconds(30), wellness: nil)
        #expect(apart.contains("ln rMSSD 4.12 over the 7 mornings of the last 7 days; normal range 4.16-4.23"), "\(apart)")
    }

    /// A run past midnight had the morning measured six hours after it charted under
    /// "Readiness before this run".
    @Test("a morning measured after the run, on the run's day, is not charted before it; one measured before is")
    func onlyWhatCameBefore() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/store.sqlite"
        let run: Int64 = 1_793_925_000  // 2026-11-06T00:30:00Z
        // In any time zone, a minute later is the same local day (zones are whole quarter hours).
        let day = WallClock.localDate(unixSeconds: run)
        let dayBefore = WallClock.localDate(unixSeconds: run - 86_400)
        let store = try SessionStore(path: path)
        try store.saveReadiness(Self.record(takenAt: run - 86_400, localDate: dayBefore, ln: 4.0))
        try store.saveReadiness(Self.record(takenAt: run + 60, localDate: day, ln: 3.5))

        let before = try #require(ReadinessToday.trend(StoreLocation(path: path), before: UTCTimestamp.text(unixSeconds: run)))
        #expect(before.days.last?.date == day)
        #expect(before.days.last?.value == nil)
        #expect(before.days.first { $0.date == dayBefore }?.value == 4.0)
        let after = try #require(ReadinessToday.trend(StoreLocation(path: path), before: UTCTimestamp.text(unixSeconds: run + 120)))
        #expect(after.days.last?.value == 3.5)
    }
}
