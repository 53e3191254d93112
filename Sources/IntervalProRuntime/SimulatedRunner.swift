public import IntervalProCore

/// A small, seedable random generator (SplitMix64), so that a simulation with a given
/// seed is the same on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Approximately standard normal (Irwin-Hall with four uniforms): no libm needed.
    mutating func gaussian() -> Double {
        var sum = 0.0
        for _ in 0..<4 { sum += Double.random(in: 0..<1, using: &self) }
        return (sum - 2) * 1.7320508075688772
    }
}

/// A simulated runner wearing an HR strap and a footpod, emitting real 0x2A37 and 0x2A53
/// payloads so that simulated sessions go through the same parsers as live ones.
///
/// The model: cadence follows the step's target with a lag (time constant `lagSeconds`),
/// wanders with noise and a personal bias, and now and then drifts out of the zone for a
/// while; speed follows cadence × stride length; heart rate rises in work and falls in
/// rest. Steps without a target are run at an easy cadence. The strap sends every beat's RR
/// interval; beat-to-beat variation is correlated at easy effort and loses its correlation
/// as heart rate rises (an AR(1) process whose coefficient falls from 0.95 at 125 bpm to 0 at
/// 170), so alpha 1 falls through 0.75 and 0.5 as a real runner's does.
public struct SimulatedRunner: SessionSource {
    public struct Configuration: Sendable {
        public var seed: UInt64 = 1
        /// The footpod reports strides (one foot) instead of steps.
        public var perFoot = false
        /// Spans during which the footpod is out of range: (start, length).
        public var dropouts: [(start: SessionTime, length: SessionTime)] = []
        /// When the simulated run stops.
        public var duration: SessionTime
        public var rscInterval = SessionTime.seconds(0.5)
        public var heartRateInterval = SessionTime.seconds(1)
        /// How often (on average, seconds) the runner drifts off target for a while.
        public var meanSecondsBetweenDrifts = 150.0
        public var lagSeconds = 6.0

        public init(duration: SessionTime) {
            self.duration = duration
        }

        /// How long the simulated runner runs an open step before pressing "next".
        public static let openStepLength = SessionTime.seconds(300)
        /// The easy pace a distance step is reckoned at, metres a second.
        public static let distanceStepPace = 2.5

        /// Long enough for the plan: timed steps as written, open steps 5 minutes, distance
        /// steps at an easy 2.5 m/s.
        public static func covering(_ timeline: [TimelineStep]) -> Configuration {
            var total = SessionTime.zero
            for step in timeline {
                switch step.end {
                case .time(let length): total += length
                case .open: total += openStepLength
                case .distance(let metres): total += .seconds(metres / distanceStepPace)
                }
            }
            return Configuration(duration: total)
        }
    }

    public static let heartRateDevice = RecordedDevice(id: RecordedDevice.simulatorAddressPrefix + "01", name: "Simulated HRM", cadenceUnit: nil)
    public static func footpod(perFoot: Bool) -> RecordedDevice {
        RecordedDevice(id: RecordedDevice.simulatorAddressPrefix + "02", name: "Simulated footpod", cadenceUnit: perFoot ? .strides : .steps)
    }

    private let configuration: Configuration
    private var random: SplitMix64
    private let bias: Double

    private var now = SessionTime.zero
    private var nextRSC = SessionTime.zero
    private var nextHeartRate = SessionTime.seconds(0.25)
    private var pending: [RecordingEntry] = []

    private var stepKind = StepKind.warmup
    private var targetCadence = 160.0
    private var cadence = 150.0
    private var heartRate = 95.0
    private var distance = 0.0
    private var driftOffset = 0.0
    private var driftEnds = SessionTime.zero
    private var wasDroppedOut = false
    /// Beats draw from their own generator, so the other figures stay as they were.
    private var beatRandom: SplitMix64
    private var lastBeat = 0.0
    private var beatDeviation = 0.0
    /// The "next" that ends the open step running.
    private var lap: (time: SessionTime, command: UserCommand)?
    /// Session time the runner stood (paused), and since when it stands: the plan's end comes
    /// that much later, and the runner runs to it (a pause of 6 s left the last 6 s of the plan
    /// without readings: "no signal" at 1:52 of 1:56, coaching silenced).
    private var stood = SessionTime.zero
    private var standingSince: SessionTime?

    public init(configuration: Configuration) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.seed)
        beatRandom = SplitMix64(seed: configuration.seed ^ 0x5EED_BEA7)
        bias = random.gaussian() * 1.5
    }

    public var kind: SessionSourceKind { .simulation }
    public var command: (time: SessionTime, command: UserCommand)? { lap }
    public mutating func commandDelivered() { lap = nil }
    public var devices: [RecordedDevice] { [Self.heartRateDevice, Self.footpod(perFoot: configuration.perFoot)] }

    public mutating func observe(_ action: SessionEngine.Action) {
        switch action {
        case .applied(.pause): standingSince = standingSince ?? now
        case .applied(.resume):
            if let since = standingSince { stood += now - since }
            standingSince = nil
        default: break
        }
        guard case .stepStarted(let step, let start) = action else { return }
        // An open step ends when the runner says so: the simulated one does after its five
        // minutes (the first open step ran until the simulation ran out, every later step 0 s).
        lap = step.end == .open ? (start + Configuration.openStepLength, .next) : nil
        stepKind = step.kind
        let easyCadence: Double =
            switch step.kind {
            case .work: 172
            case .rest: 150
            case .warmup, .cooldown: 158
            }
        targetCadence = step.zone?.target ?? easyCadence
    }

    public mutating func next() -> RecordingEntry? {
        if !pending.isEmpty { return pending.removeFirst() }
        let time = min(nextRSC, nextHeartRate)
        guard time < configuration.duration + stood + (standingSince.map { time - $0 } ?? .zero) else { return nil }
        evolve(to: time)
        if time == nextRSC {
            nextRSC += configuration.rscInterval
            emitRSC(at: time)
        } else {
            nextHeartRate += configuration.heartRateInterval
            emitHeartRate(at: time)
        }
        return pending.isEmpty ? next() : pending.removeFirst()
    }

    private func droppedOut(at time: SessionTime) -> Bool {
        configuration.dropouts.contains { time >= $0.start && time < $0.start + $0.length }
    }

    private mutating func evolve(to time: SessionTime) {
        let dt = (time - now).seconds
        now = time
        guard dt > 0 else { return }
        if time >= driftEnds {
            driftOffset = 0
            // Start a drift with probability dt / mean: off by 6-10 spm for 15-40 s.
            if Double.random(in: 0..<1, using: &random) < dt / configuration.meanSecondsBetweenDrifts {
                let size = Double.random(in: 6...10, using: &random)
                driftOffset = Bool.random(using: &random) ? size : -size
                driftEnds = time + .seconds(Double.random(in: 15...40, using: &random))
            }
        }
        let desired = targetCadence + bias + driftOffset
        cadence += (desired - cadence) * dt / (configuration.lagSeconds + dt)
        cadence += random.gaussian() * 1.2 * dt.squareRoot()

        let stride = stepKind == .work ? 1.05 : 0.9
        distance += cadence / 60 * stride * dt

        let targetHeartRate: Double =
            switch stepKind {
            case .work: 158 + (cadence - 170) * 0.6
            case .rest: 128
            case .warmup: 135
            case .cooldown: 122
            }
        heartRate += (targetHeartRate - heartRate) * dt / (25 + dt)
        heartRate += random.gaussian() * 0.6 * dt.squareRoot()
    }

    private mutating func emitRSC(at time: SessionTime) {
        let footpod = Self.footpod(perFoot: configuration.perFoot).id
        let dropped = droppedOut(at: time)
        if dropped != wasDroppedOut {
            wasDroppedOut = dropped
            pending.append(.event(time: time, device: footpod, name: dropped ? "disconnected" : "connected"))
        }
        guard !dropped else { return }
        let steps = max(0, cadence + random.gaussian() * 0.8)
        let sent = configuration.perFoot ? steps / 2 : steps
        let stride = stepKind == .work ? 1.05 : 0.9
        let speed = steps / 60 * stride
        let measurement = RSCMeasurement(
            speedRaw: UInt16(min(65535, (speed * 256).rounded())),
            cadence: UInt8(min(255, sent.rounded())),
            strideLengthRaw: UInt16((stride * (configuration.perFoot ? 200 : 100)).rounded()),
            totalDistanceRaw: UInt32((distance * 10).rounded()),
            running: speed >= 2.0)
        pending.append(.notification(RawNotification(time: time, device: footpod, characteristic: .rscMeasurement, bytes: measurement.encoded())))
    }

    private mutating func emitHeartRate(at time: SessionTime) {
        let bpm = UInt16(max(40, min(220, heartRate.rounded())))
        let measurement = HeartRateMeasurement(
            heartRate: bpm, sensorContact: .detected, rrIntervals: RRIntervals(beats(until: time.seconds)))
        pending.append(
            .notification(
                RawNotification(
                    time: time, device: Self.heartRateDevice.id, characteristic: .heartRateMeasurement,
                    bytes: measurement.encoded())))
    }

    /// The RR intervals (1/1024 s) of the beats since the last notification.
    private mutating func beats(until time: Double) -> [UInt16] {
        var intervals: [UInt16] = []
        let correlation = min(0.95, max(0, (170 - heartRate) / 45))
        let spread = 0.02 * (1 - correlation * correlation).squareRoot()
        while true {
            let deviation = correlation * beatDeviation + spread * beatRandom.gaussian()
            let interval = 60 / max(40, heartRate) * (1 + deviation)
            guard lastBeat + interval <= time else { break }
            beatDeviation = deviation
            lastBeat += interval
            intervals.append(UInt16((interval * 1024).rounded()))
        }
        return intervals
    }
}
