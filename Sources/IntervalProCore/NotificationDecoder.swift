/// The ANT+ profiles whose data pages a recording holds, by the name its `char` gives them
/// (the same names `intervalpro decode` takes). Readers of version 1 recordings that do not
/// know them skip their lines, as they skip any characteristic they do not know.
public enum ANTPlusProfile: String, Sendable, CaseIterable {
    /// ANT+ Heart Rate (device type 120).
    case heartRate = "ant-hr"
    /// ANT+ Stride Based Speed and Distance (device type 124).
    case strideSpeed = "ant-sdm"

    public init?(identifier: String) {
        self.init(rawValue: identifier.lowercased())
    }

    public init?(deviceType: UInt8) {
        switch deviceType {
        case ANTPlusHeartRatePage.deviceType: self = .heartRate
        case ANTPlusStrideSpeedPage.deviceType: self = .strideSpeed
        default: return nil
        }
    }
}

/// A notification whose value could not be read: said once, and skipped.
public enum NotificationParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case gatt(GATTParseError)
    /// An ANT+ data page that is not eight bytes.
    case antPage(ANTPlusProfile, length: Int)

    /// The characteristic as a recording names it ("2a53", "ant-sdm").
    public var characteristicID: String {
        switch self {
        case .gatt(let error): error.characteristic.shortID
        case .antPage(let profile, _): profile.rawValue
        }
    }

    public var description: String {
        switch self {
        case .gatt(let error): error.description
        case .antPage(let profile, let length): "\(profile.rawValue): an ANT+ data page is 8 bytes, not \(length)"
        }
    }
}

/// What each notification of a session means, as a `SensorReading`: a GATT value by its
/// parser, an ANT+ data page through the state its device's earlier pages left (a heart-rate
/// monitor's last beat, a foot pod's distance so far). The engine and the stream statistics
/// each read a session's notifications through one, in order, so a replay gives the same
/// readings as the live session did.
///
/// ANT+ pages become the GATT readings they carry: a heart-rate page the Heart Rate
/// Measurement with the RR interval its beat completes; a foot pod's page 2 an RSC
/// Measurement in steps per minute (its cadence is in strides per minute, one stride two
/// footfalls: doubled here, so the device is read in steps), with its speed and the distance
/// its page 1s added up. A pod that sends no page 2 or 3 (the profile asks only for page 1) has
/// its cadence counted from page 1's strides instead (`PodStrides`). Pages that carry no
/// reading of their own (common pages) give none.
public struct NotificationDecoder: Sendable {
    private var beats: [String: ANTPlusBeatTracker] = [:]
    private var distances: [String: PodDistance] = [:]
    private var strides: [String: PodStrides] = [:]
    /// The pods that have sent page 2 or 3: their cadence is theirs, not counted from strides.
    private var podsWithCadencePages: Set<String> = []

    public init() {}

    /// The reading `notification` carries; nil for a characteristic or page that carries none.
    public mutating func decode(_ notification: RawNotification) throws(NotificationParseError) -> SensorReading? {
        if let characteristic = notification.characteristic {
            do {
                return try SensorReading.decode(characteristic, notification.bytes)
            } catch {
                throw .gatt(error)
            }
        }
        guard let profile = ANTPlusProfile(identifier: notification.characteristicID) else { return nil }
        let device = notification.device
        do {
            switch profile {
            case .heartRate:
                let page = try ANTPlusHeartRatePage.parse(notification.bytes)
                var tracker = beats[device, default: ANTPlusBeatTracker()]
                let intervals = tracker.add(page)
                beats[device] = tracker
                var measurement = HeartRateMeasurement(
                    heartRate: UInt16(page.heartRate), sensorContact: .unsupported, rrIntervals: RRIntervals(intervals))
                measurement.beatsLostBefore = !intervals.isEmpty && tracker.beatsLostBefore
                return .heartRate(measurement)
            case .strideSpeed:
                let page = try ANTPlusStrideSpeedPage.parse(notification.bytes)
                switch page {
                case .distance(let podTime, let metres, let speed, let count):
                    distances[device, default: PodDistance()].add(metres, speed: speed, at: notification.time)
                    guard !podsWithCadencePages.contains(device) else { return nil }
                    var counter = strides[device, default: PodStrides()]
                    let perMinute = counter.add(count, podTime: podTime, at: notification.time)
                    strides[device] = counter
                    guard let perMinute else { return nil }
                    let steps = speed > 0 ? (perMinute * 2).rounded() : 0
                    return .rsc(
                        RSCMeasurement(
                            speedRaw: UInt16(clamping: Int((speed * 256).rounded())), cadence: UInt8(clamping: Int(steps)),
                            totalDistanceRaw: distances[device]?.decimetres, running: steps > 0))
                case .cadence(let strides, let speed, let status, _):
                    podsWithCadencePages.insert(device)
                    let steps = (strides * 2).rounded()
                    return .rsc(
                        RSCMeasurement(
                            speedRaw: UInt16(clamping: Int((speed * 256).rounded())), cadence: UInt8(clamping: Int(steps)),
                            totalDistanceRaw: distances[device]?.decimetres, running: !status.inactive && steps > 0))
                case .common, .other:
                    return nil
                }
            }
        } catch {
            throw .antPage(profile, length: notification.bytes.count)
        }
    }

    /// A foot pod's distance: page 1 counts metres (1/16) rolling over at 256; the sum of the
    /// steps between pages, from the first page on. Across a gap in which 256 m or more may
    /// have been run (the pod out of range, the stick pulled out: 85 s at 3 m/s), the whole
    /// rollovers are those the speeds on either side of it give; each was lost (600 m read as
    /// 332).
    struct PodDistance: Sendable {
        private var last: (metres: Double, speed: Double, time: SessionTime)?
        private var total = 0.0

        mutating func add(_ metres: Double, speed: Double, at time: SessionTime) {
            if let last {
                let step = (metres - last.metres + 256).truncatingRemainder(dividingBy: 256)
                let expected = (time - last.time).seconds * (last.speed + speed) / 2
                let rollovers = expected > 256 ? ((expected - step) / 256).rounded() : 0
                total += step + 256 * max(0, rollovers)
            }
            last = (metres, speed, time)
        }

        /// In RSC's unit, 1/10 m.
        var decimetres: UInt32 { UInt32(clamping: Int((total * 10).rounded())) }
    }

    /// A foot pod's cadence from page 1 alone: the strides it counted (rolling over at 256)
    /// over the time on its own clock between its counts (1/200 s, rolling over at 256 s),
    /// across the last `span` of that clock. Nil until the pages cover `least` of it: a pod
    /// that sends page 2 does so within a second (every fourth page or so), before this counts.
    /// A gap of more than 3 s on the receiver's clock (the pod out of range) starts again.
    struct PodStrides: Sendable {
        /// The pod's clock counts 1/200 s and rolls over at 256 s.
        static let ticksPerSecond = 200
        static let span = 5 * ticksPerSecond
        static let least = 2 * ticksPerSecond
        /// Each count's time (ticks) and strides, both added up past their rollovers, oldest first.
        private var counts: [(ticks: Int, strides: Int)] = []
        private var last: (ticks: Int, strides: UInt8, received: SessionTime)?
        private var perMinute: Double?

        mutating func add(_ count: UInt8, podTime: Double, at received: SessionTime) -> Double? {
            let ticks = Int((podTime * Double(Self.ticksPerSecond)).rounded())
            defer { last = (ticks, count, received) }
            guard let last, (received - last.received).seconds <= 3 else {
                counts = [(0, 0)]
                perMinute = nil
                return nil
            }
            // The same count again: the pod has nothing new (between strides, or standing).
            guard ticks != last.ticks || count != last.strides else { return perMinute }
            let rollover = 256 * Self.ticksPerSecond
            let newest = counts[counts.count - 1]
            counts.append(
                (newest.ticks + (ticks - last.ticks + rollover) % rollover,
                 newest.strides + (Int(count) - Int(last.strides) + 256) % 256))
            // (At most 64 counts, whatever a pod's clock says: 5 s are a dozen strides.)
            while counts.count > 2, counts[counts.count - 1].ticks - counts[1].ticks >= Self.span || counts.count > 64 {
                counts.removeFirst()
            }
            let covered = counts[counts.count - 1].ticks - counts[0].ticks
            guard covered >= Self.least else { return perMinute }
            perMinute = Double(counts[counts.count - 1].strides - counts[0].strides) / Double(covered)
                * Double(Self.ticksPerSecond) * 60
            return perMinute
        }
    }
}
