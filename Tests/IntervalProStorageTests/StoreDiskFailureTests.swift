import Foundation
import GRDB
import IntervalProCore
import IntervalProHistory
import IntervalProRuntime
import Testing

@testable import IntervalProStorage

/// The store when its disk fails it: full for a moment (a download finishing beside a run on a
/// Pi's SD card stopped saving for the rest of the session: 79 s kept of 240), remounted
/// read-only after a power cut, a page damaged.
@Suite("a full, read-only or damaged disk")
struct StoreDiskFailureTests {
    @Test("a live session's store syncs every commit (FULL), a replay's only at checkpoints (NORMAL)")
    func aLiveSessionsStoreSyncsEveryCommit() throws {
        // GRDB's WAL set-up said NORMAL after the store's own FULL: a power cut mid-run lost
        // every second since the last checkpoint, where the docs promise the last one at most.
        let directory = try StoreDirectory()
        let live = try SessionStore(path: directory.path + "/live.sqlite", syncEveryCommit: true)
        let replayed = try SessionStore(path: directory.path + "/replay.sqlite")
        #expect(try live.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
        #expect(try replayed.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 1)
    }

    /// A store copied while it was written held a session's rows without the session: the next
    /// session took its id, and every run and import after was refused with "UNIQUE constraint
    /// failed" (74), each imported file blamed for it.
    @Test("rows of a session the store does not hold: the store is said to be damaged, not a constraint")
    func rowsWithoutTheirSessionAreDamage() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/torn.sqlite")
        func begin() throws(StoreError) -> Int64 {
            try store.beginSession(
                startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
                devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        }
        let id = try begin()
        try store.queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id])
            // The copy's page of ids handed out is older than its pages of rows.
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = 0 WHERE name = 'session'")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let refused = #expect(throws: StoreError.self) { try begin() }
        #expect(refused?.isNotAStore == true, "\(String(describing: refused))")
        #expect(refused?.reason.hasPrefix("the database is damaged (rows of a session it does not hold, in its table device)") == true,
                "\(String(describing: refused))")
    }

    /// A hundred runs deleted of 250 (34 MB of the store's 87) gave no byte back: SQLite keeps
    /// the pages for later sessions.
    @Test("pages of deleted sessions go back to the disk once they are a quarter of the store")
    func deletedSessionsGiveTheirRoomBack() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/big.sqlite")
        var ids: [Int64] = []
        for run in 0..<4 {
            let id = try store.beginSession(
                startedAt: "2026-03-0\(run + 1)T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
                devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
            try store.write { db in
                for seq in 0..<400 {
                    try db.execute(
                        sql: "INSERT INTO notification (session_id, seq, time_us, device, characteristic, value) VALUES (?, ?, ?, 'pod', '2a53', ?)",
                        arguments: [id, seq, seq * 250_000, Data(repeating: UInt8(seq % 251), count: 2_000)])
                }
                try db.execute(sql: "UPDATE session SET status = 'finished' WHERE id = ?", arguments: [id])
            }
            ids.append(id)
        }
        func pages() throws -> Int { try store.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 } }
        #expect(try store.delete(id: ids[0]) == .deleted)
        #expect(store.compactIfMostlyFree() == 0, "a quarter of the store is free, not more: kept for later sessions")
        let full = try pages()
        #expect(try store.delete(id: ids[1]) == .deleted)
        let freed = store.compactIfMostlyFree()
        let left = try pages()
        #expect(freed > 1_000_000 && left < full * 3 / 4, "\(freed) bytes given back, \(left) pages of \(full)")
        #expect(try store.listings().map(\.id) == [ids[3], ids[2]])
        let file = try FileManager.default.attributesOfItem(atPath: directory.path + "/big.sqlite")[.size] as? Int ?? 0
        #expect(file < full * 4096 * 3 / 4, "the file itself is smaller: \(file) bytes")
    }

    /// A session of 450 KB grew the write-ahead log to 3-4 MB (SQLite folds it in every 1,000
    /// pages): on a disk with 3 MB free the session was cut off at 4:23 of 28:00, and the log
    /// kept the room.
    @Test("a 70-minute session's write-ahead log stays near half a megabyte")
    func theWriteAheadLogStaysSmall() throws {
        let session = try RunningSession(seconds: 4_200, busyTimeout: 5)
        var largest: Int64 = 0
        for second in 0..<4_200 {
            session.run(second: second)
            var info = stat()
            if stat(session.path + "-wal", &info) == 0 { largest = max(largest, Int64(info.st_size)) }
        }
        #expect(largest > 0 && largest <= 1 << 20, "the -wal file reached \(largest) bytes")
        #expect(try session.store.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sample") } == 4_200)
    }

    @Test("a full disk holds the session in memory, saved whole once there is room, said both times")
    func aFullDiskHoldsTheSessionUntilThereIsRoom() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        var warnings: [StoreError] = []
        var notes: [String] = []
        let writer = SessionWriter(store: store, sessionID: id, warn: { warnings.append($0) }, note: { notes.append($0) })
        var recorder = SessionRecorder(writer: writer)
        let engine = SessionEngine(plan: try PlanDecoder.decode(Array(plan.utf8), file: "plan"), source: .replay)
        // Enough readings a second that each second needs pages of its own.
        let perSecond = 400
        func second(_ second: Int) {
            for k in 0..<perSecond { recorder.received(notification(Double(second) + Double(k) / Double(perSecond), 80)) }
            let sample = SessionSample(
                second: second, stepIndex: 0, rawCadence: 80, cadence: 80, heartRate: nil, speed: nil, distance: nil,
                zoneStatus: .below)
            recorder.engine(engine, performed: [.sample(sample)], at: .seconds(Double(second) + 1))
        }

        // SQLite's own limit on the file's pages: its writes fail as on a full disk (SQLITE_FULL).
        let pages = try store.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 }
        try store.write { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
        for s in 0..<3 { second(s) }
        #expect(writer.failure == nil)
        #expect(warnings.isEmpty)
        #expect(notes.count == 1 && notes.first?.contains("the disk is full") == true, "\(notes)")
        #expect(try store.session(id: id)?.samples.isEmpty == true)

        // Room again: the next second's commit saves all that was held.
        try store.write { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
        second(3)
        #expect(notes.count == 2 && notes.last?.contains("saving again") == true, "\(notes)")
        let stored = try #require(try store.session(id: id))
        #expect(stored.samples.map(\.second) == [0, 1, 2, 3])
        #expect(stored.entries.count == 4 * perSecond)
        #expect(writer.savedThrough >= .seconds(3), "\(writer.savedThrough)")
        #expect(warnings.isEmpty)
    }

    /// A store that cannot be written keeps a cut-off session marked running: its export and
    /// report were refused as "still running" for as long as the store stayed so.
    @Test("a session a dead process left running is read as interrupted, scored to its last saved time, unwritten")
    func aCutOffSessionIsReadAsInterrupted() throws {
        let (directory, store, id) = try storeWithACutOffSession()

        #expect(try store.session(id: id, loading: .samples, isRunning: { $0 == "process-1" })?.summary == nil, "its process runs")
        let read = try #require(try store.session(id: id, loading: .samples, isRunning: { _ in false }))
        #expect(read.listing.status == .interrupted)
        #expect(read.summary?.duration == .seconds(13.5), "up to the last notification saved")
        #expect(read.summary?.steps.first?.inZone == .seconds(10))
        // Read, not written: the store still says running until it can be written.
        #expect(try store.listing(id: id)?.status == .running)
        // A store that cannot be written lists it so too (`history` said running, no figures).
        let readOnly = try SessionStore(readingOnly: directory.path + "/h.sqlite")
        let listed = try #require(try readOnly.listings().first)
        #expect(listed.status == .interrupted && listed.duration == 13.5, "\(listed)")
        #expect(try readOnly.listings(since: "2026-01-01T00:00:00Z").first?.status == .interrupted)
    }

    /// Its first page zeroed, the runner's own history was "not an IntervalPro database", as
    /// another program's file is: an invitation to delete it.
    @Test("a store whose header is zeros is said as damaged, with what to keep (another file stays not a store: notADatabase)")
    func aZeroedHeaderIsSaidAsDamage() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        do {
            let store = try SessionStore(path: path)
            _ = try store.beginSession(
                startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
                devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        handle.write(Data(repeating: 0, count: 100))
        try handle.close()
        #expect {
            _ = try SessionStore(path: path).listings()
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.isNotAStore && error.reason.hasPrefix("the database is damaged (its header is zeros")
                && error.reason.contains("keep a copy")
        }
    }

    /// One bad page (a card's error) read as "not an IntervalPro database (or damaged)", with
    /// no word of what could still be done.
    @Test("a damaged page is said as damage, with what may still be read and how to recover the rest")
    func aDamagedPageIsSaidAsDamage() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        do {
            let store = try SessionStore(path: path)
            let id = try store.beginSession(
                startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
                devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
            var batch = StoreBatch()
            batch.samples = (0..<3000).map {
                SessionSample(second: $0, stepIndex: 0, rawCadence: 80, cadence: 160, heartRate: 140, speed: 3, distance: Double($0) * 3, zoneStatus: .inZone)
            }
            batch.lastTime = .seconds(3000)
            try store.save(batch, session: id)
        }
        // Every page after the first few: the samples' pages among them.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        for page in stride(from: UInt64(8 * 4096), to: size, by: 4096) {
            try handle.seek(toOffset: page)
            handle.write(Data(repeating: 0xA5, count: 12))
        }
        try handle.close()
        #expect {
            _ = try SessionStore(path: path).session(id: 1, loading: .samples)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.isNotAStore && error.reason.hasPrefix("the database is damaged") && error.reason.contains(".recover")
        }
    }
}
