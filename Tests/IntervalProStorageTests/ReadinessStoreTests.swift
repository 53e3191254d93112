import IntervalProCore
import IntervalProHRV
import IntervalProStorage
import Testing

@Suite("Readiness in the store")
struct ReadinessStoreTests {
    static func record(date: String, takenAt: String, rmssd: Double, segments: [[UInt16]] = [[1024, 1000, 1050]])
        -> ReadinessRecord
    {
        let hrv = TimeDomainHRV(
            beats: 121, meanInterval: 1003.5, meanHeartRate: 59.79, rmssd: rmssd, lnRMSSD: 4.0 + rmssd / 1000,
            sdnn: 71.25)
        return ReadinessRecord(
            takenAt: takenAt, localDate: date, source: .replay, device: "00:00:5E:00:53:01",
            figures: ReadinessFigures(scoredDuration: .seconds(120), hrv: hrv, artifactsCorrected: 1, beatsReceived: 120),
            rrSegments: segments)
    }

    @Test("a measurement reads back as it was saved, RR intervals included, after reopening")
    func roundTrip() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        let store = try SessionStore(path: path)
        var saved = Self.record(date: "2026-11-24", takenAt: "2026-11-24T06:30:00Z", rmssd: 61.5, segments: [[1024, 65535, 0], [998]])
        let id = try store.saveReadiness(saved)
        saved.id = id
        let reopened = try SessionStore(path: path)
        #expect(try reopened.readinessRecords() == [saved])
    }

    @Test("listed by local date, then time; the latest n; since a date")
    func order() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        // Saved out of order: a measurement from another machine's clock, a retake the same morning.
        try store.saveReadiness(Self.record(date: "2026-11-25", takenAt: "2026-11-25T06:30:00Z", rmssd: 50))
        try store.saveReadiness(Self.record(date: "2026-11-23", takenAt: "2026-11-23T06:30:00Z", rmssd: 40))
        try store.saveReadiness(Self.record(date: "2026-11-25", takenAt: "2026-11-25T06:40:00Z", rmssd: 55))
        try store.saveReadiness(Self.record(date: "2026-11-24", takenAt: "2026-11-24T06:30:00Z", rmssd: 45))
        #expect(try store.readinessRecords().map(\.figures.hrv.rmssd) == [40, 45, 50, 55])
        #expect(try store.readinessRecords(limit: 2).map(\.figures.hrv.rmssd) == [50, 55])
        #expect(try store.readinessRecords(since: "2026-11-24").map(\.localDate) == ["2026-11-24", "2026-11-25", "2026-11-25"])
    }
}
