import Foundation
import GRDB
import IntervalProCore
import IntervalProHistory

// Rows as the database holds them: plain Codable structs, converted to and from the
// domain types here and nowhere else.

struct SessionRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "session"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var id: Int64?
    var startedAt: String
    var planName: String
    var planJson: String
    var source: String
    var status: String
    var owner: String?
    var lastTimeUs: Int64
    var completed: Bool?
    var durationS: Double?
    var inZonePct: Double?
    var avgCadenceSpm: Double?
    var avgWorkCadenceSpm: Double?
    var avgHrBpm: Double?
    var maxHrBpm: Int?
    var distanceM: Double?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    mutating func take(_ listing: SessionListing) {
        completed = listing.completed
        durationS = listing.duration
        inZonePct = listing.inZonePercent
        avgCadenceSpm = listing.averageCadence
        avgWorkCadenceSpm = listing.averageWorkCadence
        avgHrBpm = listing.averageHeartRate
        maxHrBpm = listing.maxHeartRate
        distanceM = listing.distance
    }

    var listing: SessionListing {
        SessionListing(
            id: id ?? 0, startedAt: Self.written(startedAt), planName: planName,
            source: SessionSourceKind(rawValue: source) ?? .replay, status: SessionStatus(rawValue: status) ?? .interrupted,
            completed: completed, duration: durationS, inZonePercent: inZonePct, averageCadence: avgCadenceSpm,
            averageWorkCadence: avgWorkCadenceSpm, averageHeartRate: avgHrBpm, maxHeartRate: maxHrBpm,
            distance: distanceM)
    }
}

extension SessionRow {
    /// A start as the store writes it (UTC to the second, "2026-03-01T07:30:00Z"). One edited
    /// by hand in another form of a time (SQLite's `datetime('now')`, "2026-11-29 03:32:51",
    /// UTC) is that time: it was listed as UTC under the local column, and exported as 1970.
    /// Text that is no time is kept, for the commands that date it to refuse.
    static func written(_ startedAt: String) -> String {
        guard UTCTimestamp.unixSeconds(startedAt) == nil, let microseconds = ISO8601.microseconds(startedAt) else { return startedAt }
        return UTCTimestamp.text(unixSeconds: microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000)
    }

    /// Read column by column rather than through Decodable: the decoder's generic machinery
    /// costs `history` run-time type lookups at its first use, a fifth of a millisecond.
    init(row: Row) throws {
        id = row["id"]
        startedAt = row["started_at"]
        planName = row["plan_name"]
        planJson = row["plan_json"]
        source = row["source"]
        status = row["status"]
        owner = row["owner"]
        lastTimeUs = row["last_time_us"]
        completed = row["completed"]
        durationS = row["duration_s"]
        inZonePct = row["in_zone_pct"]
        avgCadenceSpm = row["avg_cadence_spm"]
        avgWorkCadenceSpm = row["avg_work_cadence_spm"]
        avgHrBpm = row["avg_hr_bpm"]
        maxHrBpm = row["max_hr_bpm"]
        distanceM = row["distance_m"]
    }
}

struct DeviceRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var sessionId: Int64
    var position: Int
    var deviceId: String
    var name: String?
    var cadenceUnit: String?

    init(sessionId: Int64, position: Int, _ device: RecordedDevice) {
        self.sessionId = sessionId
        self.position = position
        deviceId = device.id
        name = device.name
        cadenceUnit = device.cadenceUnit?.rawValue
    }

    var device: RecordedDevice {
        RecordedDevice(id: deviceId, name: name, cadenceUnit: cadenceUnit.flatMap(CadenceUnit.init(rawValue:)))
    }
}

struct StepResultRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "step_result"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var sessionId: Int64
    var stepIndex: Int
    var kind: String
    var label: String?
    var repetition: String?
    var targetSpm: Double?
    var lowSpm: Double?
    var highSpm: Double?
    var durationUs: Int64
    var inZoneUs: Int64
    var belowUs: Int64
    var aboveUs: Int64
    var noSignalUs: Int64
    var cadenceWeighted: Int64
    var cadenceTimeUs: Int64
    var heartRateWeighted: Int64
    var heartRateTimeUs: Int64
    var maxHrBpm: Int?
    var distanceM: Double?
    var endedBy: String

    init(sessionId: Int64, _ result: StepResult) {
        self.sessionId = sessionId
        stepIndex = result.step.index
        kind = result.step.kind.rawValue
        label = result.step.label
        repetition = result.step.repetition?.description
        targetSpm = result.step.zone?.target
        lowSpm = result.step.zone?.low
        highSpm = result.step.zone?.high
        durationUs = result.duration.microseconds
        inZoneUs = result.inZone.microseconds
        belowUs = result.below.microseconds
        aboveUs = result.above.microseconds
        noSignalUs = result.noSignal.microseconds
        cadenceWeighted = result.cadenceWeighted
        cadenceTimeUs = result.cadenceTime
        heartRateWeighted = result.heartRateWeighted
        heartRateTimeUs = result.heartRateTime
        maxHrBpm = result.maxHeartRate
        distanceM = result.distance
        endedBy = result.endedBy.rawValue
    }

    /// The result against the plan's own step (which knows how the step ends).
    func result(step: TimelineStep) -> StepResult {
        var result = StepResult(step: step)
        result.duration = SessionTime(microseconds: durationUs)
        result.inZone = SessionTime(microseconds: inZoneUs)
        result.below = SessionTime(microseconds: belowUs)
        result.above = SessionTime(microseconds: aboveUs)
        result.noSignal = SessionTime(microseconds: noSignalUs)
        result.cadenceWeighted = cadenceWeighted
        result.cadenceTime = cadenceTimeUs
        result.heartRateWeighted = heartRateWeighted
        result.heartRateTime = heartRateTimeUs
        result.maxHeartRate = maxHrBpm
        result.distance = distanceM
        result.endedBy = StepEndReason(rawValue: endedBy) ?? .finished
        return result
    }
}

struct SampleRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sample"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var sessionId: Int64
    var second: Int
    var stepIndex: Int?
    var rawCadence: Int?
    var cadenceSpm: Int?
    var heartRateBpm: Int?
    var speedMps: Double?
    var distanceM: Double?
    var zoneStatus: String
    /// uint16 little-endian, 1/1024 s (v5-sample-rr); nil when no beat came.
    var rr: Data?

    /// Read by column position: many thousands of rows per session, so no keyed decoding.
    init(row: Row) throws {
        sessionId = row[0]
        second = row[1]
        stepIndex = row[2]
        rawCadence = row[3]
        cadenceSpm = row[4]
        heartRateBpm = row[5]
        speedMps = row[6]
        distanceM = row[7]
        zoneStatus = row[8]
        rr = row[9]
    }

    init(sessionId: Int64, _ sample: SessionSample) {
        self.sessionId = sessionId
        second = sample.second
        stepIndex = sample.stepIndex
        rawCadence = sample.rawCadence
        cadenceSpm = sample.cadence
        heartRateBpm = sample.heartRate
        speedMps = sample.speed
        distanceM = sample.distance
        zoneStatus = sample.zoneStatus.rawValue
        rr = sample.rrIntervals.isEmpty ? nil : Data(sample.rrIntervals.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
    }

    var sample: SessionSample {
        SessionSample(
            second: second, stepIndex: stepIndex, rawCadence: rawCadence, cadence: cadenceSpm, heartRate: heartRateBpm,
            speed: speedMps, distance: distanceM, zoneStatus: ZoneStatus(rawValue: zoneStatus) ?? .noSignal,
            rrIntervals: rr.map { bytes in
                stride(from: 0, to: bytes.count - 1, by: 2).map {
                    UInt16(bytes[bytes.startIndex + $0]) | UInt16(bytes[bytes.startIndex + $0 + 1]) << 8
                }
            } ?? [])
    }
}

struct NotificationRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "notification"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var sessionId: Int64
    var seq: Int
    var timeUs: Int64
    var device: String
    var characteristic: String?
    var value: Data?
    var event: String?

    /// Read by column position, like samples.
    init(row: Row) throws {
        sessionId = row[0]
        seq = row[1]
        timeUs = row[2]
        device = row[3]
        characteristic = row[4]
        value = row[5]
        event = row[6]
    }

    init(sessionId: Int64, seq: Int, _ entry: RecordingEntry) {
        self.sessionId = sessionId
        self.seq = seq
        timeUs = entry.time.microseconds
        device = entry.device
        switch entry {
        case .notification(let n):
            characteristic = n.characteristicID
            value = Data(n.bytes)
        case .event(_, _, let name):
            event = name
        }
    }

    var entry: RecordingEntry {
        let time = SessionTime(microseconds: timeUs)
        if let event { return .event(time: time, device: device, name: event) }
        return .notification(
            RawNotification(time: time, device: device, characteristicID: characteristic ?? "", bytes: value.map { Array($0) } ?? []))
    }
}

struct ControlRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "control"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var sessionId: Int64
    var seq: Int
    var kind: String
    var timeUs: Int64
    var afterEntries: Int

    init(sessionId: Int64, seq: Int, _ control: SessionControl) {
        self.sessionId = sessionId
        self.seq = seq
        kind = control.kind.rawValue
        timeUs = control.time.microseconds
        afterEntries = control.afterEntries
    }

    var control: SessionControl? {
        SessionControl.Kind(rawValue: kind).map {
            SessionControl(kind: $0, time: SessionTime(microseconds: timeUs), afterEntries: afterEntries)
        }
    }
}

// The rows a session has thousands of are inserted by binding their values straight through
// SQLite's C API to a cached statement: GRDB's Codable encoding converts every column name to
// snake case on every row, and its argument arrays box every value, which together cost more
// than SQLite's insert itself.

extension NotificationRow {
    func insertFast(_ db: Database) throws {
        try RowInsert.run(
            db, sql: "INSERT INTO notification (session_id, seq, time_us, device, characteristic, value, event) VALUES (?, ?, ?, ?, ?, ?, ?)"
        ) { bind in
            bind.integer(1, sessionId)
            bind.integer(2, Int64(seq))
            bind.integer(3, timeUs)
            bind.text(4, device)
            bind.text(5, characteristic)
            bind.blob(6, value)
            bind.text(7, event)
        }
    }
}

extension SampleRow {
    func insertFast(_ db: Database) throws {
        try RowInsert.run(
            db,
            sql: """
                INSERT INTO sample (session_id, second, step_index, raw_cadence, cadence_spm, heart_rate_bpm, speed_mps,
                    distance_m, zone_status, rr) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ) { bind in
            bind.integer(1, sessionId)
            bind.integer(2, Int64(second))
            bind.integer(3, stepIndex.map(Int64.init))
            bind.integer(4, rawCadence.map(Int64.init))
            bind.integer(5, cadenceSpm.map(Int64.init))
            bind.integer(6, heartRateBpm.map(Int64.init))
            bind.real(7, speedMps)
            bind.real(8, distanceM)
            bind.text(9, zoneStatus)
            bind.blob(10, rr)
        }
    }
}
