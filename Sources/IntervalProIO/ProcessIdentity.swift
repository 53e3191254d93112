import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Who is writing a running session, so that the next start can tell a session still
/// being run by another intervalpro from one whose process died.
///
/// A process is named by the boot it runs in, its pid and the clock tick it started at
/// (from /proc): a pid reused after a crash or a reboot does not match.
public enum ProcessIdentity {
    /// "BOOT-ID:PID:START-TICKS" of this process.
    public static func current() -> String {
        let pid = Int(getpid())
        return "\(bootID() ?? "unknown"):\(pid):\(startTicks(of: pid) ?? 0)"
    }

    /// Whether the process `identity` names is still running.
    public static func isRunning(_ identity: String) -> Bool {
        let parts = identity.split(separator: ":").map(String.init)
        guard parts.count == 3, let pid = Int(parts[1]), let ticks = Int(parts[2]) else { return false }
        guard parts[0] == bootID(), let start = startTicks(of: pid) else { return false }
        return start == ticks
    }

    private static func bootID() -> String? {
        guard let bytes = try? FileIO.readAll("/proc/sys/kernel/random/boot_id") else { return nil }
        return String(decoding: bytes, as: UTF8.self).filter { $0 != "\n" }
    }

    /// Field 22 of /proc/PID/stat, counted after the command name (which may hold spaces).
    private static func startTicks(of pid: Int) -> Int? {
        guard let bytes = try? FileIO.readAll("/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); the start time is field 22.
        guard fields.count > 19 else { return nil }
        return Int(fields[19])
    }
}

/// Where IntervalPro keeps its data: $XDG_DATA_HOME/intervalpro, else ~/.local/share/intervalpro.
public enum DataDirectory {
    public static func path() -> String? {
        if let data = Terminal.environment("XDG_DATA_HOME"), data.hasPrefix("/") { return "\(data)/intervalpro" }
        guard let home = Terminal.environment("HOME"), !home.isEmpty else { return nil }
        return "\(home)/.local/share/intervalpro"
    }
}

extension FileIO {
    /// Writes `bytes` to `path`, replacing what was there: in a new file beside it, renamed
    /// over it once whole, so that a full disk leaves the old file (or none), never half of
    /// the new. A device, a pipe or a link is written in place. A database (the session store,
    /// named by mistake) is never written over.
    public static func write(_ bytes: some Sequence<UInt8>, to path: String) throws(FileError) {
        var info = stat()
        let exists = lstat(path, &info) == 0
        if exists, info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFLNK, holdsDatabase(path) {
            throw FileError(
                path: path, operation: .write, errno: .fileExists,
                reason: "it holds an SQLite database (the session store?), which is never written over: choose another file")
        }
        guard !exists || info.st_mode & S_IFMT == S_IFREG else {
            try writeInPlace(bytes, to: path)
            return
        }
        let temporary = "\(path).intervalpro-\(getpid()).tmp"
        do {
            try writeInPlace(bytes, to: temporary, exclusive: true)
        } catch {
            unlink(temporary)
            throw FileError(path: path, operation: error.operation, errno: error.errno)
        }
        // A file replaced keeps who may read it.
        if exists { chmod(temporary, info.st_mode & 0o7777) }
        guard rename(temporary, path) == 0 else {
            let failure = Errno(rawValue: errno)
            unlink(temporary)
            throw FileError(path: path, operation: .write, errno: failure)
        }
    }

    private static func writeInPlace(_ bytes: some Sequence<UInt8>, to path: String, exclusive: Bool = false) throws(FileError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                FilePath(path), .writeOnly, options: exclusive ? [.create, .exclusiveCreate] : [.create, .truncate],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw FileError(path: path, operation: .create, errno: error as? Errno ?? .ioError)
        }
        do {
            try fd.closeAfter { _ = try fd.writeAll(bytes) }
        } catch {
            throw FileError(path: path, operation: .write, errno: error as? Errno ?? .ioError)
        }
    }

    /// Writes `bytes` to standard output, past anything `print` buffered.
    public static func writeStandardOutput(_ bytes: [UInt8]) throws(FileError) {
        if let failure = Terminal.flushStandardOutput() {
            throw FileError(path: "standard output", operation: .write, errno: failure)
        }
        do {
            _ = try FileDescriptor.standardOutput.writeAll(bytes)
        } catch {
            throw FileError(path: "standard output", operation: .write, errno: error as? Errno ?? .ioError)
        }
    }

    /// Whether the file at `path` begins as an SQLite database does ("SQLite format 3\0").
    private static func holdsDatabase(_ path: String) -> Bool {
        guard let fd = try? FileDescriptor.open(FilePath(path), .readOnly) else { return false }
        defer { try? fd.close() }
        var header = [UInt8](repeating: 0, count: 16)
        let count = (try? header.withUnsafeMutableBytes { try fd.read(into: $0) }) ?? 0
        return count == 16 && header == Array("SQLite format 3\u{0}".utf8)
    }
}
