import GRDB
import IntervalProCore
import IntervalProHRV
import IntervalProIO
@testable import IntervalProStorage
import Testing

@Suite("Readiness in the store")
struct ReadinessStoreTests {
    static func record(
        date: String, takenAt: String, rmssd: Double, segments: [[UInt16]] = [[1024, 1000, 1050]],
        device: String = "D0:5F:B8:4C:21:01"
    ) -> ReadinessRecord {
        let hrv = TimeDomainHRV(
            beats: 121, meanInterval: 1003.5, meanHeartRate: 59.79, rmssd: rmssd, lnRMSSD: 4.0 + rmssd / 1000,
            sdnn: 71.25)
        return ReadinessRecord(
            takenAt: takenAt, localDate: date, source: .replay, device: device,
            figures: ReadinessFigures(scoredDuration: .seconds(120), hrv: hrv, artifactsCorrected: 1, beatsReceived: 120),
            rrSegments: segments)
    }

    /// A measurement keeps the runner's clock time when it was taken (v7), so that a morning
    /// measured abroad stays a morning back home; those saved before take theirs once, in the
    /// system's time zone, as they were read until then.
    @Test("a store made before the clock time was kept: each measurement takes its own once, in the system's zone")
    func olderMeasurementsTakeTheirClockTime() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        do {
            let older = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(older, upTo: "v6-imported-activities")
            try older.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO readiness (taken_at, local_date, source, duration_s, method, beats_received,
                            artifacts_corrected, beats, mean_rr_ms, mean_hr_bpm, rmssd_ms, ln_rmssd, sdnn_ms, rr_segments)
                        VALUES ('2026-11-20T06:32:40Z', '2026-11-20', 'live', 120, 'lipponen-tarvainen-2019', 120, 0, 120,
                            1000, 60, 61.5, 4.12, 50, '[[1024]]')
                        """)
            }
        }
        let store = try SessionStore(path: path)
        let record = try #require(try store.readinessRecords().first)
        #expect(record.localTime == WallClock.localTime(unixSeconds: 1_795_156_360))
        // A measurement whose time of day is not known is its day's morning.
        var timeless = Self.record(date: "2026-11-21", takenAt: "2026-11-28T20:23:20Z", rmssd: 60)
        timeless.localTime = nil
        #expect(timeless.takenInTheMorning)
        timeless.localTime = "21:23:20"
        #expect(!timeless.takenInTheMorning)
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

    /// Saved before such were refused, a morning of intervals a sensor worked out from its heart
    /// rate (1,000 ms at 60 bpm, 1,016.6 at 59, 983.4 at 61) is no baseline value; beats timed
    /// one by one are. Intervals all the same are not taken for worked out: that is rMSSD 0's
    /// own case, left out by its ln rMSSD of -inf (here a finite one stands in).
    @Test("a saved morning of intervals worked out from a heart rate is left out of the baseline")
    func aMorningOfHeartRateIntervalsIsNoBaselineValue() throws {
        let derived = Self.record(
            date: "2026-11-24", takenAt: "2026-11-24T06:30:00Z", rmssd: 11.2, segments: [[1024, 1024, 1041, 1041], [1041, 1024, 1007]])
        #expect(derived.baselineMeasurement.lnRMSSD.isNaN)
        #expect(derived.leftOutOfBaseline?.brief == "RR intervals worked out from a heart rate")
        let timed = Self.record(date: "2026-11-25", takenAt: "2026-11-25T06:30:00Z", rmssd: 61.5)
        #expect(timed.baselineMeasurement.lnRMSSD == timed.figures.hrv.lnRMSSD)
        #expect(timed.leftOutOfBaseline == nil)
        let flat = Self.record(date: "2026-11-26", takenAt: "2026-11-26T06:30:00Z", rmssd: 0, segments: [[1024, 1024, 1024]])
        #expect(flat.baselineMeasurement.lnRMSSD == flat.figures.hrv.lnRMSSD)
        // Left out as a day's value: the week of mornings around it is judged without it.
        let week = (17...23).map { Self.record(date: "2026-11-\($0)", takenAt: "2026-11-\($0)T06:30:00Z", rmssd: 60) }
        let assessment = ReadinessBaseline.assess((week + [derived]).map(\.baselineMeasurement), today: "2026-11-24")
        #expect(assessment.daysMeasured == 7 && assessment.today == nil)
    }

    /// The bundled recordings' strap, the simulator's, is no runner's: trying a replay of one put
    /// a made-up morning among the runner's, and made it the day's value over theirs.
    @Test("a morning of the simulator's strap is kept but is neither a baseline value nor its day's value")
    func theSimulatorsMorningIsNoBaselineValue() {
        let runners = Self.record(date: "2026-11-24", takenAt: "2026-11-24T06:30:00Z", rmssd: 61.5)
        let simulated = Self.record(
            date: "2026-11-24", takenAt: "2026-11-24T07:10:00Z", rmssd: 90, device: RecordedDevice.simulatorAddressPrefix + "01")
        #expect(runners.countsInBaseline && !runners.replaysTheSimulator)
        #expect(!simulated.countsInBaseline && simulated.replaysTheSimulator)
        #expect(simulated.leftOutOfBaseline == nil)
        #expect(simulated.baselineMeasurement.lnRMSSD.isNaN)
        // The later morning of the day, yet not its value: the runner's is.
        #expect(ReadinessRecord.dayValue(of: [runners, simulated]) == runners)
        #expect(ReadinessRecord.dayValue(of: [simulated]) == nil)
        var ids = [runners, simulated]
        ids[0].id = 1
        ids[1].id = 2
        #expect(ReadinessRecord.daysValues(among: ids) == [1])
        let week = (17...23).map { Self.record(date: "2026-11-\($0)", takenAt: "2026-11-\($0)T06:30:00Z", rmssd: 60) }
        let assessment = ReadinessBaseline.assess((week + [simulated]).map(\.baselineMeasurement), today: "2026-11-24")
        #expect(assessment.daysMeasured == 7 && assessment.today == nil)
    }

    /// RR text does not say when it was taken: a replay of it takes the moment it is read.
    /// Another file replayed in the same second was taken for the one before (not saved, its
    /// figures shown as the new morning's), and the same file a second later was saved twice.
    @Test("the same morning kept again is the same beats, at the same moment or the same day and clock time, or none")
    func sameMorning() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let first = Self.record(date: "2026-11-22", takenAt: "2026-11-25T06:30:00Z", rmssd: 50, segments: [[1024, 1000]])
        let other = Self.record(date: "2026-11-29", takenAt: "2026-11-25T06:30:00Z", rmssd: 14, segments: [[700, 705]])
        var sameLater = first
        sameLater.takenAt = "2026-11-25T06:30:02Z"
        var sameElsewhere = first
        sameElsewhere.localDate = "2026-11-23"
        sameElsewhere.takenAt = "2026-11-25T06:30:05Z"
        #expect(!first.isSameMorning(as: other) && first.isSameMorning(as: sameLater) && !first.isSameMorning(as: sameElsewhere))
        let saved = try #require(try store.saveReadinessUnlessHeld(first))
        #expect(try store.saveReadinessUnlessHeld(other) != nil)
        #expect(try store.saveReadinessUnlessHeld(sameLater) == nil)
        #expect(try store.saveReadinessUnlessHeld(sameElsewhere) != nil)
        // A clock time the file gave: the same day and time, read again in another zone.
        var timed = first
        timed.localTime = "07:02:41"
        timed.takenAt = "2026-11-25T06:02:41Z"
        var timedElsewhere = timed
        timedElsewhere.takenAt = "2026-11-25T11:02:41Z"
        #expect(try store.saveReadinessUnlessHeld(timed) != nil)
        #expect(try store.saveReadinessUnlessHeld(timedElsewhere) == nil)
        #expect(try store.readinessRecords().count == 4)
        #expect(try store.readinessRecords().first { $0.id == saved }?.figures.hrv.rmssd == 50)
        // The same file scored over a shorter --duration: its first beats, ending sooner, that
        // day; saved again each time it was imported with another duration.
        let long = Self.record(date: "2026-11-26", takenAt: "2026-11-26T06:33:00Z", rmssd: 40, segments: [[900, 910, 905, 920]])
        var shorter = long
        shorter.rrSegments = [[900, 910]]
        shorter.takenAt = "2026-11-26T06:32:00Z"
        var notItsStart = shorter
        notItsStart.rrSegments = [[910, 905]]
        var anotherDay = shorter
        anotherDay.localDate = "2026-11-27"
        #expect(long.isSameMorning(as: shorter) && shorter.isSameMorning(as: long))
        #expect(!long.isSameMorning(as: notItsStart) && !long.isSameMorning(as: anotherDay))
        #expect(try store.saveReadinessUnlessHeld(long) != nil)
        #expect(try store.saveReadinessUnlessHeld(shorter) == nil)
        #expect(try store.saveReadinessUnlessHeld(notItsStart) != nil)
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
