import GRDB
import IntervalProIO

/// A store operation that failed, said in the runner's words.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// The disk is full or the database cannot be written: saving should stop, not retry.
    public var isWriteRefused: Bool
    /// Another process held the database past the wait: a later try may succeed.
    public var isBusy = false
    /// The disk is full: a later try may succeed once there is room.
    public var isFull = false
    /// The file is no SQLite database, or a damaged one: bad data, not a failed write.
    public var isNotAStore = false
    /// A session's stored plan that this version cannot read (a later version's plan format):
    /// bad data in that session alone.
    public var isUnreadablePlan = false
    /// Bad data rather than a failed write: exit 65, not 74.
    public var isBadData: Bool { isNotAStore || isUnreadablePlan }

    public var description: String { "session store '\(path)': \(reason)" }

    init(path: String, reason: String, isWriteRefused: Bool = false) {
        self.path = path
        self.reason = reason
        self.isWriteRefused = isWriteRefused
    }

    init(path: String, _ error: any Error) {
        guard let error = error as? DatabaseError else {
            self.init(path: path, reason: "\(error)")
            return
        }
        switch error.resultCode {
        case .SQLITE_FULL:
            self.init(path: path, reason: "the disk is full", isWriteRefused: true)
            isFull = true
        case .SQLITE_READONLY where FileIO.folderIsReadOnly(at: path), .SQLITE_CANTOPEN where FileIO.folderIsReadOnly(at: path):
            // Read a moment before, the store was said not to open at all; and a writable file
            // in a folder that is not was "read-only", its owner left to chmod the file in vain.
            self.init(path: path, reason: "the database is read-only (its folder cannot be written)", isWriteRefused: true)
        case .SQLITE_READONLY: self.init(path: path, reason: "the database is read-only", isWriteRefused: true)
        case .SQLITE_CANTOPEN: self.init(path: path, reason: "cannot open the database file", isWriteRefused: true)
        case .SQLITE_IOERR where FileIO.fileSystemIsFull(at: path):
            // A full disk stops the shared-memory file growing: SQLite calls that an I/O error,
            // which sent the runner to a failing card, and nothing was held for later.
            self.init(path: path, reason: "the disk is full", isWriteRefused: true)
            isFull = true
        case .SQLITE_IOERR:
            self.init(
                path: path, reason: "the disk refused a write or read (\(error.message ?? "I/O error"))",
                isWriteRefused: true)
        case .SQLITE_NOTADB where FileIO.beginsWithZeros(path):
            // Its header zeroed, the runner's own history was called another program's file.
            // SQLite's `.recover` cannot read one without its header: a copy is what to keep.
            self.init(
                path: path,
                reason: "the database is damaged (its header is zeros, as a card's or a disk's error leaves it): "
                    + "keep a copy of the file, and restore the store from a backup if there is one")
            isNotAStore = true
        case .SQLITE_NOTADB:
            // A header written over (a card's error) was said the same way as a file of notes,
            // without the word a runner whose history it was needed.
            self.init(
                path: path,
                reason: "not an IntervalPro database (it has no SQLite header); if it was the store, its header is damaged: "
                    + "keep a copy of the file, and restore the store from a backup if there is one")
            isNotAStore = true
        case .SQLITE_CORRUPT:
            // One bad page (a card's or a disk's error) made a session unreadable with "not an
            // IntervalPro database" and no word of what could still be done.
            self = .damaged(path: path, error.message ?? "malformed")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self.init(path: path, reason: "the database is busy (another intervalpro holds it)")
            isBusy = true
        default: self.init(path: path, reason: error.message ?? "\(error)")
        }
    }

    /// A damaged database: what SQLite says of it, and what can still be done.
    static func damaged(path: String, _ detail: String) -> StoreError {
        var error = StoreError(
            path: path,
            reason: "the database is damaged (\(detail)): keep a copy of the file; "
                + "`intervalpro export N --format jsonl` may still read a session's readings, and "
                + "`sqlite3 FILE .recover | sqlite3 NEW` saves what the file still holds into a new store")
        error.isNotAStore = true
        return error
    }
}
