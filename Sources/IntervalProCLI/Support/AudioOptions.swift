import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// Metronome, voice and audio-device options shared by `run`, `replay` and `render-audio`.
/// They override the plan's `metronome` object field by field.
struct AudioOptions: ParsableArguments {
    @Option(name: .customLong("metronome"), help: "When to click: always, off-target (only when out of zone) or off.")
    var mode: Choice<MetronomeMode>?

    @Option(help: "Click accents: none, alternate (two tones, left/right foot) or step-start.")
    var accent: Choice<MetronomeAccent>?

    @Option(parsing: .unconditional, help: "Click volume, 0 to 1 (default 0.8).")
    var volume: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("In off-target mode, seconds out of zone before clicking (default 5).", valueName: "seconds"))
    var offTargetGrace: Double?

    @Option(help: "Language of the voice cues: en or es.")
    var voice: Choice<CueLanguage>?

    @Flag(help: "No voice cues.")
    var noVoice = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds out of zone before a coaching cue (default 10).", valueName: "seconds"))
    var coachingGrace: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds between two coaching cues (default 20; under 3 is taken as 3).", valueName: "seconds"))
    var coachingCooldown: Double?

    @Option(help: ArgumentHelp("ALSA playback device (default: default).", valueName: "name"))
    var audioDevice: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Sample rate to ask the device for (default 48000).", valueName: "hz"))
    var audioRate: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Channels to ask the device for: 1 or 2 (default 2).", valueName: "n"))
    var audioChannels: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Device buffer length in milliseconds (default 50).", valueName: "ms"))
    var audioLatency: Int?

    /// Whether any of them was given: `replay` without a plan has no sound to shape.
    var isGiven: Bool {
        mode != nil || accent != nil || volume != nil || offTargetGrace != nil || voice != nil || noVoice || coachingGrace != nil
            || coachingCooldown != nil || audioDevice != nil || audioRate != nil || audioChannels != nil || audioLatency != nil
    }

    func validate() throws {
        if let volume, !MetronomeSettings.volumeRange.contains(volume) {
            throw ValidationError("--volume must be between 0 and 1")
        }
        for (name, value) in [("--off-target-grace", offTargetGrace), ("--coaching-grace", coachingGrace),
                              ("--coaching-cooldown", coachingCooldown)]
        where value.map({ !MetronomeSettings.delayRange.contains($0) }) ?? false {
            throw ValidationError("\(name) must be between 0 and 600 seconds")
        }
        if voice != nil, noVoice { throw ValidationError("--voice and --no-voice cannot be used together") }
        if let audioRate, !(8_000...192_000).contains(audioRate) {
            throw ValidationError("--audio-rate must be between 8000 and 192000")
        }
        if let audioChannels, !(1...2).contains(audioChannels) { throw ValidationError("--audio-channels must be 1 or 2") }
        if let audioLatency, !(5...2_000).contains(audioLatency) {
            throw ValidationError("--audio-latency must be between 5 and 2000 ms")
        }
    }

    /// The same choices as plain values, for the launcher.
    var choice: AudioChoice {
        AudioChoice(
            mode: mode?.value, accent: accent?.value, volume: volume, offTargetGrace: offTargetGrace,
            voice: voice?.value, noVoice: noVoice, coachingGrace: coachingGrace, coachingCooldown: coachingCooldown,
            device: audioDevice, rate: audioRate, channels: audioChannels, latency: audioLatency)
    }

    var device: String { choice.device }
}

/// A command-line value that is one of an enum's raw values.
struct Choice<Value: RawRepresentable & CaseIterable>: ExpressibleByArgument where Value.RawValue == String {
    var value: Value

    init?(argument: String) {
        guard let value = Value(rawValue: argument.lowercased()) else { return nil }
        self.value = value
    }

    static var allValueStrings: [String] { Value.allCases.map(\.rawValue) }
    // Only a CaseIterable argument offers its values by itself: this wrapper says them.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
