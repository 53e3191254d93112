// Parser throughput: notifications decoded per second on one core, per characteristic; and the
// cost of one DFA alpha 1 window (correction, detrending, DFA of two minutes of beats).
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
var windows = 0
var scored = 0
// Every window's figures folded into one number: a faster tracker must print the same.
var fingerprint: UInt64 = 14_695_981_039_346_656_037
let began = clock.now
for _ in 0..<3 {
    var tracker = AlphaOneTracker()
    for sample in samples {
        guard let window = tracker.add(sample) else { continue }
        windows += 1
        if window.status == .scored { scored += 1 }
        for part in [window.alpha1?.bitPattern ?? 1, window.heartRate?.bitPattern ?? 2, UInt64(window.artifacts)] {
            fingerprint = (fingerprint ^ part) &* 1_099_511_628_211
        }
    }
}
let elapsed = began.duration(to: clock.now)
let microseconds = (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) * 1e-12) / Double(windows)
print("alpha 1: \(windows / 3) windows of a 70-minute session (\(scored / 3) scored), \(Int(microseconds.rounded())) µs per window, one core; fingerprint \(String(fingerprint, radix: 16))")

// The session's own figures at its end: every beat corrected in one series.
let beats = samples.flatMap(\.rrIntervals)
let summaryStart = clock.now
var summaryArtifacts = 0
for _ in 0..<3 { summaryArtifacts = AlphaOneTracker.summary(windows: [], beats: beats)?.artifacts ?? 0 }
let summaryElapsed = summaryStart.duration(to: clock.now)
let summaryMilliseconds = (Double(summaryElapsed.components.seconds) * 1e3 + Double(summaryElapsed.components.attoseconds) * 1e-15) / 3
print("the session's artifacts: \(beats.count) beats corrected in one series (\(summaryArtifacts) artifacts), \((summaryMilliseconds * 10).rounded() / 10) ms")
