/// Whether a key's `n` is for the step it ends. `n` typed as a step ends by time, or just as
/// the page's Next ends it, was taken a moment later, by the step after, which it then ended
/// too: the runner meant the one they saw. A step begun by the keys' own `n` is not guarded
/// (`n n` ends two steps), nor the first (the session's start).
struct KeyAfterStepChange {
    /// How long after a step change a key's `n` is taken as meant for the step before: less
    /// than anyone reads a new step on the screen and answers it.
    static let grace = Duration.milliseconds(500)

    private var changedAt: ContinuousClock.Instant?
    private var nextFromKeys = false

    /// A step after the first started at `now` (the instant it was shown).
    mutating func stepStarted(at now: ContinuousClock.Instant) {
        changedAt = nextFromKeys ? nil : now
        nextFromKeys = false
    }

    /// Whether a key's `n` read at `now` goes on to the session; if so, the step it starts is
    /// the keys' own.
    mutating func keeps(nextAt now: ContinuousClock.Instant) -> Bool {
        if let changedAt, now - changedAt < Self.grace { return false }
        nextFromKeys = true
        return true
    }
}
