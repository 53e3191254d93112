/// When the metronome clicks.
public enum MetronomeMode: String, Sendable, CaseIterable {
    /// Every step with a cadence target clicks at that target.
    case always
    /// Clicks only once the smoothed cadence has been out of zone for a grace period,
    /// and stops as soon as it is back in zone.
    case offTarget = "off-target"
    case off
}

/// How clicks differ from one another.
public enum MetronomeAccent: String, Sendable, CaseIterable {
    case none
    /// Two tones, panned left and right, one per foot.
    case alternate
    /// The first click of each step is higher.
    case stepStart = "step-start"
}

/// Language of the voice cues.
public enum CueLanguage: String, Sendable, CaseIterable {
    case en, es
}

/// Metronome and voice-cue settings: the plan's `metronome` object (plan format version
/// 2), then command-line flags on top.
public struct MetronomeSettings: Equatable, Sendable {
    public var mode: MetronomeMode = .always
    public var accent: MetronomeAccent = .none
    /// Loudness of the clicks, 0 (silent) to 1 (loudest that still leaves headroom for voice).
    public var volume: Double = 0.8
    /// In `off-target` mode, how long the cadence must stay out of zone before clicks start.
    public var grace: SessionTime = .seconds(5)
    /// Voice cues on or off.
    public var voice = true
    public var language: CueLanguage = .en
    /// Coaching ("faster, 6 more") waits this long out of zone before speaking...
    public var coachingGrace: SessionTime = .seconds(10)
    /// ...and then at least this long between two coaching cues.
    public var coachingCooldown: SessionTime = .seconds(20)

    public init() {}

    public static let volumeRange = 0.0...1.0
    /// Grace periods and cooldowns, in seconds.
    public static let delayRange = 0.0...600.0
}
