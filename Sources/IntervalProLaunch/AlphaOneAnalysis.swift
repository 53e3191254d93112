public import IntervalProCore
import IntervalProEventLoop
import IntervalProHRV
import IntervalProIO
public import IntervalProRuntime
import Synchronization

/// DFA alpha 1 beside a running session. The runner hands over each 1 Hz sample and goes on;
/// the live figure (the tracker's window, corrected alone, every 5 s) is computed on a thread
/// of its own, so that correction and DFA never hold up a notification, and the screen and the
/// page read the latest. At the end, `finish` computes the session's windows and figures from
/// all its beats corrected in one series (`AlphaOneTracker.analyse`), on every core.
///
/// The thread starts with the first beat, and only when someone watches (`live`): a session
/// without RR intervals (a footpod alone, a strap that sends none) has no window to compute, and
/// a replay on virtual time that shows no figure needs only the session's windows.
public final class AlphaOneAnalysis: SessionObserver, @unchecked Sendable {
    private let live: Bool
    /// Nil until the first beat; stays nil when the thread cannot start (no live figure then).
    private var loop: EventLoop?
    private var threadRefused = false
    // Confined to the loop's thread.
    private var tracker = AlphaOneTracker()
    private let latestWindow = Mutex<AlphaWindow?>(nil)
    /// Set by `finish`: the thread takes in no more.
    private let finishing = Atomic<Bool>(false)

    // The runner's thread (and `finish`, once the runner is done).
    /// The session's beats and seconds, for its windows at the end.
    private var series = AlphaOneSeries()
    /// The samples not yet handed to the thread.
    private var waiting: [SessionSample] = []
    /// The second of the last sample with beats, if any came.
    private var lastBeatSecond: Int?

    /// `live` false computes no live figure, only the session's windows at the end.
    public init(live: Bool = true) {
        self.live = live
    }

    deinit { loop?.shutdown() }

    /// Whether the thread has started: with the first beat.
    var threadStarted: Bool { loop != nil }

    /// The last live window computed; nil until the first (or without beats).
    public var latest: AlphaWindow? { latestWindow.withLock { $0 } }

    /// Samples go over together at each window's second: one wake-up of the thread per window.
    /// Without a beat in the last `windowSeconds` there is no window to compute (a strap that
    /// sends no RR intervals, or none for a while), so they wait, up to a window's length of
    /// them: a replay of an hour without beats woke the thread 840 times for nothing.
    public func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        for case .sample(let sample) in actions {
            series.add(sample)
            guard live else { continue }
            waiting.append(sample)
            if !sample.rrIntervals.isEmpty { lastBeatSecond = sample.second }
            guard sample.second % AlphaOneTracker.everySeconds == 0 else { continue }
            let windowDue = lastBeatSecond.map { sample.second - $0 < AlphaOneTracker.windowSeconds } ?? false
            if windowDue {
                handOver()
            } else if waiting.count > AlphaOneTracker.windowSeconds {
                // Only the last window's length of them can be in a window yet to come.
                waiting.removeFirst(waiting.count - AlphaOneTracker.windowSeconds)
            }
        }
    }

    private func handOver() {
        if loop == nil, !threadRefused {
            loop = try? EventLoop(name: "ip-alpha1")
            threadRefused = loop == nil
        }
        guard let loop else { return }
        let batch = waiting
        waiting.removeAll(keepingCapacity: true)
        loop.execute { [self] in for sample in batch { take(sample) } }
    }

    private func take(_ sample: SessionSample) {
        guard !finishing.load(ordering: .relaxed), let window = tracker.add(sample) else { return }
        latestWindow.withLock { $0 = window }
    }

    /// Stops the live figure, then computes the session's windows and figures (nil without
    /// beats), side by side on the machine's cores.
    public func finish() async -> (windows: [AlphaWindow], summary: SessionHRV?) {
        finishing.store(true, ordering: .relaxed)
        return AlphaOneTracker.analyse(series, parts: Cores.online, perform: Cores.perform)
    }
}
