#if canImport(Glibc)
import Glibc
#endif

/// What the process needs of its surroundings, set up before anything else runs: a small Pi's
/// limits and a script's closed descriptors killed it, or sent its work elsewhere, without a word.
public enum ProcessSurroundings {
    /// Files open at once that the commands need: a live session holds some 25 (the bus, the
    /// sound card, the store and its journal, each loop's eventfd).
    public static let openFilesNeeded = 64

    /// Sets the process up; says when it may open too few files to work.
    public static func prepare() -> String? {
        // A write past `ulimit -f` fails (EFBIG) and is reported as any failed write is; the
        // signal killed the process with an export's temporary file left beside it.
        signal(SIGXFSZ, SIG_IGN)
        keepStandardDescriptorsTaken()
        if let allowed = raiseOpenFilesLimit() {
            return "this process may open only \(allowed) files at once (`ulimit -n`), and \(openFilesNeeded) are needed: "
                + "raise the limit (`ulimit -n 1024`)"
        }
        return nil
    }

    /// A standard descriptor closed (`>&-`, `<&-`) was taken by the next file opened, an
    /// eventfd or the store: what was printed went there, and `-` read from it. Each is held
    /// by /dev/null opened the other way, so that using it fails as on a closed one (EBADF).
    private static func keepStandardDescriptorsTaken() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_WRONLY : O_RDONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    private static let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    /// Raises the open files limit to what the commands need when the hard limit allows it.
    /// The limit left when it is below that: libdispatch traps when it cannot make its epoll
    /// descriptor (`show` under `ulimit -n 7` ended with SIGILL and no message).
    private static func raiseOpenFilesLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Self.openFiles, &limit) == 0, limit.rlim_cur < rlim_t(openFilesNeeded) else { return nil }
        let wanted = min(limit.rlim_max, rlim_t(1024))
        if wanted > limit.rlim_cur {
            limit.rlim_cur = wanted
            _ = setrlimit(Self.openFiles, &limit)
            _ = getrlimit(Self.openFiles, &limit)
        }
        return limit.rlim_cur < rlim_t(openFilesNeeded) ? Int(limit.rlim_cur) : nil
    }

    /// Variables whose values are paths, read as text.
    static let pathVariables = ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"]

    /// An argument or a path variable that is not UTF-8 text. Read as text, its bytes became
    /// U+FFFD: a store was made in a new folder of another name, and the one there was said
    /// to hold no sessions.
    public static func notText() -> String? {
        // At least the program's name, but a preloaded shim (libfaketime) was seen to leave 0.
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let argument = CommandLine.unsafeArgv[index], let shown = shownIfNotText(argument) else { continue }
            return "argument \(index) ('\(shown)') is not UTF-8 text: IntervalPro reads names and paths as UTF-8 (rename the file or folder)"
        }
        for name in pathVariables {
            guard let value = getenv(name), let shown = shownIfNotText(value) else { continue }
            return "\(name) ('\(shown)') is not UTF-8 text: IntervalPro reads paths as UTF-8 (rename the folder, or set \(name) to another)"
        }
        return nil
    }

    /// The bytes with those that are not UTF-8 written as \xFF; nil when they are all text.
    static func shownIfNotText(_ text: UnsafePointer<CChar>) -> String? {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
        guard String(validating: bytes, as: UTF8.self) == nil else { return nil }
        var shown = ""
        var rest = bytes[...]
        while !rest.isEmpty {
            // The longest run that is text, then one byte that is not.
            var end = rest.endIndex
            while end > rest.startIndex, String(validating: rest[rest.startIndex..<end], as: UTF8.self) == nil { end -= 1 }
            shown += String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
            guard end < rest.endIndex else { break }
            shown += "\\x" + String(rest[end], radix: 16, uppercase: true)
            rest = rest[(end + 1)...]
        }
        return shown
    }
}
