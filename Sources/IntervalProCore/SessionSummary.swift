public enum SessionSourceKind: String, Sendable {
    case replay, simulation, live
    /// A run a watch recorded, brought into the history by `history import`.
    case imported
    /// No runner, added 2026-11-30: the plan's clicks and step cues alone, nothing measured
    /// (no sensor on a treadmill); never saved.
    case metronome
}

/// Why a step ended.
public enum StepEndReason: String, Sendable {
    case time, distance, next
    /// The session was finished (q, Ctrl-C) during the step.
    case finished
    /// The replay or simulation ran out during an open or distance step.
    case sourceEnded = "source_ended"
}

/// A step's scored figures (see docs/reference/contracts.md, "Scoring contract").
public struct StepResult: Equatable, Sendable {
    public var step: TimelineStep
    public var duration: SessionTime = .zero
    public var inZone: SessionTime = .zero
    public var below: SessionTime = .zero
    public var above: SessionTime = .zero
    public var noSignal: SessionTime = .zero
    /// Time-weighted sums (value × µs) and the time they cover, kept as integers so that
    /// splitting an interval never changes them. Public so that a stored session gives
    /// back the very same averages.
    public var cadenceWeighted: Int64 = 0
    public var cadenceTime: Int64 = 0
    public var heartRateWeighted: Int64 = 0
    public var heartRateTime: Int64 = 0
    public var maxHeartRate: Int?
    public var distance: Double?
    public var endedBy: StepEndReason = .time

    public init(step: TimelineStep) {
        self.step = step
    }

    public var averageCadence: Double? {
        cadenceTime > 0 ? Double(cadenceWeighted) / Double(cadenceTime) : nil
    }

    public var averageHeartRate: Double? {
        heartRateTime > 0 ? Double(heartRateWeighted) / Double(heartRateTime) : nil
    }

    public var inZonePercent: Double? {
        guard step.zone != nil, duration > .zero else { return nil }
        return 100 * Double(inZone.microseconds) / Double(duration.microseconds)
    }
}

extension [StepResult] {
    /// 100 × Σ in-zone time / Σ duration over the steps that have a zone: a summary's figure,
    /// and the live screen's for the steps so far.
    public var inZonePercent: Double? {
        var total: Int64 = 0
        var inZone: Int64 = 0
        for result in self where result.step.zone != nil {
            total += result.duration.microseconds
            inZone += result.inZone.microseconds
        }
        guard total > 0 else { return nil }
        return 100 * Double(inZone) / Double(total)
    }
}

public struct SessionSummary: Equatable, Sendable {
    public var plan: String
    public var source: SessionSourceKind
    public var steps: [StepResult]
    /// False when the session was finished before the plan's last step ended.
    public var completed: Bool
    /// Beat-to-beat figures, when the heart-rate device sent RR intervals (IntervalProHRV
    /// computes them from the session's samples; the engine leaves them nil).
    public var hrv: SessionHRV?

    public init(plan: String, source: SessionSourceKind, steps: [StepResult], completed: Bool) {
        self.plan = plan
        self.source = source
        self.steps = steps
        self.completed = completed
    }

    public var duration: SessionTime { steps.reduce(.zero) { $0 + $1.duration } }

    /// 100 × Σ in-zone time / Σ duration over the steps that have a zone; none with no runner
    /// (`metronome`): 0 % was a share of a zone nobody ran in.
    public var inZonePercent: Double? { source == .metronome ? nil : steps.inZonePercent }

    public var averageCadence: Double? {
        let time = steps.reduce(Int64(0)) { $0 + $1.cadenceTime }
        return time > 0 ? Double(steps.reduce(Int64(0)) { $0 + $1.cadenceWeighted }) / Double(time) : nil
    }

    /// Average cadence over work steps only: the figure a runner tracks over weeks.
    public var averageWorkCadence: Double? {
        let work = steps.filter { $0.step.kind == .work }
        let time = work.reduce(Int64(0)) { $0 + $1.cadenceTime }
        return time > 0 ? Double(work.reduce(Int64(0)) { $0 + $1.cadenceWeighted }) / Double(time) : nil
    }

    public var averageHeartRate: Double? {
        let time = steps.reduce(Int64(0)) { $0 + $1.heartRateTime }
        return time > 0 ? Double(steps.reduce(Int64(0)) { $0 + $1.heartRateWeighted }) / Double(time) : nil
    }

    public var maxHeartRate: Int? { steps.compactMap(\.maxHeartRate).max() }

    public var distance: Double? {
        let distances = steps.compactMap(\.distance)
        return distances.isEmpty ? nil : distances.reduce(0, +)
    }

    /// The JSON summary, version 1 (docs/reference/contracts.md, "JSON summary"). Seconds have 3 decimals,
    /// percentages 2, cadence and heart rate 1, metres 1.
    public var json: JSONValue {
        func seconds(_ t: SessionTime) -> JSONValue { .number(t.seconds.rounded(toPlaces: 3)) }
        func rounded(_ value: Double?, _ places: Int) -> JSONValue { .nullable(value?.rounded(toPlaces: places)) }
        let stepValues: [JSONValue] = steps.map { r in
            let zone = r.step.zone
            return .object([
                ("index", .int(r.step.index)),
                ("kind", .string(r.step.kind.rawValue)),
                ("label", r.step.label.map { .string($0) } ?? .null),
                ("repetition", r.step.repetition.map { .string($0.description) } ?? .null),
                ("target_spm", .nullable(zone?.target)),
                ("low_spm", .nullable(zone?.low)),
                ("high_spm", .nullable(zone?.high)),
                ("duration_s", seconds(r.duration)),
                ("in_zone_s", zone == nil ? .null : seconds(r.inZone)),
                ("below_s", zone == nil ? .null : seconds(r.below)),
                ("above_s", zone == nil ? .null : seconds(r.above)),
                ("no_signal_s", seconds(r.noSignal)),
                ("in_zone_pct", rounded(source == .metronome ? nil : r.inZonePercent, 2)),
                ("avg_cadence_spm", rounded(r.averageCadence, 1)),
                ("avg_hr_bpm", rounded(r.averageHeartRate, 1)),
                ("max_hr_bpm", r.maxHeartRate.map { .int($0) } ?? .null),
                ("distance_m", rounded(r.distance, 1)),
                ("ended_by", .string(r.endedBy.rawValue)),
                ("alpha1", .nullable(hrv?.stepAlpha1[r.step.index]?.rounded(toPlaces: 2))),
            ])
        }
        return .object([
            ("summary_version", .int(1)),
            ("plan", .string(plan)),
            ("source", .string(source.rawValue)),
            ("duration_s", seconds(duration)),
            ("completed", .bool(completed)),
            ("steps", .array(stepValues)),
            (
                "totals",
                .object([
                    ("in_zone_pct", rounded(inZonePercent, 2)),
                    ("avg_cadence_spm", rounded(averageCadence, 1)),
                    ("avg_work_cadence_spm", rounded(averageWorkCadence, 1)),
                    ("avg_hr_bpm", rounded(averageHeartRate, 1)),
                    ("max_hr_bpm", maxHeartRate.map { .int($0) } ?? .null),
                    ("distance_m", rounded(distance, 1)),
                ])
            ),
            ("hrv", hrv?.json ?? .null),
        ])
    }
}
