import IntervalProCore
import IntervalProHRV
import IntervalProStorage
import Testing

@testable import IntervalProLaunch

/// `readiness history`: a morning saved before its kind was refused stays listed, and says that
/// the baseline leaves it out.
@Suite("The readiness history")
struct ReadinessHistoryTests {
    static func record(id: Int64, date: String, lnRMSSD: Double, segments: [[UInt16]], time: String = "06:30:00") -> ReadinessRecord {
        let hrv = TimeDomainHRV(beats: 121, meanInterval: 1000, meanHeartRate: 60, rmssd: 30, lnRMSSD: lnRMSSD, sdnn: 40)
        var record = ReadinessRecord(
            takenAt: "\(date)T\(time)Z", localDate: date, localTime: time, source: .replay, device: nil,
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

    /// A day's other measurements were listed like its value, and `--json` said nothing of them:
    /// `readiness` said "kept, not the day's value" once, when it was taken.
    @Test func measurementsThatAreNotTheirDaysValueAreSaid() {
        let timed: [UInt16] = [1024, 1000, 1050, 990, 1013]
        let records = [
            Self.record(id: 1, date: "2026-11-20", lnRMSSD: 3.4, segments: [timed], time: "06:30:00"),
            Self.record(id: 2, date: "2026-11-20", lnRMSSD: 3.5, segments: [timed], time: "06:45:00"),
            Self.record(id: 3, date: "2026-11-21", lnRMSSD: 3.6, segments: [timed], time: "06:40:00"),
            Self.record(id: 4, date: "2026-11-21", lnRMSSD: 3.2, segments: [timed], time: "21:10:00"),
            Self.record(id: 5, date: "2026-11-22", lnRMSSD: 3.3, segments: [timed], time: "19:00:00"),
        ]
        #expect(HistoryReport.readiness(records).last == "Kept, not their day's value (a day's value is its last before noon, or its last when none was): 1, 4.")
        guard case .array(let listed) = ReadinessJSON.history(records) else {
            Issue.record("not a list")
            return
        }
        let daysValues = listed.map { entry -> String? in
            guard case .object(let fields) = entry else { return nil }
            return fields.first { $0.0 == "days_value" }?.1.serialized()
        }
        // An evening's alone is its day's value.
        #expect(daysValues == ["false", "true", "true", "false", "true"])
    }

    /// RR text replayed in the evening says no time: filed under the day with none, it took the
    /// place of the day's 06:46 morning, and moved the baseline.
    @Test func aMeasurementOfUnknownTimeDoesNotReplaceAKnownMorning() {
        let timed: [UInt16] = [1024, 1000, 1050, 990, 1013]
        var unknown = Self.record(id: 2, date: "2026-11-28", lnRMSSD: 4.06, segments: [timed], time: "20:17:18")
        unknown.localTime = nil
        let known = Self.record(id: 1, date: "2026-11-28", lnRMSSD: 4.17, segments: [timed], time: "06:45:00")
        #expect(ReadinessRecord.daysValues(among: [known, unknown]) == [1])
        #expect(ReadinessRecord.dayValue(of: [known, unknown])?.id == 1)
        #expect(ReadinessBaseline.assess([known, unknown].map(\.baselineMeasurement), today: "2026-11-28").today == 4.17)
        // Alone, it is its day's value.
        #expect(ReadinessRecord.daysValues(among: [unknown]) == [2])
    }
}
