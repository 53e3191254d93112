/// How the clicks of one tempo differ from one another.
public enum ClickPattern: Sendable, Equatable {
    case plain
    /// Left and right foot: two tones, panned.
    case alternate
    /// The first click (on the step boundary) is accented, the rest plain.
    case accentFirst
}

/// Mono samples of a voice cue at the output rate. Whoever hands one to the renderer keeps
/// the memory alive until `MetronomeRenderer.onVoiceFinished` reports its id.
public struct VoiceClip: @unchecked Sendable, Equatable {
    public var id: Int
    public var samples: UnsafeBufferPointer<Float>

    public init(id: Int, samples: UnsafeBufferPointer<Float>) {
        self.id = id
        self.samples = samples
    }

    public static func == (a: VoiceClip, b: VoiceClip) -> Bool {
        a.id == b.id && a.samples.baseAddress == b.samples.baseAddress && a.samples.count == b.samples.count
    }
}

/// Something the renderer does at a frame.
public struct AudioEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A new beat grid whose first beat is on this frame.
        case tempo(spm: Double, pattern: ClickPattern)
        /// No more beats (clicks already sounding finish).
        case silence
        /// Mutes or unmutes the clicks without moving the grid (`off-target` mode).
        case clicksAudible(Bool)
        /// Plays a voice cue; cues never overlap, a later one waits for the one playing.
        case voice(VoiceClip)
    }

    public var frame: Int64
    public var kind: Kind

    public init(frame: Int64, kind: Kind) {
        self.frame = frame
        self.kind = kind
    }
}

/// Turns scheduled events into interleaved signed 16-bit samples.
///
/// Real-time safe: everything is allocated in `init`; `schedule` and `render` only read
/// and write that memory. Levels leave headroom so the sum never clips: a click peaks at
/// `clickHeadroom` × volume, two clicks can overlap at a tempo change, and one voice cue
/// plays at a time at `voiceHeadroom`: 2 × 0.28 + 0.42 = 0.98 of full scale.
public final class MetronomeRenderer: @unchecked Sendable {
    public static let clickHeadroom: Float = 0.28
    public static let voiceHeadroom: Float = 0.42

    public let sampleRate: Int
    public let channels: Int
    /// The next frame `render` writes.
    public private(set) var frame: Int64 = 0
    /// Called on the rendering thread when a voice clip has played to its end (or was
    /// dropped); must not allocate, lock or do I/O.
    public var onVoiceFinished: (@Sendable (Int) -> Void)?

    private let clickLength: Int
    private let clickSamples: UnsafeMutablePointer<Float>
    private let clickGains: UnsafeMutablePointer<(Float, Float)>
    private let clickGain: Float

    private var grid: BeatGrid?
    private var pattern = ClickPattern.plain
    /// Beats since the first grid, across steps and pauses: the alternate pattern's foot. A
    /// new grid's beat count starts at 0, and a step of an odd number of beats began again on
    /// the left, the runner on the wrong foot for the whole next step.
    private var stride: Int64 = 0
    private var audible = true

    private static let maxClicks = 4
    private let clickSound: UnsafeMutablePointer<Int>
    private let clickPosition: UnsafeMutablePointer<Int>
    private var clickCount = 0

    private let voiceQueue: UnsafeMutablePointer<VoiceClip>
    private let voiceCapacity: Int
    private var voiceHead = 0
    private var voiceCount = 0
    private var voicePosition = 0

    private let events: UnsafeMutablePointer<AudioEvent>
    public let eventCapacity: Int
    private var eventCount = 0

    public init(
        sampleRate: Int, channels: Int, volume: Double, eventCapacity: Int = 1024, voiceCapacity: Int = 16
    ) {
        precondition(channels >= 1 && sampleRate > 0)
        self.sampleRate = sampleRate
        self.channels = channels
        let bank = ClickBank(sampleRate: sampleRate)
        clickLength = bank.length
        let sounds = ClickBank.Sound.allCases
        clickSamples = .allocate(capacity: sounds.count * bank.length)
        clickGains = .allocate(capacity: sounds.count)
        for sound in sounds {
            for i in 0..<bank.length { clickSamples[sound.rawValue * bank.length + i] = bank.samples[sound.rawValue][i] }
            let tone = bank.tone(sound)
            // Mono has no sides: a panned click plays at its louder side's level (summed, the
            // alternate pattern's clicks were 35 % quieter than plain ones).
            let mono = max(tone.leftGain, tone.rightGain)
            clickGains[sound.rawValue] = channels == 1 ? (mono, mono) : (tone.leftGain, tone.rightGain)
        }
        clickGain = Self.clickHeadroom * Float(min(1, max(0, volume)))
        clickSound = .allocate(capacity: Self.maxClicks)
        clickPosition = .allocate(capacity: Self.maxClicks)
        self.voiceCapacity = voiceCapacity
        voiceQueue = .allocate(capacity: voiceCapacity)
        self.eventCapacity = eventCapacity
        events = .allocate(capacity: eventCapacity)
    }

    deinit {
        clickSamples.deallocate()
        clickGains.deallocate()
        clickSound.deallocate()
        clickPosition.deallocate()
        voiceQueue.deallocate()
        events.deallocate()
    }

    /// Number of events waiting for their frame.
    public var pendingEvents: Int { eventCount }

    /// Nothing sounding and nothing to come: no beat grid, click, voice or event.
    public var isIdle: Bool { grid == nil && clickCount == 0 && voiceCount == 0 && eventCount == 0 }

    /// Queues an event, keeping frame order (events on the same frame keep their order).
    /// Returns false, dropping it, when the queue is full.
    @discardableResult
    public func schedule(_ event: AudioEvent) -> Bool {
        guard eventCount < eventCapacity else {
            if case .voice(let clip) = event.kind { onVoiceFinished?(clip.id) }
            return false
        }
        var index = eventCount
        while index > 0, events[index - 1].frame > event.frame {
            index -= 1
        }
        var i = eventCount
        while i > index {
            events[i] = events[i - 1]
            i -= 1
        }
        events[index] = event
        eventCount += 1
        return true
    }

    /// Renders `frames` frames of interleaved samples into `output` (frames × channels).
    public func render(into output: UnsafeMutablePointer<Int16>, frames: Int) {
        var write = 0
        for _ in 0..<frames {
            applyDueEvents()
            if var beat = grid, beat.nextFrame <= frame {
                if audible { startClick(sound(forBeat: beat.beat)) }
                // A grid that started in the past (a late event) catches up without a burst.
                while beat.nextFrame <= frame {
                    beat.advance()
                    stride += 1
                }
                grid = beat
            }
            var left: Float = 0
            var right: Float = 0
            var c = 0
            while c < clickCount {
                let sound = clickSound[c]
                let sample = clickSamples[sound * clickLength + clickPosition[c]] * clickGain
                left += sample * clickGains[sound].0
                right += sample * clickGains[sound].1
                clickPosition[c] += 1
                if clickPosition[c] >= clickLength {
                    clickCount -= 1
                    clickSound[c] = clickSound[clickCount]
                    clickPosition[c] = clickPosition[clickCount]
                } else {
                    c += 1
                }
            }
            if voiceCount > 0 {
                let clip = voiceQueue[voiceHead]
                if voicePosition < clip.samples.count {
                    let sample = clip.samples[voicePosition] * Self.voiceHeadroom
                    left += sample
                    right += sample
                    voicePosition += 1
                }
                if voicePosition >= clip.samples.count { finishVoice() }
            }
            if channels == 1 {
                output[write] = Self.sample((left + right) * 0.5)
                write += 1
            } else {
                output[write] = Self.sample(left)
                output[write + 1] = Self.sample(right)
                var extra = 2
                while extra < channels {
                    output[write + extra] = 0
                    extra += 1
                }
                write += channels
            }
            frame += 1
        }
    }

    /// Moves to `target` without writing anything, leaving the renderer as if it had rendered
    /// those frames: events applied, beats counted, clicks and voice cues played on (and
    /// finished) in silence. What comes next is what an uninterrupted render gives from
    /// `target`. Live playback uses it when the device fell behind the session (a stall).
    public func skip(to target: Int64) {
        while frame < target {
            applyDueEvents()
            let end = eventCount > 0 ? min(target, events[0].frame) : target
            skipClicks(end - frame)
            skipVoices(end - frame)
            skipBeats(before: end)
            frame = end
        }
    }

    /// Counts the beats from `frame` to `end` and starts, part played, the clicks still
    /// sounding at `end`.
    private func skipBeats(before end: Int64) {
        guard var beat = grid else { return }
        while beat.nextFrame < end {
            let at = beat.nextFrame
            if audible, end - max(at, frame) < Int64(clickLength) {
                startClick(sound(forBeat: beat.beat))
                // The click started at `at` (or now, for a grid that began in the past).
                clickPosition[clickCount - 1] = Int(end - max(at, frame))
            }
            while beat.nextFrame <= max(at, frame) {
                beat.advance()
                stride += 1
            }
        }
        grid = beat
    }

    private func skipClicks(_ span: Int64) {
        var c = 0
        while c < clickCount {
            if Int64(clickPosition[c]) + span >= Int64(clickLength) {
                clickCount -= 1
                clickSound[c] = clickSound[clickCount]
                clickPosition[c] = clickPosition[clickCount]
            } else {
                clickPosition[c] += Int(span)
                c += 1
            }
        }
    }

    private func skipVoices(_ span: Int64) {
        var left = span
        while left > 0, voiceCount > 0 {
            // A clip takes one frame per sample, and an empty one a frame.
            let remaining = Int64(max(1, voiceQueue[voiceHead].samples.count - voicePosition))
            if remaining > left {
                voicePosition += Int(left)
                return
            }
            left -= remaining
            finishVoice()
        }
    }

    @inline(__always)
    static func sample(_ value: Float) -> Int16 {
        // The levels already leave headroom; clamping only guards against rounding.
        let scaled = (value * 32767).rounded()
        return Int16(max(-32767, min(32767, scaled)))
    }

    private func applyDueEvents() {
        while eventCount > 0, events[0].frame <= frame {
            let event = events[0]
            var i = 1
            while i < eventCount {
                events[i - 1] = events[i]
                i += 1
            }
            eventCount -= 1
            switch event.kind {
            case .tempo(let spm, let newPattern):
                grid = BeatGrid(start: event.frame, spm: spm, sampleRate: sampleRate)
                pattern = newPattern
            case .silence:
                grid = nil
            case .clicksAudible(let on):
                audible = on
            case .voice(let clip):
                if voiceCount < voiceCapacity {
                    voiceQueue[(voiceHead + voiceCount) % voiceCapacity] = clip
                    voiceCount += 1
                } else {
                    onVoiceFinished?(clip.id)
                }
            }
        }
    }

    private func finishVoice() {
        let id = voiceQueue[voiceHead].id
        voiceHead = (voiceHead + 1) % voiceCapacity
        voiceCount -= 1
        voicePosition = 0
        onVoiceFinished?(id)
    }

    private func sound(forBeat beat: Int64) -> ClickBank.Sound {
        switch pattern {
        case .plain: .plain
        case .alternate: stride % 2 == 0 ? .left : .right
        case .accentFirst: beat == 0 ? .accent : .plain
        }
    }

    private func startClick(_ sound: ClickBank.Sound) {
        if clickCount == Self.maxClicks {
            // Never happens at ≤ 260 spm (a click is 70 ms); if it did, drop one old click, not the new beat.
            clickCount -= 1
            clickSound[0] = clickSound[clickCount]
            clickPosition[0] = clickPosition[clickCount]
        }
        clickSound[clickCount] = sound.rawValue
        clickPosition[clickCount] = 0
        clickCount += 1
    }
}
