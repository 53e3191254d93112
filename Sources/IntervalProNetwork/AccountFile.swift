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
        if let config = ProcessEnvironment.value("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            return AccountFile(path: config + "/intervalpro/accounts.json")
        }
        return ProcessEnvironment.value("HOME").map { AccountFile(path: $0 + "/.config/intervalpro/accounts.json") }
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
