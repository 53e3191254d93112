#if canImport(Glibc)
    import Glibc
#endif
import Synchronization
internal import CLinux

/// One thread that waits in one place, poll(2), for everything the live path needs: file
/// descriptors (the D-Bus socket, acquired notification sockets, the terminal), timers, and
/// work handed to it from other threads through an eventfd.
///
/// It is also a `TaskExecutor`: a task run with this loop as its executor preference
/// (`withTaskExecutorPreference`) runs its jobs on the loop's thread, so a continuation
/// resumed by a descriptor's handler goes on in the same thread, with no second wake-up.
///
/// Watches and timers belong to the loop's thread: add and remove them there (from a
/// handler, a timer, a job or `execute`).
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    /// poll(2) event bits.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: Int16(POLLIN))
        public static let writable = Events(rawValue: Int16(POLLOUT))
        /// Only in what a handler is given: the peer hung up, or the descriptor failed.
        public static let hangUp = Events(rawValue: Int16(POLLHUP))
        public static let error = Events(rawValue: Int16(POLLERR))
    }

    public struct WatchID: Hashable, Sendable { let value: Int }
    public struct TimerID: Hashable, Sendable { let value: Int }

    private struct Watch {
        var fd: Int32
        var events: Events
        var handler: (Events) -> Void
    }

    private struct Timer {
        var deadline: ContinuousClock.Instant
        var body: () -> Void
    }

    /// What other threads hand over, under the lock.
    private struct Inbox: ~Copyable {
        var jobs: [UnownedJob] = []
        var closures: [@Sendable () -> Void] = []
        var stopRequested = false
        var exited = false
    }

    private let wakeDescriptor: Int32
    private let inbox = Mutex(Inbox())
    private let threadID = Atomic<UInt>(0)
    // Thread-confined state.
    private var watches: [Int: Watch] = [:]
    private var timers: [Int: Timer] = [:]
    private var nextID = 1
    private var descriptors: [pollfd] = []
    private var descriptorOwners: [Int] = []
    private var descriptorsChanged = true
    private let clock = ContinuousClock()

    /// Starts the loop on a thread of its own.
    public init(name: String) throws(EventLoopError) {
        wakeDescriptor = intervalpro_eventfd()
        guard wakeDescriptor >= 0 else { throw EventLoopError("could not create an eventfd", errno: errno) }
        do {
            try LoopThread.start(name: name) { [self] in run() }
        } catch {
            close(wakeDescriptor)
            throw error
        }
    }

    deinit { close(wakeDescriptor) }

    /// Whether the caller runs on the loop's thread.
    public var inLoop: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    // MARK: Any thread

    /// Runs `body` on the loop's thread, soon.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        let ran = inbox.withLock { inbox -> Bool in
            guard !inbox.exited else { return false }
            inbox.closures.append(body)
            return true
        }
        if ran { wakeUnlessInLoop() } else { body() }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.exited else { return false }
            inbox.jobs.append(job)
            return true
        }
        if accepted {
            wakeUnlessInLoop()
        } else {
            // The loop has ended: what is left of the task goes on on the global pool.
            job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
        }
    }

    /// Runs `body` on the loop's thread and returns its result to the awaiting task.
    public func submit<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        if inLoop { return body() }
        return await withCheckedContinuation { continuation in
            execute { continuation.resume(returning: body()) }
        }
    }

    /// Ends the thread once the work handed over so far has run. Descriptors still watched
    /// are the watchers' to close.
    public func shutdown() {
        inbox.withLock { $0.stopRequested = true }
        wake()
    }

    // MARK: The loop's thread

    /// Calls `handler` on the loop's thread whenever `fd` has any of `events`, or hangs up.
    public func watch(_ fd: Int32, _ events: Events, _ handler: @escaping (Events) -> Void) -> WatchID {
        let id = nextID
        nextID += 1
        watches[id] = Watch(fd: fd, events: events, handler: handler)
        descriptorsChanged = true
        return WatchID(value: id)
    }

    /// Changes what a watch waits for (a socket with bytes to write waits for `.writable` too).
    public func update(_ id: WatchID, _ events: Events) {
        guard watches[id.value]?.events != events else { return }
        watches[id.value]?.events = events
        descriptorsChanged = true
    }

    public func unwatch(_ id: WatchID) {
        guard watches.removeValue(forKey: id.value) != nil else { return }
        descriptorsChanged = true
    }

    /// Runs `body` on the loop's thread once `delay` has passed.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        timers[id] = Timer(deadline: clock.now + delay, body: body)
        return TimerID(value: id)
    }

    public func cancel(_ id: TimerID) { timers[id.value] = nil }

    private func wakeUnlessInLoop() {
        if !inLoop { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        while true {
            let (jobs, closures, stop) = inbox.withLock { inbox in
                defer {
                    inbox.jobs.removeAll(keepingCapacity: true)
                    inbox.closures.removeAll(keepingCapacity: true)
                }
                return (inbox.jobs, inbox.closures, inbox.stopRequested)
            }
            for closure in closures { closure() }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            fireDueTimers()
            if stop {
                let exited = inbox.withLock { inbox -> Bool in
                    guard inbox.jobs.isEmpty, inbox.closures.isEmpty else { return false }
                    inbox.exited = true
                    return true
                }
                if exited { return }
                continue
            }
            let pending = inbox.withLock { !$0.jobs.isEmpty || !$0.closures.isEmpty }
            waitOnce(timeout: pending ? 0 : timeoutMilliseconds())
        }
    }

    /// poll(2) once; runs the handlers of the descriptors that are ready.
    private func waitOnce(timeout: Int32) {
        if descriptorsChanged {
            descriptorOwners = Array(watches.keys).sorted()
            descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
                + descriptorOwners.map { pollfd(fd: watches[$0]!.fd, events: watches[$0]!.events.rawValue, revents: 0) }
            descriptorsChanged = false
        }
        let count = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        guard count > 0 else { return }
        if descriptors[0].revents != 0 {
            var value: UInt64 = 0
            _ = read(wakeDescriptor, &value, 8)
        }
        // Handlers may add or remove watches: look each one up again before calling it.
        let ready = descriptors.indices.dropFirst().compactMap { index -> (Int, Events)? in
            let revents = descriptors[index].revents
            descriptors[index].revents = 0
            return revents == 0 ? nil : (descriptorOwners[index - 1], Events(rawValue: revents))
        }
        for (id, events) in ready {
            watches[id]?.handler(events)
        }
    }

    private func timeoutMilliseconds() -> Int32 {
        guard let nearest = timers.values.map(\.deadline).min() else { return -1 }
        let remaining = clock.now.duration(to: nearest)
        if remaining <= .zero { return 0 }
        // Rounded up, so a timer is never woken for early and found not yet due.
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    private func fireDueTimers() {
        guard !timers.isEmpty else { return }
        let now = clock.now
        let due = timers.filter { $0.value.deadline <= now }.sorted { $0.value.deadline < $1.value.deadline }
        for (id, timer) in due where timers.removeValue(forKey: id) != nil {
            timer.body()
        }
    }
}

public struct EventLoopError: Error, CustomStringConvertible {
    public var description: String
    init(_ what: String, errno code: Int32) {
        description = "\(what): \(String(cString: strerror(code)))"
    }
}

/// The one way the project starts a plain POSIX thread: for loops that block in poll(2) and
/// for the audio render loop, which must not run on the cooperative thread pool. Threads are
/// named (Linux allows 15 bytes), so `top -H` and debuggers tell them apart.
public enum LoopThread {
    /// A thread that can be waited for.
    public struct Handle: Sendable {
        let thread: pthread_t

        /// Waits until the thread's body has returned.
        public func join() { pthread_join(thread, nil) }

        /// Leaves the thread to end on its own (or with the process): it is not waited for.
        public func detach() { pthread_detach(thread) }
    }

    /// Starts a thread that nobody waits for.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(EventLoopError) {
        pthread_detach(try spawn(name: name, body))
    }

    /// Starts a thread to `join()` later.
    public static func startJoinable(name: String, _ body: @escaping @Sendable () -> Void) throws(EventLoopError) -> Handle {
        Handle(thread: try spawn(name: name, body))
    }

    private static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(EventLoopError) -> pthread_t {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            let name: String
            init(_ body: @escaping @Sendable () -> Void, name: String) {
                self.body = body
                self.name = name
            }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body, name: name))
        let result = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            _ = intervalpro_set_thread_name(String(box.name.prefix(15)))
            box.body()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw EventLoopError("could not start the \(name) thread", errno: result)
        }
        return thread
    }
}
