import Foundation
import GRDB
import GRDBSQLite

/// An INSERT run once per row on GRDB's cached statement, its values bound through SQLite's C
/// API: one function per C call, errors mapped by GRDB's `DatabaseError`.
enum RowInsert {
    /// Binds one row's values (1-based positions); nil binds NULL. Text and blobs are copied
    /// by SQLite (SQLITE_TRANSIENT), so they need not outlive the call.
    struct Binder {
        fileprivate let statement: SQLiteStatement

        func integer(_ position: Int32, _ value: Int64?) {
            guard let value else { return null(position) }
            sqlite3_bind_int64(statement, position, value)
        }

        func real(_ position: Int32, _ value: Double?) {
            guard let value else { return null(position) }
            sqlite3_bind_double(statement, position, value)
        }

        func text(_ position: Int32, _ value: String?) {
            guard let value else { return null(position) }
            sqlite3_bind_text(statement, position, value, -1, transient)
        }

        func blob(_ position: Int32, _ value: Data?) {
            guard let value else { return null(position) }
            value.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(statement, position, bytes.baseAddress, Int32(bytes.count), transient)
            }
        }

        private func null(_ position: Int32) {
            sqlite3_bind_null(statement, position)
        }
    }

    /// SQLite's SQLITE_TRANSIENT: copy the value now.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func run(_ db: Database, sql: String, bind: (Binder) -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        bind(Binder(statement: raw))
        let code = sqlite3_step(raw)
        sqlite3_reset(raw)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: sql)
        }
    }
}
