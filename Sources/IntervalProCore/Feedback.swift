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

    public static func evaluate(smoothed: Double?, zone: CadenceZone?, previous: Feedback) -> Feedback {
        guard let zone else { return .noZone }
        guard let smoothed else { return .noSignal }
        let margin = previous == .inZone ? hysteresis : 0
        if smoothed < zone.low - margin {
            return .faster(max(1, Int((zone.target - smoothed).rounded())))
        }
        if smoothed > zone.high + margin {
            return .slower(max(1, Int((smoothed - zone.target).rounded())))
        }
        return .inZone
    }
}
