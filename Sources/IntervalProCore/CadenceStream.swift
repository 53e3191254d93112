/// A value and the session time it arrived at.
public struct TimedValue<Value: Sendable & Equatable>: Equatable, Sendable {
    public var value: Value
    public var time: SessionTime
}

/// Decides whether a device's RSC cadence counts steps or strides.
///
/// `steps` and `strides` are taken as configured. `auto` watches readings taken while the
/// runner is moving (speed at least 1.8 m/s, or the running bit set): running below 120
/// steps/min does not happen, so a moving reading under 120 is per-foot. Five moving
/// readings in a row that agree settle the unit for the rest of the session; until then
/// each moving reading is judged alone, and readings taken standing are left as sent.
/// Strides settled, five moving readings in a row that no runner's strides reach
/// (`implausibleStrides`) settle steps instead: a step-counting sensor's average ramping up
/// from a standing start (70, 90, 105, 112, 118 with the running bit set) or a brisk walk
/// settled strides and doubled the whole run (332 spm, 0 % in zone).
public struct CadenceNormaliser: Sendable {
    public static let movingSpeedMps = 1.8
    public static let strideThreshold: UInt8 = 120
    public static let readingsToSettle = 5
    /// Strides per minute no runner reaches: 280 steps/min doubled, above the 260 a plan's
    /// zone may ask for.
    public static let implausibleStrides: UInt8 = 140

    public let configured: CadenceUnit
    public private(set) var settled: CadenceUnit?
    private var streakUnit: CadenceUnit?
    private var streak = 0

    public init(unit: CadenceUnit) {
        configured = unit
        settled = unit == .auto ? nil : unit
    }

    /// Steps per minute for one RSC reading.
    public mutating func stepsPerMinute(_ reading: RSCMeasurement) -> Int {
        unit(for: reading) == .strides ? Int(reading.cadence) * 2 : Int(reading.cadence)
    }

    private mutating func unit(for reading: RSCMeasurement) -> CadenceUnit {
        let moving = reading.speedMps >= Self.movingSpeedMps || reading.running
        if let settled {
            // Only a unit `auto` settled is settled again; one the user or a header set is kept.
            guard configured == .auto, settled == .strides else { return settled }
            streak = moving && reading.cadence >= Self.implausibleStrides ? streak + 1 : 0
            if streak >= Self.readingsToSettle {
                self.settled = .steps
                return .steps
            }
            return settled
        }
        guard moving, reading.cadence > 0 else { return .steps }
        let guess: CadenceUnit = reading.cadence < Self.strideThreshold ? .strides : .steps
        streak = guess == streakUnit ? streak + 1 : 1
        streakUnit = guess
        if streak >= Self.readingsToSettle {
            settled = guess
            streak = 0
        }
        return guess
    }
}

/// Merges RSC and heart-rate readings into the values the session runs on: the latest
/// normalised cadence, heart rate, speed, a smoothed cadence and the distance covered.
///
/// Cadence and speed come from one device at a time: the first that sends RSC, replaced
/// only when its readings go stale and another device's arrive (so a watch and a footpod
/// both sending RSC are not counted twice). Heart rate likewise.
public struct CadenceStream: Sendable {
    /// A reading stops being current this long after it arrived.
    public static let staleAfter = SessionTime.seconds(3)
    /// Time constant of the smoothing filter, in seconds.
    public static let smoothingSeconds = 3.0

    private var units: [String: CadenceUnit]
    /// The devices whose cadence is none (`CadenceUnit.none`), apart: a reading asks only when
    /// there are any, not the units by its address at every notification.
    private let distanceOnlyDevices: Set<String>
    /// What each RSC device's next reading is read against, in one place: a reading looks its
    /// device up once (by its address, a string to hash), not once per figure.
    private var devices: [String: DeviceState] = [:]

    private struct DeviceState {
        var normaliser: CadenceNormaliser
        /// Its last total distance (1/10 m), when it reports one: the highest, where it steps
        /// back a little (`countingTotal`).
        var lastTotalDistance: UInt32?
        /// Metres its speed counted since its last total, in readings without one: the next
        /// total's step holds them (counted twice, a watch's seconds left out as damage added
        /// their speed and then the whole step of the total over them).
        var countedSinceTotal = 0.0
        /// A distance-only device's last total read while another device's cadence counted,
        /// and when: the mark its own count starts from once that device was heard after it.
        var heldTotal: (total: UInt32, time: SessionTime)?

        /// A distance-only device's reading while another device's cadence is current: not
        /// counted, and its total the mark to count from only once the cadence device was
        /// heard at or after it. Taken at once, the totals of the seconds between a footpod's
        /// last reading and its cadence going stale moved the mark past metres no one counted:
        /// 6 m a dropout, 3.3 % of a run whose pod dropped out 10 s a minute.
        mutating func hold(_ rsc: RSCMeasurement, at now: SessionTime, cadenceHeardAt: SessionTime?) {
            guard let total = rsc.totalDistanceRaw else { return }
            settleHeldTotal(cadenceHeardAt: cadenceHeardAt)
            if lastTotalDistance == nil {
                take(total: total)
            } else {
                heldTotal = (total, now)
            }
        }

        /// The held total becomes the mark if the cadence device was heard at or after it;
        /// else the mark stays where that device was last heard.
        mutating func settleHeldTotal(cadenceHeardAt: SessionTime?) {
            defer { heldTotal = nil }
            guard let held = heldTotal, let heard = cadenceHeardAt, held.time <= heard else { return }
            take(total: held.total)
        }

        /// Takes a reading's total: one a little below the last (a watch correcting its
        /// distance back a few metres, 358 times in a Suunto's run) keeps the last, and the
        /// distance counts again past it: each step back was run again, 1.1 km of a 15.2 km
        /// run. One far below is a sensor started again, counted from.
        mutating func take(total: UInt32) {
            if let last = lastTotalDistance, total < last, last - total <= CadenceStream.largestCorrection, total > last / 2 {
                return
            }
            lastTotalDistance = total
        }

        /// Takes a reading and returns the metres it adds: the sensor's own total
        /// preferred, its step past the last less what speed counted since; without a total,
        /// `speed` (nil when stale) held until this reading. What arrived while the sensors were
        /// connecting comes at time zero: the distance between those readings was run before
        /// the session began (a foot pod heard while a strap was looked for gave 20 s of it:
        /// 114 m for a run of 60), and the last of them is the baseline.
        mutating func metres(_ rsc: RSCMeasurement, speed: TimedValue<Double>?, at now: SessionTime) -> Double {
            guard let total = rsc.totalDistanceRaw else {
                guard let speed else { return 0 }
                let step = speed.value * (now - speed.time).seconds
                countedSinceTotal += step
                return step
            }
            let previous = lastTotalDistance
            take(total: total)
            // A total held below its mark leaves what speed counted to the total that passes it.
            if let previous, total < previous, lastTotalDistance == previous { return 0 }
            defer { countedSinceTotal = 0 }
            guard let previous, total >= previous, now > .zero else { return 0 }
            return max(0, Double(total - previous) / 10 - countedSinceTotal)
        }
    }

    /// 50 m (in 1/10 m): a total further below the last is no correction of it.
    static let largestCorrection: UInt32 = 500

    public private(set) var cadenceDevice: String?
    public private(set) var heartRateDevice: String?
    /// The device the session takes heartbeats (RR intervals) from, and when it last sent
    /// some: the first to send them, replaced only when its beats go stale, as heart rate is,
    /// but on its own. A watch broadcasting heart rate without RR intervals beside the strap
    /// that sends them, or the watch taking over heart rate while the strap was away: the
    /// strap's beats were dropped with the watch's heart rate, and the session had none.
    public private(set) var beatDevice: String?
    public private(set) var beatsTime: SessionTime?
    /// Latest normalised cadence (steps/min).
    public private(set) var cadence: TimedValue<Int>?
    /// The same reading's cadence as the sensor sent it (strides/min from a per-foot sensor).
    public private(set) var rawCadence: Int?
    public private(set) var heartRate: TimedValue<Int>?
    public private(set) var speed: TimedValue<Double>?
    /// Exponentially smoothed cadence, updated at each cadence reading:
    /// s += (c - s) × dt / (τ + dt), restarting from the reading after a gap.
    public private(set) var smoothedCadence: Double?
    /// Metres covered since the session began; nil until a device reports speed.
    public private(set) var distance: Double?
    public private(set) var batteryLevels: [String: UInt8] = [:]
    /// A device of no cadence counted metres while no cadence was current: the cadence
    /// device's total, when it comes back, holds those same metres.
    private var distanceCoveredByOther = false

    public init(units: [String: CadenceUnit] = [:]) {
        self.units = units
        distanceOnlyDevices = Set(units.filter { $0.value == CadenceUnit.none }.keys)
    }

    public func isCurrent<V>(_ value: TimedValue<V>?, at now: SessionTime) -> Bool {
        guard let value else { return false }
        return now < value.time + Self.staleAfter
    }

    public func currentCadence(at now: SessionTime) -> Int? {
        isCurrent(cadence, at: now) ? cadence?.value : nil
    }

    public func currentHeartRate(at now: SessionTime) -> Int? {
        isCurrent(heartRate, at: now) ? heartRate?.value : nil
    }

    public func currentSmoothedCadence(at now: SessionTime) -> Double? {
        isCurrent(cadence, at: now) ? smoothedCadence : nil
    }

    public func cadenceUnit(of device: String) -> CadenceUnit? {
        devices[device].map { $0.normaliser.settled ?? .auto }
    }

    /// Takes in one decoded reading from `device` at `now`.
    public mutating func ingest(_ reading: SensorReading, from device: String, at now: SessionTime) {
        switch reading {
        case .rsc(let rsc):
            ingestRSC(rsc, from: device, at: now)
        case .heartRate(let hr):
            // Without skin contact, or at 0, straps send placeholders, not heart rate.
            guard hr.sensorContact != .notDetected, hr.heartRate > 0 else { return }
            if !hr.rrIntervals.isEmpty, beatDevice == device || beatsTime.map({ now >= $0 + Self.staleAfter }) ?? true {
                beatDevice = device
                beatsTime = now
            }
            if heartRateDevice != device {
                guard heartRateDevice == nil || !isCurrent(heartRate, at: now) else { return }
                heartRateDevice = device
            }
            heartRate = TimedValue(value: Int(hr.heartRate), time: now)
        case .batteryLevel(let level):
            batteryLevels[device] = level.percent
        case .rscFeature, .bodySensorLocation:
            break
        }
    }

    private mutating func ingestRSC(_ rsc: RSCMeasurement, from device: String, at now: SessionTime) {
        if !distanceOnlyDevices.isEmpty, distanceOnlyDevices.contains(device) {
            ingestDistance(rsc, from: device, at: now)
            return
        }
        if cadenceDevice != device {
            guard cadenceDevice == nil || !isCurrent(cadence, at: now) else { return }
            cadenceDevice = device
            // Its total may be old: the device that covered the meantime counted that distance.
            devices[device]?.lastTotalDistance = nil
        } else if distanceCoveredByOther {
            // Back after a dropout a phone's GPS covered: the footpod's total ran on meanwhile,
            // and its jump counted the gap a second time (249 m for a run of 236).
            devices[device]?.lastTotalDistance = nil
        }
        distanceCoveredByOther = false
        let (steps, metres) = Self.take(
            rsc, speed: isCurrent(speed, at: now) ? speed : nil, at: now,
            into: &devices[device, default: DeviceState(normaliser: CadenceNormaliser(unit: units[device] ?? .auto))])
        distance = (distance ?? 0) + metres
        if let smoothed = smoothedCadence, let previous = cadence, isCurrent(previous, at: now) {
            let dt = (now - previous.time).seconds
            smoothedCadence = smoothed + (Double(steps) - smoothed) * dt / (Self.smoothingSeconds + dt)
        } else {
            smoothedCadence = Double(steps)
        }
        cadence = TimedValue(value: steps, time: now)
        rawCadence = Int(rsc.cadence)
        speed = TimedValue(value: rsc.speedMps, time: now)
    }

    /// A device that measures distance and no steps (`CadenceUnit.none`): its speed and
    /// distance count while no device's cadence is current (a footpod's own come first), its
    /// cadence field never.
    private mutating func ingestDistance(_ rsc: RSCMeasurement, from device: String, at now: SessionTime) {
        var state = devices[device, default: DeviceState(normaliser: CadenceNormaliser(unit: .none))]
        defer { devices[device] = state }
        guard !isCurrent(cadence, at: now) else {
            state.hold(rsc, at: now, cadenceHeardAt: cadence?.time)
            return
        }
        state.settleHeldTotal(cadenceHeardAt: cadence?.time)
        let metres = state.metres(rsc, speed: isCurrent(speed, at: now) ? speed : nil, at: now)
        distance = (distance ?? 0) + metres
        if cadenceDevice != nil { distanceCoveredByOther = true }
        speed = TimedValue(value: rsc.speedMps, time: now)
    }

    /// The reading's cadence in steps per minute, and the metres it adds.
    private static func take(
        _ rsc: RSCMeasurement, speed: TimedValue<Double>?, at now: SessionTime, into state: inout DeviceState
    ) -> (steps: Int, metres: Double) {
        (state.normaliser.stepsPerMinute(rsc), state.metres(rsc, speed: speed, at: now))
    }
}
