import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// The machine's cores, for work cut into pieces that run side by side: alpha 1 of a stored or
/// just-finished session, a folder of activities imported. The one place that asks the system.
public enum Cores {
    /// The processors online now, at least one.
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Calls `body` with each of `0..<count`, side by side on the cores, and returns when every
    /// call has.
    public static func perform(_ count: Int, _ body: @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    }
}
