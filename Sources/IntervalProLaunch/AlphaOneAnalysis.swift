public import IntervalProCore
import IntervalProEventLoop
import IntervalProHRV
import IntervalProIO
public import IntervalProRuntime
import Synchronization

/// DFA alpha 1 beside a running session, on a thread of its own: the runner hands over each
/// 1 Hz sample and goes on; correction and DFA of the two-minute window (a few hundred
/// microseconds every 5 s) never hold up a notification. The screen and the page read the
/// latest window; the summary takes the session's figures once every sample is analysed.
///
/// The thread starts with the first beat: a session without RR intervals (a footpod alone, a
/// strap that sends none) has no window to compute, and keeps only the last few minutes of
/// samples (two windows' worth at most), which the first beat's windows may need.
public final class AlphaOneAnalysis: SessionObserver, @unchecked Sendable {
    /// Nil until the first beat; stays nil when the thread cannot start (`finish` then computes
    /// every window).
    private var loop: EventLoop?
    private var threadRefused = false
    // Confined to the loop's thread.
    private var tracker = AlphaOneTracker()
    private var windows: [AlphaWindow] = []
    private let latestWindow = Mutex<AlphaWindow?>(nil)
    /// How many samples, from the session's first, the thread has taken in.
    private let taken = Atomic<Int>(0)
    /// Set by `finish`: the thread takes in no more, and what it has not reached is cut into
    /// pieces on every core (a replay on virtual time hands over an hour in milliseconds).
    private let finishing = Atomic<Bool>(false)

    // The runner's thread (and `finish`, once the runner is done).
    /// Every beat so far, and the intervals too short for one, for the session's artifact share.
    private var beats: [UInt16] = []
    private var extraDetections = 0
    /// The samples `finish` may still need: from two windows' length before the first the
    /// thread has not taken in (a live session keeps a few minutes of them, not hours).
    private var recent: [SessionSample] = []
    /// The number, from the session's first, of `recent`'s first sample.
    private var recentStart = 0
    /// How many samples went over to the thread.
    private var handedOver = 0
    /// The second of the last sample with beats, if any came.
    private var lastBeatSecond: Int?

    public init() {}

    deinit { loop?.shutdown() }

    /// Whether the thread has started: with the first beat.
    var threadStarted: Bool { loop != nil }

    /// The last window computed; nil until the first (or without beats).
    public var latest: AlphaWindow? { latestWindow.withLock { $0 } }

    /// Samples go over together at each window's second: one wake-up of the analysis thread
    /// per window. Without a beat in the last `windowSeconds` there is no window to compute
    /// (a strap that sends no RR intervals, or none for a while), so they wait, up to two
    /// windows' length of them: a replay of an hour without beats woke the thread 840 times
    /// for nothing. The thread takes in the same samples in the same order all the same.
    public func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        for case .sample(let sample) in actions {
            recent.append(sample)
            beats += AlphaOneTracker.heartbeats(sample)
            extraDetections += AlphaOneTracker.extraDetections(sample)
            if !sample.rrIntervals.isEmpty { lastBeatSecond = sample.second }
            guard lastBeatSecond != nil else {
                // Before the first beat: only the samples its windows may cover are kept (cut
                // once they are two windows' worth, not moved at every sample), and the thread
                // starts from the first of them.
                if recent.count >= 2 * AlphaOneTracker.windowSeconds {
                    let older = recent.count - AlphaOneTracker.windowSeconds
                    recent.removeFirst(older)
                    recentStart += older
                    handedOver = recentStart
                }
                continue
            }
            guard sample.second % AlphaOneTracker.everySeconds == 0 else { continue }
            let windowDue = lastBeatSecond.map { sample.second - $0 < AlphaOneTracker.windowSeconds } ?? false
            let waiting = recentStart + recent.count - handedOver
            if windowDue || waiting >= 2 * AlphaOneTracker.windowSeconds { handOver() }
        }
    }

    private func handOver() {
        guard handedOver < recentStart + recent.count else { return }
        if loop == nil, !threadRefused {
            loop = try? EventLoop(name: "ip-alpha1")
            threadRefused = loop == nil
            taken.store(handedOver, ordering: .relaxed)
        }
        // Without the thread, `finish` computes every window.
        guard let loop else { return }
        let batch = Array(recent[(handedOver - recentStart)...])
        handedOver = recentStart + recent.count
        loop.execute { [self] in for sample in batch { take(sample) } }
        let needed = taken.load(ordering: .relaxed) - 2 * AlphaOneTracker.windowSeconds
        if needed - recentStart > AlphaOneTracker.windowSeconds {
            recent.removeFirst(needed - recentStart)
            recentStart = needed
        }
    }

    private func take(_ sample: SessionSample) {
        guard !finishing.load(ordering: .relaxed) else { return }
        taken.add(1, ordering: .relaxed)
        guard let window = tracker.add(sample) else { return }
        windows.append(window)
        latestWindow.withLock { $0 = window }
    }

    /// Stops the thread where it is, then computes the windows it has not reached and the
    /// session's figures (nil without beats), side by side on the machine's cores.
    public func finish() async -> (windows: [AlphaWindow], summary: SessionHRV?) {
        finishing.store(true, ordering: .relaxed)
        // Without a beat there is no window and no figure: nothing to wait for or cut up (the
        // end of a session from a strap without RR intervals, or from a footpod alone).
        guard lastBeatSecond != nil else { return ([], nil) }
        let (done, reached) =
            await loop?.submit { [self] in (windows, taken.load(ordering: .relaxed)) } ?? ([], handedOver)
        return AlphaOneTracker.analyse(
            recent, after: done, from: reached - recentStart, beats: beats, extraDetections: extraDetections, parts: Cores.online,
            perform: Cores.perform)
    }
}
