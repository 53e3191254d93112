import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProStorage

/// Where sessions are kept, for the commands that read them.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The session store (default: $XDG_DATA_HOME/intervalpro/intervalpro.sqlite).", valueName: "path"))
    var db: String?

    /// The database path: --db, else the data directory's intervalpro.sqlite.
    func databasePath() throws -> String {
        if let db { return db }
        guard let directory = DataDirectory.path() else {
            throw Failure("no data directory: set XDG_DATA_HOME or HOME, or pass --db PATH", status: .unavailable)
        }
        return "\(directory)/intervalpro.sqlite"
    }

    /// Opens the store and closes the sessions a dead process left running. With
    /// `readingOnly`, a store that cannot be written is still opened to be read.
    func open(syncEveryCommit: Bool = false, readingOnly: Bool = false) throws -> SessionStore {
        let path = try databasePath()
        let store: SessionStore
        switch Result(catching: { () throws(StoreError) in try SessionStore(path: path, syncEveryCommit: syncEveryCommit) }) {
        case .success(let opened):
            store = opened
        case .failure(let error) where readingOnly && error.isWriteRefused && BundledFiles.exists(path):
            return try storeCall { () throws(StoreError) in try SessionStore(readingOnly: path) }
        case .failure(let error):
            throw Failure(error.description, status: .ioError)
        }
        let closed = try storeCall { () throws(StoreError) in
            try store.closeInterruptedSessions(isRunning: ProcessIdentity.isRunning)
        }
        for listing in closed {
            Terminal.writeStandardError(
                "intervalpro: session \(listing.id) (\(listing.planName)) was cut off after "
                    + "\(formatClock(listing.duration ?? 0)); kept as interrupted, scored up to there\n")
        }
        return store
    }
}

/// Saving options of the commands that run a session.
struct SaveOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions

    @Flag(help: "Do not save this session in the history.")
    var noSave = false
}

/// A session id on the command line: a number, or `last` for the newest session.
struct SessionReference: ExpressibleByArgument {
    var id: Int64?

    init?(argument: String) {
        if argument == "last" {
            id = nil
        } else if let id = Int64(argument), id > 0 {
            self.id = id
        } else {
            return nil
        }
    }

    func resolve(in store: SessionStore, loading parts: SessionStore.Parts) throws -> StoredSession {
        let wanted = try id ?? storeCall { () throws(StoreError) in try store.lastSessionID() }
        guard let wanted else { throw Failure("no sessions saved yet in \(store.path)", status: .noInput) }
        let session = try storeCall(.dataError) { () throws(StoreError) in try store.session(id: wanted, loading: parts) }
        guard let session else {
            throw Failure("no session \(wanted) in \(store.path) (see `intervalpro history`)", status: .noInput)
        }
        return session
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// Runs a store call, turning its error into a `Failure` with `status`.
func storeCall<T>(_ status: ExitStatus = .ioError, _ body: () throws(StoreError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw Failure(error.description, status: status)
    }
}
