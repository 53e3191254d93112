public import IntervalProCore
public import IntervalProRuntime
public import IntervalProSound

/// Watches a session and keeps what the audio director decided, with session times: the
/// session's audio timeline, for an offline render.
public final class AudioTimelineCollector: SessionObserver {
    private var director: AudioDirector
    public private(set) var items: [AudioDirector.Scheduled] = []

    public init(settings: MetronomeSettings, timeline: [TimelineStep]) {
        director = AudioDirector(settings: settings, timeline: timeline)
    }

    public func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        director.perform(actions, at: now)
        items += director.take(upTo: now)
    }

    /// Everything, once the session has finished.
    public func finish() -> [AudioDirector.Scheduled] {
        items += director.takeAll()
        return items
    }
}

/// Renders an audio timeline frame by frame, exactly: the same timeline gives the same
/// samples whichever way they leave (a WAV file or an ALSA device).
public enum AudioTimelineRender {
    /// Silence kept after the last sound, so the file does not end on a cut.
    public static let tail = SessionTime.seconds(1)

    /// The events of a timeline in frames, with voice clips from `voice` (owned by `store`).
    public static func events(
        _ items: [AudioDirector.Scheduled], clock: AudioClock, voice: CueVoice?, store: ClipStore
    ) -> [AudioEvent] {
        items.compactMap { item in
            let frame = clock.frame(of: item.time)
            switch item.item {
            case .tempo(let spm, let pattern): return AudioEvent(frame: frame, kind: .tempo(spm: spm, pattern: pattern))
            case .silence: return AudioEvent(frame: frame, kind: .silence)
            case .clicksAudible(let on): return AudioEvent(frame: frame, kind: .clicksAudible(on))
            case .cue(let cue):
                guard let voice, let clip = store.clip(for: voice.text(cue), voice: voice) else { return nil }
                return AudioEvent(frame: frame, kind: .voice(clip))
            }
        }
    }

    /// The frame the render ends on: the last click or voice cue played out, plus `tail`.
    /// Computed from the events alone, so every way of rendering stops on the same frame.
    public static func endFrame(_ events: [AudioEvent], sampleRate: Int) -> Int64 {
        let clickLength = Int64(ClickBank(sampleRate: sampleRate).length)
        var end: Int64 = 0
        var voiceFree: Int64 = 0
        for event in events {
            end = max(end, event.frame + clickLength)
            if case .voice(let clip) = event.kind {
                // Cues play one after another.
                voiceFree = max(voiceFree, event.frame) + Int64(clip.samples.count)
            }
        }
        return max(end, voiceFree) + AudioClock(sampleRate: sampleRate).frame(of: tail)
    }

    /// Renders `events` up to `endFrame` into blocks handed to `write`.
    public static func render(
        _ events: [AudioEvent], to endFrame: Int64, renderer: MetronomeRenderer, blockFrames: Int = 4_096,
        write: (UnsafeBufferPointer<Int16>) throws -> Void
    ) rethrows {
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: blockFrames * renderer.channels)
        defer { block.deallocate() }
        var next = 0
        while renderer.frame < endFrame {
            while next < events.count, events[next].frame <= renderer.frame {
                renderer.schedule(events[next])
                next += 1
            }
            var frames = min(Int64(blockFrames), endFrame - renderer.frame)
            if next < events.count { frames = min(frames, events[next].frame - renderer.frame) }
            renderer.render(into: block, frames: Int(frames))
            try write(UnsafeBufferPointer(start: block, count: Int(frames) * renderer.channels))
        }
    }

    /// Plays `events` through a device's render thread up to `endFrame`, as fast as the
    /// device takes them. Returns the status if the device was lost on the way.
    public static func play(_ events: [AudioEvent], to endFrame: Int64, through player: AudioPlayer) -> ALSAStatus? {
        player.limit(to: 0)
        player.start()
        for event in events {
            while !player.send(event) {
                // Queue full: let the thread render up to this event, which frees room.
                player.limit(to: event.frame)
                if let lost = player.lostStatus { return lost }
                player.waitUntilCaughtUp()
            }
        }
        player.limit(to: endFrame)
        while player.renderedFrames < endFrame {
            if let lost = player.lostStatus { return lost }
            player.waitUntilCaughtUp()
        }
        player.stop()
        return player.lostStatus
    }
}

/// Voice clips for an offline render, kept for the whole render (one per distinct text).
public final class ClipStore {
    private var clips: [String: VoiceClip] = [:]
    private var buffers: [UnsafeMutableBufferPointer<Float>] = []

    public init() {}

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    func clip(for text: String, voice: CueVoice) -> VoiceClip? {
        if let clip = clips[text] { return clip }
        let samples = voice.samples(text)
        guard !samples.isEmpty else { return nil }
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: samples.count)
        _ = buffer.initialize(from: samples)
        buffers.append(buffer)
        let clip = VoiceClip(id: AudioPlayer.externalClipIDs + clips.count, samples: UnsafeBufferPointer(buffer))
        clips[text] = clip
        return clip
    }
}
