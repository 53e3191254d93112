import GRDB

extension SessionStore {
    /// Gives the pages deleted sessions held back to the disk, when they are a quarter of the
    /// store and a megabyte at least: SQLite keeps them for later sessions, and a runner who
    /// deleted a hundred runs to make room on a Pi's card got no byte back. Not while a session
    /// runs (VACUUM holds the store for seconds); a store that cannot be compacted now (a
    /// nearly full disk: VACUUM writes a copy) stays as it is, its free pages used by the next
    /// sessions. Returns the bytes given back.
    @discardableResult
    public func compactIfMostlyFree() -> Int64 {
        func pages(_ db: Database) throws -> (free: Int64, total: Int64, size: Int64) {
            (
                try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0, try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            )
        }
        do {
            guard try !hasRunningSessions() else { return 0 }
            let before = try queue.read(pages)
            guard before.free * before.size >= 1 << 20, before.free * 4 >= before.total else { return 0 }
            let after = try queue.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                // The copy went through the write-ahead log: truncated, or it keeps the bytes.
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                return try pages(db)
            }
            return max(0, (before.total - after.total) * before.size)
        } catch {
            return 0
        }
    }
}
