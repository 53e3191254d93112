import IntervalProCore
import IntervalProIO
import IntervalProStorage
import Logging

/// Saves a session in the history while it runs (see `SessionRecorder`). Failing to save
/// never stops the session: it is said once on stderr, and the command exits 74 after
/// the summary. A full disk holds the session in memory until there is room, said as it
/// happens and when saving goes on.
struct SessionSaving {
    var location: StoreLocation
    /// The plan file as run, kept with the session.
    var planText: String

    /// Opens the store and starts the session's row; nil (after a warning) when it cannot.
    /// `tell`: who else hears that saving stopped (the page), beside stderr.
    func start(
        plan: Plan, source: SessionSourceKind, devices: [RecordedDevice], cadenceUnits: [String: CadenceUnit],
        realTime: Bool, tell: (@Sendable (String) -> Void)? = nil
    ) -> SessionWriter? {
        do {
            let store = try location.open(syncEveryCommit: realTime)
            var kept = devices
            for i in kept.indices { kept[i].cadenceUnit = cadenceUnits[kept[i].id] ?? kept[i].cadenceUnit }
            let id = try store.beginSession(
                startedAt: WallClock.iso8601Now(), planName: plan.name, planText: planText, source: source,
                devices: kept, owner: ProcessIdentity.current())
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
        } catch {
            let message = (error as? LaunchError)?.message ?? "\(error)"
            Self.warn(message)
            // The page too, from the start: it heard only at the finish, after the whole run.
            tell?("not saved: \(message); the session goes on unsaved")
        }
        return nil
    }

    static func warn(_ error: StoreError) { warn(error.description) }

    static func warn(_ message: String) {
        logger.warning("cannot save the session: \(message); it goes on unsaved")
    }
}
