public import SystemPackage
// C's `stdout` is a mutable global to Swift 6; it is read here once the command is done.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

extension Terminal {
    /// A write to a pipe whose reader went away (`| head`, a pager quit) fails with EPIPE
    /// instead of ending the process with SIGPIPE: a session piped that way was killed mid-run
    /// and kept as interrupted. Output stops there; the command finishes.
    public static func continueWhenOutputCloses() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Hands on what `print` buffered; the error when standard output did not take all that
    /// was printed (a full disk, a file system gone read-only).
    public static func flushStandardOutput() -> Errno? {
        errno = 0
        guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return nil }
        return Errno(rawValue: errno == 0 ? EIO : errno)
    }
}

extension Errno {
    /// Written to a pipe whose reader went away.
    public var isBrokenPipe: Bool { self == .brokenPipe }
}
