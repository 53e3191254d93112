import IntervalProCore
import IntervalProHRV
@testable import IntervalProLaunch
import IntervalProRuntime
import IntervalProTestSupport
import Testing

/// Alpha 1 beside a session: what its thread computed and what `finish` cuts into pieces for
/// the rest come to the same windows and figures as one tracker over every sample.
@Suite struct AlphaOneAnalysisTests {
    /// 45 minutes of beats around 400 ms with a missed and an extra beat now and then, as the
    /// engine reports them: one sample a second.
    static func samples() -> [SessionSample] {
        var state: UInt64 = 42
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var intervals = (0..<6_800).map { _ in 400 + 12 * (uniform() - 0.5) }
        for index in stride(from: 150, to: intervals.count, by: 211) { intervals[index] *= 2 }
        for index in stride(from: 260, to: intervals.count, by: 307) { intervals[index] /= 2 }
        return beatSamples(intervals, step: { $0 / 600 })
    }

    static let engine = SessionEngine(
        plan: try! PlanDecoder.decode(Array(#"{"name":"t","steps":[{"kind":"work","duration":2700,"cadence":170}]}"#.utf8), file: "t"),
        source: .simulation)

    @Test func handedOverAllAtOnceTheRestIsCutIntoPieces() async throws {
        let samples = Self.samples()
        let analysis = AlphaOneAnalysis()
        // As a replay on virtual time: an hour handed over faster than the thread keeps up.
        for sample in samples { analysis.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second)) }
        let finished = await analysis.finish()
        let whole = AlphaOneTracker.analyse(samples)
        #expect(finished.windows == whole.windows)
        #expect(finished.summary == whole.summary)
        #expect(try #require(whole.summary).artifacts > 20)
    }

    @Test func handedOverInTimeTheThreadDidItAll() async throws {
        let samples = Self.samples()
        let analysis = AlphaOneAnalysis()
        // As a session in real time: the thread keeps up, and keeps only the last minutes.
        for sample in samples {
            analysis.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second))
            guard sample.second % 300 == 0, sample.second >= AlphaOneTracker.windowSeconds else { continue }
            for _ in 0..<2_000 where (analysis.latest?.second ?? 0) < sample.second {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(analysis.latest?.second == sample.second)
        }
        let finished = await analysis.finish()
        let whole = AlphaOneTracker.analyse(samples)
        #expect(finished.windows == whole.windows)
        #expect(finished.summary == whole.summary)
    }

    /// The same session with stretches where the strap sent no RR intervals: the first five
    /// minutes, ten in the middle and the last five.
    static func samplesWithGaps() -> [SessionSample] {
        samples().map { sample in
            var sample = sample
            if sample.second < 300 || (900..<1_500).contains(sample.second) || sample.second >= 2_400 {
                sample.rrIntervals = []
            }
            return sample
        }
    }

    @Test func stretchesWithoutBeatsWaitAndComeToTheSameWindows() async throws {
        let samples = Self.samplesWithGaps()
        let whole = AlphaOneTracker.analyse(samples)
        // No window where the last two minutes hold no beat.
        #expect(!whole.windows.contains { (1_020..<1_500).contains($0.second) })
        #expect(whole.windows.contains { (1_500..<1_620).contains($0.second) })

        let replayed = AlphaOneAnalysis()
        for sample in samples { replayed.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second)) }
        let finishedReplay = await replayed.finish()
        #expect(finishedReplay.windows == whole.windows)
        #expect(finishedReplay.summary == whole.summary)

        let live = AlphaOneAnalysis()
        for sample in samples {
            live.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second))
            // Once beats come again, their windows are computed as the session goes.
            guard [600, 1_800, 2_100].contains(sample.second) else { continue }
            for _ in 0..<2_000 where (live.latest?.second ?? 0) < sample.second {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(live.latest?.second == sample.second)
        }
        let finishedLive = await live.finish()
        #expect(finishedLive.windows == whole.windows)
        #expect(finishedLive.summary == whole.summary)
    }

    @Test func theThreadStartsWithTheFirstBeat() async throws {
        let samples = Self.samplesWithGaps()
        let analysis = AlphaOneAnalysis()
        // The first five minutes hold no beat: nothing to compute, no thread yet.
        for sample in samples where sample.second < 300 {
            analysis.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second))
        }
        #expect(!analysis.threadStarted)
        for sample in samples where sample.second >= 300 {
            analysis.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second))
        }
        #expect(analysis.threadStarted)
        let finished = await analysis.finish()
        #expect(finished.windows == AlphaOneTracker.analyse(samples).windows)

        // A session without a single beat (a footpod alone) never starts it, and has no figures.
        let withoutBeats = samples.map { sample in
            var sample = sample
            sample.rrIntervals = []
            return sample
        }
        let footpodOnly = AlphaOneAnalysis()
        for sample in withoutBeats {
            footpodOnly.engine(Self.engine, performed: [.sample(sample)], at: .seconds(sample.second))
        }
        #expect(!footpodOnly.threadStarted)
        let none = await footpodOnly.finish()
        #expect(none.windows.isEmpty)
        #expect(none.summary == nil)
        #expect(AlphaOneTracker.analyse(withoutBeats).windows.isEmpty)
    }
}
