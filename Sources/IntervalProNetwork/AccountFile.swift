import Glibc
public import IntervalProIO
public import IntervalProServices

/// $XDG_CONFIG_HOME/intervalpro/accounts.json (~/.config when unset): the only place
/// secrets are kept. Written atomically, mode 0600, in a folder of mode 0700.
public struct AccountFile: Sendable {
    public var path: String

    public init(path: String) {
        self.path = path
    }

    public static func standard() -> AccountFile? {
        UserFolders.configuration.map { AccountFile(path: $0 + "/accounts.json") }
    }

    public enum Problem: Error, Sendable {
        case unreadable(FileError)
        case malformed(path: String, AccountsProblem)
    }

    /// The accounts; none when the file does not exist yet.
    public func load() throws(Problem) -> Accounts {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readAll(path)
        } catch {
            if error.isNotFound { return Accounts() }
            throw .unreadable(error)
        }
        do {
            return try Accounts.decode(bytes)
        } catch {
            throw .malformed(path: path, error)
        }
    }

    /// A lock beside the accounts file, held by one process at a time until it is released
    /// (deinit). Nil where the file's folder is not there (no account yet) or cannot be
    /// written: the work goes ahead unlocked.
    public final class Lock: Sendable {
        private let descriptor: Int32

        fileprivate init?(path: String) {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return nil }
            while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }
    }

    /// The tokens' lock: one process renews a token at a time. Strava replaces the refresh
    /// token at each renewal: two commands renewing at once (a cron `upload --pending` beside
    /// a run's upload) sent the same one, and the one Strava refused told the runner access
    /// was revoked.
    public func lock() -> Lock? { Lock(path: path + ".lock") }

    /// The uploads' lock: one process sends a session at a time, so that two commands at
    /// once (two `upload --pending`, a cron's beside a run's) do not both send it.
    public func uploadsLock() -> Lock? { Lock(path: path + ".uploads.lock") }

    public func save(_ accounts: Accounts) throws(FileError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            try FileIO.makeDirectories(directory)
            // The folder may predate this file (plans, sensors.json): it holds secrets now.
            _ = chmod(directory, 0o700)
        }
        try FileIO.replaceContents(of: path, with: accounts.encoded())
    }
}
