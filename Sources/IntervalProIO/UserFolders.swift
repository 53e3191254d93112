#if canImport(Glibc)
import Glibc
#endif

/// The process environment, read in one place.
public enum ProcessEnvironment {
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// Where IntervalPro keeps the user's files, as the XDG Base Directory Specification says:
/// settings in $XDG_CONFIG_HOME/intervalpro, sessions and tokens in
/// $XDG_DATA_HOME/intervalpro; a variable that is unset, empty or not an absolute path is
/// ignored, and ~/.config or ~/.local/share taken instead. The home folder is $HOME, else the
/// user's entry in the password database: a cron job or a system unit may run without HOME,
/// and `getent passwd` still knows where the user's files are.
public enum UserFolders {
    /// $XDG_CONFIG_HOME/intervalpro, else ~/.config/intervalpro; nil with no home at all.
    public static var configuration: String? {
        folder(for: .configuration, environment: ProcessEnvironment.value, passwordHome: passwordDatabaseHome)
    }

    /// $XDG_DATA_HOME/intervalpro, else ~/.local/share/intervalpro; nil with no home at all.
    public static var data: String? {
        folder(for: .data, environment: ProcessEnvironment.value, passwordHome: passwordDatabaseHome)
    }

    public enum Kind: Sendable {
        case configuration
        case data

        var variable: String { self == .configuration ? "XDG_CONFIG_HOME" : "XDG_DATA_HOME" }
        var underHome: String { self == .configuration ? ".config" : ".local/share" }
    }

    /// The rule, on the values given: the environment's variables, and the password
    /// database's home, asked only when HOME is of no use.
    public static func folder(
        for kind: Kind, environment: (String) -> String?, passwordHome: () -> String?
    ) -> String? {
        if let base = environment(kind.variable), base.hasPrefix("/") { return base + "/intervalpro" }
        let home = environment("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? passwordHome()
        return home.map { ($0 == "/" ? "" : $0) + "/" + kind.underHome + "/intervalpro" }
    }

    /// This user's home folder in the password database (getpwuid_r), if it names one.
    public static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil,
            let directory = entry.pw_dir
        else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
