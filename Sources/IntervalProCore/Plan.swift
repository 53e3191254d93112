/// A training plan (see docs/reference/contracts.md, "Plan format"): version 1, or version 2 which adds the
/// `metronome` object.
public struct Plan: Sendable {
    /// The plan format version the file declares (1 when it declares none).
    public var version: Int = 1
    public var name: String
    public var description: String?
    /// Default zone half-width in spm for steps that do not set their own.
    public var tolerance: Double
    public var nodes: [PlanNode]
    /// The plan's metronome and voice settings (version 2 only); nil when it gives none.
    public var metronome: MetronomeSettings?

    public init(
        version: Int = 1, name: String, description: String? = nil, tolerance: Double = Plan.defaultTolerance,
        nodes: [PlanNode], metronome: MetronomeSettings? = nil
    ) {
        self.version = version
        self.name = name
        self.description = description
        self.tolerance = tolerance
        self.nodes = nodes
        self.metronome = metronome
    }

    public static let defaultTolerance = 5.0
    /// The newest plan format version this program reads (it reads every older one too).
    public static let formatVersion = 2
}

public enum StepKind: String, Sendable, CaseIterable {
    case warmup, work, rest, cooldown
}

/// How a step ends.
public enum StepEnd: Equatable, Sendable {
    case time(SessionTime)
    /// Metres covered since the step began, as the sensor reports them.
    case distance(Double)
    /// Ends when the runner says "next" (or when a replay runs out).
    case open
}

/// The cadence zone a step scores against, bounds inclusive.
public struct CadenceZone: Equatable, Sendable {
    public var target: Double
    public var low: Double
    public var high: Double

    public init(target: Double, low: Double, high: Double) {
        self.target = Self.clean(target)
        self.low = Self.clean(low)
        self.high = Self.clean(high)
    }

    public init(target: Double, tolerance: Double) {
        self.init(target: target, low: target - tolerance, high: target + tolerance)
    }

    /// Without the binary noise of a sum: 160.3 - 2.1 is 158.20000000000002, which the
    /// timeline, the screen and the summary's `low_spm` printed as it is. A billionth of a
    /// step per minute is far finer than any cadence a sensor sends.
    static func clean(_ value: Double) -> Double { (value * 1e9).rounded() / 1e9 }

    public func contains(_ cadence: Double) -> Bool { low <= cadence && cadence <= high }
}

/// A value a step gives either once or per repetition of its innermost group.
public enum PerRepetition<Value: Sendable & Equatable>: Sendable, Equatable {
    case fixed(Value)
    case perRepetition([Value])

    func value(repetition: Int) -> Value {
        switch self {
        case .fixed(let value): value
        case .perRepetition(let values): values[repetition]
        }
    }
}

/// A cadence target as written: a centre (zone = centre ± tolerance) or explicit bounds.
public enum CadenceSpec: Sendable, Equatable {
    case target(Double)
    case range(low: Double, high: Double)

    func zone(tolerance: Double) -> CadenceZone {
        switch self {
        case .target(let target): CadenceZone(target: target, tolerance: tolerance)
        case .range(let low, let high): CadenceZone(target: (low + high) / 2, low: low, high: high)
        }
    }
}

public struct PlanStep: Sendable {
    public var kind: StepKind
    public var end: PerRepetition<StepEnd>
    public var cadence: PerRepetition<CadenceSpec>?
    public var tolerance: Double?
    public var label: String?

    public init(
        kind: StepKind, end: PerRepetition<StepEnd>, cadence: PerRepetition<CadenceSpec>? = nil,
        tolerance: Double? = nil, label: String? = nil
    ) {
        self.kind = kind
        self.end = end
        self.cadence = cadence
        self.tolerance = tolerance
        self.label = label
    }
}

public indirect enum PlanNode: Sendable {
    case step(PlanStep)
    case group(repeat: Int, nodes: [PlanNode])
}

/// One step of the expanded timeline, as the engine runs it.
public struct TimelineStep: Equatable, Sendable {
    public struct Repetition: Equatable, Sendable, CustomStringConvertible {
        /// 1-based.
        public var number: Int
        public var count: Int
        public var description: String { "\(number)/\(count)" }

        public init(number: Int, count: Int) {
            self.number = number
            self.count = count
        }
    }

    public var index: Int
    public var kind: StepKind
    public var label: String?
    public var repetition: Repetition?
    public var end: StepEnd
    public var zone: CadenceZone?

    public init(
        index: Int, kind: StepKind, label: String? = nil, repetition: Repetition? = nil,
        end: StepEnd, zone: CadenceZone? = nil
    ) {
        self.index = index
        self.kind = kind
        self.label = label
        self.repetition = repetition
        self.end = end
        self.zone = zone
    }

    /// "Work 3/8 · Build" style title for screens and logs.
    public var title: String {
        var title = kind.rawValue.prefix(1).uppercased() + kind.rawValue.dropFirst()
        if let repetition { title += " \(repetition)" }
        if let label { title += " · \(label.printable)" }
        return title
    }
}

extension Plan {
    /// The steps in the order they run, groups unrolled.
    public func timeline() -> [TimelineStep] {
        var steps: [TimelineStep] = []
        func expand(_ nodes: [PlanNode], repetition: TimelineStep.Repetition?) {
            for node in nodes {
                switch node {
                case .step(let step):
                    let index = (repetition?.number ?? 1) - 1
                    steps.append(
                        TimelineStep(
                            index: steps.count, kind: step.kind, label: step.label, repetition: repetition,
                            end: step.end.value(repetition: index),
                            zone: step.cadence?.value(repetition: index).zone(tolerance: step.tolerance ?? tolerance)
                        ))
                case .group(let count, let children):
                    for number in 1...count {
                        expand(children, repetition: .init(number: number, count: count))
                    }
                }
            }
        }
        expand(nodes, repetition: nil)
        return steps
    }
}

extension [TimelineStep] {
    /// Sum of the timed steps; open and distance steps are counted separately.
    public var timedDuration: SessionTime {
        reduce(.zero) { total, step in
            if case .time(let duration) = step.end { return total + duration }
            return total
        }
    }

    /// The whole length when every step ends on time; nil when one ends otherwise.
    public var duration: SessionTime? {
        allSatisfy { if case .time = $0.end { true } else { false } } ? timedDuration : nil
    }
}
