public import IntervalProCore
import Synchronization

/// DFA alpha 1 through a session, from its 1 Hz samples' RR intervals (docs/hrv-during-the-run.md).
///
/// Every 5 s of session time a window takes the beats of the last 120 s and computes alpha 1 of
/// their corrected intervals (`DetrendedFluctuation`). The window, step and thresholds follow
/// FatMaxxer's and Rogers et al.'s use: a window with 3 % corrected beats or more, fewer than 64
/// beats, or beats covering less than three quarters of its time is unreliable and not scored.
///
/// The tracker gives the live figure: as the session runs, only the window's own beats are
/// known, so it corrects their artifacts (Lipponen & Tarvainen, as readiness does) alone. The
/// session's windows (`analyse`) correct all its beats once, in one series, as Kubios HRV
/// corrects a recording before its time-varying analysis (Rogers et al. computed alpha 1 so),
/// and cut each window from them: a beat at a window's edge is judged by its neighbours on both
/// sides, and the session's figures come from one correction, not 840. The two differ only where
/// a window's edge holds an artifact. Pure: the same samples give the same windows.
public struct AlphaOneTracker: Sendable {
    public static let windowSeconds = 120
    public static let everySeconds = 5
    public static let minimumBeats = 64
    public static let minimumCoverage = 0.75

    private struct Second {
        var second: Int
        var beats: Int
        var cadence: Int?
    }

    /// The seconds kept, oldest first, and from which of them the current window starts.
    private var seconds: [Second] = []
    private var windowStart = 0
    /// The beats of `seconds` in milliseconds, in one buffer (a window is a slice of it, not
    /// 120 small arrays joined anew every 5 s), and the window's first.
    private var intervals: [Double] = []
    private var windowFirstBeat = 0
    private var detrending = SmoothnessPriorsFactor(lambda: DetrendedFluctuation.smoothnessLambda)

    public init() {}

    /// Takes in the next sample; a window every `everySeconds`, when any beat arrived in the
    /// last `windowSeconds`.
    public mutating func add(_ sample: SessionSample) -> AlphaWindow? {
        let beats = Self.heartbeats(sample)
        seconds.append(Second(second: sample.second, beats: beats.count, cadence: sample.cadence))
        for interval in beats { intervals.append(Double(interval) * 1000 / 1024) }
        while windowStart < seconds.count, seconds[windowStart].second <= sample.second - Self.windowSeconds {
            windowFirstBeat += seconds[windowStart].beats
            windowStart += 1
        }
        // Drops what left the window once it is a window's worth, so the buffers stay small.
        if windowStart > Self.windowSeconds {
            seconds.removeFirst(windowStart)
            intervals.removeFirst(windowFirstBeat)
            windowStart = 0
            windowFirstBeat = 0
        }
        // Paused, the runner stands: no window is scored for the run.
        guard sample.zoneStatus != .paused, sample.second > 0, sample.second % Self.everySeconds == 0 else { return nil }
        return evaluate(endingAt: sample.second, stepIndex: sample.stepIndex)
    }

    private mutating func evaluate(endingAt second: Int, stepIndex: Int?) -> AlphaWindow? {
        guard intervals.count > windowFirstBeat else { return nil }
        let window = Array(intervals[windowFirstBeat...])
        let corrected = second >= Self.windowSeconds ? ArtifactCorrection.correct(window) : nil
        return Self.window(
            endingAt: second, stepIndex: stepIndex, seconds: seconds[windowStart...].lazy.map(\.cadence), beats: window[...],
            corrected: corrected.map { ($0.intervals[...], $0.corrected) }, detrending: &detrending)
    }

    /// The window ending at `second`: its `beats` as sent (milliseconds), the `cadence` of its
    /// seconds, and its beats `corrected` with how many were (nil while settling).
    static func window(
        endingAt second: Int, stepIndex: Int?, seconds cadences: some Sequence<Int?>, beats: ArraySlice<Double>,
        corrected: (intervals: ArraySlice<Double>, artifacts: Int)?, detrending: inout SmoothnessPriorsFactor
    ) -> AlphaWindow {
        var cadenceSum = 0
        var cadenceCount = 0
        for case let cadence? in cadences {
            cadenceSum += cadence
            cadenceCount += 1
        }
        let cadence = cadenceCount == 0 ? nil : Double(cadenceSum) / Double(cadenceCount)
        guard let corrected else {
            return AlphaWindow(
                second: second, stepIndex: stepIndex, status: .settling, beats: beats.count, artifacts: 0,
                alpha1: nil, heartRate: nil, cadence: cadence)
        }
        let meanInterval = corrected.intervals.reduce(0, +) / Double(max(1, corrected.intervals.count))
        let coverage = beats.reduce(0, +) / Double(Self.windowSeconds * 1000)
        var result = AlphaWindow(
            second: second, stepIndex: stepIndex, status: .unreliable, beats: beats.count,
            artifacts: corrected.artifacts, alpha1: nil, heartRate: meanInterval > 0 ? 60_000 / meanInterval : nil,
            cadence: cadence)
        result.tooFewBeats = beats.count < Self.minimumBeats || coverage < Self.minimumCoverage
        guard !result.tooFewBeats, result.artifactShare < SessionHRV.trustedArtifactShare,
            let alpha1 = DetrendedFluctuation.alpha1(Array(corrected.intervals), detrendingWith: &detrending)
        else { return result }
        result.status = .scored
        result.alpha1 = alpha1
        return result
    }

    /// A sample's beats: its RR intervals a heart beats at (`RRIntervals.heartbeat`), while the
    /// session runs. The interval of seconds a strap sends after losing contact is beats lost, a
    /// gap as a dropout is, not one beat: taken as one, it was scored in the windows around it
    /// (a "crossing" of 0.75 at HR 119 in a run at 140). Paused, the runner stands at a crossing
    /// and the heart slows: those beats were scored as the run's (a Work step's alpha 1 0.82,
    /// over the aerobic threshold, where its running windows gave 0.68).
    public static func heartbeats(_ sample: SessionSample) -> [UInt16] {
        guard sample.zoneStatus != .paused else { return [] }
        return sample.rrIntervals.filter(RRIntervals.heartbeat.contains)
    }

    /// The session's figures from its windows, its number of beats and of corrected beats
    /// (all its beats corrected in one series): each step's mean alpha 1 over its scored
    /// windows; the first scored window below each threshold after one at or above it.
    static func summary(windows: [AlphaWindow], beats: Int, artifacts: Int) -> SessionHRV {
        let scored = windows.filter { $0.status == .scored && $0.alpha1 != nil }
        var byStep: [Int: [Double]] = [:]
        for window in scored {
            guard let step = window.stepIndex, let alpha1 = window.alpha1 else { continue }
            byStep[step, default: []].append(alpha1)
        }
        var crossings: [AlphaCrossing] = []
        for threshold in SessionHRV.thresholds {
            var wasAbove = false
            for window in scored {
                guard let alpha1 = window.alpha1 else { continue }
                if alpha1 >= threshold {
                    wasAbove = true
                } else if wasAbove {
                    crossings.append(AlphaCrossing(threshold: threshold, window: window))
                    break
                }
            }
        }
        return SessionHRV(
            beats: beats, artifacts: artifacts,
            stepAlpha1: byStep.mapValues { $0.reduce(0, +) / Double($0.count) }, crossings: crossings,
            scoredWindows: scored.count)
    }
}

extension AlphaOneTracker {
    /// Every window of a session and its figures, from its samples in order (a stored
    /// session, or a test).
    public static func analyse(_ samples: [SessionSample]) -> (windows: [AlphaWindow], summary: SessionHRV?) {
        analyse(AlphaOneSeries(samples), parts: 1) { count, body in (0..<count).forEach(body) }
    }

    /// The same, from samples or a series taken in as the session ran, with the windows cut
    /// into up to `parts` pieces that `perform` may run side by side: it calls `body` once for
    /// each index below `count`, in any order and on any thread, and returns when all have
    /// returned. The windows are the same, bit for bit, however they are cut: all the beats are
    /// corrected first, once, and a window reads only its own of them.
    public static func analyse(
        _ samples: [SessionSample], parts: Int, perform: (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void
    ) -> (windows: [AlphaWindow], summary: SessionHRV?) {
        analyse(AlphaOneSeries(samples), parts: parts, perform: perform)
    }

    public static func analyse(
        _ series: AlphaOneSeries, parts: Int, perform: (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void
    ) -> (windows: [AlphaWindow], summary: SessionHRV?) {
        guard !series.beats.isEmpty else { return ([], nil) }
        let beats = series.beats.map { Double($0) * 1000 / 1024 }
        let correction = ArtifactCorrection.correct(beats, parts: parts, perform: perform)
        let corrected = CorrectedBeats(
            intervals: correction.intervals, origins: correction.origins(), flagged: correction.correctedOrigins())
        let ends = series.windowEnds()
        // A piece of under `minimumPieceWindows` would spend more on waking a thread than it saves.
        let pieces = max(1, min(parts, ends.count / minimumPieceWindows))
        let found = Mutex<[Int: [AlphaWindow]]>([:])
        perform(pieces) { piece in
            var detrending = SmoothnessPriorsFactor(lambda: DetrendedFluctuation.smoothnessLambda)
            let range = (ends.count * piece / pieces)..<(ends.count * (piece + 1) / pieces)
            let windows = ends[range].compactMap { end in
                series.window(endingAt: end, beats: beats, corrected: corrected, detrending: &detrending)
            }
            found.withLock { $0[piece] = windows }
        }
        let byPiece = found.withLock { $0 }
        let windows = (0..<pieces).flatMap { byPiece[$0] ?? [] }
        return (windows, summary(windows: windows, beats: beats.count, artifacts: correction.corrected))
    }

    /// Windows a piece of `analyse(_:parts:perform:)` holds at least.
    static let minimumPieceWindows = 60

    /// A session's beats corrected in one series, each interval with the input interval it
    /// comes from, and the input intervals of the corrected beats (both in order).
    struct CorrectedBeats: Sendable {
        var intervals: [Double]
        var origins: [Int]
        var flagged: [Int]
    }
}

/// A session's beats and seconds as its alpha 1 windows read them: taken in sample by sample as
/// the session runs (a few bytes a second), analysed once at its end.
public struct AlphaOneSeries: Sendable {
    struct Second: Sendable {
        var second: Int
        var stepIndex: Int?
        var cadence: Int?
        var paused: Bool
        /// The end of its beats in `beats`.
        var beatsEnd: Int
    }

    var seconds: [Second] = []
    /// The session's heartbeats (`AlphaOneTracker.heartbeats`), 1/1024 s, in order.
    public private(set) var beats: [UInt16] = []

    public init() {}

    public init(_ samples: some Sequence<SessionSample>) {
        for sample in samples { add(sample) }
    }

    public mutating func add(_ sample: SessionSample) {
        beats += AlphaOneTracker.heartbeats(sample)
        seconds.append(
            Second(
                second: sample.second, stepIndex: sample.stepIndex, cadence: sample.cadence,
                paused: sample.zoneStatus == .paused, beatsEnd: beats.count))
    }

    /// The seconds a window ends at, as the tracker computes one: every `everySeconds`, not paused.
    func windowEnds() -> [Int] {
        seconds.indices.filter {
            let second = seconds[$0]
            return !second.paused && second.second > 0 && second.second % AlphaOneTracker.everySeconds == 0
        }
    }

    /// The window ending at `seconds[end]`, from its beats as sent and as corrected in one
    /// series; nil when no beat came in its time.
    func window(
        endingAt end: Int, beats: [Double], corrected: AlphaOneTracker.CorrectedBeats,
        detrending: inout SmoothnessPriorsFactor
    ) -> AlphaWindow? {
        let last = seconds[end]
        // The seconds after `last.second - windowSeconds`, up to `end`: they are in order.
        var low = 0
        var high = end
        while low < high {
            let middle = (low + high) / 2
            if seconds[middle].second <= last.second - AlphaOneTracker.windowSeconds { low = middle + 1 } else { high = middle }
        }
        let firstBeat = low == 0 ? 0 : seconds[low - 1].beatsEnd
        guard last.beatsEnd > firstBeat else { return nil }
        let inWindow = firstBeat..<last.beatsEnd
        let settled = last.second >= AlphaOneTracker.windowSeconds
        let correctedBeats = Self.range(in: corrected.origins, from: inWindow)
        let artifacts = Self.range(in: corrected.flagged, from: inWindow).count
        return AlphaOneTracker.window(
            endingAt: last.second, stepIndex: last.stepIndex, seconds: seconds[low...end].lazy.map(\.cadence),
            beats: beats[inWindow], corrected: settled ? (corrected.intervals[correctedBeats], artifacts) : nil,
            detrending: &detrending)
    }

    /// The places in `sorted` whose values lie in `values`.
    static func range(in sorted: [Int], from values: Range<Int>) -> Range<Int> {
        func firstNotBelow(_ value: Int) -> Int {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < value { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return firstNotBelow(values.lowerBound)..<firstNotBelow(values.upperBound)
    }
}
