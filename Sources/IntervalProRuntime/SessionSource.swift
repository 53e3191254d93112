public import IntervalProCore

/// Where a session's notifications come from: a recording, the simulator, live sensors.
///
/// Entries come in time order. A source that follows the session (the simulator runs to
/// each step's target) does so through `observe`.
public protocol SessionSource {
    var kind: SessionSourceKind { get }
    /// Devices the source knows of, for the recording header.
    var devices: [RecordedDevice] { get }
    /// The next entry, or nil when the source has nothing more.
    mutating func next() async throws -> RecordingEntry?
    mutating func observe(_ action: SessionEngine.Action)
    /// A live source delivers as things happen, stamped with the session time it arrived
    /// at: the runner waits on it (`wait`) instead of asking for its next entry.
    var isLive: Bool { get }
    /// For a live source: waits until something arrives (an entry, a notice, a key) or
    /// `timeout` passes (nil: only for an arrival), then returns the session time now and
    /// what arrived.
    mutating func wait(timeout: Duration?) async -> LivePoll
    /// A command the source gives at its own session time (a simulated runner presses "next"
    /// to end an open step), nil when none; `commandDelivered` once the runner gave it.
    var command: (time: SessionTime, command: UserCommand)? { get }
    mutating func commandDelivered()
    /// Whether the session is told the source ended at its last entry (an open or distance
    /// step then ends); false for one that ends with the plan (`NoRunner`).
    var endsAtLastEntry: Bool { get }
}

extension SessionSource {
    public mutating func observe(_ action: SessionEngine.Action) {}
    public var isLive: Bool { false }
    public mutating func wait(timeout: Duration?) async -> LivePoll { LivePoll(now: .zero, entries: []) }
    public var command: (time: SessionTime, command: UserCommand)? { nil }
    public mutating func commandDelivered() {}
    public var endsAtLastEntry: Bool { true }
}

/// Plays back a recording's entries.
public struct ReplaySource: SessionSource {
    public let header: RecordingHeader
    private let entries: [RecordingEntry]
    private var position = 0
    /// The runner's commands the recording keeps (`RecordingFormat.runnerDevice`), in time
    /// order, each given at its own session time.
    private var commands: [(time: SessionTime, command: UserCommand)]

    public init(header: RecordingHeader, entries: [RecordingEntry]) {
        self.header = header
        var commands: [(time: SessionTime, command: UserCommand)] = []
        self.entries = entries.filter { entry in
            guard case .event(let time, RecordingFormat.runnerDevice, let name) = entry, let command = UserCommand(rawValue: name) else {
                return true
            }
            commands.append((time, command))
            return false
        }
        self.commands = commands.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    public var kind: SessionSourceKind { .replay }
    public var devices: [RecordedDevice] { header.devices }
    public var command: (time: SessionTime, command: UserCommand)? { commands.first }
    public mutating func commandDelivered() { commands.removeFirst() }

    public mutating func next() -> RecordingEntry? {
        guard position < entries.count else { return nil }
        defer { position += 1 }
        return entries[position]
    }
}
