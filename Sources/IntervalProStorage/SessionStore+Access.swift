import GRDB

/// Every read and write of the store, its errors said in the runner's words.
extension SessionStore {
    /// `seconds`: how long this write waits for another process's to end (nil: the store's
    /// `busyTimeout`).
    func write<T>(waiting seconds: Double? = nil, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            guard let seconds else { return try queue.write(body) }
            return try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA busy_timeout = \(Int(seconds * 1000))")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(busyTimeout * 1000))") }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // A store copied while it was written can hold a new session's rows already: the
            // write was refused with "UNIQUE constraint failed", each run lost and each imported
            // file blamed. Nothing else breaks the store's constraints: what is wrong is said.
            if let damage = damage() { throw .damaged(path: path, damage) }
            throw StoreError(path: path, error)
        } catch {
            throw StoreError(path: path, error)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try queue.read(body)
        } catch {
            throw StoreError(path: path, error)
        }
    }

    /// What SQLite's own check finds wrong with the store (a page), or the rows it holds of a
    /// session it does not (a copy taken mid-write keeps them, and the next session collides).
    private func damage() -> String? {
        try? queue.read { db -> String? in
            if let check = try String.fetchOne(db, sql: "PRAGMA quick_check(1)"), check != "ok" {
                return check.split(whereSeparator: \.isNewline).joined(separator: "; ")
            }
            guard let row = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") else { return nil }
            return "rows of a session it does not hold, in its table \(row[0] as String? ?? "")"
        }
    }
}
