import IntervalProCore
import IntervalProIO
import IntervalProRuntime
import IntervalProStorage
import Logging

/// Saves a session in the history while it runs (see `SessionRecorder`). Failing to save
/// never stops the session: it is said once on stderr, and the command exits 74 after
/// the summary. A full disk holds the session in memory until there is room, said as it
/// happens and when saving goes on, from its first second as later.
struct SessionSaving {
    var location: StoreLocation
    /// The plan file as run, kept with the session.
    var planText: String

    /// The companion that saves the session: begun now, or, when the disk is full, once
    /// there is room; nil (after a warning) when the store cannot be written at all.
    /// `tell`: who else hears that saving stopped (the page), beside stderr.
    func start(
        plan: Plan, source: SessionSourceKind, devices: [RecordedDevice], cadenceUnits: [String: CadenceUnit],
        realTime: Bool, tell: (@Sendable (String) -> Void)? = nil
    ) -> SessionSavingCompanion? {
        // The session's start, whenever its row can be begun.
        let startedAt = WallClock.iso8601Now()
        if let notSet = WallClock.notSetBecause(now: UTCTimestamp.unixSeconds(startedAt) ?? 0) {
            // A Pi before the network set its clock: the session was filed in 1970 without a word.
            let news = "\(notSet): the session is saved under that date (a Pi without a real-time clock sets it from the network)"
            logger.warning("\(news)")
            tell?(news)
        }
        let beginning = { () throws -> SessionWriter in
            try self.begin(
                plan: plan, startedAt: startedAt, source: source, devices: devices, cadenceUnits: cadenceUnits,
                realTime: realTime, tell: tell)
        }
        do {
            return SessionSavingCompanion(writer: try beginning(), retrying: beginning, retriesEverySecond: realTime, note: { _ in })
        } catch {
            let message = "\(error)"
            // A disk full as the session began lost all of it, room made a minute later or not.
            if let path = try? location.databasePath(), FileIO.fileSystemIsFull(at: path) {
                let news = "session store '\(path)': the disk is full: the session is held in memory and saved when there is room"
                logger.warning("\(news)")
                tell?(news)
                return SessionSavingCompanion(
                    writer: nil, retrying: beginning, retriesEverySecond: realTime,
                    note: { news in
                        logger.warning("\(news)")
                        tell?(news)
                    })
            }
            Self.warn(message)
            // The page too, from the start: it heard only at the finish, after the whole run.
            tell?("not saved: \(message); the session goes on unsaved")
        }
        return nil
    }

    /// Opens the store and starts the session's row.
    private func begin(
        plan: Plan, startedAt: String, source: SessionSourceKind, devices: [RecordedDevice], cadenceUnits: [String: CadenceUnit],
        realTime: Bool, tell: (@Sendable (String) -> Void)?
    ) throws -> SessionWriter {
        let store = try location.open(syncEveryCommit: realTime)
        var kept = devices
        for i in kept.indices { kept[i].cadenceUnit = cadenceUnits[kept[i].id] ?? kept[i].cadenceUnit }
        let id = try storeCall { () throws(StoreError) in
            try store.beginSession(
                startedAt: startedAt, planName: plan.name, planText: planText, source: source,
                devices: kept, owner: ProcessIdentity.current())
        }
        return SessionWriter(
            store: store, sessionID: id,
            warn: { error in
                Self.warn(error)
                tell?("not saved: \(error.reason); the session goes on")
            },
            note: { news in
                logger.warning("\(news)")
                tell?(news)
            })
    }

    static func warn(_ error: StoreError) { warn(error.description) }

    static func warn(_ message: String) {
        logger.warning("cannot save the session: \(message); it goes on unsaved")
    }
}

/// The session's saving beside the screen: a `SessionRecorder` once the session's row is
/// begun; until then (a full disk as the session started) what the session received and
/// did is held, the row tried again each second of a real-time session and at the end, and
/// what was held goes in first, in order.
final class SessionSavingCompanion: SessionObserver {
    private enum Held {
        case entry(RecordingEntry)
        case actions([SessionEngine.Action], SessionTime)
    }

    private var recorder: SessionRecorder?
    private var held: [Held] = []
    private var heldSeconds = 0
    private let retrying: () throws -> SessionWriter
    private let retriesEverySecond: Bool
    private let note: (String) -> Void
    /// Seconds a full disk may hold before the session's row is begun (as `SessionWriter`
    /// holds them after): past them, the session goes on unsaved.
    static let heldSecondsLimit = 4 * 3600

    init(
        writer: SessionWriter?, retrying: @escaping () throws -> SessionWriter, retriesEverySecond: Bool,
        note: @escaping (String) -> Void
    ) {
        recorder = writer.map(SessionRecorder.init)
        self.retrying = retrying
        self.retriesEverySecond = retriesEverySecond
        self.note = note
    }

    /// The session's writer, once its row is begun.
    var writer: SessionWriter? { recorder?.writer }

    func received(_ entry: RecordingEntry) {
        guard recorder == nil else { return recorder!.received(entry) }
        held.append(.entry(entry))
    }

    func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        guard recorder == nil else { return recorder!.engine(engine, performed: actions, at: now) }
        guard heldSeconds <= Self.heldSecondsLimit else { return }
        held.append(.actions(actions, now))
        guard actions.contains(where: { if case .sample = $0 { true } else { false } }) else { return }
        heldSeconds += 1
        if heldSeconds > Self.heldSecondsLimit {
            held = []
            SessionSaving.warn("the disk stayed full for \(Self.heldSecondsLimit / 3600) hours")
        } else if retriesEverySecond {
            tryBeginning(engine)
        }
    }

    func refresh(_ engine: SessionEngine, at now: SessionTime) {}

    /// The writer to finish the session with: begun now if it was not yet; nil when it cannot be.
    func finishing(_ engine: SessionEngine) -> SessionWriter? {
        if recorder == nil, heldSeconds <= Self.heldSecondsLimit, let failure = tryBeginning(engine) {
            // What was said last was "held in memory and saved when there is room".
            note("the session could not be saved as it ended, and what was held in memory is lost: \(failure)")
        }
        return writer
    }

    /// Begins the session's row and saves what was held; the error when it cannot yet.
    @discardableResult
    private func tryBeginning(_ engine: SessionEngine) -> (any Error)? {
        let writer: SessionWriter
        do {
            writer = try retrying()
        } catch {
            return error
        }
        var recorder = SessionRecorder(writer: writer)
        for item in held {
            switch item {
            case .entry(let entry): recorder.received(entry)
            case .actions(let actions, let time): recorder.engine(engine, performed: actions, at: time)
            }
        }
        held = []
        self.recorder = recorder
        note("session store '\(writer.store.path)': saving again: the disk has room, and what it held is saved")
        return nil
    }
}
