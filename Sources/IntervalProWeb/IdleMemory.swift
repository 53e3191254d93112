import IntervalProLaunch
import Synchronization

/// An idle server gives back the pages of code that start-up, the last session or the last
/// requests touched, and malloc's free ones, the way Android compacts cached apps: `serve`
/// waits all day on a Pi between sessions, and those pages would otherwise stay counted against
/// it (19 of its 21.6 MiB at start; 25 MB after the page, a report and `doctor`'s checks, which
/// no session followed). Whatever runs again faults back in from the file.
enum IdleMemory {
    /// Long enough for a page just opened to have fetched what it shows first.
    static let settle = Duration.seconds(10)

    private struct Quiet {
        var lastActivity = ContinuousClock.now
        var waiting = false
    }

    private static let quiet = Mutex(Quiet())

    /// Once `settle` has passed since the last call (the server started, a session ended, a
    /// request was served), unless a session is running by then. One wait at a time, which
    /// later calls move on: a request costs a lock, not a task.
    static func releaseWhenIdle(_ hub: LiveStateHub) {
        let now = ContinuousClock.now
        let starts = quiet.withLock { quiet in
            quiet.lastActivity = now
            defer { quiet.waiting = true }
            return !quiet.waiting
        }
        guard starts else { return }
        Task.detached(priority: .background) {
            var due = now + settle
            while true {
                try? await Task.sleep(until: due)
                let later = quiet.withLock { quiet -> ContinuousClock.Instant? in
                    let quietFrom = quiet.lastActivity + settle
                    if quietFrom > .now { return quietFrom }
                    quiet.waiting = false
                    return nil
                }
                guard let later else { break }
                due = later
            }
            guard !hub.isRunning else { return }
            CodePages.giveBack()
        }
    }
}
