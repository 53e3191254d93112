import IntervalProLaunch

/// An idle server gives back the pages of its own code that start-up or the last session
/// touched, the way Android compacts cached apps: `serve` waits all day on a Pi between
/// sessions, and those clean file pages would otherwise stay counted against it (19 of its
/// 21.6 MiB). Whatever runs again faults back in from the binary.
enum IdleMemory {
    /// Long enough for a page just opened to have fetched what it shows first.
    static let settle = Duration.seconds(10)

    /// After `settle`, unless a session is running by then.
    static func releaseWhenIdle(_ hub: LiveStateHub) {
        Task.detached(priority: .background) {
            try? await Task.sleep(for: settle)
            guard !hub.isRunning else { return }
            ExecutablePages.giveBack()
        }
    }
}
