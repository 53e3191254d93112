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
        identity(of: Int(getpid())) ?? "\(bootID() ?? "unknown"):\(getpid()):0"
    }

    /// The identity of the running process `pid`; nil when there is none.
    public static func identity(of pid: Int) -> String? {
        guard let ticks = startTicks(of: pid) else { return nil }
        return "\(bootID() ?? "unknown"):\(pid):\(ticks)"
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
