/// Where the runner's smoothed cadence sits against the step's zone.
public enum Feedback: Equatable, Sendable, CustomStringConvertible {
    /// The step has no cadence zone.
    case noZone
    case noSignal
    case inZone
    /// Below the zone: this many spm more reach the target.
    case faster(Int)
    /// Above the zone: this many spm fewer reach the target.
    case slower(Int)

    public var description: String {
        switch self {
        case .noZone: "free pace"
        case .noSignal: "no signal"
        case .inZone: "in zone"
        case .faster(let n): "faster +\(n) spm"
        case .slower(let n): "slower -\(n) spm"
        }
    }

    /// Leaving the zone takes this many spm beyond a bound; coming back only needs the
    /// bound. Without it, a cadence resting on a bound would flip the advice every reading.
    public static let hysteresis = 1.5

    /// Judged on the smoothed cadence as the screen shows it, to the whole spm. Compared as it
    /// is, a runner holding a bound (165 in 165-175) was told "faster +5 spm" for the whole
    /// step under "cadence 165 spm", and scored in zone: the smoothed value comes closer to
    /// the reading at each one and, in floating point, stops just short of it.
    public static func evaluate(smoothed: Double?, zone: CadenceZone?, previous: Feedback) -> Feedback {
        guard let zone else { return .noZone }
        guard let smoothed else { return .noSignal }
        let shown = smoothed.rounded()
        let margin = previous == .inZone ? hysteresis : 0
        if shown < zone.low - margin {
            return .faster(max(1, Int((zone.target - shown).rounded())))
        }
        if shown > zone.high + margin {
            return .slower(max(1, Int((shown - zone.target).rounded())))
        }
        return .inZone
    }
}
