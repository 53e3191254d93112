import GRDB
public import IntervalProCore
public import IntervalProHistory

/// Where an imported run came from: the key that tells it from every other (the watch's start
/// time and what recorded it) and the file it was read from.
public struct ActivityOrigin: Equatable, Sendable {
    /// UTC, "2026-03-01T07:30:00Z": the watch's start, to the second.
    public var startedAt: String
    /// What recorded it (`ImportedActivity.creator`), or the file's format when it does not say.
    public var device: String
    public var file: String
    /// Read up to damage (`ImportedActivity.isDamaged`): an intact copy of the run is better.
    public var damaged: Bool
    /// The other key a copy of this run may have been kept under, at the same start.
    public var alsoKeptAs: CopyKey?

    public init(startedAt: String, device: String, file: String, damaged: Bool = false, alsoKeptAs: CopyKey? = nil) {
        self.startedAt = startedAt
        self.device = device
        self.file = file
        self.damaged = damaged
        self.alsoKeptAs = alsoKeptAs
    }

    /// A key other than its own that a copy of a run may have: a TCX says what recorded it after
    /// its laps, so a copy cut off before that has none.
    public enum CopyKey: Equatable, Sendable {
        /// Any device whose key begins so ("tcx ": a TCX that named what recorded it).
        case deviceStartingWith(String)
        /// This device, read from a damaged file.
        case damaged(device: String)
    }
}

extension SessionStore {
    /// The session an activity with this start and device was imported as, if one was.
    public func importedSession(startedAt: String, device: String) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT session_id FROM imported_activity WHERE started_at = ? AND device = ?",
                arguments: [startedAt, device])
        }
    }

    /// The session a copy of a run of this start was imported as under `key`.
    public func importedSession(startedAt: String, keptAs key: ActivityOrigin.CopyKey) throws(StoreError) -> Int64? {
        try read { db in try Self.importedSession(db, startedAt: startedAt, keptAs: key) }
    }

    private static func importedSession(_ db: Database, startedAt: String, keptAs key: ActivityOrigin.CopyKey) throws -> Int64? {
        switch key {
        case .deviceStartingWith(let prefix):
            try Int64.fetchOne(
                db,
                sql: "SELECT session_id FROM imported_activity WHERE started_at = ? AND substr(device, 1, ?) = ? ORDER BY session_id LIMIT 1",
                arguments: [startedAt, prefix.count, prefix])
        case .damaged(let device):
            try Int64.fetchOne(
                db, sql: "SELECT session_id FROM imported_activity WHERE started_at = ? AND device = ? AND damaged ORDER BY session_id LIMIT 1",
                arguments: [startedAt, device])
        }
    }

    /// Whether an imported session was read from a damaged file (v8).
    public func importedFromDamagedFile(session id: Int64) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT damaged FROM imported_activity WHERE session_id = ?", arguments: [id]) ?? false
        }
    }

    /// The id the next session saved will have at the least: more than any saved so far.
    public func nextSessionID() throws(StoreError) -> Int64 {
        try read { db in (try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM session") ?? 0) + 1 }
    }

    /// The file an imported session was read from.
    public func importedFile(session id: Int64) throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT file FROM imported_activity WHERE session_id = ?", arguments: [id]) }
    }

    /// The first session of any source that started at `startedAt` (UTC, to the second) and
    /// lasted `duration` seconds, give or take `sameRunTolerance`: the session an export of this
    /// store's comes back as. The start alone matched another run that began in that second
    /// (replays from a script all do), and the file was skipped for good.
    /// `pauses`: how many the run holds, each stopped and started on whole seconds in a FIT or
    /// TCX export (a pause of 4.8 s was 4, and a session with three came back as another run).
    public func session(startedAt: String, lasting duration: Double, pauses: Int = 0) throws(StoreError) -> Int64? {
        try read { db in try Self.session(db, startedAt: startedAt, lasting: duration, pauses: pauses) }
    }

    /// An export rounds the session's duration (a FIT file's timer to the millisecond, a
    /// recording's last line to its reading): a second either way is the same run; and each
    /// of its pauses a second more.
    public static let sameRunTolerance = 1.5

    private static func session(_ db: Database, startedAt: String, lasting duration: Double, pauses: Int) throws -> Int64? {
        try Int64.fetchOne(
            db, sql: "SELECT id FROM session WHERE started_at = ? AND abs(duration_s - ?) <= ? ORDER BY id LIMIT 1",
            arguments: [startedAt, duration, sameRunTolerance + Double(pauses)])
    }

    /// Stores an imported run as a finished session, in one transaction: its row (source
    /// `imported`, the watch's start time), devices, notifications, the source's end, samples
    /// and scored step, and where it came from. Returns the new session's id, or nil when an
    /// activity with the same start and device is already there, or with `exportedHere`, a
    /// session of the same start and length (nothing is written): checked in the write's own
    /// transaction, so that the FIT and the TCX of one export, read side by side, are not both
    /// kept.
    public func saveImported(
        _ run: ImportedRun, origin: ActivityOrigin, planName: String, planText: String, devices: [RecordedDevice],
        entries: [RecordingEntry], exportedHere: Bool = false
    ) throws(StoreError) -> Int64? {
        try write { db in
            let taken = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM imported_activity WHERE started_at = ? AND device = ?",
                arguments: [origin.startedAt, origin.device])
            guard taken != true else { return nil }
            if let key = origin.alsoKeptAs, try Self.importedSession(db, startedAt: origin.startedAt, keptAs: key) != nil { return nil }
            if exportedHere, try Self.session(db, startedAt: origin.startedAt, lasting: run.summary.duration.seconds, pauses: run.pauses) != nil {
                return nil
            }
            var row = SessionRow(
                id: nil, startedAt: origin.startedAt, planName: planName, planJson: planText,
                source: SessionSourceKind.imported.rawValue, status: SessionStatus.finished.rawValue, owner: nil,
                lastTimeUs: run.summary.duration.microseconds)
            var listing = row.listing
            listing.take(run.summary)
            row.take(listing)
            try row.insert(db)
            let id = row.id!
            for (position, device) in devices.enumerated() {
                try DeviceRow(sessionId: id, position: position, device).insert(db)
            }
            for (seq, entry) in entries.enumerated() {
                try NotificationRow(sessionId: id, seq: seq, entry).insertFast(db)
            }
            for (seq, control) in run.controls.enumerated() {
                try ControlRow(sessionId: id, seq: seq, control).insert(db)
            }
            for sample in run.samples {
                try SampleRow(sessionId: id, sample).insertFast(db)
            }
            for result in run.summary.steps {
                try StepResultRow(sessionId: id, result).insert(db)
            }
            try db.execute(
                sql: "INSERT INTO imported_activity (session_id, started_at, device, file, damaged) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, origin.startedAt, origin.device, origin.file, origin.damaged])
            return id
        }
    }
}
