public import IntervalProCore

/// A plan's steps as `plan check --json` gives them and the page's start view previews them:
/// each step's kind, label, repetition, length and zone, and the timed total.
public enum PlanPreview {
    public static func json(_ plan: Plan, _ timeline: [TimelineStep]) -> JSONValue {
        .object([
            ("plan", .string(plan.name)),
            ("total_timed_s", .number(timeline.timedDuration.seconds)),
            (
                "steps",
                .array(
                    timeline.map { step in
                        var end: [(String, JSONValue)] = []
                        switch step.end {
                        case .time(let length): end = [("duration_s", .number(length.seconds))]
                        case .distance(let metres): end = [("distance_m", .number(metres))]
                        case .open: end = [("duration_s", .string("open"))]
                        }
                        return .object(
                            [
                                ("index", .int(step.index)), ("kind", .string(step.kind.rawValue)),
                                ("label", step.label.map { .string($0) } ?? .null),
                                ("repetition", step.repetition.map { .string($0.description) } ?? .null),
                            ] + end + [
                                ("target_spm", .nullable(step.zone?.target)), ("low_spm", .nullable(step.zone?.low)),
                                ("high_spm", .nullable(step.zone?.high)),
                            ])
                    })
            ),
        ])
    }
}
