// Parser throughput: notifications decoded per second on one core, per characteristic; and the
// cost of alpha 1: a session's windows at its end, and one live window (correction, detrending, DFA).
// Run with `make bench` (release build); figures are quoted in docs/dev/benchmarks.md.
import IntervalProCore
import IntervalProHRV
import IntervalProRuntime

struct Case {
    var name: String
    var packets: [[UInt8]]
    var parse: @Sendable ([UInt8]) -> Int
}

func measure(_ benchmark: Case, iterations: Int) -> Double {
    let clock = ContinuousClock()
    var checksum = 0
    let count = benchmark.packets.count
    // Warm up caches and branch predictors before timing.
    for i in 0..<10_000 { checksum &+= benchmark.parse(benchmark.packets[i % count]) }
    let start = clock.now
    for i in 0..<iterations { checksum &+= benchmark.parse(benchmark.packets[i % count]) }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    precondition(checksum != 42, "keeps the loop from being optimised away")
    return Double(iterations) / seconds
}

let cases: [Case] = [
    Case(
        name: "2a37 Heart Rate Measurement (uint8 HR, contact)",
        packets: [HeartRateMeasurement(heartRate: 142, sensorContact: .detected).encoded()],
        parse: { (try? HeartRateMeasurement.parse($0)).map { Int($0.heartRate) } ?? -1 }),
    Case(
        name: "2a37 Heart Rate Measurement (+ energy, 2 RR intervals)",
        packets: [
            HeartRateMeasurement(heartRate: 142, sensorContact: .detected, energyExpendedKJ: 310, rrIntervals: [431, 436])
                .encoded()
        ],
        parse: { (try? HeartRateMeasurement.parse($0)).map { Int($0.heartRate) + $0.rrIntervals.count } ?? -1 }),
    Case(
        name: "2a53 RSC Measurement (speed, cadence)",
        packets: [RSCMeasurement(speedRaw: 700, cadence: 172, running: true).encoded()],
        parse: { (try? RSCMeasurement.parse($0)).map { Int($0.cadence) } ?? -1 }),
    Case(
        name: "2a53 RSC Measurement (+ stride, distance)",
        packets: [
            RSCMeasurement(speedRaw: 700, cadence: 172, strideLengthRaw: 105, totalDistanceRaw: 52_310, running: true)
                .encoded()
        ],
        parse: { (try? RSCMeasurement.parse($0)).map { Int($0.cadence) + Int($0.totalDistanceRaw ?? 0) } ?? -1 }),
    Case(name: "2a54 RSC Feature", packets: [[0x07, 0x00]], parse: { (try? RSCFeature.parse($0)).map { Int($0.rawValue) } ?? -1 }),
    Case(name: "2a38 Body Sensor Location", packets: [[0x01]], parse: { (try? BodySensorLocation.parse($0)).map { Int($0.rawValue) } ?? -1 }),
    Case(name: "2a19 Battery Level", packets: [[0x55]], parse: { (try? BatteryLevel.parse($0)).map { Int($0.percent) } ?? -1 }),
]

let iterations = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000_000
print("parser throughput, \(iterations) notifications each, one core")
for benchmark in cases {
    let rate = measure(benchmark, iterations: iterations)
    let millions = (rate / 1e6 * 10).rounded() / 10
    print("  \(benchmark.name): \(millions) M notifications/s")
}

// Alpha 1: a 70-minute simulated session's samples (every beat, 130 to 170 bpm) through the
// tracker, as the analysis thread takes them: a window every 5 s.
let plan = try PlanDecoder.decode(Array(#"{"name": "Bench", "steps": [{"kind": "warmup", "duration": "10:00"}, {"kind": "work", "duration": "60:00", "cadence": 175}]}"#.utf8), file: "bench.json")
var simulated = SimulatedRunner(configuration: .covering(plan.timeline()))
var engine = SessionEngine(plan: plan, source: .simulation, reportsSamples: true)
var samples: [SessionSample] = []
while let entry = simulated.next() {
    guard case .notification(let notification) = entry else { continue }
    for case .sample(let sample) in engine.handle(.notification(notification), now: notification.time) { samples.append(sample) }
}
let clock = ContinuousClock()
func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) * 1e-12
}

// The live figure: the tracker's window, its own beats corrected alone, every 5 s.
var liveWindows: [AlphaWindow] = []
let liveStart = clock.now
for _ in 0..<3 {
    var tracker = AlphaOneTracker()
    liveWindows = samples.compactMap { tracker.add($0) }
}
let livePerWindow = microseconds(liveStart.duration(to: clock.now)) / Double(3 * liveWindows.count)

// The session's windows at its end: every beat corrected once, in one series, then each window's
// DFA, on one core.
var windows: [AlphaWindow] = []
var summary: SessionHRV?
let sessionStart = clock.now
for _ in 0..<3 { (windows, summary) = AlphaOneTracker.analyse(samples) }
let sessionMilliseconds = microseconds(sessionStart.duration(to: clock.now)) / 3 / 1000
// Every window's figures folded into one number: a faster analysis must print the same.
var fingerprint: UInt64 = 14_695_981_039_346_656_037
for window in windows {
    for part in [window.alpha1?.bitPattern ?? 1, window.heartRate?.bitPattern ?? 2, UInt64(window.artifacts)] {
        fingerprint = (fingerprint ^ part) &* 1_099_511_628_211
    }
}
let scored = windows.filter { $0.status == .scored }.count
print("alpha 1 of a 70-minute session: \(windows.count) windows (\(scored) scored) from \(summary?.beats ?? 0) beats (\(summary?.artifacts ?? 0) corrected), \((sessionMilliseconds * 10).rounded() / 10) ms on one core; fingerprint \(String(fingerprint, radix: 16))")
// Where the live figure and the session's window part: an artifact near the window's edge.
let apart = zip(liveWindows, windows).filter { $0.artifacts != $1.artifacts || $0.alpha1 != $1.alpha1 }
let largest = zip(liveWindows, windows).compactMap { live, session in
    live.alpha1.flatMap { a in session.alpha1.map { abs(a - $0) } }
}.max() ?? 0
print("the live figure: a window corrected alone, \(Int(livePerWindow.rounded())) µs, one every 5 s; \(apart.count) of \(windows.count) windows differ from the session's (alpha 1 by \((largest * 1000).rounded() / 1000) at most)")
