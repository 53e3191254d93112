#if canImport(Glibc)
import Glibc
#endif
import GRDB
public import IntervalProCore
public import IntervalProHistory
import IntervalProHRV
import IntervalProIO

/// What one commit adds to a running session: one transaction.
public struct StoreBatch: Sendable {
    public var entries: [RecordingEntry] = []
    /// Sequence number of the first entry (entries are numbered from 0 per session).
    public var firstEntrySequence = 0
    public var controls: [SessionControl] = []
    public var firstControlSequence = 0
    public var samples: [SessionSample] = []
    /// The latest session time the batch covers (for callers; the store derives it).
    public var lastTime = SessionTime.zero

    public init() {}

    public var isEmpty: Bool { entries.isEmpty && controls.isEmpty && samples.isEmpty }
}

/// The session history: one SQLite database (WAL mode, file mode 0600), migrated when
/// opened.
public final class SessionStore: Sendable {
    public let path: String
    /// Read and written through `read` and `write` alone (SessionStore+Access.swift).
    let queue: DatabaseQueue
    /// Opened read-only because the database cannot be written (listing still works).
    public let isReadOnly: Bool
    /// Seconds a write waits for another process's write to end, unless it says otherwise.
    let busyTimeout: Double

    /// Opens (creating if needed) the store at `path`. `syncEveryCommit` makes each commit
    /// reach the disk before it returns (for live sessions: power loss keeps all but the
    /// last second); otherwise commits survive a crash of the process, not of the machine.
    /// Pages the write-ahead log takes before it is folded into the store.
    static let checkpointPages = 128
    /// Bytes the write-ahead log is cut back to after a checkpoint, when it grew past them.
    static let walSizeLimit = 1 << 20

    /// `busyTimeout`: seconds a write waits for another process's write to end.
    public init(path: String, syncEveryCommit: Bool = false, busyTimeout: Double = 5) throws(StoreError) {
        self.path = path
        isReadOnly = false
        self.busyTimeout = busyTimeout
        // mkdir and open, not FileManager: its NSString paths kept 1.3 MB more of Foundation's
        // code resident in every saved session (a live `run`: 20.8 against 19.5 MB peak RSS).
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        do throws(FileError) {
            if !directory.isEmpty { try FileIO.makeDirectories(directory) }
        } catch {
            throw StoreError(path: path, reason: "cannot create it: \(error)", isWriteRefused: true)
        }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        // The write-ahead log folded into the store every 128 pages (512 KiB), not SQLite's 1,000,
        // and cut back to 1 MiB when it has grown past: a session of 450 KB grew it to 3-4 MB,
        // so a disk with 3 MB free cut the session off at 4:23 of 28:00, and the log kept the
        // room that would have saved the rest.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.checkpointPages)")
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        }
        // Processes opening the store at once take turns until it is in WAL mode and migrated:
        // switching to WAL does not wait for a busy database, and GRDB reads which migrations
        // ran outside the transactions that run them, so two first opens would both migrate.
        let turn = Self.takeTurn(in: directory.isEmpty ? "." : directory)
        defer { if turn >= 0 { close(turn) } }
        // Created private before SQLite opens it: SQLite gives the -wal and -shm files the
        // database file's mode. Only where there is none: closing a descriptor of a file that
        // is there drops every fcntl lock this process holds on it, SQLite's connections'
        // too (POSIX locks belong to the process), and another process's connection, finding
        // itself the last, checkpointed and deleted the write-ahead log a session in the web
        // server was still writing: a page's history read during a run lost every session.
        let created = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 {
            close(created)
        } else if errno != EEXIST {
            throw StoreError(path: path, reason: "cannot create it: \(String(cString: strerror(errno)))", isWriteRefused: true)
        } else if let tables = Self.foreignTables(path), !tables.isEmpty {
            // Another program's database: migrating would add ten tables to it and turn it to
            // WAL, as a mistyped --db did.
            var error = StoreError(
                path: path,
                reason: "an SQLite database of another program (tables \(tables.prefix(3).joined(separator: ", "))\(tables.count > 3 ? ", …" : "")), not an IntervalPro store; left as it is")
            error.isNotAStore = true
            throw error
        }
        Self.makeJournalsWritable(path)
        do {
            queue = try DatabaseQueue(path: Self.fileName(path), configuration: configuration)
            // After the queue is open: GRDB's WAL set-up says NORMAL after any prepareDatabase,
            // and a live session's commits were never synced until its end (a power cut lost
            // what the docs say it keeps).
            if syncEveryCommit { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") } }
            try Schema.migrator.migrate(queue)
        } catch {
            throw StoreError(path: path, error)
        }
    }

    /// An empty store in memory, read in place of `path` where no store was ever made: a
    /// command that only reads leaves no file behind. Read-only, as there is nowhere to keep
    /// what would be written.
    public init(emptyInPlaceOf path: String) throws(StoreError) {
        self.path = path
        isReadOnly = true
        busyTimeout = 5
        do {
            queue = try DatabaseQueue()
            try Schema.migrator.migrate(queue)
        } catch {
            throw StoreError(path: path, error)
        }
    }

    /// Opens an existing store only to read it: for listing a database that cannot be
    /// written (read-only file or disk). Fails if it has not been migrated to this version.
    public init(readingOnly path: String) throws(StoreError) {
        self.path = path
        isReadOnly = true
        busyTimeout = 5
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        func opened(_ name: String) throws -> DatabaseQueue {
            let queue = try DatabaseQueue(path: name, configuration: configuration)
            guard try queue.read({ db in try Schema.migrator.hasCompletedMigrations(db) }) else {
                // Made and never written (its first migration failed on a full disk): it holds
                // nothing, as no store at all would. It was said to need an upgrade, to be copied.
                if try queue.read({ db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 }) == 0 {
                    let empty = try DatabaseQueue()
                    try Schema.migrator.migrate(empty)
                    return empty
                }
                throw StoreError(
                    path: path,
                    reason: "the database is read-only and needs an upgrade this version makes: "
                        + "copy it where it can be written and read the copy (--db COPY)")
            }
            return queue
        }
        do {
            do {
                queue = try opened(Self.fileName(path))
            } catch let error as DatabaseError where Self.inAFolderNotWritten(path) {
                // WAL reads through a -shm file beside the store, which a folder that may not be
                // written (a read-only mount, a backup, another user's) cannot hold: the store
                // could not be read at all ("the database is read-only"). With nothing in its
                // -wal, the file alone is the whole store, opened as one that cannot change.
                guard Self.walIsEmpty(path) else { throw error }
                queue = try opened("file:\(Self.uriPath(path))?immutable=1")
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(path: path, error)
        }
    }

    // MARK: - Writing a session

    /// Starts a session row (status `running`, owned by `owner`) and returns its id.
    public func beginSession(
        startedAt: String, planName: String, planText: String, source: SessionSourceKind, devices: [RecordedDevice],
        owner: String
    ) throws(StoreError) -> Int64 {
        try write { db in
            var row = SessionRow(
                id: nil, startedAt: startedAt, planName: planName, planJson: planText, source: source.rawValue,
                status: SessionStatus.running.rawValue, owner: owner, lastTimeUs: 0)
            try row.insert(db)
            let id = row.id!
            for (position, device) in devices.enumerated() {
                try DeviceRow(sessionId: id, position: position, device).insert(db)
            }
            return id
        }
    }

    /// Adds what a running session received since the last commit, in one transaction,
    /// waiting `seconds` for another process's write (nil: the store's wait).
    public func save(_ batch: StoreBatch, session id: Int64, waiting seconds: Double? = nil) throws(StoreError) {
        try write(waiting: seconds) { db in
            for (offset, entry) in batch.entries.enumerated() {
                try NotificationRow(sessionId: id, seq: batch.firstEntrySequence + offset, entry).insertFast(db)
            }
            for (offset, control) in batch.controls.enumerated() {
                try ControlRow(sessionId: id, seq: batch.firstControlSequence + offset, control).insert(db)
            }
            for sample in batch.samples {
                try SampleRow(sessionId: id, sample).insertFast(db)
            }
        }
    }

    /// Writes the scored steps and the listing figures, and marks the session `status`.
    public func finish(session id: Int64, summary: SessionSummary, status: SessionStatus) throws(StoreError) {
        try write { db in try Self.finish(db, id: id, summary: summary, status: status) }
    }

    private static func finish(_ db: Database, id: Int64, summary: SessionSummary, status: SessionStatus) throws {
        guard var row = try SessionRow.fetchOne(db, key: id) else { return }
        try StepResultRow.filter(Column("session_id") == id).deleteAll(db)
        for result in summary.steps { try StepResultRow(sessionId: id, result).insert(db) }
        var listing = row.listing
        listing.take(summary)
        row.take(listing)
        row.status = status.rawValue
        row.owner = nil
        row.lastTimeUs = max(row.lastTimeUs, summary.duration.microseconds)
        try row.update(db)
    }

    // MARK: - Interrupted sessions

    /// Whether any session is still marked running (being recorded, or cut off by a crash).
    public func hasRunningSessions() throws(StoreError) -> Bool {
        // Plain SQL: the query interface's first use costs a read command about a
        // millisecond of run-time type lookups at start-up.
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM session WHERE status = ?)",
                arguments: [SessionStatus.running.rawValue]) ?? false
        }
    }

    /// The sessions another process still running records (its `owner`, not `owner`), of
    /// `source` when given: a server's page may not start one beside it, which would take its
    /// sensors, and a live run may not start beside another's live session.
    public func sessionsRunning(
        elsewhereThan owner: String, from source: SessionSourceKind? = nil, isRunning: (String) -> Bool
    ) throws(StoreError) -> [Int64] {
        let running = try read { db in
            try SessionRow.filter(Column("status") == SessionStatus.running.rawValue).fetchAll(db)
        }
        return running.compactMap { row in
            guard let other = row.owner, other != owner, source.map({ $0.rawValue == row.source }) ?? true, isRunning(other)
            else { return nil }
            return row.id
        }
    }

    /// Closes the sessions left `running` by a process that is gone: each is scored from
    /// its stored notifications up to the last second saved and marked `interrupted`.
    /// Returns their listings.
    public func closeInterruptedSessions(isRunning: (String) -> Bool) throws(StoreError) -> [SessionListing] {
        let running = try read { db in
            try SessionRow.filter(Column("status") == SessionStatus.running.rawValue).fetchAll(db)
        }
        var closed: [SessionListing] = []
        for row in running where !(row.owner.map(isRunning) ?? false) {
            // A plan this version cannot read (a later version's, whose session was cut off):
            // left as it is, for a version that reads it. Refused, it refused every command
            // that opens the store, and saved no new session.
            guard (try? PlanDecoder.decode(Array(row.planJson.utf8), file: "plan")) != nil else { continue }
            if let listing = try closeAsInterrupted(row) { closed.append(listing) }
        }
        return closed
    }

    /// Closes a session its own process gave up saving (the disk was full when it ended) as
    /// interrupted, scored up to what was saved, though that process still runs (a server):
    /// nothing else would, while it lives. Nil when the session is not running.
    public func closeAbandoned(session id: Int64) throws(StoreError) -> SessionListing? {
        guard let row = try read({ db in try SessionRow.fetchOne(db, key: id) }), row.status == SessionStatus.running.rawValue
        else { return nil }
        return try closeAsInterrupted(row)
    }

    private func closeAsInterrupted(_ row: SessionRow) throws(StoreError) -> SessionListing? {
        guard let id = row.id, let session = try session(id: id) else { return nil }
        let reached = try read { db in try Self.timeReached(db, id: id) }
        let summary = session.replayedSummary(interruptedAt: SessionTime(microseconds: max(row.lastTimeUs, reached)))
        try write { db in
            // Checked again inside the transaction: another process may have closed it.
            guard try SessionRow.fetchOne(db, key: id)?.status == SessionStatus.running.rawValue else { return }
            try Self.finish(db, id: id, summary: summary, status: .interrupted)
        }
        return try listing(id: id)
    }

    /// The latest session time a session's saved rows show it reached: its last sample's
    /// second (sampled once the session went past it), notification or control. Derived
    /// rather than kept up to date, so a commit writes no more than the new rows.
    private static func timeReached(_ db: Database, id: Int64) throws -> Int64 {
        try Int64.fetchOne(
            db,
            sql: """
                SELECT MAX(t) FROM (
                    SELECT MAX(second) * 1000000 AS t FROM sample WHERE session_id = ?1
                    UNION ALL SELECT MAX(time_us) FROM notification WHERE session_id = ?1
                    UNION ALL SELECT MAX(time_us) FROM control WHERE session_id = ?1)
                """, arguments: [id]) ?? 0
    }

    // MARK: - Reading

    /// The newest sessions first, by start time: an imported run sits among the sessions of
    /// its day, not where it was imported.
    public func listings(limit: Int? = nil, skipping offset: Int = 0) throws(StoreError) -> [SessionListing] {
        // Plain SQL, as in hasRunningSessions: `history` starts sooner.
        let page = "SELECT * FROM session ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?"
        let arguments: StatementArguments = [limit ?? -1, max(0, offset)]
        let (rows, simulators) = try read { db in
            (
                try SessionRow.fetchAll(db, sql: page, arguments: arguments),
                try Self.simulatorsSessions(db, among: "SELECT id FROM (\(page))", arguments: arguments)
            )
        }
        return rows.map { listingAsKept($0, simulators: simulators) }
    }

    /// Of the sessions whose ids `query` selects, those whose devices are all the simulator's
    /// (`areAllSimulators`): replays of the bundled recordings, say, whose source is `replay`.
    private static func simulatorsSessions(_ db: Database, among query: String, arguments: StatementArguments) throws -> Set<Int64> {
        let rows = try DeviceRow.fetchAll(db, sql: "SELECT * FROM device WHERE session_id IN (\(query))", arguments: arguments)
        return Set(Dictionary(grouping: rows, by: \.sessionId).filter { $0.value.map(\.device).areAllSimulators }.keys)
    }

    /// A row's listing; in a store that cannot be written, a session its dead process left
    /// running is listed as the next write will keep it, interrupted and scored (`history`
    /// listed it running, without figures, where `show` said interrupted).
    private func listingAsKept(_ row: SessionRow, simulators: Set<Int64>) -> SessionListing {
        var listing = row.listing
        if isReadOnly, row.status == SessionStatus.running.rawValue, let id = row.id,
            !(row.owner.map(ProcessIdentity.isRunning) ?? false),
            let kept = try? session(id: id, loading: [], isRunning: ProcessIdentity.isRunning)
        {
            listing = kept.listing
        }
        listing.simulatorsSensors = row.id.map(simulators.contains) ?? false
        return listing
    }

    /// How many sessions the store holds.
    public func sessionCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session") ?? 0 }
    }

    /// Sessions started at or after `startedAt` (ISO 8601 UTC), oldest first.
    public func listings(since startedAt: String) throws(StoreError) -> [SessionListing] {
        let (rows, simulators) = try read { db in
            (
                try SessionRow.filter(Column("started_at") >= startedAt).order(Column("started_at"), Column("id")).fetchAll(db),
                try Self.simulatorsSessions(db, among: "SELECT id FROM session WHERE started_at >= ?", arguments: [startedAt])
            )
        }
        return rows.map { listingAsKept($0, simulators: simulators) }
    }

    public func listing(id: Int64) throws(StoreError) -> SessionListing? {
        try read { db in try SessionRow.fetchOne(db, key: id)?.listing }
    }

    /// The session started last (the last saved among those started in the same second), of
    /// those started no later than `latestStart` when there are any: a run a watch dated 2028,
    /// or one saved while the clock was ahead, was `last` for good.
    public func lastSessionID(startedNoLaterThan latestStart: String? = nil) throws(StoreError) -> Int64? {
        try read { db in
            if let latestStart,
                let id = try Int64.fetchOne(
                    db, sql: "SELECT id FROM session WHERE started_at <= ? ORDER BY started_at DESC, id DESC LIMIT 1",
                    arguments: [latestStart])
            {
                return id
            }
            return try Int64.fetchOne(db, sql: "SELECT id FROM session ORDER BY started_at DESC, id DESC LIMIT 1")
        }
    }

    /// What to load of a session beside its summary: samples and notifications are many
    /// thousands of rows, read only by the commands that need them.
    public struct Parts: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let samples = Parts(rawValue: 1)
        /// Notifications, device events and controls.
        public static let entries = Parts(rawValue: 2)
        /// Alpha 1 of the samples' beats: the windows, and the summary's `hrv`. Computed
        /// from the samples, not stored, so only for what shows them (an hour's windows take
        /// tens of milliseconds; a FIT export needs the beats alone).
        public static let alphaOne = Parts(rawValue: 4)
        public static let all: Parts = [.samples, .entries, .alphaOne]
    }

    /// A session with the `parts` asked for (the others left empty), or nil when there is
    /// none with this id.
    ///
    /// With `isRunning`, a session still marked running whose process is gone (`owner` not
    /// running) is read as the next write will keep it: interrupted, scored up to what was
    /// saved. A store that cannot be written (a full disk, a card remounted read-only after a
    /// power cut) keeps it marked running, and its export and report were refused as "still
    /// running" for as long as the store stayed so.
    ///
    /// A stored plan that does not decode is an error, but for `.entries` alone (a recording
    /// export): the session then comes without its timeline and summary.
    public func session(id: Int64, loading parts: Parts = .all, isRunning: ((String) -> Bool)? = nil) throws(StoreError)
        -> StoredSession?
    {
        let path = self.path
        let rows = try read { db -> (SessionRow, [DeviceRow], [StepResultRow], [SampleRow], [NotificationRow], [ControlRow], SessionTime?)? in
            guard let row = try SessionRow.fetchOne(db, key: id) else { return nil }
            var cutOffAt: SessionTime?
            if row.status == SessionStatus.running.rawValue, let isRunning, !(row.owner.map(isRunning) ?? false) {
                cutOffAt = SessionTime(microseconds: max(row.lastTimeUs, try Self.timeReached(db, id: id)))
            }
            let parts = cutOffAt == nil ? parts : parts.union(.entries)
            let byID = Column("session_id") == id
            return (
                row,
                try DeviceRow.filter(byID).order(Column("position")).fetchAll(db),
                try StepResultRow.filter(byID).order(Column("step_index")).fetchAll(db),
                !parts.isDisjoint(with: [.samples, .alphaOne])
                    ? try SampleRow.fetchAll(
                        db, sql: "SELECT * FROM sample WHERE session_id = ? ORDER BY second", arguments: [id]) : [],
                parts.contains(.entries)
                    ? try NotificationRow.fetchAll(
                        db, sql: "SELECT * FROM notification WHERE session_id = ? ORDER BY seq", arguments: [id]) : [],
                parts.contains(.entries) ? try ControlRow.filter(byID).order(Column("seq")).fetchAll(db) : [],
                cutOffAt
            )
        }
        guard let (row, devices, steps, samples, notifications, controls, cutOffAt) = rows else { return nil }
        let plan: Plan?
        do {
            plan = try PlanDecoder.decode(Array(row.planJson.utf8), file: "session \(id) plan")
        } catch {
            // Its recording rests on no plan: a session whose plan was lost (kept empty when it
            // came on standard input) still gives its entries, and its way back is said.
            guard parts == .entries else {
                var unreadable = StoreError(
                    path: path,
                    reason: "the stored plan of session \(id) does not decode: \(error); its recording can still be exported "
                        + "(`intervalpro export \(id) --format jsonl -o FILE`) and replayed with its plan (`intervalpro replay FILE --plan PLAN`)")
                unreadable.isUnreadablePlan = true
                throw unreadable
            }
            plan = nil
        }
        let timeline = plan?.timeline() ?? []
        var listing = row.listing
        listing.simulatorsSensors = devices.map(\.device).areAllSimulators
        var summary: SessionSummary?
        if plan != nil, let cutOffAt {
            let cutOff = StoredSession(
                listing: listing, planText: row.planJson, timeline: timeline, devices: devices.map(\.device), summary: nil,
                samples: [], entries: notifications.map(\.entry), controls: controls.compactMap(\.control))
            summary = cutOff.replayedSummary(interruptedAt: cutOffAt)
            listing.status = .interrupted
            listing.take(summary!)
        } else if plan != nil, listing.status != .running {
            let results = steps.filter { $0.stepIndex < timeline.count }.map { $0.result(step: timeline[$0.stepIndex]) }
            summary = SessionSummary(
                plan: row.planName, source: listing.source, steps: results, completed: row.completed ?? false)
        }
        let loadedSamples = samples.map(\.sample)
        // Alpha 1 from the beats kept with the samples, as the tracker computed it live; cut
        // into pieces on the machine's cores.
        let alphaOne =
            parts.contains(.alphaOne)
            ? AlphaOneTracker.analyse(loadedSamples, parts: Cores.online, perform: Cores.perform)
            : (windows: [], summary: nil)
        summary?.hrv = alphaOne.summary
        var session = StoredSession(
            listing: listing, planText: row.planJson, timeline: timeline, devices: devices.map(\.device),
            summary: summary, samples: loadedSamples, entries: notifications.map(\.entry),
            controls: controls.compactMap(\.control))
        session.alphaWindows = alphaOne.windows
        return session
    }

    /// What `delete(id:)` did.
    public enum Deletion: Equatable, Sendable {
        case deleted
        case noSuchSession
        /// The session is being recorded (a process that is not gone holds it): deleting it
        /// would lose what it records from then on, since its rows could no longer be written.
        case running
    }

    /// Deletes a session and all it holds, unless it is running: one check for the command
    /// line and the page, in the transaction that deletes.
    public func delete(id: Int64) throws(StoreError) -> Deletion {
        try write { db in
            guard let row = try SessionRow.fetchOne(db, key: id) else { return .noSuchSession }
            guard row.status != SessionStatus.running.rawValue else { return .running }
            try row.delete(db)
            return .deleted
        }
    }
}
