public import IntervalProCore
public import IntervalProRuntime
import IntervalProSound

/// Plays a session's metronome and voice cues as it runs in real time: a session
/// companion (see `SessionLauncher`) feeding an `AudioPlayer`.
///
/// Session time maps to device frames from the first call on, `startDelay` ahead of what
/// the render thread has written. The thread may render only up to the frame of the
/// session's present (a real device blocks well before that; a file would otherwise run
/// ahead), so an event made at a step boundary still reaches it before its frame, as long
/// as the session side calls in at least every `startDelay` minus the device buffer: every
/// `refreshInterval`. (A live session called in once a second, with each reading, and a card
/// ran dry.) Items are committed `lookahead` early, leaving time to
/// synthesise speech here, off the render thread. A device that cannot be opened or is
/// lost gives one warning, and the session goes on without sound.
///
/// After a stall (the process stopped with Ctrl-Z, a busy Pi, a suspended laptop) the device
/// has played silence while the session went on: the thread skips what it missed, so later
/// clicks and cues sound on time again instead of all that late. A device on which the thread
/// has not moved for its buffer and two seconds takes no sound: that is said at once, and
/// again when it takes sound again.
public final class LiveAudio: SessionObserver {
    public static let startDelay = SessionTime.seconds(0.5)
    public static let lookahead = SessionTime.seconds(0.75)
    /// How far the device may fall behind the session before the thread skips ahead: less
    /// than a beat at any cadence, more than a device's pace wavers.
    public static let skipAfter = SessionTime.seconds(0.2)
    /// How often the session side is to call in (`refresh`), at the longest.
    public static let refreshInterval = SessionTime.seconds(0.25)

    private var director: AudioDirector
    private var player: AudioPlayer?
    private let voice: CueVoice?
    private let warn: (String) -> Void
    private var clock: AudioClock?
    private var lastSentFrame: Int64 = 0
    private var sessionFinished = false
    private var stopped = false
    /// The session time of the last call in.
    private var now = SessionTime.zero
    /// When the voice cues sent so far will have been spoken: one plays at a time, so a
    /// cue due earlier waits for it.
    private var voiceFreeAt = SessionTime.zero
    /// When the last reminder ("faster", "slower") starts to sound.
    private var lastCoachingStart: SessionTime?
    /// While the device is behind the session: the frames rendered when last seen to move,
    /// and when (wall time: after a stall, session time catches up in a burst of calls).
    private var behind: (frames: Int64, since: ContinuousClock.Instant)?
    /// The device was said to take no sound, and has taken none since.
    private var silent = false
    /// Told of each voice cue as it is handed to the render thread: the session time at which
    /// it sounds and how long it lasts (what the music player is ducked for). A device plays
    /// session time `startDelay` late: the clock's origin is that far ahead of the render.
    /// A session time, not a delay from now: synthesising the cue took a while just before.
    public var cueSent: ((_ soundsAt: SessionTime, _ lasts: Duration) -> Void)?

    public init(
        settings: MetronomeSettings, timeline: [TimelineStep], player: AudioPlayer?, voice: CueVoice?,
        warn: @escaping (String) -> Void
    ) {
        director = AudioDirector(settings: settings, timeline: timeline)
        self.player = player
        self.voice = voice
        self.warn = warn
        player?.start()
    }

    public func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        director.perform(actions, at: now)
        if actions.contains(where: { if case .sessionFinished = $0 { true } else { false } }) { sessionFinished = true }
        pump(at: now)
    }

    public func refresh(_ engine: SessionEngine, at now: SessionTime) {
        pump(at: now)
    }

    /// After the session: lets the last cue (the summary) play out, then stops the thread.
    /// A session that stopped on an error is not waited for. Once only; later calls do nothing.
    public func finish(waitingUpTo limit: SessionTime = .seconds(10)) {
        guard !stopped else { return }
        stopped = true
        guard let player, let clock, sessionFinished else {
            player?.stop()
            return
        }
        send(director.takeAll(), to: player, clock: clock, now: now)
        player.limit(to: Int64.max)
        // Idle is published after each period; wait until then or the limit, but not for a
        // device that takes nothing for its buffer and two seconds (the summary waited 12 s).
        let deadline = ContinuousClock.now + .microseconds(limit.microseconds)
        let stalledAfter = player.stalledAfter
        var rendered = (frames: player.renderedFrames, at: ContinuousClock.now)
        while !player.isIdle || player.renderedFrames <= lastSentFrame, player.lostStatus == nil {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            player.waitUntilIdle(past: lastSentFrame, timeout: min(left, stalledAfter))
            if player.renderedFrames != rendered.frames {
                rendered = (player.renderedFrames, ContinuousClock.now)
            } else if rendered.at.duration(to: .now) >= stalledAfter {
                player.stop(waitingUpTo: .zero)
            }
        }
        player.stop()
        reportLoss(atTheEnd: true)
    }

    private func pump(at now: SessionTime) {
        self.now = now
        guard let player else {
            _ = director.take(upTo: now + Self.lookahead)
            return
        }
        if reportLoss() { return }
        let clock = self.clock ?? AudioClock(
            sampleRate: player.sampleRate,
            origin: player.renderedFrames + AudioClock(sampleRate: player.sampleRate).frame(of: Self.startDelay))
        self.clock = clock
        send(director.take(upTo: now + Self.lookahead), to: player, clock: clock, now: now)
        player.limit(to: clock.frame(of: now))
        keepUp(player, clock: clock, now: now)
    }

    /// Skips the device ahead to the session after a stall. A device whose render thread
    /// has not moved for `AudioPlayer.stalledAfter` (as `AudioPlayer.stop` waits) while
    /// behind takes no sound: said once, and again when it takes sound again (a suspended
    /// laptop resuming, a headset reconnecting), the player kept for it. Wall time: after
    /// Ctrl-Z the readings that waited are taken in a burst, and session time runs on
    /// seconds before the thread has had a turn.
    private func keepUp(_ player: AudioPlayer, clock: AudioClock, now: SessionTime) {
        // The frame the thread renders now when on time (the clock's origin was `startDelay`
        // ahead of it when the session began).
        let present = clock.frame(of: now - Self.startDelay)
        let rendered = player.renderedFrames
        if silent, behind?.frames != rendered {
            silent = false
            warn("audio device '\(player.output.device)' takes sound again")
        }
        guard present - rendered > AudioClock(sampleRate: player.sampleRate).frame(of: Self.skipAfter) else {
            behind = nil
            return
        }
        if let behind, behind.frames == rendered {
            if !silent, behind.since.duration(to: .now) > player.stalledAfter {
                silent = true
                warn("audio device '\(player.output.device)' stopped taking sound; the session goes on, and its sound with it if the device takes it again")
            }
        } else {
            behind = (rendered, .now)
        }
        player.skip(to: present)
    }

    private func send(_ items: [AudioDirector.Scheduled], to player: AudioPlayer, clock: AudioClock, now: SessionTime) {
        for item in items {
            let frame = clock.frame(of: item.time)
            let kind: AudioEvent.Kind
            switch item.item {
            case .tempo(let spm, let pattern): kind = .tempo(spm: spm, pattern: pattern)
            case .silence: kind = .silence
            case .clicksAudible(let on): kind = .clicksAudible(on)
            case .cue(let cue):
                guard let voice else { continue }
                // A reminder due while another cue speaks waits for it: two due so (behind a
                // long step cue, with the shortest cooldown) spoke back to back, 1.7 s apart.
                // One that would sound within the shortest cooldown of the last is left out.
                if cue.isCoaching, let last = lastCoachingStart,
                    max(item.time, voiceFreeAt) - last < AudioDirector.shortestCoachingCooldown
                {
                    continue
                }
                let text = voice.text(cue)
                guard let clip = player.voiceClip(for: text, synthesise: { voice.samples(text) }) else { continue }
                kind = .voice(clip)
            }
            if player.send(AudioEvent(frame: frame, kind: kind)) {
                lastSentFrame = max(lastSentFrame, frame)
                if case .voice(let clip) = kind {
                    let start = max(item.time, voiceFreeAt)
                    let length = SessionTime.seconds(Double(clip.samples.count) / Double(player.sampleRate))
                    voiceFreeAt = start + length
                    if case .cue(let cue) = item.item, cue.isCoaching { lastCoachingStart = start }
                    // A device that takes no sound plays no cue: the music is not ducked for one
                    // the runner cannot hear (it was, for every cue of the rest of the session).
                    if !silent { cueSent?(max(start, now) + Self.startDelay, .microseconds(length.microseconds)) }
                }
            } else if case .voice(let clip) = kind {
                player.voices.release(clip.id)
            }
        }
    }

    /// Warns once if the device was lost, and goes on silently.
    @discardableResult
    private func reportLoss(atTheEnd: Bool = false) -> Bool {
        guard let player, let status = player.lostStatus else { return false }
        let after = atTheEnd ? "what it had still to play was left" : "the session goes on without sound"
        warn("audio device '\(player.output.device)' was lost (\(status)); \(after)")
        self.player = nil
        return true
    }
}
