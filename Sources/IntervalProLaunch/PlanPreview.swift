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
                        // `end` says which of the two a step has, so that a script need not read
                        // duration_s's type (seconds, or "open" as it has always been).
                        var end: [(String, JSONValue)] = []
                        switch step.end {
                        case .time(let length): end = [("end", .string("time")), ("duration_s", .number(length.seconds))]
                        case .distance(let metres): end = [("end", .string("distance")), ("distance_m", .number(metres))]
                        case .open: end = [("end", .string("open")), ("duration_s", .string("open"))]
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

    /// The plan as `plan show` prints it: a row per step and the total.
    public static func table(_ plan: Plan, _ timeline: [TimelineStep]) -> String {
        let rows = timeline.map { step in
            [
                "\(step.index + 1)", step.kind.rawValue, step.label ?? "", step.repetition?.description ?? "",
                PlanText.end(step.end), PlanText.zone(step.zone),
            ]
        }
        let header = ["#", "kind", "label", "rep", "duration", "zone"]
        var lines = ["\(plan.name): \(timeline.count) step\(timeline.count == 1 ? "" : "s")", ""]
        lines += TextTable.render(header: header, rows: rows, rightAligned: [0, 4])
        lines.append("")
        var total = "total: \(formatClock(timeline.timedDuration.seconds))"
        let open = timeline.filter { $0.end == .open }.count
        let distance = timeline.filter { if case .distance = $0.end { true } else { false } }.count
        if open > 0 { total += " + \(open) open step\(open == 1 ? "" : "s")" }
        if distance > 0 { total += " + \(distance) distance step\(distance == 1 ? "" : "s")" }
        lines.append(total)
        return lines.map(\.printable).joined(separator: "\n")
    }
}
