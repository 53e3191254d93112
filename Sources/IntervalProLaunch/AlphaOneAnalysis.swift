public import IntervalProCore
import IntervalProEventLoop
import IntervalProHRV
public import IntervalProRuntime
import Synchronization

/// DFA alpha 1 beside a running session, on a thread of its own: the runner hands over each
/// 1 Hz sample and goes on; correction and DFA of the two-minute window (a few hundred
/// microseconds every 5 s) never hold up a notification. The screen and the page read the
/// latest window; the summary takes the session's figures once every sample is analysed.
public final class AlphaOneAnalysis: SessionObserver, @unchecked Sendable {
    private let loop: EventLoop
    // Confined to the loop's thread.
    private var tracker = AlphaOneTracker()
    private var windows: [AlphaWindow] = []
    /// Every beat so far, for the session's artifact share.
    private var beats: [UInt16] = []
    private let latestWindow = Mutex<AlphaWindow?>(nil)

    /// Nil when the thread cannot start: the session runs without alpha 1.
    public init?() {
        guard let loop = try? EventLoop(name: "ip-alpha1") else { return nil }
        self.loop = loop
    }

    deinit { loop.shutdown() }

    /// The last window computed; nil until the first (or without beats).
    public var latest: AlphaWindow? { latestWindow.withLock { $0 } }

    /// Samples not yet handed over (the runner's thread): they go over together at each
    /// window's second, one wake-up of the analysis thread per window.
    private var unsent: [SessionSample] = []

    public func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        for case .sample(let sample) in actions {
            unsent.append(sample)
            if sample.second % AlphaOneTracker.everySeconds == 0 { handOver() }
        }
    }

    private func handOver() {
        guard !unsent.isEmpty else { return }
        let batch = unsent
        unsent.removeAll(keepingCapacity: true)
        loop.execute { [self] in for sample in batch { take(sample) } }
    }

    private func take(_ sample: SessionSample) {
        beats += sample.rrIntervals
        guard let window = tracker.add(sample) else { return }
        windows.append(window)
        latestWindow.withLock { $0 = window }
    }

    /// Waits for every sample so far to be analysed, then gives the windows and the
    /// session's figures (nil without beats).
    public func finish() async -> (windows: [AlphaWindow], summary: SessionHRV?) {
        handOver()
        return await loop.submit { [self] in (windows, AlphaOneTracker.summary(windows: windows, beats: beats)) }
    }
}
