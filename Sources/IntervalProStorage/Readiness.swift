import IntervalProCore
public import IntervalProHRV
import IntervalProIO
import GRDB

/// A stored readiness measurement.
public struct ReadinessRecord: Sendable, Equatable {
    /// How it was measured: live sensors or a recording.
    public enum Source: String, Sendable {
        case live
        case replay
    }

    public var id: Int64?
    /// ISO 8601 UTC, when the measurement ended.
    public var takenAt: String
    /// The runner's local date then ("2026-11-25").
    public var localDate: String
    /// The runner's clock time then ("07:02:41"), in the time zone of that moment; nil when
    /// the time of day is not known (a replayed file that does not say when).
    public var localTime: String?
    public var source: Source
    public var device: String?
    /// Names the artifact correction the figures were computed with.
    public var method: String
    public var figures: ReadinessFigures
    /// The scored RR intervals as the strap sent them, in 1/1024 s, one list per stretch of contact.
    public var rrSegments: [[UInt16]]

    /// The artifact correction `IntervalProHRV` implements.
    public static let currentMethod = "lipponen-tarvainen-2019"

    public init(
        id: Int64? = nil, takenAt: String, localDate: String, localTime: String? = nil, source: Source, device: String?,
        method: String = ReadinessRecord.currentMethod, figures: ReadinessFigures, rrSegments: [[UInt16]]
    ) {
        self.id = id
        self.takenAt = takenAt
        self.localDate = localDate
        self.localTime = localTime
        self.source = source
        self.device = device
        self.method = method
        self.figures = figures
        self.rrSegments = rrSegments
    }

    /// Whether `other` is this morning kept again: the same beats, taken at the same moment or
    /// on the same day at the same clock time (a file's own time read anew in another zone), or
    /// at none (RR text, which does not say when: it takes the moment it is read, another each
    /// time). What the store refuses twice. The clock time alone took a measurement in New York
    /// at 07:02:41 for a Berlin one of that clock time, and printed the Berlin figures; the
    /// moment alone took another file, replayed in the same second, for the one before.
    /// The same measurement scored over another `--duration` is the same morning too: its
    /// scored beats are the first of the other's, after the same settling, on the same day (a
    /// file imported again with `--duration 1.5` was saved again, each time).
    public func isSameMorning(as other: ReadinessRecord) -> Bool {
        if rrSegments == other.rrSegments {
            return takenAt == other.takenAt || (localDate == other.localDate && localTime == other.localTime)
        }
        let mine = Array(rrSegments.joined())
        let theirs = Array(other.rrSegments.joined())
        let (shorter, longer) = mine.count <= theirs.count ? (mine, theirs) : (theirs, mine)
        return localDate == other.localDate && !shorter.isEmpty && longer.starts(with: shorter)
    }
}

extension ReadinessRecord {
    /// Taken before `ReadinessBaseline.morningEndsAtHour` on the runner's clock then (a
    /// morning in Tokyo stays a morning back home). Without a time of day, the measurement
    /// filed under its day is that day's morning: a file replayed with `--date` took the
    /// moment the command was typed, and typed in the evening was an evening's.
    public var takenInTheMorning: Bool {
        guard let hour = localTime.flatMap({ Int($0.prefix(2)) }) else { return true }
        return hour < ReadinessBaseline.morningEndsAtHour
    }

    /// Why the baseline and the normal range leave this morning out, saved before such mornings
    /// were refused: rMSSD 0 (no ln rMSSD), or intervals worked out from a heart rate. Nil when
    /// it counts.
    public var leftOutOfBaseline: ReadinessRefusal? {
        if !figures.hrv.lnRMSSD.isFinite { return .noBeatToBeatVariation }
        guard ReadinessMeasurement.workedOutFromHeartRate(rrSegments) else { return nil }
        return .intervalsFromHeartRate(share: ReadinessMeasurement.shareFromWholeHeartRates(rrSegments.joined()))
    }

    /// Whether it replays the simulator's strap (`RecordedDevice.isSimulator`, the bundled
    /// recordings'): saved and listed, but no runner's morning, as a session of the simulator's
    /// sensors is no runner's run. Taken in, trying the tour's replay put a made-up morning in
    /// the runner's baseline for the 60 days of its normal range.
    public var replaysTheSimulator: Bool {
        device.map { RecordedDevice(id: $0).isSimulator } ?? false
    }

    /// Whether the baseline and the normal range take it in.
    public var countsInBaseline: Bool {
        leftOutOfBaseline == nil && !replaysTheSimulator
    }

    /// What the baseline reads of it: no value (NaN) for a morning it leaves out.
    public var baselineMeasurement: ReadinessBaseline.Measurement {
        let value = countsInBaseline ? figures.hrv.lnRMSSD : .nan
        return ReadinessBaseline.Measurement(date: localDate, lnRMSSD: value, morning: takenInTheMorning, timeKnown: localTime != nil)
    }

    /// The day's value among one day's `records`, in the order taken, of those the baseline
    /// takes in: its last morning measurement whose time is known, else its last morning one,
    /// else its last. A simulator's morning replayed after the runner's was the day's value,
    /// and the wellness write queued for the runner's sent the simulator's figures.
    public static func dayValue(of records: [ReadinessRecord]) -> ReadinessRecord? {
        ReadinessBaseline.dayValue(
            of: records.filter(\.countsInBaseline), morning: \.takenInTheMorning, timeKnown: { $0.localTime != nil })
    }

    /// The ids of `records` that are their day's value (`ReadinessBaseline.dayValue`), as the
    /// baseline reads them: of those it takes, the day's last morning measurement, else its last.
    public static func daysValues(among records: [ReadinessRecord]) -> Set<Int64> {
        let taken = records.filter(\.countsInBaseline)
            .sorted { ($0.localDate, $0.takenAt, $0.id ?? 0) < ($1.localDate, $1.takenAt, $1.id ?? 0) }
        let byDay = Dictionary(grouping: taken, by: \.localDate)
        return Set(byDay.values.compactMap { dayValue(of: $0)?.id })
    }
}

struct ReadinessRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "readiness"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var id: Int64?
    var takenAt: String
    var localDate: String
    var localTime: String?
    var source: String
    var device: String?
    var durationS: Double
    var method: String
    var beatsReceived: Int
    var artifactsCorrected: Int
    var beats: Int
    var meanRrMs: Double
    var meanHrBpm: Double
    var rmssdMs: Double
    var lnRmssd: Double
    var sdnnMs: Double
    var rrSegments: String

    init(_ record: ReadinessRecord) {
        id = record.id
        takenAt = record.takenAt
        localDate = record.localDate
        localTime = record.localTime
        source = record.source.rawValue
        device = record.device
        durationS = record.figures.scoredDuration.seconds
        method = record.method
        beatsReceived = record.figures.beatsReceived
        artifactsCorrected = record.figures.artifactsCorrected
        let hrv = record.figures.hrv
        beats = hrv.beats
        meanRrMs = hrv.meanInterval
        meanHrBpm = hrv.meanHeartRate
        rmssdMs = hrv.rmssd
        lnRmssd = hrv.lnRMSSD
        sdnnMs = hrv.sdnn
        rrSegments = JSONValue.array(record.rrSegments.map { .array($0.map { .int(Int($0)) }) }).serialized()
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var record: ReadinessRecord {
        let hrv = TimeDomainHRV(
            beats: beats, meanInterval: meanRrMs, meanHeartRate: meanHrBpm, rmssd: rmssdMs, lnRMSSD: lnRmssd, sdnn: sdnnMs)
        return ReadinessRecord(
            id: id, takenAt: takenAt, localDate: localDate, localTime: localTime,
            source: ReadinessRecord.Source(rawValue: source) ?? .live,
            device: device, method: method,
            figures: ReadinessFigures(
                scoredDuration: .seconds(durationS), hrv: hrv, artifactsCorrected: artifactsCorrected,
                beatsReceived: beatsReceived),
            rrSegments: Self.segments(rrSegments))
    }

    /// The stored arrays; a damaged text reads as no intervals rather than failing the listing.
    private static func segments(_ text: String) -> [[UInt16]] {
        let node: JSONNode
        do {
            node = try JSONParser.parse(text)
        } catch {
            return []
        }
        var segments: [[UInt16]] = []
        if case .array(let lists) = node.kind {
            for list in lists {
                var segment: [UInt16] = []
                if case .array(let values) = list.kind {
                    for value in values {
                        if let number = value.numberValue, let interval = UInt16(exactly: number) { segment.append(interval) }
                    }
                }
                segments.append(segment)
            }
        }
        return segments
    }
}

extension SessionStore {
    /// Saves a measurement and returns its id.
    @discardableResult
    public func saveReadiness(_ record: ReadinessRecord) throws(StoreError) -> Int64 {
        try write { db in
            var row = ReadinessRow(record)
            try row.insert(db)
            return row.id ?? db.lastInsertedRowID
        }
    }

    /// Saves a measurement unless the same morning is there (`ReadinessRecord.isSameMorning(as:)`);
    /// nil when it is. The check and the insert are one write transaction,
    /// which GRDB begins IMMEDIATE (the write lock held from the check): two imports of one
    /// folder at once (a cron's beside one typed) each checked before the other saved, and
    /// every morning was saved twice.
    public func saveReadinessUnlessHeld(_ record: ReadinessRecord) throws(StoreError) -> Int64? {
        try write { db -> Int64? in
            // The measurements that may be this one (`ReadinessRecord.isSameMorning(as:)`):
            // those of its moment or of its day.
            var row = ReadinessRow(record)
            let candidates = try ReadinessRow.filter(Column("taken_at") == record.takenAt || Column("local_date") == record.localDate)
                .fetchAll(db)
            guard !candidates.contains(where: { $0.record.isSameMorning(as: record) }) else { return nil }
            try row.insert(db)
            return row.id ?? db.lastInsertedRowID
        }
    }

    /// Measurements in the order they were taken; with `limit`, the latest that many.
    public func readinessRecords(limit: Int? = nil) throws(StoreError) -> [ReadinessRecord] {
        try read { db in
            var request = ReadinessRow.order(Column("local_date").desc, Column("taken_at").desc, Column("id").desc)
            if let limit { request = request.limit(limit) }
            return try request.fetchAll(db).reversed().map(\.record)
        }
    }

    /// How many readiness measurements the store holds.
    public func readinessCount() throws(StoreError) -> Int {
        try read { db in try ReadinessRow.fetchCount(db) }
    }

    /// Measurements taken on or after a local date, in the order they were taken.
    public func readinessRecords(since localDate: String) throws(StoreError) -> [ReadinessRecord] {
        try read { db in
            try ReadinessRow.filter(Column("local_date") >= localDate)
                .order(Column("local_date"), Column("taken_at"), Column("id")).fetchAll(db).map(\.record)
        }
    }
}

/// Where a readiness measurement's upload to one service stands (intervals.icu's wellness).
public struct ReadinessUploadRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Not sent yet, or the last attempt failed in a way worth retrying.
        case pending
        case done
        /// The service refused it: retrying will not help.
        case rejected
    }

    public var readinessID: Int64
    public var service: String
    public var status: Status
    public var attempts: Int
    public var lastError: String?
    /// ISO 8601 UTC.
    public var updatedAt: String

    public init(
        readinessID: Int64, service: String, status: Status, attempts: Int = 0, lastError: String? = nil, updatedAt: String
    ) {
        self.readinessID = readinessID
        self.service = service
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
        self.updatedAt = updatedAt
    }
}

struct ReadinessUploadRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "readiness_upload"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var readinessId: Int64
    var service: String
    var status: String
    var attempts: Int
    var lastError: String?
    var updatedAt: String

    init(_ record: ReadinessUploadRecord) {
        readinessId = record.readinessID
        service = record.service
        status = record.status.rawValue
        attempts = record.attempts
        lastError = record.lastError
        updatedAt = record.updatedAt
    }

    var record: ReadinessUploadRecord {
        ReadinessUploadRecord(
            readinessID: readinessId, service: service, status: ReadinessUploadRecord.Status(rawValue: status) ?? .pending,
            attempts: attempts, lastError: lastError, updatedAt: updatedAt)
    }
}

extension SessionStore {
    public func readiness(id: Int64) throws(StoreError) -> ReadinessRecord? {
        try read { db in try ReadinessRow.fetchOne(db, key: id)?.record }
    }

    /// Deletes a measurement and its uploads' rows; false when there is none with this id.
    public func deleteReadiness(id: Int64) throws(StoreError) -> Bool {
        try write { db in try ReadinessRow.deleteOne(db, key: id) }
    }

    /// Writes (or replaces) a measurement's upload row for one service.
    public func saveReadinessUpload(_ record: ReadinessUploadRecord) throws(StoreError) {
        try write { db in try ReadinessUploadRow(record).save(db) }
    }

    public func readinessUpload(readiness id: Int64, service: String) throws(StoreError) -> ReadinessUploadRecord? {
        try read { db in try ReadinessUploadRow.fetchOne(db, key: ["readiness_id": id, "service": service])?.record }
    }

    /// The queue: measurements not yet sent, oldest first.
    public func pendingReadinessUploads() throws(StoreError) -> [ReadinessUploadRecord] {
        try read { db in
            try ReadinessUploadRow.filter(Column("status") == "pending").order(Column("readiness_id"), Column("service"))
                .fetchAll(db).map(\.record)
        }
    }
}
