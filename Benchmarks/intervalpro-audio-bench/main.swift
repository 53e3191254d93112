// Audio render cost: CPU time per second of audio for the mixer the render thread runs,
// and the cost of speech synthesis (done off the render thread). Run with
// `make bench-audio` (release build); figures are quoted in docs/dev/benchmarks.md, "Sound".
import IntervalProAudio
import IntervalProCore
import IntervalProSound

let rate = 48_000
let minutes = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10
let frames = minutes * 60 * rate

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Renders `frames` frames in 12 ms periods, as the render thread does; returns seconds.
func timeRender(_ renderer: MetronomeRenderer, channels: Int) -> Double {
    let period = 600
    let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: period * channels)
    defer { buffer.deallocate() }
    var checksum = 0
    let clock = ContinuousClock()
    let start = clock.now
    var done = 0
    while done < frames {
        renderer.render(into: buffer, frames: period)
        checksum &+= Int(buffer[0])
        done += period
    }
    let elapsed = seconds(start.duration(to: clock.now))
    precondition(checksum != 42_424_242, "keeps the loop from being optimised away")
    return elapsed
}

func report(_ name: String, _ elapsed: Double) {
    let audioSeconds = Double(frames) / Double(rate)
    let perSecond = elapsed / audioSeconds
    let percent = (perSecond * 100 * 1000).rounded() / 1000
    let micro = (perSecond * 1e6 * 10).rounded() / 10
    print("  \(name): \(micro) µs per second of audio = \(percent) % of one core")
}

// A voice-like clip (a decaying chirp) at the output rate, 2 s long, repeated every 5 s.
let clip = (0..<(2 * rate)).map { i -> Float in
    let t = Float(i) / Float(rate)
    return 0.8 * Float((i * 7919) % 2000 - 1000) / 1000 * (1 - t / 2)
}

print("render cost, \(minutes) minutes of 48 kHz audio, in 600-frame periods, one core")
for channels in [2, 1] {
    let label = channels == 2 ? "stereo" : "mono"
    let idle = MetronomeRenderer(sampleRate: rate, channels: channels, volume: 0.8)
    report("\(label), silence (a step without a target)", timeRender(idle, channels: channels))

    let clicks = MetronomeRenderer(sampleRate: rate, channels: channels, volume: 0.8)
    clicks.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 180, pattern: .alternate)))
    report("\(label), clicks at 180 spm (alternate)", timeRender(clicks, channels: channels))

    clip.withUnsafeBufferPointer { samples in
        let both = MetronomeRenderer(
            sampleRate: rate, channels: channels, volume: 0.8, eventCapacity: frames / (5 * rate) + 8)
        both.schedule(AudioEvent(frame: 0, kind: .tempo(spm: 180, pattern: .alternate)))
        for (n, start) in stride(from: 0, to: frames, by: 5 * rate).enumerated() {
            both.schedule(AudioEvent(frame: Int64(start), kind: .voice(VoiceClip(id: n, samples: samples))))
        }
        report("\(label), clicks + a voice cue 40 % of the time", timeRender(both, channels: channels))
    }
}

print("speech synthesis (espeak-ng, off the render thread), per cue")
for language in CueLanguage.allCases {
    do {
        let voice = try CueVoice(language: language, outputRate: rate)
        let step = TimelineStep(
            index: 2, kind: .work, repetition: .init(number: 3, count: 8), end: .time(.seconds(120)),
            zone: CadenceZone(target: 170, tolerance: 5))
        let texts = (0..<10).map { Cue.step(step).text(language) + " \($0)" } + (1...10).map { Cue.faster($0).text(language) }
        let clock = ContinuousClock()
        var audio = 0
        let start = clock.now
        for text in texts { audio += voice.samples(text).count }
        let elapsed = seconds(start.duration(to: clock.now))
        let perCue = (elapsed / Double(texts.count) * 1000 * 10).rounded() / 10
        let speed = (Double(audio) / Double(rate) / elapsed).rounded()
        print("  \(language.rawValue): \(perCue) ms per cue (\(speed)× faster than it plays)")
    } catch {
        print("  \(language.rawValue): not available: \(error)")
    }
}
