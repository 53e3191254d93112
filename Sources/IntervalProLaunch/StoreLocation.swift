public import IntervalProStorage
import IntervalProCore
public import IntervalProHistory
import IntervalProIO
import Logging

/// Where sessions are kept: a database file, or the data directory's.
public struct StoreLocation: Sendable {
    /// Nil: `$XDG_DATA_HOME/intervalpro/intervalpro.sqlite`.
    public var path: String?

    public init(path: String? = nil) {
        self.path = path
    }

    /// The database path: --db, else the data directory's intervalpro.sqlite.
    public func databasePath() throws -> String {
        if let path { return path }
        guard let directory = UserFolders.data else {
            throw LaunchError("no data directory: set XDG_DATA_HOME or HOME, or pass --db PATH", kind: .unavailable)
        }
        return "\(directory)/intervalpro.sqlite"
    }

    /// Why --db cannot be the store, whatever is in it: it names a folder (SQLite says only
    /// "disk I/O error" of one). A command that runs a session asks before it starts: after,
    /// a whole session went unsaved, with 74 where the other commands give 64 at once.
    public var folderRefusal: String? {
        guard let path, BundledFiles.isDirectory(path) else { return nil }
        return "'\(path)' is a folder, not a session store: --db takes the store's file (like \(path)/intervalpro.sqlite)"
    }

    /// The store, for a command that writes only to what is saved already (`upload` records its
    /// uploads): where nothing was ever saved, nothing is created (`upload --pending` on a fresh
    /// setup made an empty store).
    public func openSaved() throws -> SessionStore {
        try open(readingOnly: !BundledFiles.exists(try databasePath()))
    }

    /// Opens the store and closes the sessions a dead process left running. With
    /// `readingOnly`, a store that cannot be written is still opened to be read, and where
    /// there is none an empty one is read from memory.
    public func open(syncEveryCommit: Bool = false, readingOnly: Bool = false) throws -> SessionStore {
        let path = try databasePath()
        // A store in a folder that may not be searched (one `sudo intervalpro run` left) is
        // not "no sessions saved yet".
        if BundledFiles.isOutOfReach(path) {
            throw LaunchError(
                "cannot open '\(path)': Permission denied (its folder may not be read: was it made by another user, or with sudo?)",
                kind: .missingInput)
        }
        // SQLite said "cannot open the database file", or "read-only" where the folder is, 74.
        if BundledFiles.mayNotBeRead(path) {
            throw LaunchError(
                "cannot open '\(path)': Permission denied (was it made by another user, or with sudo?)", kind: .missingInput)
        }
        if let refusal = folderRefusal { throw LaunchError(refusal, kind: .usage) }
        // A device or a pipe (`--db /dev/null`) was read as a store "that needs an upgrade".
        if BundledFiles.exists(path), !FileIO.isRegularFile(path) {
            throw LaunchError("session store '\(path)': not a file, so not an IntervalPro database", kind: .invalidData)
        }
        // A read command where nothing was ever saved creates nothing: no file, no folder; and
        // an empty file stays one (`history --db notes.txt` made it a 90 KB database).
        if readingOnly, !BundledFiles.exists(path) || BundledFiles.isEmptyFile(path) {
            return try storeCall { () throws(StoreError) in try SessionStore(emptyInPlaceOf: path) }
        }
        // A read command on a store that is up to date and has no session marked running has
        // nothing to write: a read-only connection skips setting up WAL and checkpointing on
        // close (four fdatasyncs), which made `history` twice as slow to start as `plan check`.
        if readingOnly, BundledFiles.exists(path), let store = try? SessionStore(readingOnly: path),
            (try? store.hasRunningSessions()) == false
        {
            return store
        }
        let store: SessionStore
        switch Result(catching: { () throws(StoreError) in try SessionStore(path: path, syncEveryCommit: syncEveryCommit) }) {
        case .success(let opened):
            store = opened
        case .failure(let error) where readingOnly && error.isWriteRefused && BundledFiles.exists(path):
            return try storeCall { () throws(StoreError) in try SessionStore(readingOnly: path) }
        case .failure(let error):
            throw LaunchError(error.description, kind: error.isBadData ? .invalidData : .io)
        }
        let closed: [SessionListing]
        do throws(StoreError) {
            closed = try store.closeInterruptedSessions(isRunning: ProcessIdentity.isRunning)
        } catch where readingOnly && error.isWriteRefused {
            // A full disk or a file system gone read-only keeps a session cut off marked
            // running; the sessions are read all the same.
            logger.notice("\(error.reason): a session cut off is read as interrupted, and kept so once the store can be written")
            return try storeCall { () throws(StoreError) in try SessionStore(readingOnly: path) }
        } catch {
            throw LaunchError(error.description, kind: .io)
        }
        for listing in closed {
            logger.notice(
                "session \(listing.id) (\(listing.planName.printable)) was cut off after \(formatClock(listing.duration ?? 0)); kept as interrupted, scored up to there")
        }
        return store
    }
}

extension StoreLocation {
    /// Deletes a session (`SessionStore.delete(id:)`), where the store is `path`, and gives
    /// the room back to the disk when deleted sessions' pages are much of the store
    /// (`freed`, in bytes). Where no store was made there is no session to delete, and none is
    /// created (in a data folder that may not be written, `delete` said "cannot create it", 74).
    public func delete(id: Int64) throws -> (deletion: SessionStore.Deletion, path: String, freed: Int64) {
        let reading = try open(readingOnly: true)
        let listed = try storeCall { () throws(StoreError) in try reading.listing(id: id) }
        guard listed != nil else { return (.noSuchSession, reading.path, 0) }
        let store = try open()
        let deletion = try storeCall { () throws(StoreError) in try store.delete(id: id) }
        return (deletion, store.path, deletion == .deleted ? store.compactIfMostlyFree() : 0)
    }

    /// Deletes a readiness measurement (a morning imported by mistake, or filed under the
    /// wrong day, stayed in the baseline for good); false when there is none with this id.
    /// Where no store was made, none is created.
    public func deleteReadiness(id: Int64) throws -> (deleted: Bool, path: String) {
        let reading = try open(readingOnly: true)
        let measured = try storeCall { () throws(StoreError) in try reading.readiness(id: id) }
        guard measured != nil else { return (false, reading.path) }
        let store = try open()
        return (try storeCall { () throws(StoreError) in try store.deleteReadiness(id: id) }, store.path)
    }
}

/// Runs a store call, turning its error into a `LaunchError` of `kind`.
public func storeCall<T>(_ kind: LaunchError.Kind = .io, _ body: () throws(StoreError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        // A file that is no store, a damaged one, or a session's plan this version cannot read
        // is bad data wherever it is found (65), not 74 from one command and 65 from another.
        throw LaunchError(error.description, kind: error.isBadData ? .invalidData : kind)
    }
}

/// `storeCall` for the store's work that waits on a service.
public func asyncStoreCall<T>(_ body: () async throws(StoreError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw LaunchError(error.description, kind: error.isBadData ? .invalidData : .io)
    }
}

extension SessionStore {
    /// The saved session `id` (nil: the newest, not counting those dated more than a day ahead
    /// of the clock, as `trends` does not), or what the user can do when there is none.
    public func session(_ id: Int64?, loading parts: SessionStore.Parts) throws -> StoredSession {
        let tomorrow = UTCTimestamp.text(unixSeconds: (UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0) + 86_400)
        let wanted = try id ?? storeCall { () throws(StoreError) in try lastSessionID(startedNoLaterThan: tomorrow) }
        guard let wanted else { throw LaunchError("no sessions saved yet in \(path)", kind: .missingInput) }
        // A session cut off in a store that could not be written since is read as it will be kept.
        let found = try storeCall(.invalidData) { () throws(StoreError) in
            try self.session(id: wanted, loading: parts, isRunning: ProcessIdentity.isRunning)
        }
        guard let found else {
            throw LaunchError("no session \(wanted) in \(path) (see `intervalpro history`)", kind: .missingInput)
        }
        return found
    }
}
