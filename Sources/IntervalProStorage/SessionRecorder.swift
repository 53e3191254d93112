public import IntervalProCore
import IntervalProHistory
public import IntervalProRuntime

/// Saves a running session as it goes: a companion observer beside the screen.
///
/// Entries and controls come as the runner saw them, 1 Hz samples as the engine reported
/// them (`.sample` actions). They are buffered and committed once per second of
/// session time, one transaction each, so a killed process loses at most the last
/// second. When the store refuses a write (read-only, an I/O error), `warn` is called once
/// and the session goes on unsaved. When another process holds the store past the wait (a
/// busy machine, a long import), or the disk is full, the batch is kept and goes with the next
/// commit (`note` says when a full disk holds it and when saving goes on); at the end the rest
/// is tried `finishAttempts` times before the session is given up. A disk full for two
/// seconds stopped saving for good: 79 s of a session of 240 kept.
public final class SessionWriter {
    public let store: SessionStore
    public let sessionID: Int64
    private var entryCount = 0
    private var batch = StoreBatch()
    private var entrySequence = 0
    private var controlSequence = 0
    private let warn: (StoreError) -> Void
    private let note: (String) -> Void
    /// A full disk holds the batch: said once, and again when it is saved.
    private var heldByFullDisk = false
    public private(set) var failure: StoreError?
    /// The session time saved up to (the last commit's).
    public private(set) var savedThrough = SessionTime.zero
    /// Tries of the last commit and of the summary, each waiting the store's busy timeout.
    static let finishAttempts = 6
    /// Seconds of samples a full disk may hold in memory (some 10 MB): past them, saving stops.
    static let heldSecondsLimit = 4 * 3600
    /// How long a second's commit waits for another process's write (a `history import`, an
    /// SD card's slow commit). The session's own thread commits, and it feeds the metronome:
    /// waiting the store's 5 s, a store held for 3 s silenced the clicks for 2 s. Held longer,
    /// the batch goes with the next second's.
    static let inSessionWait = 0.2

    public init(
        store: SessionStore, sessionID: Int64, warn: @escaping (StoreError) -> Void, note: @escaping (String) -> Void = { _ in }
    ) {
        self.store = store
        self.sessionID = sessionID
        self.warn = warn
        self.note = note
    }

    func received(_ entry: RecordingEntry) {
        guard failure == nil else { return }
        entryCount += 1
        if batch.entries.isEmpty { batch.firstEntrySequence = entrySequence }
        batch.entries.append(entry)
        entrySequence += 1
        batch.lastTime = max(batch.lastTime, entry.time)
    }

    func performed(_ actions: [SessionEngine.Action], at now: SessionTime) {
        guard failure == nil else { return }
        // The entry that led to these actions was received already: a control applied
        // with them comes after it.
        for case .applied(let kind) in actions {
            if batch.controls.isEmpty { batch.firstControlSequence = controlSequence }
            batch.controls.append(SessionControl(kind: kind, time: now, afterEntries: entryCount))
            controlSequence += 1
            batch.lastTime = max(batch.lastTime, now)
        }
        add(actions.compactMap { if case .sample(let sample) = $0 { sample } else { nil } })
    }

    /// New samples close a second: commit what the batch holds.
    private func add(_ samples: [SessionSample]) {
        guard !samples.isEmpty else { return }
        batch.samples += samples
        batch.lastTime = max(batch.lastTime, .seconds(samples.last!.second))
        commit(lastTry: false, waiting: Self.inSessionWait)
    }

    /// Saves the batch, waiting `seconds` for another process (nil: the store's wait); a busy
    /// store keeps it for the next commit, unless `lastTry`.
    private func commit(lastTry: Bool, waiting seconds: Double? = nil) {
        guard failure == nil, !batch.isEmpty else { return }
        do {
            try store.save(batch, session: sessionID, waiting: seconds)
            savedThrough = batch.lastTime
            batch = StoreBatch()
            if heldByFullDisk {
                heldByFullDisk = false
                note("session store '\(store.path)': saving again: the disk has room, and what it held is saved")
            }
        } catch where error.isBusy && !lastTry {
            return
        } catch where error.isFull && !lastTry && batch.samples.count < Self.heldSecondsLimit {
            if !heldByFullDisk {
                heldByFullDisk = true
                note("\(error.description): the session is held in memory and saved when there is room")
            }
        } catch {
            failure = error
            warn(error)
        }
    }

    /// Saves the rest and the scored summary. Returns the error that stopped saving, if any.
    @discardableResult
    public func finish(_ summary: SessionSummary) -> StoreError? {
        for attempt in 1...Self.finishAttempts where failure == nil && !batch.isEmpty {
            commit(lastTry: attempt == Self.finishAttempts)
        }
        guard failure == nil else { return failure }
        for attempt in 1...Self.finishAttempts {
            do {
                try store.finish(session: sessionID, summary: summary, status: .finished)
                return nil
            } catch where error.isBusy && attempt < Self.finishAttempts {
                continue
            } catch {
                failure = error
                warn(error)
            }
        }
        return failure
    }
}

/// The observer to hand to the session runner as a companion.
public struct SessionRecorder: SessionObserver {
    public let writer: SessionWriter

    public init(writer: SessionWriter) {
        self.writer = writer
    }

    public mutating func received(_ entry: RecordingEntry) {
        writer.received(entry)
    }

    public mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        writer.performed(actions, at: now)
    }

    public mutating func refresh(_ engine: SessionEngine, at now: SessionTime) {}
}
