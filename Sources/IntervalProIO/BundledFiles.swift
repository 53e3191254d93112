#if canImport(Glibc)
import Glibc
#endif

/// Finds the recordings that ship with IntervalPro, for `run` without a sensor.
public enum BundledFiles {
    /// Candidate folders, first match wins: $INTERVALPRO_RECORDINGS, ./Recordings, the
    /// checkout the binary was built in (.build/<triple>/<config>/intervalpro), and the
    /// usual install locations.
    public static func recordingsDirectory() -> String? {
        var candidates: [String] = []
        if let override = Terminal.environment("INTERVALPRO_RECORDINGS") { candidates.append(override) }
        candidates.append("Recordings")
        if let executable = executablePath() {
            var root = executable
            for _ in 0..<4 { root = parent(of: root) }
            candidates.append(root + "/Recordings")
            candidates.append(parent(of: parent(of: executable)) + "/share/intervalpro/Recordings")
        }
        candidates += ["/usr/local/share/intervalpro/Recordings", "/usr/share/intervalpro/Recordings"]
        return candidates.first(where: isDirectory)
    }

    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
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
