public import IntervalProCore
import IntervalProFIT

/// Garmin's FIT workout files (file_id type 5, one workout message, workout_step messages):
/// what Garmin Connect sends to a watch and what the watch runs.
///
/// Steps end by time, distance or the lap button (open); a repeat step
/// (repeat_until_steps_cmplt) repeats the steps from the one it names. A cadence target with
/// custom low and high is the step's zone, in steps/min; a running workout whose cadence
/// targets are all below 120 counts one foot (as Garmin's activity records do) and is
/// doubled, with a warning. Intensity gives the kind.
public enum FITWorkout {
    typealias Message = FITMessageNumber

    enum StepField {
        static let name: UInt8 = 0
        static let durationType: UInt8 = 1
        static let durationValue: UInt8 = 2
        static let targetType: UInt8 = 3
        static let targetValue: UInt8 = 4
        static let customLow: UInt8 = 5
        static let customHigh: UInt8 = 6
        static let intensity: UInt8 = 7
        static let messageIndex: UInt8 = 254
    }

    enum Duration {
        static let time: Int64 = 0  // milliseconds
        static let distance: Int64 = 1  // centimetres
        static let open: Int64 = 5
        static let repeatUntilStepsComplete: Int64 = 6
    }

    enum Target {
        static let open: Int64 = 2
        static let cadence: Int64 = 3
    }

    enum Intensity: Int64 {
        case active = 0, rest, warmup, cooldown, recovery, interval, other

        var kind: StepKind {
            switch self {
            case .active, .interval, .other: .work
            case .rest, .recovery: .rest
            case .warmup: .warmup
            case .cooldown: .cooldown
            }
        }

        init(_ kind: StepKind) {
            switch kind {
            case .work: self = .active
            case .rest: self = .rest
            case .warmup: self = .warmup
            case .cooldown: self = .cooldown
            }
        }
    }

    static let fileTypeActivity: Int64 = 4
    static let fileTypeWorkout: Int64 = 5
    static let sportRunning: Int64 = 1
    static let manufacturerDevelopment = 255

    // MARK: - Reading

    public static func read(_ bytes: [UInt8], file: String) throws(ImportProblem) -> ImportedPlan {
        let records: [FITRecord]
        do {
            records = try FITFileReader.read(bytes)
        } catch {
            throw ImportProblem(file: file, place: "byte \(error.offset)", message: error.message)
        }
        return try read(records, file: file)
    }

    static func place(_ record: FITRecord, _ name: String) -> String { "message \(record.index) (\(name))" }

    static func read(_ records: [FITRecord], file: String) throws(ImportProblem) -> ImportedPlan {
        let limits = PlanLimits(file: file)
        var warnings: [ImportProblem] = []
        if let fileID = records.first(where: { $0.global == Message.fileID }), let type = fileID.integer(0),
            type != fileTypeWorkout
        {
            if type == fileTypeActivity {
                throw ImportProblem(
                    file: file,
                    message: "a FIT activity (a recorded run), not a workout: score it with `intervalpro replay \(file) --plan PLAN`")
            }
            throw ImportProblem(file: file, place: place(fileID, "file_id"), message: "FIT file type \(type), not a workout (5)")
        }
        let workout = records.first { $0.global == Message.workout }
        let running = workout?.integer(4).map { $0 == sportRunning } ?? true
        let steps = records.filter { $0.global == Message.workoutStep }.enumerated()
            .map { ($0.element.integer(StepField.messageIndex) ?? Int64($0.offset), $0.element) }
            .sorted { $0.0 < $1.0 }
        guard !steps.isEmpty else { throw ImportProblem(file: file, message: "no workout_step messages: not a FIT workout") }

        // Garmin Connect's run workouts may carry cadence per foot; decide once for the file.
        let highs = steps.compactMap { _, record in
            record.integer(StepField.targetType) == Target.cadence ? record.integer(StepField.customHigh) : nil
        }
        let perFoot = running && !highs.isEmpty && highs.allSatisfy { $0 > 0 && $0 < 120 }
        if perFoot {
            warnings.append(ImportProblem(file: file, message: "cadence targets are all below 120: read as per foot and doubled to steps/min"))
        }

        /// Each built node with the message_index of its first step, so a repeat finds its span.
        var built: [(first: Int64, node: PlanNode)] = []
        for (index, record) in steps {
            let where_ = place(record, "workout_step")
            let durationType = record.integer(StepField.durationType) ?? Duration.open
            let value = record.integer(StepField.durationValue)
            if durationType == Duration.repeatUntilStepsComplete {
                guard let from = value, from <= index else {
                    throw ImportProblem(file: file, place: where_, message: "a repeat step names no earlier step to repeat from")
                }
                let count = Int(clamping: record.integer(StepField.targetValue) ?? 1)
                let repeats = try limits.repeatCount(count, at: where_)
                let span = built.filter { $0.first >= from }
                guard !span.isEmpty else {
                    warnings.append(ImportProblem(file: file, place: where_, message: "a repeat of no steps was left out"))
                    continue
                }
                built.removeLast(span.count)
                built.append((span[0].first, .group(repeat: repeats, nodes: span.map(\.node))))
                continue
            }
            let end: StepEnd
            switch durationType {
            case Duration.time:
                guard let value else { throw ImportProblem(file: file, place: where_, message: "a timed step with no duration") }
                end = try limits.duration(Double(value) / 1000, at: where_)
            case Duration.distance:
                guard let value else { throw ImportProblem(file: file, place: where_, message: "a distance step with no distance") }
                end = try limits.distance(Double(value) / 100, at: where_)
            case Duration.open:
                end = .open
            case 7...13:
                throw ImportProblem(file: file, place: where_, message: "a repeat until a time, distance, calorie, heart-rate or power goal (duration type \(durationType)) cannot run here; only counted repeats can")
            default:
                warnings.append(ImportProblem(file: file, place: where_, message: "a step that ends on a heart-rate, power or calorie goal (duration type \(durationType)) is open here: it ends on \"next\""))
                end = .open
            }
            var cadence: CadenceSpec?
            var tolerance: Double?
            if record.integer(StepField.targetType) == Target.cadence {
                let zone = record.integer(StepField.targetValue) ?? 0
                if zone == 0, let low = record.integer(StepField.customLow), let high = record.integer(StepField.customHigh) {
                    let scale = perFoot ? 2.0 : 1.0
                    (cadence, tolerance) = try limits.range(Double(low) * scale, Double(high) * scale, at: where_)
                } else {
                    warnings.append(ImportProblem(file: file, place: where_, message: "a cadence zone number without custom low/high: no zone"))
                }
            }
            let kind = record.integer(StepField.intensity).flatMap(Intensity.init(rawValue:))?.kind ?? .work
            let label = record.string(StepField.name)
            let step = PlanStep(kind: kind, end: .fixed(end), cadence: cadence.map { .fixed($0) }, tolerance: tolerance, label: label)
            built.append((index, .step(step)))
        }
        let plan = try limits.plan(name: workout?.string(8) ?? "", nodes: built.map(\.node))
        return ImportedPlan(plan: plan, format: .fitWorkout, warnings: warnings)
    }

    // MARK: - Writing

    /// The plan as a FIT workout for a watch: one workout_step per step (repeat groups as
    /// repeat steps; a group whose values change per repetition is written out in full),
    /// cadence zones as custom low/high targets in steps/min, rounded to whole steps.
    /// - Parameter createdUnixSeconds: when the file was made (file_id.time_created).
    public static func encode(_ plan: Plan, createdUnixSeconds: Int64) -> [UInt8] {
        var steps: [FITMessage] = []
        func emit(_ nodes: [PlanNode]) {
            for node in nodes {
                switch node {
                case .step(let step):
                    steps.append(message(step, tolerance: step.tolerance ?? plan.tolerance, index: steps.count))
                case .group(let count, let children):
                    if children.contains(where: \.variesPerRepetition) {
                        for repetition in 0..<count { emit(children.map { $0.fixed(repetition: repetition) }) }
                    } else {
                        let first = steps.count
                        emit(children)
                        steps.append(
                            FITMessage(
                                Message.workoutStep,
                                [
                                    FITField(StepField.messageIndex, .uint16, .int(steps.count)),
                                    FITField(StepField.durationType, .enumeration, .int(Int(Duration.repeatUntilStepsComplete))),
                                    FITField(StepField.durationValue, .uint32, .int(first)),
                                    FITField(StepField.targetType, .enumeration, .int(Int(Target.open))),
                                    FITField(StepField.targetValue, .uint32, .int(count)),
                                ]))
                    }
                }
            }
        }
        emit(plan.nodes)

        var writer = FITFileWriter()
        writer.write(
            FITMessage(
                Message.fileID,
                [
                    FITField(0, .enumeration, .int(Int(fileTypeWorkout))),
                    FITField(1, .uint16, .int(manufacturerDevelopment)),
                    FITField(2, .uint16, .int(1)),  // product
                    FITField(4, .uint32, .int(Int(createdUnixSeconds - FITTime.epochOffset))),
                ]))
        writer.write(
            FITMessage(
                Message.workout,
                [
                    FITField(4, .enumeration, .int(Int(sportRunning))),
                    FITField(6, .uint16, .int(steps.count)),
                    FITField(8, .string, .string(fitString(plan.name))),
                ]))
        for step in steps { writer.write(step) }
        return writer.fileBytes()
    }

    private static func message(_ step: PlanStep, tolerance: Double, index: Int) -> FITMessage {
        var fields = [FITField(StepField.messageIndex, .uint16, .int(index))]
        if let label = step.label.map(fitString), !label.isEmpty {
            fields.append(FITField(StepField.name, .string, .string(label)))
        }
        guard case .fixed(let end) = step.end else { preconditionFailure("per-repetition values are fixed before writing") }
        switch end {
        case .time(let length):
            fields.append(FITField(StepField.durationType, .enumeration, .int(Int(Duration.time))))
            fields.append(FITField(StepField.durationValue, .uint32, .int(Int((length.seconds * 1000).rounded()))))
        case .distance(let metres):
            fields.append(FITField(StepField.durationType, .enumeration, .int(Int(Duration.distance))))
            fields.append(FITField(StepField.durationValue, .uint32, .int(Int((metres * 100).rounded()))))
        case .open:
            fields.append(FITField(StepField.durationType, .enumeration, .int(Int(Duration.open))))
        }
        if case .fixed(let spec)? = step.cadence {
            let (low, high): (Double, Double) =
                switch spec {
                case .target(let target): (target - tolerance, target + tolerance)
                case .range(let low, let high): (low, high)
                }
            fields.append(FITField(StepField.targetType, .enumeration, .int(Int(Target.cadence))))
            fields.append(FITField(StepField.targetValue, .uint32, .int(0)))
            fields.append(FITField(StepField.customLow, .uint32, .int(Int(low.rounded()))))
            fields.append(FITField(StepField.customHigh, .uint32, .int(Int(high.rounded()))))
        } else {
            fields.append(FITField(StepField.targetType, .enumeration, .int(Int(Target.open))))
        }
        fields.append(FITField(StepField.intensity, .enumeration, .int(Int(Intensity(step.kind).rawValue))))
        return FITMessage(Message.workoutStep, fields)
    }

    /// FIT string fields end at a NUL and hold at most 255 bytes with it: NULs are left out
    /// and the text is cut at a character boundary.
    static func fitString(_ text: String) -> String {
        var kept = ""
        var bytes = 0
        for character in text where character != "\0" {
            bytes += character.utf8.count
            if bytes > 200 { break }
            kept.append(character)
        }
        return kept
    }
}

extension PlanNode {
    var variesPerRepetition: Bool {
        guard case .step(let step) = self else { return false }
        if case .perRepetition = step.end { return true }
        if case .perRepetition? = step.cadence { return true }
        return false
    }

    /// The node with its per-repetition values taken for one repetition (0-based) of its group.
    func fixed(repetition: Int) -> PlanNode {
        guard case .step(var step) = self else { return self }
        if case .perRepetition(let ends) = step.end { step.end = .fixed(ends[repetition]) }
        if case .perRepetition(let specs)? = step.cadence { step.cadence = .fixed(specs[repetition]) }
        return .step(step)
    }
}
