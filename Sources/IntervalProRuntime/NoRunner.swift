public import IntervalProCore

/// No runner at all: no readings, only the plan's clock. `render-audio` without a recording
/// or a simulation (a file for the phone by a treadmill): clicks and step cues, and nothing to
/// coach, where a simulated runner's made-up cadence said "faster" in the runner's ears.
///
/// With nothing to measure, an open or distance step ends when the runner says "next" (live:
/// the key or the page); with `endingUnboundedSteps` (a render, where nobody is there to say
/// it), an open step after the simulated runner's five minutes and a distance step after its
/// length at the simulation's easy 2.5 m/s. Its end is the plan's, not its last entry's: it has
/// none, and an end at once would close an open or distance step as it starts.
public struct NoRunner: SessionSource {
    private let endingUnboundedSteps: Bool
    private var lap: (time: SessionTime, command: UserCommand)?

    public init(endingUnboundedSteps: Bool) {
        self.endingUnboundedSteps = endingUnboundedSteps
    }

    public var kind: SessionSourceKind { .metronome }
    public var endsAtLastEntry: Bool { false }
    public var devices: [RecordedDevice] { [] }
    public var command: (time: SessionTime, command: UserCommand)? { lap }
    public mutating func commandDelivered() { lap = nil }
    public mutating func next() -> RecordingEntry? { nil }

    public mutating func observe(_ action: SessionEngine.Action) {
        guard case .stepStarted(let step, let start) = action else { return }
        guard endingUnboundedSteps else { return }
        switch step.end {
        case .time: lap = nil
        case .open: lap = (start + SimulatedRunner.Configuration.openStepLength, .next)
        case .distance(let metres): lap = (start + .seconds(metres / SimulatedRunner.Configuration.distanceStepPace), .next)
        }
    }
}
