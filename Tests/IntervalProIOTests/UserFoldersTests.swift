import Testing

@testable import IntervalProIO

#if canImport(Glibc)
import Glibc
#endif

/// Where the user's settings and sessions are kept: the XDG Base Directory rules, and a home
/// found without HOME (cron, a system unit), where every command exited 69 ("no data
/// directory: set XDG_DATA_HOME or HOME").
@Suite("user folders")
struct UserFoldersTests {
    private func folder(_ kind: UserFolders.Kind, _ environment: [String: String], passwordHome: String? = "/home/runner")
        -> String?
    {
        UserFolders.folder(for: kind, environment: { environment[$0] }, passwordHome: { passwordHome })
    }

    @Test func theXDGVariablesWinWhenTheyAreAbsolutePaths() {
        let environment = ["XDG_CONFIG_HOME": "/srv/config", "XDG_DATA_HOME": "/srv/data", "HOME": "/home/me"]
        #expect(folder(.configuration, environment) == "/srv/config/intervalpro")
        #expect(folder(.data, environment) == "/srv/data/intervalpro")
    }

    /// The specification: a relative or empty value is ignored. A relative one was used as
    /// it stood for the ANT+ network key, so that file was looked for under the working folder.
    @Test func aRelativeOrEmptyXDGVariableIsIgnored() {
        for value in ["", "config", "./config", "~/config"] {
            let environment = ["XDG_CONFIG_HOME": value, "XDG_DATA_HOME": value, "HOME": "/home/me"]
            #expect(folder(.configuration, environment) == "/home/me/.config/intervalpro", "\(value)")
            #expect(folder(.data, environment) == "/home/me/.local/share/intervalpro", "\(value)")
        }
    }

    @Test func withoutHOMEThePasswordDatabaseSaysWhereHomeIs() {
        #expect(folder(.data, [:]) == "/home/runner/.local/share/intervalpro")
        #expect(folder(.configuration, ["HOME": ""]) == "/home/runner/.config/intervalpro")
        #expect(folder(.data, [:], passwordHome: nil) == nil)
        // Root's home is "/": no "//" in the path.
        #expect(folder(.data, ["HOME": "/"]) == "/.local/share/intervalpro")
    }

    /// The real password database: this user's entry names the same home as getent does.
    @Test func thePasswordDatabaseHomeIsThisUsersEntry() throws {
        let home = try #require(UserFolders.passwordDatabaseHome())
        let entry = try #require(getpwuid(getuid()))
        #expect(home == String(cString: entry.pointee.pw_dir))
    }
}
