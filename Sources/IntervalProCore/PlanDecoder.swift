/// What is wrong with a plan file, and where.
public struct PlanError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation?
    /// JSON path of the offending value, e.g. "steps[1].steps[0].cadence"; empty for the root.
    public var path: String
    public var message: String

    public var description: String {
        let place = location.map { "\(file):\($0)" } ?? file
        return "\(place): \(message)"
    }
}

/// Turns plan JSON into a `Plan`, checking everything the format promises.
public struct PlanDecoder {
    public static let cadenceRange = 60.0...260.0
    public static let toleranceRange = 0.0...30.0
    public static let repeatRange = 1...100
    public static let maxStepSeconds = 86_400.0
    public static let maxDistanceMetres = 1_000_000.0
    /// Keeps nested repeats from expanding into a timeline nobody could run.
    public static let maxTimelineSteps = 10_000

    static let planKeys = ["version", "name", "description", "tolerance", "steps", "metronome", "$schema"]
    static let metronomeKeys = ["mode", "accent", "volume", "grace", "voice", "coaching_grace", "coaching_cooldown"]
    static let stepKeys = ["kind", "duration", "distance", "cadence", "tolerance", "label"]
    static let groupKeys = ["repeat", "steps"]
    static let rangeKeys = ["low", "high"]

    private let file: String
    private let bytes: [UInt8]

    private init(file: String, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
    }

    /// - Parameter file: the name errors should start with (the path the user gave).
    public static func decode(_ bytes: [UInt8], file: String) throws(PlanError) -> Plan {
        // JSON is UTF-8 (RFC 8259); a plan saved as Notepad's "ANSI" is read as what it is.
        let bytes = Windows1252.utf8UnlessDamagedUTF8(bytes)
        let decoder = PlanDecoder(file: file, bytes: bytes)
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw decoder.failure(at: error.offset, path: "", "invalid JSON: \(error.message)")
        }
        return try decoder.plan(root)
    }

    // MARK: - Errors

    private func failure(at offset: Int, path: String, _ message: String) -> PlanError {
        PlanError(
            file: file, location: SourceLocation(offset: offset, in: bytes), path: path, message: message)
    }

    private func failure(_ node: JSONNode, _ path: String, _ message: String) -> PlanError {
        failure(at: node.offset, path: path, "\(message) at \(display(path))")
    }

    private func display(_ path: String) -> String { path.isEmpty ? "the top level" : path }

    /// An optional key's value; `null` is the key left out, as a writer with no value for it
    /// (Python's None, a JavaScript null) writes it.
    private func optional(_ node: JSONNode, _ key: String) -> JSONNode? {
        guard let value = node[key], !value.isNull else { return nil }
        return value
    }

    // MARK: - Structure

    private func members(
        _ node: JSONNode, _ path: String, allowed: [String], what: String
    ) throws(PlanError) -> [JSONNode.Member] {
        guard case .object(let members) = node.kind else {
            throw failure(node, path, "expected \(what) (an object), found \(node.typeName)")
        }
        for member in members where !allowed.contains(member.key) {
            var message = "unknown key '\(member.key)' at \(display(path))"
            if let near = nearest(member.key, in: allowed) {
                message += "; did you mean '\(near)'?"
            } else if allowed.contains("cadence"), ["bpm", "spm", "rpm"].contains(member.key.lowercased()) {
                message += "; a step's target is 'cadence', in steps per minute (BPM in a plan means steps)"
            }
            throw failure(at: member.keyOffset, path: path, message)
        }
        return members
    }

    private func plan(_ root: JSONNode) throws(PlanError) -> Plan {
        // A later version's plan is said to be one before its new keys are taken for typos.
        if case .object = root.kind, let node = optional(root, "version"), let later = node.numberValue,
            later == later.rounded(), later > Double(Plan.formatVersion), later < 1e9
        {
            throw failure(
                at: node.offset, path: "version",
                "plan format version \(Int(later)) is a later IntervalPro's; this one reads versions 1 to \(Plan.formatVersion)")
        }
        _ = try members(root, "", allowed: Self.planKeys, what: "a plan")
        guard let nameNode = root["name"] else { throw failure(root, "", "missing required key 'name'") }
        guard let name = nameNode.stringValue, !name.allSatisfy(\.isWhitespace) else {
            throw failure(nameNode, "name", "expected a non-empty string, found \(nameNode.stringValue.map { $0.isEmpty ? "an empty one" : "only spaces" } ?? nameNode.typeName)")
        }
        var description: String?
        if let node = optional(root, "description") {
            guard let text = node.stringValue else {
                throw failure(node, "description", "expected a string, found \(node.typeName)")
            }
            description = text
        }
        let tolerance = try optional(root, "tolerance").map { node throws(PlanError) in
            try number(node, "tolerance", in: Self.toleranceRange, unit: "spm")
        } ?? Plan.defaultTolerance
        let version = try optional(root, "version").map { node throws(PlanError) in
            try integer(node, "version", in: 1...Plan.formatVersion)
        } ?? 1
        // Plan format version 1 promised that a top-level "metronome" object is accepted, any
        // object: its settings are honoured in any version, and in version 1 a key or value
        // version 2 does not know is passed over, as version 1 passed over the whole object.
        let metronome = try optional(root, "metronome").map { node throws(PlanError) in
            try metronomeSettings(node, "metronome", lenient: version == 1)
        }
        guard let stepsNode = root["steps"] else { throw failure(root, "", "missing required key 'steps'") }
        let nodes = try stepList(stepsNode, "steps", groupCount: nil)
        let plan = Plan(
            version: version, name: name, description: description, tolerance: tolerance, nodes: nodes,
            metronome: metronome)
        let count = Self.expandedCount(nodes)
        guard count <= Self.maxTimelineSteps else {
            // The count stops at Int32.max, which a nest of repeats passes: said as such.
            let counted = count >= Int(Int32.max) ? "over \(Int32.max - 1)" : "\(count)"
            throw failure(stepsNode, "steps", "the plan expands to \(counted) steps, more than \(Self.maxTimelineSteps)")
        }
        return plan
    }

    private func metronomeSettings(_ node: JSONNode, _ path: String, lenient: Bool) throws(PlanError) -> MetronomeSettings {
        var settings = MetronomeSettings()
        if lenient {
            guard case .object = node.kind else {
                throw failure(node, path, "expected metronome settings (an object), found \(node.typeName)")
            }
        } else {
            _ = try members(node, path, allowed: Self.metronomeKeys, what: "metronome settings")
        }
        // A setting version 2 refuses is an error there, and passed over in version 1.
        func setting(_ apply: () throws(PlanError) -> Void) throws(PlanError) {
            do throws(PlanError) {
                try apply()
            } catch {
                if !lenient { throw error }
            }
        }
        func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(PlanError) -> T?
        where T.RawValue == String {
            guard let value = optional(node, key) else { return nil }
            guard let text = value.stringValue, let parsed = T(rawValue: text) else {
                let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
                throw failure(value, "\(path).\(key)", "expected one of \(allowed)")
            }
            return parsed
        }
        func seconds(_ key: String) throws(PlanError) -> SessionTime? {
            try optional(node, key).map { value throws(PlanError) in
                .seconds(try number(value, "\(path).\(key)", in: MetronomeSettings.delayRange, unit: "s"))
            }
        }
        try setting { () throws(PlanError) in if let mode = try choice("mode", MetronomeMode.self) { settings.mode = mode } }
        try setting { () throws(PlanError) in if let accent = try choice("accent", MetronomeAccent.self) { settings.accent = accent } }
        try setting { () throws(PlanError) in
            if let value = optional(node, "volume") {
                settings.volume = try number(value, "\(path).volume", in: MetronomeSettings.volumeRange, unit: "(volume)")
            }
        }
        try setting { () throws(PlanError) in if let grace = try seconds("grace") { settings.grace = grace } }
        try setting { () throws(PlanError) in if let grace = try seconds("coaching_grace") { settings.coachingGrace = grace } }
        try setting { () throws(PlanError) in if let cooldown = try seconds("coaching_cooldown") { settings.coachingCooldown = cooldown } }
        try setting { () throws(PlanError) in
            if let voice = optional(node, "voice") {
                switch voice.kind {
                case .bool(false), .string("off"):
                    settings.voice = false
                case .string(let text) where CueLanguage(rawValue: text) != nil:
                    settings.language = CueLanguage(rawValue: text)!
                default:
                    throw failure(voice, "\(path).voice", "expected \"en\", \"es\" or \"off\"")
                }
            }
        }
        return settings
    }

    private static func expandedCount(_ nodes: [PlanNode]) -> Int {
        nodes.reduce(0) { total, node in
            switch node {
            case .step: return total + 1
            case .group(let count, let children): return total + min(count * expandedCount(children), Int(Int32.max))
            }
        }
    }

    private func stepList(_ node: JSONNode, _ path: String, groupCount: Int?) throws(PlanError) -> [PlanNode] {
        guard case .array(let elements) = node.kind else {
            throw failure(node, path, "expected an array of steps, found \(node.typeName)")
        }
        guard !elements.isEmpty else { throw failure(node, path, "expected at least one step") }
        var nodes: [PlanNode] = []
        for (i, element) in elements.enumerated() {
            nodes.append(try stepOrGroup(element, "\(path)[\(i)]", groupCount: groupCount))
        }
        return nodes
    }

    private func stepOrGroup(_ node: JSONNode, _ path: String, groupCount: Int?) throws(PlanError) -> PlanNode {
        if node["repeat"] != nil {
            _ = try members(node, path, allowed: Self.groupKeys, what: "a group")
            let repeatNode = node["repeat"]!
            let count = try integer(repeatNode, path + ".repeat", in: Self.repeatRange)
            guard let children = node["steps"] else { throw failure(node, path, "missing required key 'steps'") }
            return .group(repeat: count, nodes: try stepList(children, path + ".steps", groupCount: count))
        }
        _ = try members(node, path, allowed: Self.stepKeys, what: "a step or a group")
        guard let kindNode = node["kind"] else {
            throw failure(node, path, "missing required key 'kind' (or 'repeat' for a group)")
        }
        guard let kindText = kindNode.stringValue, let kind = StepKind(rawValue: kindText) else {
            let allowed = StepKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw failure(kindNode, path + ".kind", "expected one of \(allowed)")
        }
        let end: PerRepetition<StepEnd>
        switch (optional(node, "duration"), optional(node, "distance")) {
        case (let duration?, nil):
            end = try perRepetition(duration, path + ".duration", groupCount: groupCount) { n, p throws(PlanError) in
                try self.duration(n, p)
            }
        case (nil, let distance?):
            end = try perRepetition(distance, path + ".distance", groupCount: groupCount) { n, p throws(PlanError) in
                try self.distance(n, p)
            }
        case (_?, _?):
            throw failure(node, path, "give either 'duration' or 'distance', not both,")
        case (nil, nil):
            // A step's only end given as null is said as the value it is.
            if let given = node["duration"] {
                _ = try self.duration(given, path + ".duration")
            } else if let given = node["distance"] {
                _ = try self.distance(given, path + ".distance")
            }
            throw failure(node, path, "missing required key 'duration' (or 'distance')")
        }
        let cadence = try optional(node, "cadence").map { cadenceNode throws(PlanError) in
            try perRepetition(cadenceNode, path + ".cadence", groupCount: groupCount) { n, p throws(PlanError) in
                try self.cadence(n, p)
            }
        }
        let tolerance = try optional(node, "tolerance").map { n throws(PlanError) in
            try number(n, path + ".tolerance", in: Self.toleranceRange, unit: "spm")
        }
        var label: String?
        if let labelNode = optional(node, "label") {
            guard let text = labelNode.stringValue else {
                throw failure(labelNode, path + ".label", "expected a string, found \(labelNode.typeName)")
            }
            label = text
        }
        return .step(PlanStep(kind: kind, end: end, cadence: cadence, tolerance: tolerance, label: label))
    }

    // MARK: - Values

    private func perRepetition<Value>(
        _ node: JSONNode, _ path: String, groupCount: Int?,
        _ element: (JSONNode, String) throws(PlanError) -> Value
    ) throws(PlanError) -> PerRepetition<Value> {
        guard case .array(let elements) = node.kind else { return .fixed(try element(node, path)) }
        guard let groupCount else {
            throw failure(node, path, "a per-repetition array needs an enclosing repeat group")
        }
        guard elements.count == groupCount else {
            throw failure(
                node, path,
                "expected \(groupCount) values (one per repetition of the enclosing group), found \(elements.count)")
        }
        var values: [Value] = []
        for (i, child) in elements.enumerated() {
            if case .array = child.kind { throw failure(child, "\(path)[\(i)]", "nested arrays are not allowed") }
            values.append(try element(child, "\(path)[\(i)]"))
        }
        return .perRepetition(values)
    }

    private func number(
        _ node: JSONNode, _ path: String, in range: ClosedRange<Double>, unit: String
    ) throws(PlanError) -> Double {
        guard let value = node.numberValue else {
            throw failure(node, path, "expected a number, found \(node.typeName)")
        }
        guard range.contains(value) else {
            throw failure(
                node, path,
                "\(JSONValue.format(value)) \(unit) is out of range (\(JSONValue.format(range.lowerBound))-\(JSONValue.format(range.upperBound)))"
            )
        }
        return value
    }

    private func integer(_ node: JSONNode, _ path: String, in range: ClosedRange<Int>) throws(PlanError) -> Int {
        guard case .number(let value, _) = node.kind, value == value.rounded() else {
            let found = if case .number(let value, _) = node.kind { JSONValue.format(value) } else { node.typeName }
            throw failure(node, path, "expected a whole number, found \(found)")
        }
        // A whole number however large is said to be out of range: 1e9 was "expected a whole
        // number, found a number".
        guard abs(value) < 1e15, range.contains(Int(value)) else {
            throw failure(node, path, "\(JSONValue.format(value)) is out of range (\(range.lowerBound)-\(range.upperBound))")
        }
        return Int(value)
    }

    private func duration(_ node: JSONNode, _ path: String) throws(PlanError) -> StepEnd {
        let seconds: Double
        switch node.kind {
        case .number(let value, _):
            seconds = value
        case .string("open"):
            return .open
        case .string(let text):
            guard let parsed = Self.clockSeconds(text) else {
                throw failure(node, path, "invalid duration \"\(text)\": expected seconds, \"m:ss\", \"h:mm:ss\" or \"open\"")
            }
            seconds = parsed
        default:
            throw failure(node, path, "expected a duration (seconds, \"m:ss\", \"h:mm:ss\" or \"open\"), found \(node.typeName)")
        }
        guard seconds > 0, seconds <= Self.maxStepSeconds else {
            throw failure(node, path, "duration must be more than 0 and at most 24 hours")
        }
        // Compared after rounding to the engine's microseconds, so no step lasts 0.
        guard SessionTime.seconds(seconds) > .zero else {
            throw failure(node, path, "duration must be at least a microsecond (the engine's unit)")
        }
        return .time(.seconds(seconds))
    }

    /// "m:ss" (any number of minutes) or "h:mm:ss"; seconds and, with hours, minutes 00-59.
    static func clockSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isDigit) && $0.count <= 6 })
        else { return nil }
        let numbers = parts.map { Int($0)! }
        guard parts.last!.count == 2, numbers.last! < 60 else { return nil }
        if parts.count == 3 {
            guard parts[1].count == 2, numbers[1] < 60 else { return nil }
            return Double(numbers[0] * 3600 + numbers[1] * 60 + numbers[2])
        }
        return Double(numbers[0] * 60 + numbers[1])
    }

    private func distance(_ node: JSONNode, _ path: String) throws(PlanError) -> StepEnd {
        var metres: Double
        switch node.kind {
        case .number(let value, _):
            metres = value
        case .string(let text):
            guard let parsed = Self.distanceMetres(text) else {
                throw failure(node, path, "invalid distance \"\(text)\": expected metres, \"400m\" or \"1.5km\"")
            }
            metres = parsed
        default:
            throw failure(node, path, "expected a distance (metres, \"400m\" or \"1.5km\"), found \(node.typeName)")
        }
        metres = metres.rounded(toPlaces: 3)
        guard metres > 0, metres <= Self.maxDistanceMetres else {
            throw failure(node, path, "distance must be more than 0 and at most 1000 km")
        }
        return .distance(metres)
    }

    static func distanceMetres(_ text: String) -> Double? {
        let lower = text.lowercased().filter { $0 != " " }
        let (digits, scale): (Substring, Double) =
            lower.hasSuffix("km") ? (lower.dropLast(2), 1000) : lower.hasSuffix("m") ? (lower.dropLast(), 1) : ("", 0)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(digits)
        else { return nil }
        return value * scale
    }

    private func cadence(_ node: JSONNode, _ path: String) throws(PlanError) -> CadenceSpec {
        if case .object = node.kind {
            _ = try members(node, path, allowed: Self.rangeKeys, what: "a cadence range")
            guard let lowNode = node["low"], let highNode = node["high"] else {
                throw failure(node, path, "a cadence range needs both 'low' and 'high'")
            }
            let low = try number(lowNode, path + ".low", in: Self.cadenceRange, unit: "spm")
            let high = try number(highNode, path + ".high", in: Self.cadenceRange, unit: "spm")
            guard low <= high else { throw failure(node, path, "'low' (\(JSONValue.format(low))) is above 'high' (\(JSONValue.format(high)))") }
            return .range(low: low, high: high)
        }
        guard node.numberValue != nil else {
            throw failure(node, path, "expected a cadence in spm (a number or {\"low\", \"high\"}), found \(node.typeName)")
        }
        return .target(try number(node, path, in: Self.cadenceRange, unit: "spm"))
    }

    /// The allowed key closest to a mistyped one, when it is close enough to be a typo.
    func nearest(_ key: String, in allowed: [String]) -> String? {
        let scored = allowed.map { ($0, editDistance(key.lowercased(), $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        // One edit for short keys, two for longer ones ("lable" → "label").
        return best.1 <= (best.0.count <= 4 ? 1 : 2) ? best.0 : nil
    }
}

/// Levenshtein distance between two strings, by characters.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = Swift.min(
                previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
