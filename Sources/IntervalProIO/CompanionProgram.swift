import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A program installed with `intervalpro`, and handing this process over to it.
public enum CompanionProgram {
    /// `intervalpro` with the page's server, which `serve`, `run --web` and Strava's sign-in go on in.
    public static let webServer = "intervalpro-web"

    /// Where `name` may be, first match wins: beside the running binary (the build folder), and
    /// in PREFIX/libexec/intervalpro for PREFIX/bin/intervalpro (`make install`, the package).
    public static func candidates(_ name: String) -> [String] {
        BundledFiles.executablePath().map { candidates(name, besides: $0) } ?? []
    }

    /// `candidates(_:)` for the binary at `executable`.
    static func candidates(_ name: String, besides executable: String) -> [String] {
        let directory = BundledFiles.parent(of: executable)
        // A binary in /tmp has its PREFIX at /: "//libexec/…" was said.
        func within(_ folder: String, _ path: String) -> String { folder.hasSuffix("/") ? folder + path : folder + "/" + path }
        return [within(directory, name), within(BundledFiles.parent(of: directory), "libexec/intervalpro/" + name)]
    }

    /// The first of `candidates(name)` that this user may run.
    public static func find(_ name: String) -> String? {
        candidates(name).first { access($0, X_OK) == 0 }
    }

    /// Says `name` is missing, and where it was looked for.
    public static func notInstalled(_ name: String) -> String {
        "\(name) is not installed (looked for \(candidates(name).joined(separator: " or ")))"
    }

    /// What to do when a companion is missing.
    public static let reinstall = "install IntervalPro again, or build it (make build, make release)"

    /// Replaces this process with the program at `path`, given `arguments` (its argv, the
    /// program's name first) and this process's environment and open files: the process id,
    /// its terminal and its parent's wait stay the same. Returns only when that failed, with why.
    public static func replaceProcess(with path: String, arguments: [String]) -> String {
        // Anything written but still buffered would be lost with the process image.
        fflush(nil)
        var argv = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let failure = Errno(rawValue: errno)
        for argument in argv { free(argument) }
        return failure.description
    }
}
