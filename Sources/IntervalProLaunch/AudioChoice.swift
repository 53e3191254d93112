public import IntervalProAudio
public import IntervalProCore
import IntervalProIO
import Logging

/// What the user asked of the metronome, the voice and the audio device; nil leaves the
/// plan's `metronome` object (or the default) as it is.
public struct AudioChoice: Sendable {
    public var mode: MetronomeMode?
    public var accent: MetronomeAccent?
    public var volume: Double?
    public var offTargetGrace: Double?
    public var voice: CueLanguage?
    public var noVoice: Bool
    public var coachingGrace: Double?
    public var coachingCooldown: Double?
    /// ALSA playback device; nil is `default`.
    public var deviceName: String?
    public var rate: Int?
    public var channels: Int?
    /// Device buffer length in milliseconds.
    public var latency: Int?

    public init(
        mode: MetronomeMode? = nil, accent: MetronomeAccent? = nil, volume: Double? = nil,
        offTargetGrace: Double? = nil, voice: CueLanguage? = nil, noVoice: Bool = false,
        coachingGrace: Double? = nil, coachingCooldown: Double? = nil, device: String? = nil, rate: Int? = nil,
        channels: Int? = nil, latency: Int? = nil
    ) {
        self.mode = mode
        self.accent = accent
        self.volume = volume
        self.offTargetGrace = offTargetGrace
        self.voice = voice
        self.noVoice = noVoice
        self.coachingGrace = coachingGrace
        self.coachingCooldown = coachingCooldown
        deviceName = device
        self.rate = rate
        self.channels = channels
        self.latency = latency
    }

    /// The plan's settings (or the defaults), with the choices made on top.
    public func settings(for plan: Plan) -> MetronomeSettings {
        var settings = plan.metronome ?? MetronomeSettings()
        if let mode { settings.mode = mode }
        if let accent { settings.accent = accent }
        if let volume { settings.volume = volume }
        if let offTargetGrace { settings.grace = .seconds(offTargetGrace) }
        if let voice {
            settings.voice = true
            settings.language = voice
        }
        if noVoice { settings.voice = false }
        if let coachingGrace { settings.coachingGrace = .seconds(coachingGrace) }
        if let coachingCooldown { settings.coachingCooldown = .seconds(coachingCooldown) }
        return settings
    }

    /// The choice for a session with no runner: clicks only when off target follow a cadence
    /// there is none of, and were never heard (a treadmill's whole run of silence); they play
    /// throughout instead, and `note` says so.
    public func withoutRunner(plan: Plan) -> (choice: AudioChoice, note: String?) {
        guard settings(for: plan).mode == .offTarget else { return (self, nil) }
        var choice = self
        choice.mode = .always
        return (choice, "the metronome plays only off target, which follows a runner's cadence: with no runner, it plays throughout")
    }

    public var request: AudioFormatRequest {
        AudioFormatRequest(
            sampleRate: rate ?? 48_000, channels: channels ?? 2, latencyMicroseconds: (latency ?? 50) * 1_000)
    }

    public var device: String { deviceName ?? "default" }

    /// True when audio was asked for in some way (`--no-voice` asks for less, not for sound).
    public var explicitlyRequested: Bool {
        let asked: [Any?] = [mode, accent, volume, offTargetGrace, voice, coachingGrace, coachingCooldown, deviceName, rate, channels, latency]
        return asked.contains { $0 != nil }
    }

    /// The live audio companion for a session, or nil when it would be silent: audio plays
    /// only at real-time pacing, and a device that cannot be opened is a warning, not a
    /// failure, told through `warn` (stderr, and the page when one follows the session).
    public func liveAudio(plan: Plan, realTime: Bool, warn: @escaping @Sendable (String) -> Void = warn) -> LiveAudio? {
        let settings = settings(for: plan)
        guard settings.mode != .off || settings.voice else { return nil }
        guard realTime else {
            if explicitlyRequested {
                warn("audio plays only in real time (without --speed or --fast); this session is silent")
            }
            return nil
        }
        let player: AudioPlayer
        do {
            player = try AudioPlayer(device: device, request: request, volume: settings.volume)
        } catch {
            warn("audio device '\(device)' is not available (\(error.status)); the session goes on without sound")
            return nil
        }
        let voice = Self.voice(settings, outputRate: player.sampleRate, warn: warn)
        return LiveAudio(settings: settings, timeline: plan.timeline(), player: player, voice: voice, warn: warn)
    }
}

extension AudioChoice {
    /// The voice for `settings` at the device's rate, when the settings want one and speech
    /// synthesis works; otherwise clicks only, said once.
    static func voice(_ settings: MetronomeSettings, outputRate: Int, warn: (String) -> Void = warn) -> CueVoice? {
        guard settings.voice else { return nil }
        do {
            return try CueVoice(language: settings.language, outputRate: outputRate)
        } catch {
            warn("voice cues are not available (\(error)); clicks only")
            return nil
        }
    }
}

/// A warning for whoever runs the library (the command line prints it on stderr).
public func warn(_ message: String) {
    logger.warning("\(message)")
}
