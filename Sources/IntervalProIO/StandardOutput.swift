public import SystemPackage
// C's `stdout` is a mutable global to Swift 6; it is read here once the command is done.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

extension Terminal {
    /// Hands on what `print` buffered; the error when standard output did not take all that
    /// was printed (a full disk, a file system gone read-only).
    public static func flushStandardOutput() -> Errno? {
        errno = 0
        guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return nil }
        return Errno(rawValue: errno == 0 ? EIO : errno)
    }
}
