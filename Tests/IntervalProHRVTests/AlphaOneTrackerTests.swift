import Dispatch
import IntervalProCore
import IntervalProTestSupport
import Testing
@testable import IntervalProHRV

/// Alpha 1 through a session, fed 1 Hz samples the way the engine reports them.
@Suite("Alpha 1 through a session")
struct AlphaOneTrackerTests {
    /// Samples carrying `intervals` (milliseconds) in the seconds their beats end in.
    static func samples(_ intervals: [Double], cadence: Int = 170, step: (Int) -> Int = { _ in 0 }) -> [SessionSample] {
        beatSamples(intervals, cadence: cadence, step: step)
    }

    static func windows(_ samples: [SessionSample]) -> [AlphaWindow] {
        var tracker = AlphaOneTracker()
        return samples.compactMap { tracker.add($0) }
    }

    // Uniform variation: Gaussian tails put a few per cent of white-noise beats past the
    // artifact thresholds, which real beats do not do.

    /// Uncorrelated beats around 400 ms (150 bpm): alpha 1 near 0.5.
    static func uncorrelated(_ count: Int, seed: UInt64 = 7) -> [Double] {
        var noise = DetrendedFluctuationTests.Noise(state: seed)
        return (0..<count).map { _ in 400 + 10 * (noise.uniform() - 0.5) }
    }

    /// Beats whose variation wanders (a random walk held near 430 ms): alpha 1 well above 1.
    static func correlated(_ count: Int, seed: UInt64 = 8) -> [Double] {
        var noise = DetrendedFluctuationTests.Noise(state: seed)
        var level = 0.0
        return (0..<count).map { _ in
            level = 0.97 * level + 2 * (noise.uniform() - 0.5)
            return 430 + level
        }
    }

    @Test func settlingThenAWindowEveryFiveSeconds() throws {
        let windows = Self.windows(Self.samples(Self.uncorrelated(600)))  // 240 s
        #expect(windows.map(\.second) == Array(stride(from: 5, through: 240, by: 5)))
        #expect(windows.filter { $0.second < 120 }.allSatisfy { $0.status == .settling && $0.alpha1 == nil })
        let scored = windows.filter { $0.second >= 120 }
        #expect(scored.allSatisfy { $0.status == .scored })
        let first = try #require(scored.first)
        // 120 s of 400 ms beats, and the heart rate they imply.
        #expect(abs(first.beats - 300) <= 1)
        #expect(abs((first.heartRate ?? 0) - 150) < 1)
        #expect(first.cadence == 170)
        for window in scored { #expect(abs((window.alpha1 ?? 0) - 0.5) < 0.25, "alpha \(window.alpha1 ?? .nan)") }
    }

    @Test func aWindowWithTooManyArtifactsIsNotScored() throws {
        var intervals = Self.uncorrelated(600)
        // A dry strap: every 20th beat missed (5 %), the two intervals sent as one.
        var i = 10
        while i + 1 < intervals.count {
            intervals[i] += intervals[i + 1]
            intervals.remove(at: i + 1)
            i += 19
        }
        let windows = Self.windows(Self.samples(intervals)).filter { $0.status != .settling }
        #expect(!windows.isEmpty)
        for window in windows {
            #expect(window.status == .unreliable && window.alpha1 == nil && !window.tooFewBeats)
            #expect(window.artifactShare >= 0.03, "share \(window.artifactShare)")
        }
    }

    @Test func noBeatsNoWindows() {
        let silent = (0...200).map {
            SessionSample(
                second: $0, stepIndex: 0, rawCadence: nil, cadence: nil, heartRate: 150, speed: nil, distance: nil,
                zoneStatus: .noZone)
        }
        #expect(Self.windows(silent).isEmpty)
        #expect(AlphaOneTracker.analyse(silent).summary == nil)
    }

    @Test func aGapInTheBeatsMakesTheWindowUnreliable() {
        // 60 s of beats, then a strap that sends heart rate without RR for the next minute.
        var samples = Self.samples(Self.uncorrelated(600))
        for i in samples.indices where (60..<120).contains(samples[i].second) { samples[i].rrIntervals = [] }
        let windows = Self.windows(samples)
        // Windows holding the silent minute cover too little of their time to be scored.
        #expect(windows.first { $0.second == 120 }?.status == .unreliable)
        #expect(windows.first { $0.second == 175 }?.status == .unreliable)
        #expect(windows.first { $0.second == 240 }?.status == .scored)
        // For their beats, which the screen says; not for artifacts.
        #expect(windows.first { $0.second == 175 }?.tooFewBeats == true)
        #expect(windows.first { $0.second == 240 }?.tooFewBeats == false)
    }

    /// A strap that lost contact for 20 s sends one interval of 20 s when it finds the beat
    /// again: beats lost, not a beat. Taken as one, it was scored in the windows around it
    /// (alpha 1 2.11, a heart rate of 117-121 in a run at 140); now they are those of the same
    /// dropout without it.
    @Test func anIntervalOfSecondsIsBeatsLostNotABeat() {
        var dropout = Self.samples(Self.uncorrelated(600))
        for i in dropout.indices where (60..<80).contains(dropout[i].second) { dropout[i].rrIntervals = [] }
        var sent = dropout
        sent[sent.firstIndex { $0.second == 80 }!].rrIntervals.insert(20 * 1024, at: 0)
        let windows = Self.windows(sent)
        #expect(windows == Self.windows(dropout))
        for window in windows where (120..<200).contains(window.second) {
            #expect((window.heartRate ?? 0) > 145, "window at \(window.second): HR \(window.heartRate ?? 0)")
        }
        #expect(AlphaOneTracker.analyse(sent).summary == AlphaOneTracker.analyse(dropout).summary)
    }

    /// A strap that detects a beat twice sends intervals too short for a heartbeat: left out
    /// of the beats, they were left out of the artifacts too, and a session with 5 % of its
    /// beats split read as trusted. Paused, they are no more the run's than its beats are.
    @Test func intervalsTooShortForAHeartbeatAreArtifacts() throws {
        let clean = Self.samples(Self.uncorrelated(600))
        var split = clean
        for i in split.indices where split[i].second % 10 == 3 { split[i].rrIntervals.append(150) }
        let cleanWindows = Self.windows(clean), splitWindows = Self.windows(split)
        #expect(splitWindows.map(\.beats) == cleanWindows.map(\.beats))
        for (withExtra, without) in zip(splitWindows, cleanWindows) where withExtra.second >= 120 {
            // Twelve such seconds in every two minutes: 12 of about 300 beats, 4 %.
            #expect(withExtra.artifacts == without.artifacts + 12, "window at \(withExtra.second)")
            #expect(withExtra.status == .unreliable)
        }
        let summary = try #require(AlphaOneTracker.analyse(split).summary)
        #expect(summary.artifacts == (AlphaOneTracker.analyse(clean).summary?.artifacts ?? 0) + 24)
        #expect(!summary.isTrusted)
        var paused = split
        for i in paused.indices { paused[i].zoneStatus = .paused }
        #expect(paused.reduce(0) { $0 + AlphaOneTracker.extraDetections($1) } == 0)
    }

    /// A strap whose every interval is too short for a heartbeat sends intervals, all
    /// artifacts: the summary was nil, which the screen reads as a strap that sends none.
    @Test func intervalsAllTooShortAreAllArtifacts() throws {
        var noise = Self.samples(Self.uncorrelated(300))
        for i in noise.indices { noise[i].rrIntervals = noise[i].rrIntervals.map { _ in 150 } }
        let count = noise.reduce(0) { $0 + $1.rrIntervals.count }
        let summary = try #require(AlphaOneTracker.analyse(noise).summary)
        #expect(summary.beats == 0)
        #expect(summary.artifacts == count)
        #expect(summary.artifactShare == 1)
        #expect(!summary.isTrusted)
        #expect(summary.scoredWindows == 0)
        var silent = noise
        for i in silent.indices { silent[i].rrIntervals = [] }
        #expect(AlphaOneTracker.analyse(silent).summary == nil)
    }

    /// Paused at a crossing, the runner stands and the heart slows: those beats went into the
    /// windows, and windows were scored while paused.
    @Test func pausedSecondsAreNotTheRun() {
        var paused = Self.samples(Self.uncorrelated(600))
        for i in paused.indices where (150..<170).contains(paused[i].second) {
            paused[i].zoneStatus = .paused
            paused[i].rrIntervals = [1024]
        }
        var silent = paused
        for i in silent.indices where silent[i].zoneStatus == .paused { silent[i].rrIntervals = [] }
        let windows = Self.windows(paused)
        #expect(!windows.contains { (150..<170).contains($0.second) })
        #expect(windows.contains { $0.second == 170 })
        #expect(windows == Self.windows(silent))
        #expect(AlphaOneTracker.analyse(paused).summary?.beats == AlphaOneTracker.analyse(silent).summary?.beats)
    }

    @Test func stepMeansAndTheThresholdsCrossed() throws {
        // Easy first (alpha high), then hard (alpha near 0.5): step 0 for 240 s, step 1 after.
        let easy = Self.correlated(560)
        let hard = Self.uncorrelated(900)
        let samples = Self.samples(easy + hard, step: { $0 < 240 ? 0 : 1 })
        let (windows, analysed) = AlphaOneTracker.analyse(samples)
        let summary = try #require(analysed)
        let easyMean = try #require(summary.stepAlpha1[0])
        let hardMean = try #require(summary.stepAlpha1[1])
        #expect(easyMean > 1.0, "easy \(easyMean)")
        #expect(hardMean < 0.8, "hard \(hardMean)")
        #expect(summary.beats == easy.count + hard.count)
        // A few beats where the level jumps 30 ms from one step to the next, no more.
        #expect(summary.artifacts < summary.beats / 100, "\(summary.artifacts) artifacts")
        #expect(summary.isTrusted)
        let aerobic = try #require(summary.crossings.first { $0.threshold == 0.75 })
        #expect(aerobic.window.second > 240)
        #expect((aerobic.window.alpha1 ?? 1) < 0.75)
        // Every earlier scored window was at or above the threshold.
        #expect(
            windows.filter { $0.status == .scored && $0.second < aerobic.window.second }.allSatisfy {
                ($0.alpha1 ?? 0) >= 0.75
            })
        #expect(summary.scoredWindows == windows.filter { $0.status == .scored }.count)
    }

    @Test func cutIntoPiecesTheWindowsAreTheSameBitForBit() throws {
        // 45 minutes, easy then hard, with a missed and an extra beat now and then, and a
        // silent minute: windows of every status, corrected in one and in several passes.
        var intervals = Self.correlated(3_000) + Self.uncorrelated(4_000)
        for index in stride(from: 150, to: intervals.count - 1, by: 211) { intervals[index] *= 2 }
        for index in stride(from: 260, to: intervals.count - 1, by: 307) { intervals[index] /= 2 }
        intervals.insert(60_000, at: 3_500)
        let samples = Self.samples(intervals, step: { $0 / 300 })
        let whole = AlphaOneTracker.analyse(samples)
        #expect(whole.windows.count == samples.count / AlphaOneTracker.everySeconds)
        #expect(Set(whole.windows.map(\.status)) == [.settling, .unreliable, .scored])
        #expect(try #require(whole.summary).artifacts > 20)
        for parts in [2, 3, 4] {
            let inTurn = AlphaOneTracker.analyse(samples, parts: parts) { count, body in
                for piece in (0..<count).reversed() { body(piece) }
            }
            #expect(inTurn.windows == whole.windows, "\(parts) pieces in turn")
            #expect(inTurn.summary == whole.summary, "\(parts) pieces in turn")
            let sideBySide = AlphaOneTracker.analyse(samples, parts: parts) { count, body in
                DispatchQueue.concurrentPerform(iterations: count, execute: body)
            }
            #expect(sideBySide.windows == whole.windows, "\(parts) pieces side by side")
            #expect(sideBySide.summary == whole.summary, "\(parts) pieces side by side")
        }
    }

    @Test func aShortSessionIsOnePiece() {
        let samples = Self.samples(Self.uncorrelated(1_500))
        var calls: [Int] = []
        let cut = AlphaOneTracker.analyse(samples, parts: 4) { count, body in
            calls.append(count)
            (0..<count).forEach(body)
        }
        // Ten minutes: one piece of windows and the correction of all beats.
        #expect(calls == [2])
        #expect(cut.windows == AlphaOneTracker.analyse(samples).windows)
    }
}
