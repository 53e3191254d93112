public import IntervalProCore

/// How session time relates to the wall clock.
public enum Pacing: Sendable, Equatable {
    /// As fast as the machine goes: session time is the source's own timestamps.
    case virtual
    /// Session time runs `speed` times faster than the wall clock (1 = real time).
    case realTime(speed: Double)
}

/// What the runner reports to the screen, the log and the recorder.
public protocol SessionObserver {
    /// Called with every batch of actions the engine returned.
    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime)
    /// Called with every entry taken from the source, before the engine sees it.
    mutating func received(_ entry: RecordingEntry)
    /// Called with messages a live source has for the user (a sensor lost, reconnecting).
    mutating func notice(_ text: String)
    /// Called about every `displayInterval` of wall time when pacing in real time.
    mutating func refresh(_ engine: SessionEngine, at now: SessionTime)
    /// Commands typed since the last call (keys, Ctrl-C).
    mutating func pendingCommands() -> [UserCommand]
    /// One of those commands took effect, as `command` (a toggle as pause or resume), at `now`.
    mutating func commandApplied(_ command: UserCommand, at now: SessionTime)
    /// Whether it shows the session after `actions` (nil: the screen's clock ticked). An
    /// `ObserverGroup` builds one `SessionView` for all its members that do, and hands it
    /// to their `show`: the screen and the page show the same view, built once.
    func showsView(after actions: [SessionEngine.Action]?, of engine: SessionEngine) -> Bool
    mutating func show(_ view: SessionView)
}

extension SessionObserver {
    public mutating func received(_ entry: RecordingEntry) {}
    public mutating func notice(_ text: String) {}
    public mutating func refresh(_ engine: SessionEngine, at now: SessionTime) {}
    public mutating func pendingCommands() -> [UserCommand] { [] }
    public mutating func commandApplied(_ command: UserCommand, at now: SessionTime) {}
    public func showsView(after actions: [SessionEngine.Action]?, of engine: SessionEngine) -> Bool { false }
    public mutating func show(_ view: SessionView) {}
}

/// An event for its own session time, due once `afterEntries` entries are delivered: what a
/// `SessionRunner` was told to do, and when. Outside the generic runner, so that its type is
/// known when compiled: nested in it, its metadata was looked up at run time each time the
/// runner asked for the next one.
public struct ScheduledEvent: Sendable {
    public var time: SessionTime
    public var afterEntries: Int
    public var event: SessionEngine.Event

    public init(time: SessionTime, afterEntries: Int, event: SessionEngine.Event) {
        self.time = time
        self.afterEntries = afterEntries
        self.event = event
    }
}

/// Drives a `SessionEngine` from a source and a clock until the session finishes.
///
/// This is the only place that waits. With `.virtual` pacing it never sleeps and the
/// clock is not read, so a replay's result depends on the recording alone.
public struct SessionRunner<Source: SessionSource, Observer: SessionObserver, C: Clock>
where C.Duration == Duration {
    public var engine: SessionEngine
    public var source: Source
    public var observer: Observer
    public let pacing: Pacing
    public let clock: C
    public var displayInterval: Duration = .milliseconds(250)
    /// How long a live session goes at most without calling its observers' `refresh`: the
    /// screen's clock needs a second; live sound (`LiveAudio.refreshInterval`) a quarter.
    public var liveRefreshInterval = Self.liveDisplayInterval
    /// Rung when a command arrives from elsewhere: a session paced in real time acts on it at
    /// once instead of at its next look.
    public var doorbell: Doorbell?

    private var pending: RecordingEntry?
    /// When a session paced in real time next redraws its screen and page: on the wall clock,
    /// every `displayInterval`, however many entries a fast replay takes meanwhile.
    private var nextRefresh: C.Instant?
    private var exhausted = false
    private var sourceEndSent = false
    private var lastSourceTime = SessionTime.zero
    /// Entries handed to the engine so far.
    private var delivered = 0
    /// Events due at their own session time once so many entries are in (a stored
    /// session's controls: what the runner did, and when), in order.
    public var scheduled: [ScheduledEvent] = []
    private var nextScheduled = 0
    /// Whether the runner itself tells the engine the source ended, at its last entry's time;
    /// a stored session's controls say when it did instead.
    public var endsSource = true
    /// Where a session that was cut off finishes, once its entries and controls are in.
    public var finishAt: SessionTime?

    public init(engine: SessionEngine, source: Source, observer: Observer, pacing: Pacing, clock: C) {
        endsSource = source.endsAtLastEntry
        self.engine = engine
        self.source = source
        self.observer = observer
        self.pacing = pacing
        self.clock = clock
    }

    /// Runs to the end of the plan (or until finished by a command) and returns the summary.
    public mutating func run() async throws -> SessionSummary {
        if source.isLive { return try await runLive() }
        let start = clock.now
        var summary: SessionSummary?
        deliver(.tick, at: .zero, summary: &summary)
        while summary == nil {
            if pending == nil, !exhausted { take(try await source.next()) }
            let target = nextTarget()
            if case .realTime(let speed) = pacing {
                try await wait(until: target, start: start, speed: speed, summary: &summary)
                if summary != nil { break }
            } else {
                for command in observer.pendingCommands() {
                    deliver(userCommand: command, at: engine.cursor, summary: &summary)
                }
                if summary != nil { break }
            }
            reach(target, summary: &summary)
        }
        return summary!
    }

    /// Takes the source's next entry (nil: it has no more).
    private mutating func take(_ entry: RecordingEntry?) {
        pending = entry
        if let entry {
            lastSourceTime = entry.time
        } else {
            exhausted = true
        }
    }

    /// The session time of what comes next: the pending entry, a scheduled event that is
    /// due, the engine's next deadline, the source's end or the cut-off, whichever is first.
    /// Nil when nothing is left to wait for.
    private func nextTarget() -> SessionTime? {
        var target: SessionTime?
        func consider(_ time: SessionTime) { if target.map({ time < $0 }) ?? true { target = time } }
        if let pending { consider(pending.time) }
        if let due = dueScheduled { consider(due.time) }
        if let command = source.command { consider(max(command.time, engine.cursor)) }
        if let deadline = engine.nextDeadline { consider(deadline) }
        if let cutOff { consider(cutOff) }
        // The source's own command (the simulated runner's "next" ending its last open step, due
        // half a reading after its last) comes before its end: the step ended at 4:59.5 as
        // `source_ended` where the contract says the runner says "next" after five minutes.
        if sourceEndDue, target.map({ lastSourceTime <= $0 }) ?? true { target = lastSourceTime }
        // A long silence in the source is crossed a stride at a time: the engine reports a
        // sample per second it moves over, and one move across days would hand the observers
        // millions of them in one batch.
        if let far = target, far > engine.cursor + Self.longestStride { return engine.cursor + Self.longestStride }
        return target
    }

    /// The source's end is yet to be delivered, and nothing of the source's comes before it.
    private var sourceEndDue: Bool { exhausted && endsSource && !sourceEndSent && source.command == nil }

    /// The most session time one event moves the engine over.
    public static var longestStride: SessionTime { .seconds(60) }

    private var dueScheduled: ScheduledEvent? {
        guard nextScheduled < scheduled.count, scheduled[nextScheduled].afterEntries <= delivered else { return nil }
        return scheduled[nextScheduled]
    }

    /// Where a session cut off finishes, once every entry and scheduled event is in.
    private var cutOff: SessionTime? {
        guard exhausted, pending == nil, nextScheduled == scheduled.count, let finishAt else { return nil }
        return max(finishAt, engine.cursor)
    }

    /// Delivers what is due at `target`: a scheduled event before an entry of the same time
    /// (it came after the entries it counts), then the entry, the source's end, the cut-off,
    /// or a tick. Nil on virtual time: nothing can move the session on, so it is finished
    /// rather than spun forever.
    private mutating func reach(_ target: SessionTime?, summary: inout SessionSummary?) {
        guard let target else {
            if pacing == .virtual { deliver(.command(.finish), at: engine.cursor, summary: &summary) }
            return
        }
        if let due = dueScheduled, due.time <= target {
            nextScheduled += 1
            deliver(due.event, at: max(due.time, engine.cursor), summary: &summary)
        } else if let command = source.command, max(command.time, engine.cursor) <= target,
            // Readings of the command's own time first: live, a key taken at a time follows
            // the readings that came at it, and a recording's command replays so.
            pending.map({ $0.time != target || max(command.time, engine.cursor) < target }) ?? true
        {
            source.commandDelivered()
            deliver(.command(command.command), at: target, summary: &summary)
        } else if let entry = pending, entry.time == target {
            pending = nil
            delivered += 1
            observer.received(entry)
            deliver(event(for: entry), at: target, summary: &summary)
        } else if sourceEndDue, target == lastSourceTime {
            sourceEndSent = true
            deliver(.sourceEnded, at: target, summary: &summary)
        } else if let cutOff, target == cutOff {
            finishAt = nil
            deliver(.command(.finish), at: target, summary: &summary)
        } else {
            deliver(.tick, at: target, summary: &summary)
        }
    }

    /// A live session: the runner waits on the source until an entry, a notice or a key
    /// arrives, the engine's next deadline comes, or the screen's clock ticks; never on a
    /// timer of its own. The source says what time it is and what arrived.
    private mutating func runLive() async throws -> SessionSummary {
        var summary: SessionSummary?
        deliver(.tick, at: .zero, summary: &summary)
        var nextRefresh: SessionTime?
        var lastArrival: SessionTime?
        var timeout: Duration? = .zero
        while summary == nil {
            let poll = await source.wait(timeout: timeout)
            if let entry = poll.entries.last { lastArrival = entry.time }
            for notice in poll.notices { observer.notice(notice) }
            for entry in poll.entries where summary == nil {
                observer.received(entry)
                deliver(event(for: entry), at: entry.time, summary: &summary)
            }
            for command in observer.pendingCommands() where summary == nil {
                deliver(userCommand: command, at: max(poll.now, engine.cursor), summary: &summary)
            }
            if summary == nil { deliver(.tick, at: max(poll.now, engine.cursor), summary: &summary) }
            if summary != nil { break }
            let now = engine.cursor
            // The clock comes with whatever wakes the loop up to a leeway before it is due, and
            // the next is due half a leeway after the sensors' next arrival should come (a
            // second after their last): their arrivals carry it, and the loop wakes for the
            // clock only when nothing arrives.
            if nextRefresh.map({ now >= $0 - Self.liveDisplayLeeway }) ?? true {
                observer.refresh(engine, at: now)
                let afterArrival = lastArrival.map { $0 + liveRefreshInterval + .seconds(Self.liveDisplayLeeway.seconds / 2) }
                nextRefresh = afterArrival.flatMap { $0 > now ? $0 : nil } ?? now + liveRefreshInterval
            }
            var wakeAt = nextRefresh ?? now + liveRefreshInterval
            if let deadline = engine.nextDeadline { wakeAt = min(wakeAt, deadline) }
            timeout = .microseconds(max(0, (wakeAt - now).microseconds))
        }
        return summary!
    }

    /// How often a live screen is redrawn with nothing else happening: its clock shows seconds.
    public static var liveDisplayInterval: SessionTime { .seconds(1) }

    /// How early a wake for something else redraws a live screen's clock; the clock's own wake
    /// is moved half of it past the sensors' expected arrival.
    public static var liveDisplayLeeway: SessionTime { .seconds(0.25) }

    private func event(for entry: RecordingEntry) -> SessionEngine.Event {
        switch entry {
        case .notification(let notification): .notification(notification)
        case .event(_, let device, let name): .deviceEvent(device: device, name: name)
        }
    }

    @discardableResult
    private mutating func deliver(
        _ event: SessionEngine.Event, at now: SessionTime, summary: inout SessionSummary?
    ) -> [SessionEngine.Action] {
        let actions = engine.handle(event, now: now)
        guard !actions.isEmpty else { return actions }
        for action in actions {
            source.observe(action)
            if case .sessionFinished(let result) = action { summary = result }
        }
        observer.engine(engine, performed: actions, at: engine.cursor)
        return actions
    }

    /// A command of the runner's (keys, the page, Ctrl-C), and what it did told to the
    /// observers: the recording keeps it, so that the session replays to the same summary.
    private mutating func deliver(userCommand command: UserCommand, at now: SessionTime, summary: inout SessionSummary?) {
        for case .applied(.command(let applied)) in deliver(.command(command), at: now, summary: &summary) {
            observer.commandApplied(applied, at: engine.cursor)
        }
    }

    /// Sleeps until `deadline`, or until the doorbell rings (a command arrived).
    private func pause(until deadline: C.Instant) async throws {
        guard let doorbell else { return try await clock.sleep(until: deadline, tolerance: nil) }
        let clock = self.clock
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: deadline, tolerance: nil) }
            group.addTask { await doorbell.wait() }
            await group.next()
            group.cancelAll()
        }
        try Task.checkCancellation()
    }

    /// Sleeps until session time `target` comes round on the wall clock, refreshing the
    /// screen and taking commands meanwhile. A nil target waits for commands only.
    private mutating func wait(
        until target: SessionTime?, start: C.Instant, speed: Double, summary: inout SessionSummary?
    ) async throws {
        func sessionTime(of instant: C.Instant) -> SessionTime {
            let elapsed = start.duration(to: instant).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
            return .seconds(seconds * speed)
        }
        while summary == nil {
            let now = clock.now
            let current = min(sessionTime(of: now), target ?? SessionTime(microseconds: .max))
            // What is due at the target goes first, and a command taken now follows it: a
            // recording replays a command after the readings of its own time, and one taken
            // before them here scored a reading of the step it ended in the next (a replay
            // differed from the summary shown).
            if let target, current >= target { return }
            for command in observer.pendingCommands() {
                deliver(userCommand: command, at: max(current, engine.cursor), summary: &summary)
            }
            if summary != nil { return }
            deliver(.tick, at: max(current, engine.cursor), summary: &summary)
            if summary != nil { return }
            // Not at each entry: a replay at 60x takes a few hundred a second, and redrew the
            // screen and told the page for each (180 frames a second).
            if nextRefresh.map({ now >= $0 }) ?? true {
                observer.refresh(engine, at: engine.cursor)
                nextRefresh = now.advanced(by: displayInterval)
            }
            // A deadline may have moved (pause, next): let the caller recompute the target.
            if let deadline = engine.nextDeadline, target.map({ deadline < $0 }) ?? true { return }
            var sleep = now.duration(to: nextRefresh ?? now.advanced(by: displayInterval))
            if let target {
                let remaining = Duration.microseconds(Double((target - current).microseconds) / speed)
                sleep = min(sleep, remaining)
            }
            try await pause(until: now.advanced(by: sleep))
        }
    }
}

/// Entries already in memory (a stored session's), as a source.
public struct EntryList: SessionSource {
    public let kind: SessionSourceKind
    public var devices: [RecordedDevice] { [] }
    private let entries: [RecordingEntry]
    private var position = 0

    public init(_ entries: [RecordingEntry], kind: SessionSourceKind) {
        self.entries = entries
        self.kind = kind
    }

    public mutating func next() -> RecordingEntry? {
        guard position < entries.count else { return nil }
        defer { position += 1 }
        return entries[position]
    }
}

extension SessionRunner where Source == EntryList {
    /// Runs the session over entries already in memory on virtual time, as `run()` does,
    /// without suspending: a stored session scores again this way, exactly as it ran.
    public mutating func runInMemory() -> SessionSummary {
        precondition(pacing == .virtual, "entries in memory run on virtual time")
        var summary: SessionSummary?
        deliver(.tick, at: .zero, summary: &summary)
        while summary == nil {
            if pending == nil, !exhausted { take(source.next()) }
            for command in observer.pendingCommands() {
                deliver(userCommand: command, at: engine.cursor, summary: &summary)
            }
            if summary != nil { break }
            reach(nextTarget(), summary: &summary)
        }
        return summary!
    }
}

/// An observer that only watches: it sends no commands and shows nothing.
public struct SilentObserver: SessionObserver {
    public init() {}
    public mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {}
}

/// One observer that forwards to several: the presenter first, then companions such as the
/// session store, the metronome or the web page's publisher. Commands come from all of them;
/// the view of the session is built once per batch for those that show it.
public struct ObserverGroup<Primary: SessionObserver>: SessionObserver {
    public var primary: Primary
    public var companions: [any SessionObserver]
    /// Adds to a view what is computed beside the engine (alpha 1's latest window).
    public var decorate: ((inout SessionView) -> Void)?

    public init(
        _ primary: Primary, companions: [any SessionObserver] = [], decorate: ((inout SessionView) -> Void)? = nil
    ) {
        self.primary = primary
        self.companions = companions
        self.decorate = decorate
    }

    public mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        primary.engine(engine, performed: actions, at: now)
        for i in companions.indices { companions[i].engine(engine, performed: actions, at: now) }
        showView(after: actions, of: engine, at: now)
    }

    public mutating func received(_ entry: RecordingEntry) {
        primary.received(entry)
        for i in companions.indices { companions[i].received(entry) }
    }

    public mutating func notice(_ text: String) {
        primary.notice(text)
        for i in companions.indices { companions[i].notice(text) }
    }

    public mutating func refresh(_ engine: SessionEngine, at now: SessionTime) {
        primary.refresh(engine, at: now)
        for i in companions.indices { companions[i].refresh(engine, at: now) }
        showView(after: nil, of: engine, at: now)
    }

    public mutating func pendingCommands() -> [UserCommand] {
        var commands = primary.pendingCommands()
        for i in companions.indices { commands += companions[i].pendingCommands() }
        return commands
    }

    public mutating func commandApplied(_ command: UserCommand, at now: SessionTime) {
        primary.commandApplied(command, at: now)
        for i in companions.indices { companions[i].commandApplied(command, at: now) }
    }

    /// One view for every member that shows the session now.
    private mutating func showView(after actions: [SessionEngine.Action]?, of engine: SessionEngine, at now: SessionTime) {
        let primaryShows = primary.showsView(after: actions, of: engine)
        let showing = companions.indices.filter { companions[$0].showsView(after: actions, of: engine) }
        guard primaryShows || !showing.isEmpty else { return }
        var view = SessionView(engine, at: now)
        decorate?(&view)
        if primaryShows { primary.show(view) }
        for i in showing { companions[i].show(view) }
    }
}
