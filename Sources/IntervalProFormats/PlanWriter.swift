public import IntervalProCore

/// A plan as plan-format JSON: what `plan import` writes and what the history keeps for a
/// session run from a workout file. `PlanDecoder` reads it back to the same timeline.
public enum PlanWriter {
    public static func json(_ plan: Plan) -> JSONValue {
        // Version 1 had no "version" key and its first readers refuse unknown keys: only a
        // version-2 plan says its version.
        var members: [(String, JSONValue)] = plan.metronome == nil ? [] : [("version", .int(2))]
        members.append(("name", .string(plan.name)))
        if let description = plan.description { members.append(("description", .string(description))) }
        members.append(("tolerance", .number(plan.tolerance)))
        if let metronome = plan.metronome { members.append(("metronome", json(metronome))) }
        members.append(("steps", .array(plan.nodes.map(json))))
        return .object(members)
    }

    static func json(_ node: PlanNode) -> JSONValue {
        switch node {
        case .group(let count, let nodes):
            return .object([("repeat", .int(count)), ("steps", .array(nodes.map(json)))])
        case .step(let step):
            var members: [(String, JSONValue)] = [("kind", .string(step.kind.rawValue))]
            if let label = step.label { members.append(("label", .string(label))) }
            let ends = values(step.end)
            if case .distance = ends[0] {
                members.append(("distance", perRepetition(step.end, ends.map(json))))
            } else {
                members.append(("duration", perRepetition(step.end, ends.map(json))))
            }
            if let cadence = step.cadence { members.append(("cadence", perRepetition(cadence, values(cadence).map(json)))) }
            if let tolerance = step.tolerance { members.append(("tolerance", .number(tolerance))) }
            return .object(members)
        }
    }

    static func values<Value>(_ value: PerRepetition<Value>) -> [Value] {
        switch value {
        case .fixed(let single): [single]
        case .perRepetition(let each): each
        }
    }

    static func perRepetition<Value>(_ value: PerRepetition<Value>, _ written: [JSONValue]) -> JSONValue {
        if case .fixed = value { return written[0] }
        return .array(written)
    }

    static func json(_ end: StepEnd) -> JSONValue {
        switch end {
        case .time(let length): .number(length.seconds)
        case .distance(let metres): .number(metres)
        case .open: .string("open")
        }
    }

    static func json(_ spec: CadenceSpec) -> JSONValue {
        switch spec {
        case .target(let target): .number(target)
        case .range(let low, let high): .object([("low", .number(low)), ("high", .number(high))])
        }
    }

    static func json(_ settings: MetronomeSettings) -> JSONValue {
        .object([
            ("mode", .string(settings.mode.rawValue)), ("accent", .string(settings.accent.rawValue)),
            ("volume", .number(settings.volume)), ("grace", .number(settings.grace.seconds)),
            ("voice", .string(settings.voice ? settings.language.rawValue : "off")),
            ("coaching_grace", .number(settings.coachingGrace.seconds)),
            ("coaching_cooldown", .number(settings.coachingCooldown.seconds)),
        ])
    }
}
