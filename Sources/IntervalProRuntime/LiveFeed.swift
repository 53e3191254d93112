public import IntervalProCore
import Synchronization

/// What a live source has for the runner at one instant.
public struct LivePoll: Sendable {
    /// Session time now.
    public var now: SessionTime
    /// Everything that arrived since the last poll, in order, each stamped no later than `now`.
    public var entries: [RecordingEntry]
    public var notices: [String]

    public init(now: SessionTime, entries: [RecordingEntry], notices: [String] = []) {
        self.now = now
        self.entries = entries
        self.notices = notices
    }
}

/// The hand-over between a live sensor thread and the session runner.
///
/// Entries are stamped with session time under the same lock that `poll` reads the time
/// under, so an entry taken by a later poll always carries a later time than any earlier
/// poll's `now`: the engine's time never runs backwards, and a recording of the session
/// replays to the same result.
public final class LiveFeed: Sendable {
    private struct State {
        var origin: Duration?
        var entries: [RecordingEntry] = []
        var notices: [String] = []
    }

    private let clock: @Sendable () -> Duration
    private let state = Mutex(State())

    /// - Parameter clock: monotonic time since any fixed origin (injected; tests drive it).
    public init(clock: @escaping @Sendable () -> Duration) {
        self.clock = clock
    }

    /// Session time starts now. What arrived while the sensors were connecting (the values
    /// read on connect, the first notifications) is kept, at time zero.
    public func begin() {
        state.withLock { $0.origin = clock() }
    }

    public var hasBegun: Bool { state.withLock { $0.origin != nil } }

    /// Session time now, on the clock entries are stamped with.
    public var now: SessionTime {
        state.withLock { state in state.origin.map { Self.sessionTime(clock() - $0) } ?? .zero }
    }

    /// Adds an entry stamped with the current session time (zero before `begin`).
    public func push(_ makeEntry: (SessionTime) -> RecordingEntry) {
        state.withLock { state in
            let time = state.origin.map { Self.sessionTime(clock() - $0) } ?? .zero
            state.entries.append(makeEntry(time))
        }
    }

    /// Adds an entry that arrived at `clockTime` (on the feed's clock), for values read in a
    /// batch with the kernel's arrival stamps. Only for sources that no engine waits on in
    /// real time (a recording): such an entry may be older than an earlier poll's `now`.
    public func push(stampedAt clockTime: Duration, _ makeEntry: (SessionTime) -> RecordingEntry) {
        state.withLock { state in
            let time = state.origin.map { Self.sessionTime(max(.zero, clockTime - $0)) } ?? .zero
            state.entries.append(makeEntry(time))
        }
    }

    /// A message for the runner's screen or log (connection trouble, reconnects).
    public func notice(_ text: String) {
        state.withLock { $0.notices.append(text) }
    }

    /// The notices so far, taken; the entries stay for the session (while sensors connect).
    public func takeNotices() -> [String] {
        state.withLock { state in
            defer { state.notices.removeAll() }
            return state.notices
        }
    }

    public func poll() -> LivePoll {
        state.withLock { state in
            let now = state.origin.map { Self.sessionTime(clock() - $0) } ?? .zero
            defer {
                state.entries.removeAll(keepingCapacity: true)
                state.notices.removeAll()
            }
            return LivePoll(now: now, entries: state.entries, notices: state.notices)
        }
    }

    private static func sessionTime(_ duration: Duration) -> SessionTime {
        let (seconds, attoseconds) = duration.components
        return SessionTime(microseconds: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
    }
}
