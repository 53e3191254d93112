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

    /// A run past midnight had the morning measured six hours after it charted under
    /// "Readiness before this run".
    @Test("a morning measured after the run, on the run's day, is not charted before it; one measured before is")
    func onlyWhatCameBefore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ip-trend-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
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
