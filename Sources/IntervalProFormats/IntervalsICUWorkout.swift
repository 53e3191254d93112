public import IntervalProCore

/// intervals.icu's workout text: section lines, and steps that start with "-".
///
///     Warmup
///     - 10m 170rpm
///     Main set 4x
///     - Hard 2m 5:00/km Pace 180rpm
///     - Jog 90s 160-170rpm
///
/// A section line ending in `Nx` (or a line that is only `Nx`) repeats the steps below it
/// until a blank line or the next section. In a step, text before the first duration or
/// distance is the cue; durations are `30s`, `10m`, `1h`, `1m30`, `1h2m30s`, `5'`, `30"`,
/// `1'30"`; distances `400mtr`, `2km`, `1mi`; `170rpm` or `165-175rpm` is the cadence (on a
/// run, steps/min); `press lap` makes the step open (it ends on "next"); `intensity=rest`
/// (warmup, cooldown, active, interval, recovery) sets the kind. Pace, heart-rate and power
/// targets stay in the label and are not scored.
public enum IntervalsICUWorkout {
    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedPlan {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ImportError(file: file, message: "not UTF-8 text (nor a plan, .zwo or FIT file)")
        }
        var reader = Reader(limits: PlanLimits(file: file))
        var lineNumber = 0
        // Lines end in LF or CR LF (a copy saved on Windows; in Swift "\r\n" is one Character),
        // after a byte order mark, if any.
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        for line in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            try reader.read(line: String(line).trimmingWhitespace, number: lineNumber)
        }
        reader.closeSection()
        if reader.nodes.isEmpty {
            throw ImportError(file: file, message: "no steps found: an intervals.icu step is a line like \"- 5m 170rpm\"")
        }
        if !reader.sawCadence {
            reader.warnings.append(
                ImportError(file: file, message: "no step has a cadence target (like 170rpm): the session will have nothing to score"))
        }
        let plan = try reader.limits.plan(name: WorkoutImport.stem(of: file), nodes: reader.nodes)
        return ImportedPlan(
            plan: plan, format: .intervalsICU,
            warnings: reader.warnings + [WorkoutImport.slowZones(plan, file: file)].compactMap { $0 })
    }

    private struct Reader {
        var limits: PlanLimits
        var nodes: [PlanNode] = []
        var warnings: [ImportError] = []
        var sawCadence = false
        /// The current section's name and repeat count (nil when it does not repeat).
        var section = ""
        var repeatCount: Int?
        var repeatLine = 0
        var grouped: [(step: PlanStep, kindDecided: Bool)] = []

        mutating func read(line: String, number: Int) throws(ImportError) {
            // A Markdown rule ("---"), which guides put above a workout's notes, is no step: it
            // refused the workout ("no duration or distance in \"---\"").
            if line.isEmpty || (line.count >= 3 && line.allSatisfy { $0 == "-" }) {
                closeSection()
                return
            }
            if line.hasPrefix("-") {
                let (step, kindDecided) = try self.step(String(line.dropFirst()), line: number)
                if repeatCount != nil { grouped.append((step, kindDecided)) } else { nodes.append(.step(step)) }
                return
            }
            // A section line: "Main set 4x", "4x", "Warmup".
            closeSection()
            // Words apart by any white space: a tab from a spreadsheet, a no-break space from a web page.
            var words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            if let last = words.last, let count = Self.repeatCount(last) {
                repeatCount = try limits.repeatCount(written: count, at: "\(number)")
                repeatLine = number
                words.removeLast()
            }
            section = words.joined(separator: " ")
        }

        mutating func closeSection() {
            if let repeatCount {
                if grouped.isEmpty {
                    warnings.append(ImportError(file: limits.file, place: "\(repeatLine)", message: "a repeat with no steps under it was left out"))
                } else {
                    nodes.append(.group(repeat: repeatCount, nodes: Self.restAfterFirst(grouped)))
                }
            }
            repeatCount = nil
            grouped = []
        }

        /// In a repeat, of the steps whose kind no word decided the first is work, the others rest:
        /// "4x / - 2m / - 1m" is 2 min hard, 1 min easy; "8x / - Walk 1m / - Run 90s" walks, then
        /// runs (the first step nothing names comes after one a word named).
        static func restAfterFirst(_ steps: [(step: PlanStep, kindDecided: Bool)]) -> [PlanNode] {
            var undecidedSeen = false
            return steps.map { entry in
                var step = entry.step
                if !entry.kindDecided {
                    if undecidedSeen { step.kind = .rest }
                    undecidedSeen = true
                }
                return .step(step)
            }
        }

        /// The count of a section's last word ("4x"), as written: past Int's range still a count
        /// (refused as out of range; "99999999999999999999x" made a section of that name, run once).
        static func repeatCount(_ word: String) -> Substring? {
            guard word.count >= 2, word.last == "x" || word.last == "X" else { return nil }
            let digits = word.dropLast()
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return Int(digits).map { _ in digits } }
            return digits
        }

        /// The step, and whether a word (intensity=, the section, the cue) decided its kind.
        mutating func step(_ text: String, line: Int) throws(ImportError) -> (PlanStep, kindDecided: Bool) {
            let place = "\(line)"
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            var cue: [String] = []
            var targets: [String] = []
            var end: StepEnd?
            var cadence: (spec: CadenceSpec, tolerance: Double?)?
            var kind: StepKind?
            var pressLap = false
            var index = 0
            while index < words.count {
                let word = words[index]
                let lower = word.lowercased()
                defer { index += 1 }
                if end == nil, let seconds = Self.seconds(lower) {
                    end = try limits.duration(seconds, at: place)
                    continue
                }
                if end == nil, let metres = Self.metres(lower) {
                    end = try limits.distance(metres, at: place)
                    continue
                }
                // A range written with spaces ("165 - 175rpm", "165- 175rpm"): the words before
                // this one were the label, and 175 the target (a zone 5 spm off, in silence).
                if let (zone, taken) = Self.spacedRange(ending: lower, after: end == nil ? cue : targets, limits: limits, at: place) {
                    if end == nil { cue.removeLast(taken) } else { targets.removeLast(taken) }
                    cadence = zone
                    continue
                }
                // A cadence is one wherever it stands, before the duration too ("- 170rpm 5m").
                if let zone = try Self.cadence(lower, limits: limits, at: place) {
                    // Two of them: the last is the zone, and that is said (the first went without a word).
                    if cadence != nil {
                        warnings.append(
                            ImportError(
                                file: limits.file, place: place,
                                message: "two cadence targets in one step: '\(word)', the last, is the zone (a range is written 165-175rpm)"))
                    }
                    cadence = zone
                    continue
                }
                // "170 rpm": the number, then the unit; "165 - 175 rpm" a range so.
                if lower == "rpm" || lower == "spm", let number = (end == nil ? cue : targets).last {
                    let before = Array((end == nil ? cue : targets).dropLast())
                    if let (zone, taken) = Self.spacedRange(ending: number.lowercased() + lower, after: before, limits: limits, at: place) {
                        if end == nil { cue.removeLast(taken + 1) } else { targets.removeLast(taken + 1) }
                        cadence = zone
                        continue
                    }
                    if let zone = try Self.cadence(number.lowercased() + lower, limits: limits, at: place) {
                        if end == nil { cue.removeLast() } else { targets.removeLast() }
                        cadence = zone
                        continue
                    }
                }
                // A word ending in rpm that is no cadence ("17Orpm"): kept in the label, and said.
                if lower.hasSuffix("rpm") || lower.hasSuffix("spm"), lower.count > 3 {
                    warnings.append(
                        ImportError(
                            file: limits.file, place: place,
                            message: "'\(word)' is not a cadence (steps/min like 170rpm or 165-175rpm): the step has no zone from it"))
                }
                // intervals.icu's bpm is heart rate; IntervalPro's BPM are steps: said, as the
                // runner may have meant either.
                if lower.hasSuffix("bpm"), lower.count > 3, lower.dropLast(3).allSatisfy({ $0.isNumber || $0 == "-" }) {
                    warnings.append(
                        ImportError(
                            file: limits.file, place: place,
                            message: "'\(word)' is heart rate in intervals.icu text: kept in the label, not scored (a cadence target is \(lower.dropLast(3))rpm)"))
                }
                // "press lap" wherever it stands ("- Jog press lap", "- press lap 5m"): the step
                // ends on "next", a duration beside it being the watch's estimate.
                if lower == "press", index + 1 < words.count, words[index + 1].lowercased() == "lap" {
                    pressLap = true
                    index += 1
                    continue
                }
                if end == nil {
                    cue.append(word)
                    continue
                }
                if lower.hasPrefix("intensity=") {
                    kind = IntervalsICUWorkout.kind(intensity: String(lower.dropFirst("intensity=".count)))
                    if kind == nil {
                        warnings.append(ImportError(file: limits.file, place: place, message: "'\(word)' is not an intensity this program knows; ignored"))
                    }
                    continue
                }
                targets.append(word)
            }
            if pressLap { end = .open }
            guard let end else {
                throw ImportError(
                    file: limits.file, place: place,
                    message: "no duration or distance in \"-\(text)\" (durations: 30s, 10m, 1m30, 5'; distances: 400mtr, 2km, 1mi)")
            }
            if cadence != nil { sawCadence = true }
            let cueText = cue.joined(separator: " ")
            let named = kind ?? Self.kind(section: section, cue: cueText)
            let label = [cueText, targets.joined(separator: " ")].filter { !$0.isEmpty }.joined(separator: " · ")
            let step = PlanStep(
                kind: named ?? .work, end: .fixed(end), cadence: cadence.map { .fixed($0.spec) }, tolerance: cadence?.tolerance,
                label: label.isEmpty ? nil : label)
            return (step, named != nil)
        }

        static let restWords = ["rest", "recover", "easy", "jog", "walk"]

        /// The kind the section's name or the cue gives ("Warmup", "Recovery jog"), if any: by
        /// the words' beginnings, not anywhere in them ("Hill crest surges" is no rest, "School
        /// loop" no cool-down).
        static func kind(section: String, cue: String) -> StepKind? {
            func words(_ text: String) -> [Substring] { text.lowercased().split { !$0.isLetter } }
            let cueWords = words(cue), sectionWords = words(section)
            func names(_ beginning: String, in words: [Substring]) -> Bool { words.contains { $0.hasPrefix(beginning) } }
            if names("warm", in: cueWords) || names("warm", in: sectionWords) { return .warmup }
            if names("cool", in: cueWords) || names("cool", in: sectionWords) { return .cooldown }
            if restWords.contains(where: { names($0, in: cueWords) }) { return .rest }
            return nil
        }

        /// "30s", "10m", "1h", "1m30", "1h2m30s", "5'", "30\"", "1'30\"": seconds, or nil.
        static func seconds(_ word: String) -> Double? {
            var total = 0.0
            var number = ""
            var sawUnit = false
            var lastUnit: Character?
            for character in word {
                if character.isNumber || character == "." {
                    number.append(character)
                    continue
                }
                guard let value = Double(number) else { return nil }
                switch character {
                case "h": total += value * 3600
                case "m", "'": total += value * 60
                case "s", "\"": total += value
                default: return nil
                }
                if let lastUnit, "hm'".contains(lastUnit) == false { return nil }
                number = ""
                sawUnit = true
                lastUnit = character
            }
            guard sawUnit else { return nil }
            if !number.isEmpty {
                // "1m30": seconds after minutes; "1h30": minutes after hours.
                guard let value = Double(number), let lastUnit else { return nil }
                switch lastUnit {
                case "m", "'": total += value
                case "h": total += value * 60
                default: return nil
                }
            }
            return total
        }

        /// "400mtr", "2km", "0.4km", "1mi": metres, or nil ("m" alone is minutes).
        static func metres(_ word: String) -> Double? {
            for (unit, metres) in [("mtr", 1.0), ("km", 1000.0), ("mi", 1609.344)] where word.hasSuffix(unit) {
                guard let value = Double(word.dropLast(unit.count)), value.isFinite else { return nil }
                return value * metres
            }
            return nil
        }

        /// A cadence range written with spaces, `word` its end ("175rpm" after "165" "-" or
        /// "165-", or "-175rpm" after "165"): the zone, and how many of `words` (the step's words
        /// so far) it takes. Nil for anything else, or a range out of a plan's limits (the words
        /// then stay the label they were).
        static func spacedRange(
            ending word: String, after words: [String], limits: PlanLimits, at place: String
        ) -> (zone: (spec: CadenceSpec, tolerance: Double?), words: Int)? {
            guard word.hasSuffix("rpm") || word.hasSuffix("spm") else { return nil }
            let low: String
            let taken: Int
            if word.hasPrefix("-"), let last = words.last, Double(last) != nil {
                (low, taken) = (last, 1)
            } else if word.first?.isNumber == true, let last = words.last, last.hasSuffix("-"), last.count > 1,
                Double(last.dropLast()) != nil
            {
                (low, taken) = (String(last.dropLast()), 1)
            } else if word.first?.isNumber == true, words.count >= 2, words[words.count - 1] == "-", Double(words[words.count - 2]) != nil {
                (low, taken) = (words[words.count - 2], 2)
            } else {
                return nil
            }
            let range = low + (word.hasPrefix("-") ? "" : "-") + word
            guard let zone = (try? cadence(range, limits: limits, at: place)) ?? nil else { return nil }
            return (zone, taken)
        }

        /// "170rpm", "165-175rpm" (also "spm"): a cadence zone, or nil for any other word.
        static func cadence(
            _ word: String, limits: PlanLimits, at place: String
        ) throws(ImportError) -> (spec: CadenceSpec, tolerance: Double?)? {
            guard word.hasSuffix("rpm") || word.hasSuffix("spm") else { return nil }
            let numbers = word.dropLast(3).split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
            switch numbers.count {
            case 1:
                guard let value = numbers[0] else { return nil }
                return (.target(try limits.cadence(value, at: place)), nil)
            case 2:
                guard let low = numbers[0], let high = numbers[1] else { return nil }
                return try limits.range(low, high, at: place)
            default:
                return nil
            }
        }
    }
}

extension IntervalsICUWorkout {
    /// The kind an intervals.icu intensity names (in text `intensity=rest`, in a structured
    /// workout `"intensity": "recovery"`), nil for one it does not.
    static func kind(intensity: String) -> StepKind? {
        switch intensity {
        case "warmup": .warmup
        case "cooldown": .cooldown
        case "rest", "recovery": .rest
        case "active", "interval", "work": .work
        default: nil
        }
    }

    /// intervals.icu's structured workout (`workout_doc`), for events whose text has no steps,
    /// read field by field: `{"steps": [{"text", "duration": s, "distance": m,
    /// "until_lap_press", "cadence": {"value"} or {"start", "end"}, "warmup", "cooldown",
    /// "intensity"}, {"reps": 4, "steps": [...]}]}`. Written out as workout text, a step's own
    /// words were read as its duration ("400m repeat": 400 minutes), and a lap-press step with
    /// no duration was refused.
    public static func read(workoutDoc doc: JSONNode, file: String) throws(ImportError) -> ImportedPlan {
        var reader = DocReader(limits: PlanLimits(file: file))
        guard case .array(let steps)? = doc["steps"]?.kind, !steps.isEmpty else {
            throw ImportError(file: file, place: "workout_doc", message: "no steps")
        }
        let nodes = try reader.nodes(steps, path: "workout_doc.steps", inRepeat: false)
        if !reader.sawCadence {
            reader.warnings.append(
                ImportError(file: file, message: "no step has a cadence target: the session will have nothing to score"))
        }
        let plan = try reader.limits.plan(name: WorkoutImport.stem(of: file), nodes: nodes)
        return ImportedPlan(
            plan: plan, format: .intervalsICU,
            warnings: reader.warnings + [WorkoutImport.slowZones(plan, file: file)].compactMap { $0 })
    }

    private struct DocReader {
        var limits: PlanLimits
        var warnings: [ImportError] = []
        var sawCadence = false

        mutating func nodes(_ entries: [JSONNode], path: String, inRepeat: Bool) throws(ImportError) -> [PlanNode] {
            var nodes: [PlanNode] = []
            // In a repeat, as in the text: of the steps no word decided, the first is work, the others rest.
            var undecidedSeen = false
            for (index, entry) in entries.enumerated() {
                let place = "\(path)[\(index)]"
                if let reps = entry["reps"]?.numberValue, case .array(let inner)? = entry["steps"]?.kind {
                    guard reps.isFinite, reps == reps.rounded(), abs(reps) <= 1_000_000 else {
                        throw ImportError(file: limits.file, place: "\(place).reps", message: "\(JSONValue.format(reps)) is not a repeat count")
                    }
                    let count = try limits.repeatCount(Int(reps), at: "\(place).reps")
                    nodes.append(.group(repeat: count, nodes: try self.nodes(inner, path: "\(place).steps", inRepeat: true)))
                    continue
                }
                var (step, decided) = try self.step(entry, at: place)
                if inRepeat, !decided {
                    if undecidedSeen { step.kind = .rest }
                    undecidedSeen = true
                }
                nodes.append(.step(step))
            }
            return nodes
        }

        mutating func step(_ entry: JSONNode, at place: String) throws(ImportError) -> (PlanStep, kindDecided: Bool) {
            let text = (entry["text"]?.stringValue ?? "").trimmingWhitespace
            let end: StepEnd
            if entry["until_lap_press"]?.kind.isTrue == true {
                end = .open
            } else if let metres = entry["distance"]?.numberValue, metres > 0 {
                // A distance step carries the time intervals.icu estimates for it too.
                end = try limits.distance(metres, at: "\(place).distance")
            } else if let seconds = entry["duration"]?.numberValue, seconds > 0 {
                end = try limits.duration(seconds, at: "\(place).duration")
            } else {
                end = .open
            }
            var zone: (spec: CadenceSpec, tolerance: Double?)?
            if let cadence = entry["cadence"] {
                if let value = cadence["value"]?.numberValue {
                    zone = (.target(try limits.cadence(value, at: "\(place).cadence.value")), nil)
                } else if let low = cadence["start"]?.numberValue, let high = cadence["end"]?.numberValue {
                    zone = try limits.range(low, high, at: "\(place).cadence")
                }
            }
            if zone != nil { sawCadence = true }
            var kind: StepKind?
            if entry["warmup"]?.kind.isTrue == true { kind = .warmup }
            if entry["cooldown"]?.kind.isTrue == true { kind = .cooldown }
            if kind == nil, let intensity = entry["intensity"]?.stringValue?.lowercased() {
                kind = IntervalsICUWorkout.kind(intensity: intensity)
            }
            let named = kind ?? Reader.kind(section: "", cue: text)
            let step = PlanStep(
                kind: named ?? .work, end: .fixed(end), cadence: zone.map { .fixed($0.spec) }, tolerance: zone?.tolerance,
                label: text.isEmpty ? nil : text)
            return (step, named != nil)
        }
    }
}

extension JSONNode.Kind {
    fileprivate var isTrue: Bool {
        if case .bool(true) = self { return true }
        return false
    }
}
