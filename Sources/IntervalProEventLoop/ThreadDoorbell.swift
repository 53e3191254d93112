#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux

/// Where a plain thread (a `LoopThread`) blocks until another thread has something for it,
/// instead of sleeping a little and looking again: an eventfd, so ringing is one write(2),
/// which neither allocates nor locks (the audio render thread rings and waits on these).
///
/// A ring with no one waiting is kept: the next wait returns at once. Rings in between count
/// as one.
public final class ThreadDoorbell: @unchecked Sendable {
    private let descriptor: Int32

    public init() throws(EventLoopError) {
        descriptor = intervalpro_eventfd()
        guard descriptor >= 0 else { throw EventLoopError("could not create an eventfd", errno: errno) }
    }

    deinit { close(descriptor) }

    /// From any thread.
    public func ring() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Blocks until rung (true) or for `timeout` (false); nil waits for the ring only.
    @discardableResult
    public func wait(timeout: Duration? = nil) -> Bool {
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // Whole milliseconds, rounded up: a wait never ends before its timeout.
        let milliseconds = timeout.map { timeout -> Int32 in
            let (seconds, attoseconds) = timeout.components
            return Int32(clamping: max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
        } ?? -1
        var ready: Int32
        repeat {
            ready = poll(&watched, 1, milliseconds)
        } while ready < 0 && errno == EINTR
        guard ready > 0 else { return false }
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
        return true
    }
}
