#if canImport(Glibc)
import Glibc
#endif

/// Finds the recordings and example plans that ship with IntervalPro.
public enum BundledFiles {
    /// The recordings, for `run` without a sensor.
    public static func recordingsDirectory() -> String? {
        directory("Recordings", holding: "first-cadence-session.jsonl", override: "INTERVALPRO_RECORDINGS")
    }

    /// The example plans.
    public static func plansDirectory() -> String? {
        directory("Plans", holding: "plan.schema.json", override: "INTERVALPRO_PLANS")
    }

    /// Whether the plan file at `path` is one of the example plans (in their folder, however
    /// it is reached): only an example has a bundled recording of its own; a plan of the
    /// user's that shares an example's file name was replayed against that example's.
    public static func isExamplePlan(_ path: String) -> Bool {
        guard let examples = plansDirectory() else { return false }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        return FileIO.isSameFile(examples, folder)
    }

    /// An example plan by name ("cadence-ladder"), for a plan argument that names no file.
    public static func plan(named name: String) -> String? {
        guard !name.isEmpty, !name.contains("/"), let directory = plansDirectory() else { return nil }
        let path = "\(directory)/\(name).json"
        return exists(path) ? path : nil
    }

    /// A bundled recording by name ("cadence-ladder"), for a recording argument that names no
    /// file: installed, the tour's `--replay cadence-ladder` has no path to type.
    public static func recording(named name: String) -> String? {
        guard !name.isEmpty, !name.contains("/"), let directory = recordingsDirectory() else { return nil }
        let path = "\(directory)/\(name).jsonl"
        return exists(path) ? path : nil
    }

    /// Candidate folders, first match wins: the override variable, ./NAME, the checkout the
    /// binary was built in (the folder holding its `.build`: `.build/<triple>/<config>/`, or a
    /// folder deeper with `--scratch-path .build/NAME`), the binary's own install
    /// prefix (PREFIX/bin/intervalpro → PREFIX/share/intervalpro/NAME), and the usual
    /// install locations. But for the override, a folder is ours when it holds `marker`, a
    /// file IntervalPro ships in it: run from the home folder, `~/Recordings` (a sound
    /// recorder's) was taken for the bundled recordings, and the plan's was "cannot open".
    private static func directory(_ name: String, holding marker: String, override: String) -> String? {
        if let path = ProcessEnvironment.value(override), isDirectory(path) { return path }
        return directory(name, holding: marker, executable: executablePath())
    }

    /// The folder as found from `executable`. `intervalpro-web` is installed in
    /// PREFIX/libexec/intervalpro: from there PREFIX/share is a folder further up (the page of
    /// a `make install PREFIX=/opt/intervalpro` offered no plans and no recordings).
    static func directory(_ name: String, holding marker: String, executable: String?) -> String? {
        var candidates: [String] = [name]
        if let executable {
            let components = executable.split(separator: "/", omittingEmptySubsequences: false)
            if let build = components.dropLast().lastIndex(of: ".build") {
                candidates.append(components[..<build].joined(separator: "/") + "/" + name)
            }
            candidates.append(parent(of: parent(of: executable)) + "/share/intervalpro/" + name)
            candidates.append(parent(of: parent(of: parent(of: executable))) + "/share/intervalpro/" + name)
        }
        candidates += ["/usr/local/share/intervalpro/" + name, "/usr/share/intervalpro/" + name]
        return candidates.first { exists($0 + "/" + marker) }
    }

    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Whether `path` cannot be looked at, a folder on the way not to be searched: not the
    /// same as a file that is not there.
    public static func isOutOfReach(_ path: String) -> Bool {
        access(path, F_OK) != 0 && errno == EACCES
    }

    /// A file there that this account may not read (mode 0000, another user's 0600).
    public static func mayNotBeRead(_ path: String) -> Bool {
        access(path, F_OK) == 0 && access(path, R_OK) != 0 && errno == EACCES
    }

    /// A regular file of no bytes (one `touch` made, or a mistyped path's).
    public static func isEmptyFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// "Plans/cadence-ladder.json" → "cadence-ladder".
    public static func stem(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") , dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
