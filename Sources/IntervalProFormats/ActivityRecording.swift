public import IntervalProCore

/// An activity as a recording: what the watch wrote, as the notifications a sensor would have
/// sent, so that it replays, scores and is stored like any session.
extension ActivityImport {
    static func activity(
        _ points: [ActivityPoint], format: ActivityFormat, file: String, choice: ActivityChoice, warnings: [ImportError]
    ) throws(ImportError) -> ImportedActivity {
        guard let start = points.map(\.time).min() else {
            let samples = switch format {
                case .fit: "record messages"
                case .gpx: "track points (<trkpt>)"
                case .tcx, .recording: "Trackpoints"
                case .rrIntervals: "RR intervals"
            }
            throw ImportError(file: file, message: "no \(samples): the activity holds no samples")
        }
        var warnings = warnings
        var points = points
        // An app without a footpod writes cadence 0 throughout: as no cadence, not a run at 0
        // (it put weeks at 136 spm in trends).
        if points.contains(where: { $0.cadence != nil }), !points.contains(where: { ($0.cadence ?? 0) > 0 }) {
            for index in points.indices { points[index].cadence = nil }
            warnings.append(ImportError(file: file, message: "cadence 0 in every sample (an app without a footpod writes it): taken as no cadence"))
        }
        // A FIT file's distance is the watch's own count; read past damage, a record's bytes
        // are anything (a GPX or TCX file salvaged keeps whole elements).
        let fastest = choice.anySport ? Self.fastestMetresPerSecond : Self.fastestRunnerMetresPerSecond
        let leftOut = format == .fit ? leavingOutImpossibleDistances(&points, fastest: fastest) : 0
        if leftOut > 0 {
            warnings.append(ImportError(
                file: file,
                message: "\(leftOut) distance\(leftOut == 1 ? "" : "s") further from the one before than \(Int(fastest)) m/s "
                    + "could go left out, as damage"))
        }
        // Without cadence the samples' speed and distance still count: the device measures
        // distance and no steps (a run without a footpod lost its distance).
        let hasCadence = points.contains { $0.cadence != nil }
        // A morning's heart rate has no steps to score: nothing to say of them.
        if !hasCadence, !choice.heartRateOnly {
            warnings.append(ImportError(file: file, message: "no cadence in any sample: nothing to score"))
        }
        // A measurement carries 255 steps a minute at most: a sprint over it is sent in strides.
        let overSteps = points.contains { ($0.cadence ?? 0).rounded() > Double(UInt8.max) }
        let device = RecordedDevice(
            id: deviceID, name: format.rawValue, cadenceUnit: hasCadence ? (overSteps ? .strides : .steps) : CadenceUnit.none)
        // Where some samples have cadence and others only speed or distance (a footpod paired
        // late or gone flat while the watch went on measuring), the watch's distance is a
        // device of its own, counted while no cadence is: a run of 10.8 km whose footpod died
        // at 20:00 kept 3.6 km.
        let measuresWithoutCadence = hasCadence && points.contains { $0.cadence == nil && ($0.speed != nil || $0.distance != nil) }
        let distanceDevice = measuresWithoutCadence
            ? RecordedDevice(id: distanceDeviceID, name: "\(format.rawValue) distance", cadenceUnit: CadenceUnit.none) : nil
        let recording = recording(points, start: start, device: device, distanceDevice: distanceDevice)
        return ImportedActivity(
            recording: recording, format: format, points: points.count, warnings: warnings,
            pauses: pauses(points, start: start))
    }

    /// Faster than anything a body moves itself (a cyclist's descent, read with `--sport any`,
    /// is a third of it): a distance that far on from the one before is the file's damage.
    static let fastestMetresPerSecond = 100.0
    /// Faster than any runner: Bolt's fastest 10 m of his 9.58 s 100 m took 0.81 s, 12.3 m/s.
    static let fastestRunnerMetresPerSecond = 15.0

    /// Leaves out (as no distance) each point's distance further on from the last one kept than
    /// `fastest` m/s goes (over a second at least) since that distance was first written: a FIT
    /// record read from a damaged file's bytes said 389,852 km nine minutes into a run. A
    /// distance written again each second (a smart-recording watch's record repeated, as the
    /// FIT export writes it) is held from its first: 22 m after five seconds of one distance
    /// was taken for 22 m in one, 139 times in a run exported here. Returns how many.
    static func leavingOutImpossibleDistances(_ points: inout [ActivityPoint], fastest: Double) -> Int {
        var last: (time: Int64, distance: Double)?
        var leftOut = 0
        for index in points.indices.sorted(by: { points[$0].time < points[$1].time }) {
            guard let distance = points[index].distance else { continue }
            if let last {
                let seconds = max(1, Double(points[index].time - last.time) / 1_000_000)
                if distance - last.distance > fastest * seconds {
                    points[index].distance = nil
                    leftOut += 1
                    continue
                }
                if distance == last.distance { continue }
            }
            last = (points[index].time, distance)
        }
        return leftOut
    }

    /// The stretches between a point after which the recording stopped and the next point in
    /// time (`ActivityPoint.pausedAfter`), relative to `start`: from the timer's stop where the
    /// file gives it (a watch's timer counts the second of the point before its stop: a pause
    /// taken from the point lost that second at every stop, and another at every export and
    /// import again), else from the point.
    static func pauses(_ points: [ActivityPoint], start: Int64) -> [Range<SessionTime>] {
        let inTime = points.indices.sorted { (points[$0].time, $0) < (points[$1].time, $1) }
        return zip(inTime, inTime.dropFirst()).compactMap { earlier, later in
            let to = points[later].time
            let from = min(max(points[earlier].stoppedAt ?? points[earlier].time, points[earlier].time), to)
            guard points[earlier].pausedAfter, from < to else { return nil }
            return SessionTime(microseconds: from - start)..<SessionTime(microseconds: to - start)
        }
    }

    /// The longest gap between two points over which the first is held (seconds).
    ///
    /// A watch on smart recording, Garmin's default on many models, writes a record only "at
    /// key points where you change direction, speed, or heart rate" (Garmin's Edge 820
    /// manual): seconds apart, where a sensor sends every second. Held until the next record
    /// when that comes within 25 s, GoldenCheetah's default "Smart Recording Threshold"
    /// (`GarminHWM` in its TCX, GPX and FIT readers); a longer gap, a pause or a lost signal,
    /// stays a gap.
    public static let smartRecordingHold: Int64 = 25

    /// RR intervals a heart beats at: only these give a point without a heart rate its own.
    static let heartbeat = RRIntervals.heartbeat

    /// The points as the notifications a sensor would have sent: an RSC Measurement per
    /// point with cadence (speed and distance with it), a Heart Rate Measurement per point
    /// with heart rate, carrying the point's beats (more than nine take more measurements).
    /// RSC carries whole steps/min, so cadence is rounded to the nearest (whole strides for a
    /// device whose unit is strides: a sprint over the 255 a measurement carries). A point
    /// followed by a gap longer than a reading stays current (`CadenceStream.staleAfter`) and
    /// no longer than `smartRecordingHold` is repeated each second until the next, without
    /// its beats, as a sensor would have sent it; unless the runner paused after it.
    /// `distanceDevice` (a device of no cadence) sends every point's speed and distance too,
    /// just before the point's cadence: it counts where no cadence is current.
    public static func recording(
        _ points: [ActivityPoint], start: Int64, device: RecordedDevice, distanceDevice: RecordedDevice? = nil
    ) -> ParsedRecording {
        var entries: [RecordingEntry] = []
        var outOfOrder = 0
        var last = Int64.min
        let second: Int64 = 1_000_000
        let heldFrom = CadenceStream.staleAfter.microseconds, heldUpTo = smartRecordingHold * second
        let inTime = points.indices.sorted { (points[$0].time, $0) < (points[$1].time, $1) }
        var nextTime = [Int64?](repeating: nil, count: points.count)
        for (earlier, later) in zip(inTime, inTime.dropFirst()) { nextTime[earlier] = points[later].time }
        for (index, point) in points.enumerated() {
            if point.time < last { outOfOrder += 1 }
            last = point.time
            // Beats without a heart rate beside them give theirs, from those a heart beats at (a
            // watch writes an interval of seconds where it lost the strap, which read as 12 bpm).
            let heartbeats = point.rrIntervals.filter { heartbeat.contains($0) }
            let beatsTotal = heartbeats.reduce(0) { $0 + Int($1) }
            let beatsRate: Int? = beatsTotal == 0 ? nil : rounded(61_440 * Double(heartbeats.count) / Double(beatsTotal))
            let heartRate = point.heartRate.flatMap({ $0 > 0 ? $0 : nil }) ?? beatsRate
            var moments = [point.time]
            if !point.pausedAfter, let next = nextTime[index], next - point.time > heldFrom, next - point.time <= heldUpTo {
                moments += stride(from: point.time + second, to: next, by: Int(second))
            }
            // A device of no cadence (`CadenceUnit.none`) sends its speed and distance with 0
            // in the field the specification makes mandatory.
            let measures = point.speed != nil || point.distance != nil
            func measurement(cadence: Double) -> [UInt8] {
                RSCMeasurement(
                    speedRaw: rounded((point.speed ?? 0) * 256),
                    // A half rounded to the even neighbour: a FIT's quarter strides (171.5 steps)
                    // all rounded up read 0.25 spm high on average, run after run.
                    cadence: rounded(device.cadenceUnit == .strides ? cadence / 2 : cadence, .toNearestOrEven),
                    totalDistanceRaw: point.distance.map { rounded($0 * 10) },
                    running: cadence > 0
                ).encoded()
            }
            let rsc = (point.cadence ?? (device.cadenceUnit == CadenceUnit.none && measures ? 0 : nil)).map(measurement)
            let distanceOnly = distanceDevice != nil && measures ? measurement(cadence: 0) : nil
            // As a strap sends them: nine RR intervals at most to a notification; the point's
            // beats go with it, not with its repeats.
            let beats = stride(from: 0, to: point.rrIntervals.count, by: 9).map {
                Array(point.rrIntervals[$0..<min(point.rrIntervals.count, $0 + 9)])
            }
            func heartRateMeasurements(beats: [[UInt16]]) -> [[UInt8]] {
                guard let heartRate else { return [] }
                return (beats.isEmpty ? [[]] : beats).map {
                    HeartRateMeasurement(heartRate: UInt16(clamping: heartRate), sensorContact: .unsupported, rrIntervals: RRIntervals($0)).encoded()
                }
            }
            let withBeats = heartRateMeasurements(beats: beats), repeated = heartRateMeasurements(beats: [])
            for (copy, moment) in moments.enumerated() {
                let time = SessionTime(microseconds: moment - start)
                if let distanceOnly, let distanceDevice {
                    entries.append(.notification(RawNotification(time: time, device: distanceDevice.id, characteristic: .rscMeasurement, bytes: distanceOnly)))
                }
                if let rsc {
                    entries.append(.notification(RawNotification(time: time, device: device.id, characteristic: .rscMeasurement, bytes: rsc)))
                }
                for bytes in copy == 0 ? withBeats : repeated {
                    entries.append(.notification(RawNotification(time: time, device: device.id, characteristic: .heartRateMeasurement, bytes: bytes)))
                }
            }
        }
        // Stable: equal times keep their order (a point's RSC before its heart rate).
        let ordered = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        return ParsedRecording(
            header: RecordingHeader(
                startedAt: UTCTimestamp.text(unixSeconds: floorDivide(start, 1_000_000)), devices: [device] + (distanceDevice.map { [$0] } ?? [])),
            entries: ordered, outOfOrderLines: outOfOrder)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }

    /// `value` rounded to the nearest `T`, held to `T`'s range (NaN as 0): a file's numbers,
    /// however large, never trap the conversion.
    static func rounded<T: FixedWidthInteger>(_ value: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> T {
        guard !value.isNaN else { return 0 }
        let nearest = value.rounded(rule)
        if nearest <= Double(T.min) { return .min }
        if nearest >= Double(T.max) { return .max }
        return T(nearest)
    }
}
