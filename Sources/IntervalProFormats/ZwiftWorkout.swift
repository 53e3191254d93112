import IntervalProCore

/// Zwift's .zwo workouts: `<workout_file>` with a name, a sport and a `<workout>` of
/// Warmup, Cooldown, SteadyState, IntervalsT, FreeRide and Ramp elements.
///
/// Durations are seconds, or metres when the file says `<durationType>distance</durationType>`.
/// A `Cadence` attribute is the step's zone (steps/min on a run) with the plan's tolerance,
/// none when -1 or 0; `CadenceLow` and `CadenceHigh` instead are the zone itself (Zwift's
/// attributes, as h4l's zwift-workout-file-reference lists them); IntervalsT's
/// `CadenceResting` is its off steps' zone. An element or part that lasts 0 is left out. A textevent at the start of a step labels it; later ones
/// are reported, together. Power and pace shape the effort in Zwift; only cadence is scored
/// here.
public enum ZwiftWorkout {
    public static func read(_ root: MarkupElement, file: String) throws(ImportError) -> ImportedPlan {
        guard root.name.caseInsensitiveEquals("workout_file") else {
            // An activity given for a plan, as a FIT activity is said to be one (a TCX may hold
            // workouts instead, which this does not read).
            let isGPX = root.name.caseInsensitiveEquals("gpx")
            if isGPX || (root.name.caseInsensitiveEquals("TrainingCenterDatabase") && root.child("Activities") != nil) {
                throw ImportError(
                    file: file,
                    message: "a \(isGPX ? "GPX" : "TCX") activity (a recorded run), not a workout: score it with `intervalpro replay \(file) --plan PLAN`")
            }
            throw ImportError(
                file: file, place: "\(root.line)",
                message: "an XML file whose root is <\(root.name)>, not a Zwift workout (<workout_file>)")
        }
        guard let workout = root.child("workout") else {
            throw ImportError(file: file, place: "\(root.line)", message: "no <workout> element")
        }
        var reader = Reader(limits: PlanLimits(file: file))
        if let sport = root.child("sportType")?.text, !sport.isEmpty, !sport.caseInsensitiveEquals("run") {
            reader.warn(root.child("sportType")!.line, "sportType is '\(sport)', not 'run': its cadence (rpm) is read as steps/min")
        }
        reader.distance = root.child("durationType")?.text.caseInsensitiveEquals("distance") ?? false
        var nodes: [PlanNode] = []
        for element in workout.children { nodes += try reader.nodes(element) }
        reader.reportTextEventsLeftOut()
        if !reader.sawCadence {
            reader.warn(workout.line, "no step has a Cadence attribute: the session will have nothing to score")
        }
        let name = root.child("name")?.text ?? ""
        let description = root.child("description")?.text
        let plan = try reader.limits.plan(
            name: name, description: description?.isEmpty == false ? description : nil, nodes: nodes)
        return ImportedPlan(
            plan: plan, format: .zwift, warnings: reader.warnings + [WorkoutImport.slowZones(plan, file: file)].compactMap { $0 })
    }

    private struct Reader {
        var limits: PlanLimits
        var distance = false
        var warnings: [ImportError] = []
        var sawCadence = false
        /// Text events inside a step but not at its start (Zwift's own workouts show a coach's
        /// messages that way, a dozen in a workout): reported in one warning, in the first's place.
        var textEventsLeftOut: [(line: Int, message: String)] = []
        var textEventsWarningIndex = 0

        mutating func warn(_ line: Int, _ message: String) {
            warnings.append(ImportError(file: limits.file, place: "\(line)", message: message))
        }

        func fail(_ element: MarkupElement, _ message: String) -> ImportError {
            ImportError(file: limits.file, place: "\(element.line)", message: message)
        }

        /// The steps of one element of `<workout>`: none for one that lasts 0, and an IntervalsT
        /// without its off part when that lasts 0, as some tools write a single step with a
        /// slope (`Repeat="1" OffDuration="0"`).
        mutating func nodes(_ element: MarkupElement) throws(ImportError) -> [PlanNode] {
            let name = element.name.lowercased()
            switch name {
            case "warmup", "cooldown", "steadystate", "freeride", "ramp", "solidstate", "maxeffort":
                guard try lasts(element, "Duration") else { return [] }
                let kind: StepKind = name == "warmup" ? .warmup : name == "cooldown" ? .cooldown : .work
                let end = try self.end(element, "Duration")
                let cadence = try self.cadence(element, "Cadence")
                let label = labels(element, for: [0])[0] ?? (name == "freeride" ? "free run" : nil)
                return [.step(PlanStep(kind: kind, end: .fixed(end), cadence: cadence.map { .fixed($0) }, label: label))]
            case "intervalst":
                guard let repeatText = element.attribute("Repeat"), let count = Int(repeatText) else {
                    throw fail(element, "IntervalsT needs a whole-number Repeat attribute")
                }
                let repeats = try limits.repeatCount(count, at: "\(element.line)")
                let onCadence = try cadence(element, "Cadence")
                let offCadence = try cadence(element, "CadenceResting")
                var parts: [(kind: StepKind, end: StepEnd, cadence: CadenceSpec?, offset: Double)] = []
                if try lasts(element, "OnDuration", warning: false) {
                    parts.append((.work, try end(element, "OnDuration"), onCadence, 0))
                }
                if try lasts(element, "OffDuration", warning: false) {
                    let offset = parts.isEmpty ? 0 : duration(element, "OnDuration") ?? 0
                    parts.append((.rest, try end(element, "OffDuration"), offCadence, offset))
                }
                guard !parts.isEmpty else {
                    warn(element.line, "<\(element.name)> lasts 0 \(distance ? "m" : "s"): left out")
                    return []
                }
                let steps = zip(parts, labels(element, for: parts.map(\.offset))).map { part, label in
                    PlanNode.step(PlanStep(kind: part.kind, end: .fixed(part.end), cadence: part.cadence.map { .fixed($0) }, label: label))
                }
                return steps.count == 1 && repeats == 1 ? steps : [.group(repeat: repeats, nodes: steps)]
            case "textevent", "textnotification":
                warn(element.line, "a text event outside any step was left out")
                return []
            default:
                warn(element.line, "<\(element.name)> is not a workout step this program knows; left out")
                return []
            }
        }

        /// Whether the element's `attribute` gives it a length: false when it is 0 (with a
        /// warning, if `warning`); an error when it is missing or not a number.
        mutating func lasts(_ element: MarkupElement, _ attribute: String, warning: Bool = true) throws(ImportError) -> Bool {
            guard try length(element, attribute) == 0 else { return true }
            if warning { warn(element.line, "<\(element.name)> lasts 0 \(distance ? "m" : "s"): left out") }
            return false
        }

        func length(_ element: MarkupElement, _ attribute: String) throws(ImportError) -> Double {
            guard let value = duration(element, attribute) else {
                throw fail(element, "<\(element.name)> needs a numeric \(attribute) attribute (\(distance ? "metres" : "seconds"))")
            }
            return value
        }

        func duration(_ element: MarkupElement, _ attribute: String) -> Double? {
            element.attribute(attribute).flatMap { Double($0.trimmingWhitespace) }
        }

        func end(_ element: MarkupElement, _ attribute: String) throws(ImportError) -> StepEnd {
            let value = try length(element, attribute)
            return distance
                ? try limits.distance(value, at: "\(element.line)") : try limits.duration(value, at: "\(element.line)")
        }

        mutating func cadence(_ element: MarkupElement, _ attribute: String) throws(ImportError) -> CadenceSpec? {
            if let value = try number(element, attribute) { return .target(value) }
            // A range instead (`CadenceLow`/`CadenceHigh`, on the elements that take `Cadence`;
            // of an IntervalsT, its on steps'): the zone is the range itself.
            guard attribute == "Cadence" else { return nil }
            switch (try number(element, "CadenceLow"), try number(element, "CadenceHigh")) {
            case (let low?, let high?):
                guard low <= high else { throw fail(element, "CadenceLow=\"\(JSONValue.format(low))\" is above CadenceHigh=\"\(JSONValue.format(high))\"") }
                return .range(low: low, high: high)
            case (let one?, nil), (nil, let one?):
                return .target(one)
            case (nil, nil):
                return nil
            }
        }

        /// A cadence attribute's value, checked; nil when absent, or -1 or 0, which tools that
        /// write every attribute write for "no cadence".
        mutating func number(_ element: MarkupElement, _ attribute: String) throws(ImportError) -> Double? {
            guard let text = element.attribute(attribute) else { return nil }
            guard let value = Double(text.trimmingWhitespace) else {
                throw fail(element, "\(attribute)=\"\(text)\" is not a number")
            }
            guard value > 0 else { return nil }
            sawCadence = true
            return try limits.cadence(value, at: "\(element.line)")
        }

        /// Messages of the element's textevents at the given offsets (seconds into the
        /// element); others are reported.
        mutating func labels(_ element: MarkupElement, for offsets: [Double]) -> [String?] {
            var labels = [String?](repeating: nil, count: offsets.count)
            for event in element.children where event.name.caseInsensitiveEquals("textevent") {
                // Placed in seconds (`timeoffset`) or in metres (`distoffset`, as Zwift's own
                // workouts place them): one 500 m in was taken for the step's label.
                let inMetres = event.attribute("timeoffset") == nil && event.attribute("distoffset") != nil
                let offset = (event.attribute(inMetres ? "distoffset" : "timeoffset")).flatMap { Double($0) } ?? 0
                let message = event.attribute("message") ?? event.text
                if let slot = offsets.firstIndex(of: offset), offset == 0 || inMetres == distance, !message.isEmpty {
                    // Lines of one message (Zwift shows each at its own height) are one label.
                    labels[slot] = labels[slot].map { "\($0) \(message)" } ?? message
                } else {
                    if textEventsLeftOut.isEmpty { textEventsWarningIndex = warnings.count }
                    textEventsLeftOut.append(
                        (event.line, "the text event at \(JSONValue.format(offset)) \(inMetres ? "m" : "s") into <\(element.name)> is not at a step's start; left out"))
                }
            }
            return labels
        }

        mutating func reportTextEventsLeftOut() {
            guard let first = textEventsLeftOut.first, let last = textEventsLeftOut.last else { return }
            let message =
                textEventsLeftOut.count == 1
                ? first.message
                : "\(textEventsLeftOut.count) text events are not at a step's start (messages shown during a step); left out, "
                    + "the first here, the last at line \(last.line): a step's label is the text event at its start"
            warnings.insert(ImportError(file: limits.file, place: "\(first.line)", message: message), at: textEventsWarningIndex)
        }
    }
}
