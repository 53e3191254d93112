public import IntervalProCore
import IntervalProFIT

/// The workout formats a plan can be read from, recognised by content.
public enum WorkoutFormat: String, Sendable, CaseIterable {
    case planJSON = "IntervalPro plan"
    case intervalsICU = "intervals.icu workout text"
    case zwift = "Zwift workout (.zwo)"
    case fitWorkout = "FIT workout"
}

/// Something in a file that was not understood (an error) or was left out (a warning),
/// and where: "workout.zwo:12: ...", "run.fit: message 7 (workout_step): ...".
public struct ImportError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// "12" (a line), "12:5" (line and column), "message 7 (workout_step)"; nil for the whole file.
    public var place: String?
    public var message: String
    /// What kind of refusal it is: an import counts a file that is no run, or no activity,
    /// as left out, and only the others as unreadable.
    public var kind: Kind

    public enum Kind: Equatable, Sendable {
        /// The file is damaged or not what it says.
        case invalid
        /// A readable activity of another sport ("cycling").
        case notARun(sport: String)
        /// A readable file that holds no activity (a FIT workout, settings or monitoring file).
        case notAnActivity
    }

    public init(file: String, place: String? = nil, message: String, kind: Kind = .invalid) {
        self.file = file
        self.place = place
        self.message = message
        self.kind = kind
    }

    public var description: String {
        guard let place else { return "\(file): \(message)" }
        return place.first?.isNumber == true ? "\(file):\(place): \(message)" : "\(file): \(place): \(message)"
    }

    /// Where and what, for a list that names the file beside it: "line 3: …", "line 3:5: …",
    /// "message 7 (workout_step): …".
    public var placedMessage: String {
        guard let place else { return message }
        return place.first?.isNumber == true ? "line \(place): \(message)" : "\(place): \(message)"
    }
}

/// A plan read from a workout file, with what was left out on the way.
public struct ImportedPlan: Sendable {
    public var plan: Plan
    public var format: WorkoutFormat
    public var warnings: [ImportError]

    public init(plan: Plan, format: WorkoutFormat, warnings: [ImportError] = []) {
        self.plan = plan
        self.format = format
        self.warnings = warnings
    }
}

/// Reads XML into elements: the one thing an import needs that is not pure Swift. The
/// executable passes the IntervalProIO reader.
public typealias XMLReading = ([UInt8]) throws(MarkupError) -> MarkupElement

public enum WorkoutImport {
    /// A running cadence is over 120 steps/min; targets all below it count one foot, as Garmin's
    /// FIT workouts do (doubled there), or are a typo.
    static let slowestRunningCadence = 120.0

    /// The warning for a run whose every zone is below 120 steps/min, which no runner meets:
    /// the same workout scored 0 % from a .zwo or text and 71 % from its FIT, where such
    /// targets are doubled, and nothing said why.
    static func slowZones(_ plan: Plan, file: String) -> ImportError? {
        let zones = plan.timeline().compactMap(\.zone)
        guard let fastest = zones.map(\.target).max(), zones.allSatisfy({ $0.high < slowestRunningCadence }) else { return nil }
        let example = Int(fastest.rounded())
        return ImportError(
            file: file,
            message: "every cadence target is below 120 steps/min, slower than running: if they count one foot (strides/min, as Garmin's do), double them (\(example) is \(example * 2) steps/min)")
    }

    /// What `bytes` hold, by content: FIT signature, an XML document, a JSON object, else text.
    public static func format(of bytes: [UInt8]) -> WorkoutFormat {
        if FITFileReader.looksLikeFIT(bytes) { return .fitWorkout }
        switch firstSignificantByte(bytes) {
        case UInt8(ascii: "<"): return .zwift
        case UInt8(ascii: "{"): return .planJSON
        // A JSON plan with comments before it, as editors allow: a plan all the same, refused
        // for the comments (intervals.icu text has no `//`).
        case UInt8(ascii: "/") where firstByteAfterComments(bytes) == UInt8(ascii: "{"): return .planJSON
        // JSON whose top level is no object (a list of steps, null): a plan that is wrong, said
        // with its JSON path, not intervals.icu text without steps.
        default: return (try? JSONParser.parse(Array(bytes.droppingUTF8ByteOrderMark))) != nil ? .planJSON : .intervalsICU
        }
    }

    /// The first byte that is neither white space nor in a `//` or `/* */` comment.
    static func firstByteAfterComments(_ bytes: [UInt8]) -> UInt8? {
        let text = bytes.droppingUTF8ByteOrderMark
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            let next = text.index(after: index) < text.endIndex ? text[text.index(after: index)] : nil
            if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                index = text.index(after: index)
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "/") {
                index = text[index...].firstIndex(of: 0x0A) ?? text.endIndex
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "*") {
                let rest = text[text.index(index, offsetBy: 2)...]
                guard let end = rest.indices.first(where: { rest[$0] == UInt8(ascii: "*") && rest.index(after: $0) < rest.endIndex && rest[rest.index(after: $0)] == UInt8(ascii: "/") }) else { return nil }
                index = text.index(end, offsetBy: 2)
            } else {
                return byte
            }
        }
        return nil
    }

    /// Reads a plan from any format it recognises.
    /// - Parameter file: the path as the user gave it (errors start with it; its name
    ///   names a plan whose file names none).
    public static func read(_ bytes: [UInt8], file: String, xml: XMLReading) throws(ImportError) -> ImportedPlan {
        // A text plan saved as UTF-16 (Notepad's "Unicode") read as the same text in UTF-8.
        let bytes = UTF16Text.utf8(bytes) ?? bytes
        // Said as such, not as intervals.icu text without steps (what an empty file would read as).
        if String(decoding: bytes, as: UTF8.self).allSatisfy({ $0.isWhitespace || $0 == "\u{FEFF}" }) {
            throw ImportError(file: file, message: "the file is empty: no plan or workout in it")
        }
        switch format(of: bytes) {
        case .planJSON:
            do {
                return ImportedPlan(plan: try PlanDecoder.decode(bytes, file: file), format: .planJSON)
            } catch {
                // A recording is JSON too, a line at a time: said for what it is.
                if RecordingFormat.begins(bytes) {
                    throw ImportError(
                        file: file,
                        message: "an IntervalPro recording, not a plan: replay it with `intervalpro replay \(file)` (`--plan PLAN` scores it against another plan)")
                }
                if firstSignificantByte(bytes) == UInt8(ascii: "/") {
                    throw ImportError(
                        file: file, place: error.location?.description,
                        message: "a JSON plan cannot hold comments (`//` or `/* */`): remove them, or keep notes in its \"description\"")
                }
                throw ImportError(file: file, place: error.location?.description, message: error.message)
            }
        case .intervalsICU:
            do {
                return try IntervalsICUWorkout.read(bytes, file: file)
            } catch {
                // A file named .json that is no JSON (an error page a download saved under the
                // name) was said to be intervals.icu text without steps. intervals.icu text under
                // that name is still read.
                guard file.lowercased().hasSuffix(".json") else { throw error }
                let firstLine = String(decoding: bytes.droppingUTF8ByteOrderMark, as: UTF8.self)
                    .split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }?.trimmingWhitespace ?? ""
                let shown = firstLine.count > 40 ? String(firstLine.prefix(40)) + "…" : firstLine
                throw ImportError(
                    file: file, message: "not JSON, though named .json: a plan starts with '{', and this file with \"\(shown)\"")
            }
        case .zwift:
            let root: MarkupElement
            do {
                root = try xml(bytes)
            } catch {
                throw ImportError(file: file, place: error.line.map { "\($0)" }, message: "invalid XML: \(error.message)")
            }
            return try ZwiftWorkout.read(root, file: file)
        case .fitWorkout:
            return try FITWorkout.read(bytes, file: file)
        }
    }

    /// The first character after whitespace (and a byte order mark) when it is ASCII; in
    /// UTF-16 too, as Windows tools write XML with its mark.
    static func firstSignificantByte(_ bytes: [UInt8]) -> UInt8? {
        let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        for (mark, low) in [([UInt8]([0xFF, 0xFE]), 0), ([0xFE, 0xFF], 1)] where bytes.starts(with: mark) {
            let units = stride(from: 2, to: bytes.count - 1, by: 2).lazy.map { (bytes[$0 + low], bytes[$0 + 1 - low]) }
            guard let (byte, high) = units.first(where: { $0.1 != 0 || !whitespace.contains($0.0) }) else { return nil }
            return high == 0 ? byte : nil
        }
        return bytes.droppingUTF8ByteOrderMark.first { !whitespace.contains($0) }
    }

    /// "intervals/5x1k.zwo" → "5x1k": the name of a plan whose file gives none.
    public static func stem(of file: String) -> String {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name.isEmpty || name == "-" ? "Imported plan" : name }
        return String(name[..<dot])
    }
}

/// The limits every imported plan meets: the plan format's own (`PlanDecoder`), so that an
/// imported plan always writes out as a plan file that reads back.
struct PlanLimits {
    var file: String

    func duration(_ seconds: Double, at place: String?) throws(ImportError) -> StepEnd {
        // Compared after rounding to the engine's microseconds, as PlanDecoder does.
        guard seconds.isFinite, seconds > 0, seconds <= PlanDecoder.maxStepSeconds, SessionTime.seconds(seconds) > .zero else {
            throw ImportError(file: file, place: place, message: "a step lasts \(JSONValue.format(seconds)) s; a step lasts more than 0 s and at most 24 hours")
        }
        return .time(.seconds(seconds))
    }

    /// To the millimetre, as the plan format keeps distances.
    func distance(_ metres: Double, at place: String?) throws(ImportError) -> StepEnd {
        let metres = metres.rounded(toPlaces: 3)
        guard metres.isFinite, metres > 0, metres <= PlanDecoder.maxDistanceMetres else {
            throw ImportError(file: file, place: place, message: "a step covers \(JSONValue.format(metres)) m; a distance is more than 0 m and at most 1000 km")
        }
        return .distance(metres)
    }

    func cadence(_ value: Double, at place: String?) throws(ImportError) -> Double {
        guard value.isFinite, PlanDecoder.cadenceRange.contains(value) else {
            throw ImportError(
                file: file, place: place,
                message: "cadence \(JSONValue.format(value)) steps/min is outside \(Int(PlanDecoder.cadenceRange.lowerBound))-\(Int(PlanDecoder.cadenceRange.upperBound))")
        }
        return value
    }

    /// A zone from its bounds. Bounds may reach past the plan format's cadence range as far
    /// as a centre and a tolerance could (a FIT workout written from "60 ± 5" says 55-65):
    /// such a zone is its centre with the step's own tolerance. Bounds in whole steps move the
    /// centre by up to half a step ("260 ± 2.5" is written 258-263): a centre that far past the
    /// range is its edge.
    func range(_ low: Double, _ high: Double, at place: String?) throws(ImportError) -> (spec: CadenceSpec, tolerance: Double?) {
        guard low.isFinite, high.isFinite, low <= high else {
            throw ImportError(file: file, place: place, message: "cadence range \(JSONValue.format(low))-\(JSONValue.format(high)) runs backwards")
        }
        if PlanDecoder.cadenceRange.contains(low) && PlanDecoder.cadenceRange.contains(high) {
            return (.range(low: low, high: high), nil)
        }
        let bounds = PlanDecoder.cadenceRange
        let rounding = 0.5
        var centre = (low + high) / 2
        if centre > bounds.upperBound, centre <= bounds.upperBound + rounding { centre = bounds.upperBound }
        if centre < bounds.lowerBound, centre >= bounds.lowerBound - rounding { centre = bounds.lowerBound }
        let halfWidth = (high - low) / 2
        guard PlanDecoder.cadenceRange.contains(centre), PlanDecoder.toleranceRange.contains(halfWidth) else {
            throw ImportError(
                file: file, place: place,
                message: "cadence range \(JSONValue.format(low))-\(JSONValue.format(high)) steps/min is outside \(Int(PlanDecoder.cadenceRange.lowerBound))-\(Int(PlanDecoder.cadenceRange.upperBound))")
        }
        return (.target(centre), halfWidth)
    }

    func repeatCount(_ count: Int, at place: String?) throws(ImportError) -> Int {
        try repeatCount(written: "\(count)", at: place)
    }

    /// A count as the file writes it, named so when it is past Int's range too.
    func repeatCount(written: Substring, at place: String?) throws(ImportError) -> Int {
        guard let count = Int(written), PlanDecoder.repeatRange.contains(count) else {
            throw ImportError(file: file, place: place, message: "repeat count \(written) is outside 1-100")
        }
        return count
    }

    /// The whole plan: at least one step, at most `PlanDecoder.maxTimelineSteps` unrolled.
    func plan(name: String, description: String? = nil, nodes: [PlanNode]) throws(ImportError) -> Plan {
        guard !nodes.isEmpty else { throw ImportError(file: file, message: "no steps found") }
        let count = Self.unrolled(nodes)
        guard count <= PlanDecoder.maxTimelineSteps else {
            throw ImportError(file: file, message: "the workout expands to \(count) steps, more than \(PlanDecoder.maxTimelineSteps)")
        }
        let trimmed = name.trimmingWhitespace
        return Plan(name: trimmed.isEmpty ? WorkoutImport.stem(of: file) : trimmed, description: description, nodes: nodes)
    }

    static func unrolled(_ nodes: [PlanNode]) -> Int {
        nodes.reduce(0) { total, node in
            switch node {
            case .step: total + 1
            case .group(let count, let children): min(total + count * unrolled(children), Int(Int32.max))
            }
        }
    }
}
