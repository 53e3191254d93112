/// What a recording holds, for `intervalpro replay FILE` without a plan: per-device
/// counts, cadence and heart rate ranges and time-weighted averages (readings current for
/// 3 s, as in scoring), the gaps where cadence had no signal, and the distance.
public struct StreamStatistics: Sendable {
    public struct DeviceCounts: Sendable {
        public var device: RecordedDevice
        public var notifications: [String: Int] = [:]
        public var rejected = 0
        public var events: [String: Int] = [:]
        public var cadenceUnit: CadenceUnit?
    }

    public var duration = SessionTime.zero
    public var devices: [DeviceCounts] = []
    public var cadenceRange: ClosedRange<Int>?
    public var heartRateRange: ClosedRange<Int>?
    public var averageCadence: Double?
    public var averageHeartRate: Double?
    /// Spans with no current cadence reading once cadence had started.
    public var gaps: [(start: SessionTime, length: SessionTime)] = []
    public var distance: Double?

    /// Lines of the file that were earlier than the line before (put in order on reading).
    public var outOfOrderLines = 0

    public init(header: RecordingHeader, entries: [RecordingEntry], units: [String: CadenceUnit], outOfOrderLines: Int = 0) {
        self.outOfOrderLines = outOfOrderLines
        var stream = CadenceStream(units: units)
        var decoder = NotificationDecoder()
        var index: [String: Int] = [:]
        func slot(_ id: String) -> Int {
            if let i = index[id] { return i }
            index[id] = devices.count
            devices.append(DeviceCounts(device: header.devices.first { $0.id == id } ?? RecordedDevice(id: id)))
            return devices.count - 1
        }
        for device in header.devices { _ = slot(device.id) }

        var cadenceAverage = TimeWeightedAverage()
        var heartRateAverage = TimeWeightedAverage()

        for entry in entries {
            let i = slot(entry.device)
            duration = max(duration, entry.time)
            switch entry {
            case .event(_, _, let name):
                devices[i].events[name, default: 0] += 1
            case .notification(let n):
                // By the characteristic, however the line spells it ("2A53", a full UUID): one
                // characteristic was two keys ({"2A53": 1, "2a53": 1}) where scoring took one.
                devices[i].notifications[n.characteristic?.shortID ?? n.characteristicID.lowercased(), default: 0] += 1
                let reading: SensorReading
                do {
                    guard let decoded = try decoder.decode(n) else { continue }
                    reading = decoded
                } catch {
                    devices[i].rejected += 1
                    continue
                }
                let previousCadence = stream.cadence
                let previousHR = stream.heartRate
                stream.ingest(reading, from: n.device, at: n.time)
                if let c = stream.cadence, c != previousCadence {
                    if let p = previousCadence {
                        // Close the previous reading's span; a gap is time it did not cover.
                        let covered = p.time + CadenceStream.staleAfter
                        if covered < c.time { gaps.append((covered, c.time - covered)) }
                        cadenceAverage.add(p, until: c.time)
                    }
                    cadenceRange = cadenceRange.map { min($0.lowerBound, c.value)...max($0.upperBound, c.value) } ?? c.value...c.value
                }
                if let h = stream.heartRate, h != previousHR {
                    if let p = previousHR { heartRateAverage.add(p, until: h.time) }
                    heartRateRange = heartRateRange.map { min($0.lowerBound, h.value)...max($0.upperBound, h.value) } ?? h.value...h.value
                }
            }
        }
        if let last = stream.cadence { cadenceAverage.add(last, until: duration) }
        if let last = stream.heartRate { heartRateAverage.add(last, until: duration) }
        if let last = stream.cadence, last.time + CadenceStream.staleAfter < duration {
            gaps.append((last.time + CadenceStream.staleAfter, duration - last.time - CadenceStream.staleAfter))
        }
        averageCadence = cadenceAverage.value
        averageHeartRate = heartRateAverage.value
        distance = stream.distance
        for i in devices.indices { devices[i].cadenceUnit = stream.cadenceUnit(of: devices[i].device.id) }
    }

    public var json: JSONValue {
        func range(_ r: ClosedRange<Int>?) -> JSONValue {
            r.map { .object([("min", .int($0.lowerBound)), ("max", .int($0.upperBound))]) } ?? .null
        }
        return .object([
            ("duration_s", .number(duration.seconds.rounded(toPlaces: 3))),
            (
                "devices",
                .array(
                    devices.map { d in
                        .object([
                            ("id", .string(d.device.id)),
                            ("name", d.device.name.map { .string($0) } ?? .null),
                            ("cadence_unit", d.cadenceUnit.map { .string($0.rawValue) } ?? .null),
                            ("notifications", .object(d.notifications.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                            ("rejected", .int(d.rejected)),
                            ("events", .object(d.events.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                        ])
                    })
            ),
            ("cadence_spm", range(cadenceRange)),
            ("avg_cadence_spm", .nullable(averageCadence?.rounded(toPlaces: 1))),
            ("heart_rate_bpm", range(heartRateRange)),
            ("avg_hr_bpm", .nullable(averageHeartRate?.rounded(toPlaces: 1))),
            ("cadence_gaps", .int(gaps.count)),
            ("cadence_gap_s", .number(gaps.reduce(SessionTime.zero) { $0 + $1.length }.seconds.rounded(toPlaces: 3))),
            ("distance_m", .nullable(distance?.rounded(toPlaces: 1))),
            ("lines_out_of_order", .int(outOfOrderLines)),
        ])
    }

    public var text: String {
        var lines = ["duration \(formatClock(duration.seconds))"]
        for d in devices {
            // The runner's own commands are no device's: "device intervalpro: no notifications".
            if d.device.id == RecordingFormat.runnerDevice, d.notifications.isEmpty {
                lines.append("the runner's commands: " + d.events.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", "))
                continue
            }
            let name = d.device.name.map { " (\($0))" } ?? ""
            let counts = d.notifications.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
            var line = "device \(d.device.id)\(name): \(counts.isEmpty ? "no notifications" : counts)"
            if let unit = d.cadenceUnit { line += ", cadence in \(unit.rawValue)" }
            if d.rejected > 0 { line += ", \(d.rejected) rejected" }
            if !d.events.isEmpty {
                line += ", events: " + d.events.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
            }
            lines.append(line)
        }
        if let r = cadenceRange, let avg = averageCadence {
            lines.append("cadence \(r.lowerBound)-\(r.upperBound) spm, average \(JSONValue.format(avg.rounded(toPlaces: 1)))")
        }
        if let r = heartRateRange, let avg = averageHeartRate {
            lines.append("heart rate \(r.lowerBound)-\(r.upperBound) bpm, average \(JSONValue.format(avg.rounded(toPlaces: 1)))")
        }
        let gapTime = gaps.reduce(SessionTime.zero) { $0 + $1.length }
        lines.append("cadence gaps (no signal): \(gaps.count), \(formatClock(gapTime.seconds)) in all")
        if let distance { lines.append("distance \(JSONValue.format((distance / 1000).rounded(toPlaces: 2))) km") }
        if outOfOrderLines > 0 { lines.append("lines out of time order: \(outOfOrderLines) (read in time order)") }
        // Device ids and names and event names are the recording's writer's: shown, never obeyed.
        return lines.map(\.printable).joined(separator: "\n")
    }
}

/// Averages readings over the time each was current (until the next, at most 3 s).
struct TimeWeightedAverage {
    private var weighted = 0.0
    private var time = 0.0

    mutating func add(_ reading: TimedValue<Int>, until next: SessionTime) {
        let end = min(next, reading.time + CadenceStream.staleAfter)
        guard end > reading.time else { return }
        let span = (end - reading.time).seconds
        weighted += Double(reading.value) * span
        time += span
    }

    var value: Double? { time > 0 ? weighted / time : nil }
}
