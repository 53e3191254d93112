import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProLaunch
import IntervalProStorage

/// Where sessions are kept, for the commands that read them.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The session store (default: $XDG_DATA_HOME/intervalpro/intervalpro.sqlite).", valueName: "path"),
        completion: .file(extensions: ["sqlite", "db"]))
    var db: String?

    var location: StoreLocation { StoreLocation(path: db) }

    func validate() throws {
        // `--db ""` (a variable not set) read as "there is no file , so nothing saved in it".
        if db?.isEmpty == true { throw ValidationError("--db names no file: an empty path") }
    }

    /// Opens the store and closes the sessions a dead process left running. With
    /// `readingOnly`, a store that cannot be written is still opened to be read.
    func open(syncEveryCommit: Bool = false, readingOnly: Bool = false) throws -> SessionStore {
        // A slip in --db's path read as an empty history, with nothing to tell the two apart.
        if readingOnly, let db, !BundledFiles.exists(db), !BundledFiles.isOutOfReach(db) {
            Terminal.writeStandardError("intervalpro: note: there is no file \(db), so nothing saved in it (is --db's path right?)\n")
        }
        return try location.open(syncEveryCommit: syncEveryCommit, readingOnly: readingOnly)
    }
}

/// Saving options of the commands that run a session.
struct SaveOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions

    @Flag(help: "Do not save this session in the history.")
    var noSave = false

    /// Where the session is saved; nil with --no-save.
    var location: StoreLocation? { noSave ? nil : store.location }

    func validate() throws {
        if let refusal = location?.folderRefusal { throw ValidationError(refusal) }
    }
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
        try store.session(id ?? nil, loading: parts)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

/// Help texts several commands share, each said once.
extension ArgumentHelp {
    static var sessionID: ArgumentHelp { "The session id (see `intervalpro history`), or `last`." }
    static var planFile: ArgumentHelp {
        "The plan: a plan file (JSON, version 1 or 2), intervals.icu text, a Zwift .zwo or a FIT workout."
    }
    static var seed: ArgumentHelp { "Seed of the simulated runner (same seed, same run; 1 when not given)." }
    static var adapter: ArgumentHelp { ArgumentHelp("Bluetooth adapter to use (default: the first powered one).", valueName: "hciN") }
}
