public import IntervalProCore
import Synchronization

/// DFA alpha 1 through a session, from its 1 Hz samples' RR intervals (docs/hrv-during-the-run.md).
///
/// Every 5 s of session time it takes the beats of the last 120 s, corrects their artifacts
/// (Lipponen & Tarvainen, as readiness does) and computes alpha 1 of the corrected intervals
/// (`DetrendedFluctuation`). The window, step and thresholds follow FatMaxxer's and Rogers et
/// al.'s use: a window with 3 % corrected beats or more, fewer than 64 beats, or beats covering
/// less than three quarters of its time is unreliable and not scored. Pure: the same samples
/// give the same windows, live or replayed.
public struct AlphaOneTracker: Sendable {
    public static let windowSeconds = 120
    public static let everySeconds = 5
    public static let minimumBeats = 64
    public static let minimumCoverage = 0.75

    private struct Second {
        var second: Int
        var beats: Int
        /// Its intervals too short for a heartbeat (`extraDetections`).
        var extra: Int
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
    /// The first pass's figures of `intervals`, which each window takes for its inner beats.
    private var sessionFigures = ArtifactCorrection.SessionFigures()

    public init() {}

    /// Takes in the next sample; a window every `everySeconds`, when any beat arrived in the
    /// last `windowSeconds`.
    public mutating func add(_ sample: SessionSample) -> AlphaWindow? {
        add(sample, evaluating: true)
    }

    /// `evaluating` false only keeps the sample, for a tracker that starts mid-session (see
    /// `analyse(_:parts:perform:)`): the windows before its first are another's to compute.
    mutating func add(_ sample: SessionSample, evaluating: Bool) -> AlphaWindow? {
        let beats = Self.heartbeats(sample)
        seconds.append(Second(second: sample.second, beats: beats.count, extra: Self.extraDetections(sample), cadence: sample.cadence))
        for interval in beats { intervals.append(Double(interval) * 1000 / 1024) }
        while windowStart < seconds.count, seconds[windowStart].second <= sample.second - Self.windowSeconds {
            windowFirstBeat += seconds[windowStart].beats
            windowStart += 1
        }
        // Drops what left the window once it is a window's worth, so the buffers stay small.
        if windowStart > Self.windowSeconds {
            seconds.removeFirst(windowStart)
            intervals.removeFirst(windowFirstBeat)
            sessionFigures.dropFirst(windowFirstBeat)
            windowStart = 0
            windowFirstBeat = 0
        }
        // Paused, the runner stands: no window is scored for the run.
        guard evaluating, sample.zoneStatus != .paused, sample.second > 0, sample.second % Self.everySeconds == 0 else { return nil }
        return evaluate(endingAt: sample.second, stepIndex: sample.stepIndex)
    }

    private mutating func evaluate(endingAt second: Int, stepIndex: Int?) -> AlphaWindow? {
        let beats = intervals.count - windowFirstBeat
        guard beats > 0 else { return nil }
        var cadenceSum = 0
        var cadenceCount = 0
        var extra = 0
        for index in windowStart..<seconds.count {
            extra += seconds[index].extra
            guard let cadence = seconds[index].cadence else { continue }
            cadenceSum += cadence
            cadenceCount += 1
        }
        let cadence = cadenceCount == 0 ? nil : Double(cadenceSum) / Double(cadenceCount)
        guard second >= Self.windowSeconds else {
            return AlphaWindow(
                second: second, stepIndex: stepIndex, status: .settling, beats: beats, artifacts: 0,
                alpha1: nil, heartRate: nil, cadence: cadence)
        }
        let window = Array(intervals[windowFirstBeat...])
        sessionFigures.extend(with: intervals)
        // The window's beat k ends its interval k - 1; its first beat has none.
        let origins = [-1] + Array(windowFirstBeat..<intervals.count)
        let corrected = ArtifactCorrection.correct(
            window, reusing: ArtifactCorrection.Reuse(figures: sessionFigures.figures, origins: origins))
        let meanInterval = corrected.intervals.reduce(0, +) / Double(max(1, corrected.intervals.count))
        let coverage = window.reduce(0, +) / Double(Self.windowSeconds * 1000)
        var result = AlphaWindow(
            second: second, stepIndex: stepIndex, status: .unreliable, beats: beats,
            artifacts: corrected.corrected + extra, alpha1: nil, heartRate: meanInterval > 0 ? 60_000 / meanInterval : nil,
            cadence: cadence)
        result.tooFewBeats = beats < Self.minimumBeats || coverage < Self.minimumCoverage
        guard !result.tooFewBeats, result.artifactShare < SessionHRV.trustedArtifactShare,
            let alpha1 = DetrendedFluctuation.alpha1(corrected.intervals, detrendingWith: &detrending)
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

    /// A sample's intervals too short for a heartbeat (over 240 bpm), while the session runs:
    /// a strap that detects a beat twice, or noise. Left out of the beats, and counted among
    /// the artifacts (as a morning's are): left out alone, they went unsaid, and a session
    /// with 5 % of its beats split in two read as trusted, its artifacts fewer than a clean
    /// one's and a window's alpha 1 1.05 where the clean beats give 1.30. A longer interval
    /// is beats lost, as silence is, and counts as silence does: for nothing.
    public static func extraDetections(_ sample: SessionSample) -> Int {
        guard sample.zoneStatus != .paused else { return 0 }
        return sample.rrIntervals.count(where: { $0 < RRIntervals.heartbeat.lowerBound })
    }

    /// The session's figures from its windows and all its beats (1/1024 s, in order): each
    /// step's mean alpha 1 over its scored windows; the first scored window below each
    /// threshold after one at or above it; and the artifacts of the whole session's beats,
    /// corrected in one series, with the `extraDetections` among them.
    /// Nil when the strap sent no interval at all; with intervals all too short to be beats,
    /// no beat and all of them artifacts (it was nil, and read as a strap that sends none).
    public static func summary(windows: [AlphaWindow], beats: [UInt16], extraDetections: Int = 0) -> SessionHRV? {
        summary(windows: windows, beats: beats.count, extraDetections: extraDetections) { correctedBeats(beats) }
    }

    /// The same from the number of beats, `corrected` giving how many of them the correction of
    /// the whole series moves (asked only when there is a figure to give).
    static func summary(windows: [AlphaWindow], beats: Int, extraDetections: Int, corrected: () -> Int) -> SessionHRV? {
        guard beats > 0 || extraDetections > 0 else { return nil }
        return summary(windows: windows, beats: beats, artifacts: corrected() + extraDetections)
    }

    /// How many of the session's beats (1/1024 s, in order) the correction of the whole series moves.
    static func correctedBeats(_ beats: [UInt16]) -> Int {
        ArtifactCorrection.correct(beats.map { Double($0) * 1000 / 1024 }).corrected
    }

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
    /// session, or a test): what the live tracker computed as the session ran.
    public static func analyse(_ samples: [SessionSample]) -> (windows: [AlphaWindow], summary: SessionHRV?) {
        analyse(samples, parts: 1) { count, body in (0..<count).forEach(body) }
    }

    /// The same, with the work cut into up to `parts` pieces that `perform` may run side by
    /// side: it calls `body` once for each index below `count`, in any order and on any
    /// thread, and returns when all have returned. A piece is a run of the windows, from a
    /// tracker that takes in the `windowSeconds` of samples before them first; one more is the
    /// correction of all the beats. The windows are the same, bit for bit, since a window
    /// depends on its own `windowSeconds` of samples only (samples in order of `second`).
    public static func analyse(
        _ samples: [SessionSample], parts: Int, perform: (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void
    ) -> (windows: [AlphaWindow], summary: SessionHRV?) {
        analyse(
            samples, after: [], from: 0, beats: samples.flatMap(heartbeats), extraDetections: samples.reduce(0) { $0 + extraDetections($1) },
            parts: parts, perform: perform)
    }

    /// The rest of a session's windows, from `samples[start]` on, after `earlier` (the
    /// windows before it, computed already), and the session's figures from them all,
    /// `beats` and `extraDetections` (all the session's); in pieces as
    /// `analyse(_:parts:perform:)` cuts them.
    /// `samples` may begin late in the session, but no later than `windowSeconds` before
    /// `samples[start]`.
    public static func analyse(
        _ samples: [SessionSample], after earlier: [AlphaWindow], from start: Int, beats: [UInt16], extraDetections: Int,
        parts: Int, perform: (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void
    ) -> (windows: [AlphaWindow], summary: SessionHRV?) {
        // A piece of under `minimumPieceSeconds` would spend more on its lead-in than it saves.
        let remaining = samples.count - start
        let pieces = max(1, min(parts, remaining / minimumPieceSeconds))
        // The correction of all the beats is handed out first, beside the first pieces, and the
        // last piece is shorter by about what it costs: the core that corrected takes that
        // piece and all end together (with pieces of one length, two cores ended 2-3 ms apart).
        // A piece costs as many beats as its windows hold, so pieces are cut by beats (a run's
        // work steps hold more a second than its rests); a sample's RR intervals count as its
        // beats, an estimate.
        var beatsBefore = [0]
        beatsBefore.reserveCapacity(remaining + 1)
        for sample in samples[start...] { beatsBefore.append(beatsBefore[beatsBefore.count - 1] + sample.rrIntervals.count) }
        let remainingBeats = beatsBefore[remaining]
        let correction = Int(correctionShare * Double(beats.count))
        let size = (remainingBeats + correction) / pieces
        let evenly = pieces == 1 || remainingBeats - size * (pieces - 1) < size / 4
        let bounds = (0...pieces).map { piece in
            guard !evenly else { return start + remaining * piece / pieces }
            guard piece < pieces else { return samples.count }
            return start + (beatsBefore.firstIndex { $0 >= size * piece } ?? remaining)
        }
        // Each piece's windows by its number, and the artifacts of all beats; one lock a piece.
        let found = Mutex<(windows: [Int: [AlphaWindow]], artifacts: Int)>(([:], 0))
        perform(pieces + 1) { index in
            guard index > 0 else {
                let artifacts = beats.isEmpty ? 0 : correctedBeats(beats)
                found.withLock { $0.artifacts = artifacts }
                return
            }
            let piece = index - 1
            let first = bounds[piece]
            guard first < bounds[piece + 1] else { return }
            let leadIn = samples[..<first].lastIndex { $0.second <= samples[first].second - windowSeconds }.map { $0 + 1 } ?? 0
            var tracker = AlphaOneTracker()
            for sample in samples[leadIn..<first] { _ = tracker.add(sample, evaluating: false) }
            let windows = samples[first..<bounds[piece + 1]].compactMap { tracker.add($0) }
            found.withLock { $0.windows[piece] = windows }
        }
        let (byPiece, artifacts) = found.withLock { $0 }
        let windows = earlier + (0..<pieces).flatMap { byPiece[$0] ?? [] }
        return (windows, summary(windows: windows, beats: beats.count, extraDetections: extraDetections) { artifacts })
    }

    /// Samples (seconds) a piece of `analyse(_:parts:perform:)` covers at least: ten windows'
    /// length, against a lead-in of one.
    static let minimumPieceSeconds = 10 * windowSeconds

    /// What correcting all of a session's beats in one series costs against its windows, a
    /// beat in the one against a beat in a piece's: 2.7 ms against 839 windows of 34 µs
    /// for the 70 minutes of `intervalpro-bench` (0.095), 3.1-3.4 ms against 839 of 42 µs in a
    /// replay of Benchmarks/one-hour.json (0.09).
    static let correctionShare = 0.09
}
