import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The files around opening a store: its name as SQLite takes it, its journals' modes, a
/// database of another program, and the turn processes take to open it.
extension SessionStore {
    /// `path` as SQLite opens it: a name starting "file:" is read as a URI, and `--db
    /// file:runs.sqlite` saved to runs.sqlite, of mode 0644, where `history --db
    /// file:runs.sqlite` found none.
    static func fileName(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// A read of the store while it could not be written (mode 0400) leaves its -wal and -shm
    /// of that mode, which SQLite gives them from the store; once the store may be written
    /// again, every save failed as "read-only" while the store itself looked writable. This
    /// process's own, they are given the store's mode back.
    static func makeJournalsWritable(_ path: String) {
        var store = stat()
        guard stat(path, &store) == 0, access(path, W_OK) == 0 else { return }
        for journal in [path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(journal, &info) == 0, info.st_uid == getuid(), access(journal, W_OK) != 0 else { continue }
            chmod(journal, store.st_mode & 0o666)
        }
    }

    /// The tables of an SQLite database at `path` that is not an IntervalPro store (has tables,
    /// but not the migrations' own); empty for a store or a database with no tables, nil when
    /// it cannot be read as one (the open that follows says why).
    static func foreignTables(_ path: String) -> [String]? {
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: fileName(path), configuration: configuration),
            let tables = try? queue.read({ db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            })
        else { return nil }
        return tables.contains("grdb_migrations") ? [] : tables.sorted()
    }

    /// An exclusive flock(2) on the store's folder (a lock of its own kind, apart from
    /// SQLite's fcntl locks on the database files); released when the descriptor is closed.
    /// -1 when the folder cannot be opened: then the open goes ahead without a turn.
    static func takeTurn(in directory: String) -> Int32 {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return -1 }
        while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        return descriptor
    }
}
