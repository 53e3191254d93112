import IntervalProCore
import IntervalProSound
import Testing

/// Frames where a click starts: the first sample above `threshold` after at least `gap`
/// quiet frames. Every click has the same attack, so the offset from the true onset is
/// the same for all of them.
func onsets(_ samples: [Int16], channels: Int, threshold: Int16 = 200, gap: Int = 400) -> [Int] {
    var found: [Int] = []
    var quiet = gap
    let frames = samples.count / channels
    for frame in 0..<frames {
        var loud = false
        for c in 0..<channels where abs(Int(samples[frame * channels + c])) > Int(threshold) { loud = true }
        if loud {
            if quiet >= gap { found.append(frame) }
            quiet = 0
        } else {
            quiet += 1
        }
    }
    return found
}

func render(_ renderer: MetronomeRenderer, frames: Int) -> [Int16] {
    var out = [Int16](repeating: 0, count: frames * renderer.channels)
    out.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress!, frames: frames) }
    return out
}

@Suite("MetronomeRenderer: clicks and mixing")
struct RendererTests {
    @Test func clicksFallOnTheGridFromTheTempoEvent() {
        let renderer = MetronomeRenderer(sampleRate: 8_000, channels: 1, volume: 1)
        renderer.schedule(AudioEvent(frame: 1_000, kind: .tempo(spm: 120, pattern: .plain)))
        renderer.schedule(AudioEvent(frame: 17_500, kind: .silence))
        let found = onsets(render(renderer, frames: 24_000), channels: 1)
        #expect(found.count == 5)  // 1000, 5000, 9000, 13000, 17000
        let offset = found[0] - 1_000
        #expect((0..<10).contains(offset))
        #expect(found.map { $0 - offset } == [1_000, 5_000, 9_000, 13_000, 17_000])
    }

    @Test func renderingInPiecesGivesTheSameSamples() {
        func make() -> MetronomeRenderer {
            let r = MetronomeRenderer(sampleRate: 16_000, channels: 2, volume: 0.7)
            r.schedule(AudioEvent(frame: 100, kind: .tempo(spm: 173.7, pattern: .alternate)))
            return r
        }
        let whole = render(make(), frames: 40_000)
        let pieces = make()
        var joined: [Int16] = []
        for size in [1, 333, 4_096, 17, 35_553] { joined += render(pieces, frames: size) }
        #expect(joined == whole)
    }

    @Test func mutedClicksKeepTheirGrid() {
        let renderer = MetronomeRenderer(sampleRate: 8_000, channels: 1, volume: 1)
        renderer.schedule(AudioEvent(frame: 0, kind: .clicksAudible(false)))
        renderer.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: .plain)))
        renderer.schedule(AudioEvent(frame: 10_000, kind: .clicksAudible(true)))
        let found = onsets(render(renderer, frames: 20_000), channels: 1)
        let offset = found[0] - 12_000
        #expect((0..<10).contains(offset))
        #expect(found.map { $0 - offset } == [12_000, 16_000])
    }

    @Test func alternateClicksArePannedAndAccentIsLouder() {
        let renderer = MetronomeRenderer(sampleRate: 16_000, channels: 2, volume: 1)
        renderer.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: .alternate)))
        let out = render(renderer, frames: 16_000)
        func peak(_ range: Range<Int>, channel: Int) -> Int {
            range.map { abs(Int(out[$0 * 2 + channel])) }.max()!
        }
        // Beat 0 is the left foot, beat 1 (frame 8000) the right.
        #expect(peak(0..<1_000, channel: 0) > 2 * peak(0..<1_000, channel: 1))
        #expect(peak(8_000..<9_000, channel: 1) > 2 * peak(8_000..<9_000, channel: 0))

        // A step of an odd number of beats, then the next: its first beat is the right foot,
        // where every step began again on the left.
        let steps = MetronomeRenderer(sampleRate: 16_000, channels: 2, volume: 1)
        steps.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: .alternate)))
        steps.schedule(AudioEvent(frame: 24_000, kind: .tempo(spm: 120, pattern: .alternate)))
        let both = render(steps, frames: 40_000)
        func stepPeak(_ range: Range<Int>, channel: Int) -> Int { range.map { abs(Int(both[$0 * 2 + channel])) }.max()! }
        #expect(stepPeak(16_000..<17_000, channel: 0) > 2 * stepPeak(16_000..<17_000, channel: 1), "beat 3: left")
        #expect(stepPeak(24_000..<25_000, channel: 1) > 2 * stepPeak(24_000..<25_000, channel: 0), "the next step's first: right")
        #expect(stepPeak(32_000..<33_000, channel: 0) > 2 * stepPeak(32_000..<33_000, channel: 1), "then left")

        let accented = MetronomeRenderer(sampleRate: 16_000, channels: 1, volume: 1)
        accented.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: .accentFirst)))
        let mono = render(accented, frames: 16_000)
        let first = mono[0..<1_000].map { abs(Int($0)) }.max()!
        let second = mono[8_000..<9_000].map { abs(Int($0)) }.max()!
        #expect(first > second)
    }

    /// In mono the alternate pattern's clicks, summed from their two sides, were 35 % quieter
    /// than plain ones.
    @Test func inMonoAlternateClicksAreAsLoudAsPlainOnes() {
        func peak(_ pattern: ClickPattern) -> Int {
            let renderer = MetronomeRenderer(sampleRate: 16_000, channels: 1, volume: 1)
            renderer.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: pattern)))
            return render(renderer, frames: 16_000).map { abs(Int($0)) }.max()!
        }
        let plain = peak(.plain)
        let alternate = peak(.alternate)
        #expect(abs(alternate - plain) < plain / 20, "alternate \(alternate), plain \(plain)")
    }

    @Test func clickIsAShapedToneNotASquare() {
        let bank = ClickBank(sampleRate: 48_000)
        let click = bank.samples[ClickBank.Sound.plain.rawValue]
        #expect(click.count == 3_360)
        #expect(click.first == 0)
        #expect(abs(click.last!) < 1e-6)
        #expect(abs(click.map { abs($0) }.max()! - 0.8) < 1e-6)
        // The level decays: the last 10 ms hold a small fraction of the first 10 ms.
        func energy(_ slice: ArraySlice<Float>) -> Float { slice.reduce(0) { $0 + $1 * $1 } }
        #expect(energy(click[2_880...]) < 0.01 * energy(click[..<480]))
        // A square wave sits at its peak; this tone spends most samples well below it.
        #expect(click.filter { abs($0) > 0.7 }.count < click.count / 20)
    }

    @Test func loudestMixDoesNotClip() {
        // A full-scale voice clip over clicks at full volume, with two clicks overlapping
        // at a tempo change.
        let loud = [Float](repeating: 1, count: 20_000)
        loud.withUnsafeBufferPointer { voice in
            let renderer = MetronomeRenderer(sampleRate: 16_000, channels: 2, volume: 1)
            renderer.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 240, pattern: .accentFirst)))
            renderer.schedule(AudioEvent(frame: 10, kind: .tempo(spm: 260, pattern: .accentFirst)))
            renderer.schedule(AudioEvent(frame: 0, kind: .voice(VoiceClip(id: 1, samples: voice))))
            let out = render(renderer, frames: 20_000)
            let peak = out.map { abs(Int($0)) }.max()!
            #expect(peak > 20_000)
            #expect(peak <= Int(0.99 * 32_767))
        }
    }

    @Test func voiceCuesPlayOneAfterAnotherAndReportWhenDone() {
        let clip = [Float](repeating: 0.5, count: 1_000)
        let finished = FinishedIDs()
        clip.withUnsafeBufferPointer { samples in
            let renderer = MetronomeRenderer(sampleRate: 8_000, channels: 1, volume: 1)
            renderer.onVoiceFinished = { finished.add($0) }
            renderer.schedule(AudioEvent(frame: 100, kind: .voice(VoiceClip(id: 7, samples: samples))))
            renderer.schedule(AudioEvent(frame: 600, kind: .voice(VoiceClip(id: 8, samples: samples))))
            let out = render(renderer, frames: 4_000)
            let voiced = out.indices.filter { out[$0] != 0 }
            #expect(voiced.first == 100)
            #expect(voiced.last == 2_099)  // the second waited for the first: 100..<1100, 1100..<2100
            #expect(voiced.count == 2_000)
        }
        #expect(finished.ids == [7, 8])
    }

    /// After a stall, live playback skips the frames the device never played: what follows is
    /// what the uninterrupted render gives from there, clicks cut mid-sound and cues mid-word
    /// included, with the alternate pattern still on the right foot.
    // 5_000 and 8_000: where the two cues end; 12_000: within a click's length of a muted beat
    // (11_154), which must not start sounding.
    @Test(arguments: [0, 52, 99, 100, 2_345, 4_000, 4_050, 5_000, 8_000, 11_111, 12_000, 15_000, 15_999, 18_700, 29_000])
    func skippingGivesWhatTheUninterruptedRenderGivesFromThere(skipTo target: Int) {
        let clip = (0..<3_000).map { Float(($0 % 50) - 25) / 30 }
        let finished = FinishedIDs()
        clip.withUnsafeBufferPointer { samples in
            func make() -> MetronomeRenderer {
                let r = MetronomeRenderer(sampleRate: 16_000, channels: 2, volume: 0.8)
                r.onVoiceFinished = { finished.add($0) }
                r.schedule(AudioEvent(frame: 100, kind: .tempo(spm: 173.7, pattern: .alternate)))
                r.schedule(AudioEvent(frame: 2_000, kind: .voice(VoiceClip(id: 1, samples: samples))))
                r.schedule(AudioEvent(frame: 3_000, kind: .voice(VoiceClip(id: 2, samples: samples))))
                r.schedule(AudioEvent(frame: 9_000, kind: .clicksAudible(false)))
                r.schedule(AudioEvent(frame: 12_345, kind: .clicksAudible(true)))
                r.schedule(AudioEvent(frame: 15_000, kind: .tempo(spm: 181, pattern: .alternate)))
                r.schedule(AudioEvent(frame: 18_000, kind: .voice(VoiceClip(id: 3, samples: samples))))
                r.schedule(AudioEvent(frame: 24_000, kind: .silence))
                // A late event: a grid that began in the past, caught up at once.
                _ = render(r, frames: 50)
                r.schedule(AudioEvent(frame: 20, kind: .tempo(spm: 150, pattern: .plain)))
                return r
            }
            let wholeRenderer = make()
            let whole = [Int16](repeating: 0, count: 50 * 2) + render(wholeRenderer, frames: 32_000 - 50)
            let skipped = make()
            let from = max(50, target)
            skipped.skip(to: Int64(from))
            #expect(skipped.frame == Int64(from))
            let rest = render(skipped, frames: 32_000 - from)
            let expected = Array(whole[(from * 2)...])
            let difference = zip(rest, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(rest.count == expected.count && difference == nil, "the first sample that differs: \(String(describing: difference))")
        }
        // Each clip is reported finished once per renderer, whether played or skipped.
        #expect(finished.ids.filter { $0 == 2 }.count == 2)
    }

    @Test func lateEventsApplyAtOnceAndAFullQueueRefuses() {
        let renderer = MetronomeRenderer(sampleRate: 8_000, channels: 1, volume: 1, eventCapacity: 2)
        _ = render(renderer, frames: 500)
        #expect(renderer.schedule(AudioEvent(frame: 100, kind: .tempo(spm: 120, pattern: .plain))))
        #expect(renderer.schedule(AudioEvent(frame: 9_000, kind: .silence)))
        #expect(!renderer.schedule(AudioEvent(frame: 9_500, kind: .silence)))
        let found = onsets(render(renderer, frames: 10_000), channels: 1)
        // The grid started at 100 (already past): the first click sounds at once (500),
        // then the grid goes on at 4100 and 8100 without drifting.
        #expect(found.count == 3)
        #expect(found[1] - found[0] < 4_000)
        #expect(found[2] - found[1] == 4_000)
    }
}

final class FinishedIDs: @unchecked Sendable {
    var ids: [Int] = []
    func add(_ id: Int) { ids.append(id) }
}
