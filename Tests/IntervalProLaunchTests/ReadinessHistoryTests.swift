import IntervalProCore
import IntervalProHRV
import IntervalProStorage
import Testing

@testable import IntervalProLaunch

/// `readiness history`: a morning saved before its kind was refused stays listed, and says that
/// the baseline leaves it out.
@Suite("The readiness history")
struct ReadinessHistoryTests {
    static func record(id: Int64, date: String, lnRMSSD: Double, segments: [[UInt16]]) -> ReadinessRecord {
        let hrv = TimeDomainHRV(beats: 121, meanInterval: 1000, meanHeartRate: 60, rmssd: 30, lnRMSSD: lnRMSSD, sdnn: 40)
        var record = ReadinessRecord(
            takenAt: "\(date)T06:30:00Z", localDate: date, localTime: "06:30:00", source: .replay, device: nil,
            figures: ReadinessFigures(scoredDuration: .seconds(120), hrv: hrv, artifactsCorrected: 0, beatsReceived: 120),
            rrSegments: segments)
        record.id = id
        return record
    }

    @Test func morningsTheBaselineLeavesOutAreSaidUnderTheTable() {
        let records = [
            Self.record(id: 1, date: "2026-11-20", lnRMSSD: 3.4, segments: [[1024, 1000, 1050, 990, 1013]]),
            // 60, 59 and 61 bpm's intervals in 1/1024 s.
            Self.record(id: 2, date: "2026-11-21", lnRMSSD: 2.5, segments: [[1024, 1024, 1041, 1041, 1007]]),
            Self.record(id: 3, date: "2026-11-22", lnRMSSD: -.infinity, segments: [[1024, 1024, 1024]]),
        ]
        let lines = HistoryReport.readiness(records)
        #expect(
            lines.last
                == "Left out of the baseline and the normal range, saved before such mornings were refused: 2 (RR intervals worked out from a heart rate), 3 (rMSSD 0).")
        let inBaseline = records.map { ReadinessJSON.measurement($0).first { $0.0 == "in_baseline" }?.1.serialized() }
        #expect(inBaseline == ["true", "false", "false"])
        // All counted: the table alone.
        #expect(HistoryReport.readiness([records[0]]).allSatisfy { !$0.hasPrefix("Left out") })
    }
}
