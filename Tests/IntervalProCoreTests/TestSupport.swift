import Testing
@testable import IntervalProCore

// Shared helpers for the IntervalProCore tests. Nothing here asserts on its own.

/// "line:column" (both from 1, column in UTF-8 bytes) of the `occurrence`-th match of
/// `needle` in `text`, counted here by hand so that location checks do not lean on the
/// code under test.
func lineColumn(of needle: String, in text: String, occurrence: Int = 1) -> String {
    let hay = Array(text.utf8)
    let pattern = Array(needle.utf8)
    var found = 0
    var start = -1
    var i = 0
    while i + pattern.count <= hay.count {
        if Array(hay[i..<(i + pattern.count)]) == pattern {
            found += 1
            if found == occurrence {
                start = i
                break
            }
        }
        i += 1
    }
    precondition(start >= 0, "\(needle) occurs fewer than \(occurrence) times")
    var line = 1
    var column = 1
    for byte in hay[..<start] {
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }
    return "\(line):\(column)"
}

/// Byte offset of the first match of `needle` in `text`.
func byteOffset(of needle: String, in text: String) -> Int {
    let hay = Array(text.utf8)
    let pattern = Array(needle.utf8)
    for i in 0...(hay.count - pattern.count) where Array(hay[i..<(i + pattern.count)]) == pattern {
        return i
    }
    preconditionFailure("\(needle) not found")
}

/// Seconds as session time, exact for the values the tests use.
func at(_ seconds: Double) -> SessionTime { .seconds(seconds) }

/// A small deterministic generator (SplitMix64) so that "random" tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Fixture {
    static let pod = "pod"
    static let strap = "strap"

    /// An RSC Measurement notification, encoded with the real encoder.
    static func rsc(
        _ seconds: Double, spm: UInt8, speedRaw: UInt16 = 768, total: UInt32? = nil, running: Bool = true,
        device: String = pod
    ) -> RawNotification {
        RawNotification(
            time: at(seconds), device: device, characteristic: .rscMeasurement,
            bytes: RSCMeasurement(speedRaw: speedRaw, cadence: spm, totalDistanceRaw: total, running: running).encoded())
    }

    /// A Heart Rate Measurement notification, encoded with the real encoder.
    static func hr(
        _ seconds: Double, bpm: UInt16, contact: HeartRateMeasurement.SensorContact = .detected,
        device: String = strap, rr: [UInt16] = []
    ) -> RawNotification {
        RawNotification(
            time: at(seconds), device: device, characteristic: .heartRateMeasurement,
            bytes: HeartRateMeasurement(heartRate: bpm, sensorContact: contact, rrIntervals: RRIntervals(rr)).encoded())
    }

    static func timed(_ index: Int, _ seconds: Double, kind: StepKind = .work, zone: CadenceZone? = nil)
        -> TimelineStep
    {
        TimelineStep(index: index, kind: kind, end: .time(at(seconds)), zone: zone)
    }

    static func step(_ index: Int, _ end: StepEnd, kind: StepKind = .work, zone: CadenceZone? = nil) -> TimelineStep {
        TimelineStep(index: index, kind: kind, end: end, zone: zone)
    }
}

/// Drives a `SessionEngine` by hand and keeps every action it returned; the 1 Hz
/// `.sample` actions are kept apart in `samples` (the history's tests look at them).
struct EngineHarness {
    var engine: SessionEngine
    var actions: [SessionEngine.Action] = []
    var samples: [SessionSample] = []

    init(_ timeline: [TimelineStep], units: [String: CadenceUnit] = [Fixture.pod: .steps]) {
        engine = SessionEngine(
            planName: "Test plan", timeline: timeline, source: .replay, cadenceUnits: units, reportsSamples: true)
    }

    init(plan: Plan, units: [String: CadenceUnit] = [Fixture.pod: .steps]) {
        engine = SessionEngine(plan: plan, source: .simulation, cadenceUnits: units)
    }

    @discardableResult
    mutating func send(_ event: SessionEngine.Event, at seconds: Double) -> [SessionEngine.Action] {
        send(event, at: at(seconds))
    }

    @discardableResult
    mutating func send(_ event: SessionEngine.Event, at time: SessionTime) -> [SessionEngine.Action] {
        var produced = engine.handle(event, now: time)
        samples += produced.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        produced.removeAll { if case .sample = $0 { true } else { false } }
        actions += produced
        return produced
    }

    @discardableResult
    mutating func rsc(_ seconds: Double, _ spm: UInt8, speedRaw: UInt16 = 768, total: UInt32? = nil, device: String = Fixture.pod)
        -> [SessionEngine.Action]
    {
        send(.notification(Fixture.rsc(seconds, spm: spm, speedRaw: speedRaw, total: total, device: device)), at: seconds)
    }

    @discardableResult
    mutating func hr(
        _ seconds: Double, _ bpm: UInt16, contact: HeartRateMeasurement.SensorContact = .detected,
        device: String = Fixture.strap, rr: [UInt16] = []
    ) -> [SessionEngine.Action] {
        send(.notification(Fixture.hr(seconds, bpm: bpm, contact: contact, device: device, rr: rr)), at: seconds)
    }

    @discardableResult
    mutating func tick(_ seconds: Double) -> [SessionEngine.Action] { send(.tick, at: seconds) }

    var summary: SessionSummary? {
        for case .sessionFinished(let summary) in actions { return summary }
        return nil
    }

    var finishedSteps: [StepResult] {
        actions.compactMap { if case .stepFinished(let result, _) = $0 { result } else { nil } }
    }

    var startedSteps: [TimelineStep] {
        actions.compactMap { if case .stepStarted(let step, _) = $0 { step } else { nil } }
    }

    var feedbackChanges: [Feedback] {
        actions.compactMap { if case .feedbackChanged(let feedback) = $0 { feedback } else { nil } }
    }
}
