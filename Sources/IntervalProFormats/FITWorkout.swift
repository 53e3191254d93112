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
    /// file_id's product_name in a workout IntervalPro wrote.
    static let productName = ProgramName.creator
    typealias Message = FITMessageNumber

    typealias Field = FITFieldNumber
    typealias Step = FITFieldNumber.WorkoutStep

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


    // MARK: - Reading

    public static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedPlan {
        let records: [FITRecord]
        do {
            records = try FITFileReader.read(bytes)
        } catch {
            throw ImportError(file: file, place: "byte \(error.offset)", message: error.message)
        }
        return try read(records, file: file)
    }

    static func place(_ record: FITRecord, _ name: String) -> String {
        // A step by its message_index, as FIT tools number steps, and where it is in the file.
        if name == "workout_step", let index = record.integer(Field.messageIndex) {
            return "workout_step \(index) (message \(record.index))"
        }
        return "message \(record.index) (\(name))"
    }

    static func read(_ records: [FITRecord], file: String) throws(ImportError) -> ImportedPlan {
        let limits = PlanLimits(file: file)
        var warnings: [ImportError] = []
        if let fileID = records.first(where: { $0.global == Message.fileID }), let type = fileID.integer(Field.FileID.type),
            type != FITFileType.workout
        {
            if type == FITFileType.activity {
                throw ImportError(
                    file: file,
                    message: "a FIT activity (a recorded run), not a workout: score it with `intervalpro replay \(file) --plan PLAN`")
            }
            throw ImportError(file: file, place: place(fileID, "file_id"), message: "FIT file type \(type), not a workout (5)")
        }
        let workout = records.first { $0.global == Message.workout }
        let sport = workout?.integer(Field.Workout.sport)
        // Generic (what a tool writes when it does not say) may be a run, as for activities.
        let running = sport.map { $0 == FITSport.running || $0 == FITSport.generic } ?? true
        // A ride's 90 rpm is no running cadence: read as written, as a .zwo of another sport is, and said.
        if let sport, sport != FITSport.running, sport != FITSport.generic, let workout {
            warnings.append(
                ImportError(
                    file: file, place: place(workout, "workout"),
                    // A ride's cadence is in rpm; a walk's is steps/min already ("rpm" misled there).
                    message: sport == FITSport.cycling
                        ? "a cycling workout, not a run: its cadence (rpm) is read as steps/min"
                        : "a \(FITSport.name(sport)) workout, not a run: its cadence targets are read as steps/min, as written"))
        }
        let steps = records.filter { $0.global == Message.workoutStep }.enumerated()
            .map { ($0.element.integer(Field.messageIndex) ?? Int64($0.offset), $0.element) }
            .sorted { $0.0 < $1.0 }
        guard !steps.isEmpty else { throw ImportError(file: file, message: "no workout_step messages: not a FIT workout") }

        // Garmin Connect's run workouts may carry cadence per foot; decide once for the file.
        // IntervalPro's own export (named in file_id) writes steps/min: a walking plan's 100
        // came back as 200.
        let ownExport = records.first { $0.global == Message.fileID }?.string(Field.FileID.productName) == Self.productName
        let highs = steps.compactMap { _, record in cadenceTarget(record)?.high }
        let perFoot =
            !ownExport && running && !highs.isEmpty && highs.allSatisfy { $0 > 0 && Double($0) < WorkoutImport.slowestRunningCadence }
        if perFoot {
            warnings.append(ImportError(file: file, message: "cadence targets are all below 120: read as per foot and doubled to steps/min"))
        }

        /// Each built node with the message_index of its first step, so a repeat finds its span.
        var built: [(first: Int64, node: PlanNode)] = []
        for (index, record) in steps {
            let where_ = place(record, "workout_step")
            let durationType = record.integer(Step.durationType) ?? Duration.open
            let value = record.integer(Step.durationValue)
            if durationType == Duration.repeatUntilStepsComplete {
                guard let from = value, from <= index else {
                    throw ImportError(file: file, place: where_, message: "a repeat step names no earlier step to repeat from")
                }
                let count = Int(clamping: record.integer(Step.targetValue) ?? 1)
                let repeats = try limits.repeatCount(count, at: where_)
                let span = built.filter { $0.first >= from }
                guard !span.isEmpty else {
                    warnings.append(ImportError(file: file, place: where_, message: "a repeat of no steps was left out"))
                    continue
                }
                built.removeLast(span.count)
                built.append((span[0].first, .group(repeat: repeats, nodes: span.map(\.node))))
                continue
            }
            let end: StepEnd
            switch durationType {
            case Duration.time where value == 0, Duration.distance where value == 0:
                // A step of nothing, as a .zwo's is: left out, said (it refused the whole workout).
                warnings.append(ImportError(file: file, place: where_, message: "a step that lasts 0 was left out"))
                continue
            case Duration.time:
                guard let value else { throw ImportError(file: file, place: where_, message: "a timed step with no duration") }
                end = try limits.duration(Double(value) / 1000, at: where_)
            case Duration.distance:
                guard let value else { throw ImportError(file: file, place: where_, message: "a distance step with no distance") }
                end = try limits.distance(Double(value) / 100, at: where_)
            case Duration.open:
                end = .open
            case 7...13, 17, 18, 27:
                throw ImportError(file: file, place: where_, message: "a repeat until a time, distance, calorie, heart-rate, power or TSS goal (duration type \(durationType)) cannot run here; only counted repeats can")
            default:
                warnings.append(ImportError(file: file, place: where_, message: "a step that ends on a heart-rate, power or calorie goal (duration type \(durationType)) is open here: it ends on \"next\""))
                end = .open
            }
            var cadence: CadenceSpec?
            var tolerance: Double?
            if let target = cadenceTarget(record) {
                if target.zone == 0, let low = target.low, let high = target.high {
                    let scale = perFoot ? 2.0 : 1.0
                    (cadence, tolerance) = try limits.range(Double(low) * scale, Double(high) * scale, at: where_)
                } else {
                    warnings.append(ImportError(file: file, place: where_, message: "a cadence zone number without custom low/high: no zone"))
                }
            }
            let kind = record.integer(Step.intensity).flatMap(Intensity.init(rawValue:))?.kind ?? .work
            let label = record.text(Step.name)
            if let label, label.mended { warnings.append(notUTF8(label.string, file: file, place: where_, what: "the step's name")) }
            let step = PlanStep(kind: kind, end: .fixed(end), cadence: cadence.map { .fixed($0) }, tolerance: tolerance, label: label?.string)
            built.append((index, .step(step)))
        }
        // What is left out is said, as for the other formats: a watch's pace, heart-rate or
        // power targets were dropped without a word.
        let otherTargets = steps.filter { _, record in
            guard let type = record.integer(Step.targetType) else { return false }
            return type != Target.open && type != Target.cadence
        }.count
        if otherTargets > 0 {
            warnings.append(
                ImportError(
                    file: file,
                    message: "\(otherTargets) step\(otherTargets == 1 ? " has a pace, heart-rate or power target" : "s have pace, heart-rate or power targets"), which are not scored here (cadence is)"))
        }
        let name = workout?.text(Field.Workout.workoutName)
        if let name, name.mended { warnings.insert(notUTF8(name.string, file: file, place: nil, what: "the workout's name"), at: 0) }
        let plan = try limits.plan(name: name?.string ?? "", nodes: built.map(\.node))
        return ImportedPlan(plan: plan, format: .fitWorkout, warnings: warnings)
    }

    /// A name with bytes that are not UTF-8, which FIT's strings are: kept, those shown as U+FFFD.
    static func notUTF8(_ text: String, file: String, place: String?, what: String) -> ImportError {
        ImportError(file: file, place: place, message: "\(what) is not all UTF-8, as FIT text is (another encoding?): read as \"\(text)\"")
    }

    /// A step's cadence target: its target, or its secondary one (Garmin Connect puts cadence
    /// there beside a pace target). `zone` is the target value (0: custom low and high).
    static func cadenceTarget(_ record: FITRecord) -> (zone: Int64, low: Int64?, high: Int64?)? {
        if record.integer(Step.targetType) == Target.cadence {
            return (record.integer(Step.targetValue) ?? 0, record.integer(Step.customTargetValueLow), record.integer(Step.customTargetValueHigh))
        }
        if record.integer(Step.secondaryTargetType) == Target.cadence {
            return (
                record.integer(Step.secondaryTargetValue) ?? 0, record.integer(Step.secondaryCustomTargetValueLow),
                record.integer(Step.secondaryCustomTargetValueHigh)
            )
        }
        return nil
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
                                    FITField(Field.messageIndex, .uint16, .int(steps.count)),
                                    FITField(Step.durationType, .enumeration, .int(Int(Duration.repeatUntilStepsComplete))),
                                    FITField(Step.durationValue, .uint32, .int(first)),
                                    FITField(Step.targetType, .enumeration, .int(Int(Target.open))),
                                    FITField(Step.targetValue, .uint32, .int(count)),
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
                    FITField(Field.FileID.type, .enumeration, .int(Int(FITFileType.workout))),
                    FITField(Field.FileID.manufacturer, .uint16, .int(Int(FITManufacturer.development))),
                    FITField(Field.FileID.product, .uint16, .int(1)),
                    FITField(Field.FileID.timeCreated, .uint32, .int(FITTime.dateTime(unixSeconds: createdUnixSeconds))),
                    FITField(Field.FileID.productName, .string, .string(Self.productName)),
                ]))
        writer.write(
            FITMessage(
                Message.workout,
                [
                    FITField(Field.Workout.sport, .enumeration, .int(Int(FITSport.running))),
                    FITField(Field.Workout.numValidSteps, .uint16, .int(steps.count)),
                    FITField(Field.Workout.workoutName, .string, .string(fitString(plan.name))),
                ]))
        for step in steps { writer.write(step) }
        return writer.fileBytes()
    }

    private static func message(_ step: PlanStep, tolerance: Double, index: Int) -> FITMessage {
        var fields = [FITField(Field.messageIndex, .uint16, .int(index))]
        if let label = step.label.map(fitString), !label.isEmpty {
            fields.append(FITField(Step.name, .string, .string(label)))
        }
        guard case .fixed(let end) = step.end else { preconditionFailure("per-repetition values are fixed before writing") }
        switch end {
        case .time(let length):
            fields.append(FITField(Step.durationType, .enumeration, .int(Int(Duration.time))))
            fields.append(FITField(Step.durationValue, .uint32, .int(Int((length.seconds * 1000).rounded()))))
        case .distance(let metres):
            fields.append(FITField(Step.durationType, .enumeration, .int(Int(Duration.distance))))
            fields.append(FITField(Step.durationValue, .uint32, .int(Int((metres * 100).rounded()))))
        case .open:
            fields.append(FITField(Step.durationType, .enumeration, .int(Int(Duration.open))))
        }
        if case .fixed(let spec)? = step.cadence {
            let (low, high): (Double, Double) =
                switch spec {
                case .target(let target): (target - tolerance, target + tolerance)
                case .range(let low, let high): (low, high)
                }
            fields.append(FITField(Step.targetType, .enumeration, .int(Int(Target.cadence))))
            fields.append(FITField(Step.targetValue, .uint32, .int(0)))
            fields.append(FITField(Step.customTargetValueLow, .uint32, .int(Int(low.rounded()))))
            fields.append(FITField(Step.customTargetValueHigh, .uint32, .int(Int(high.rounded()))))
        } else {
            fields.append(FITField(Step.targetType, .enumeration, .int(Int(Target.open))))
        }
        fields.append(FITField(Step.intensity, .enumeration, .int(Int(Intensity(step.kind).rawValue))))
        return FITMessage(Message.workoutStep, fields)
    }

    /// The plan's zones a FIT workout holds rounded, its targets being whole steps/min: each
    /// as "165.3-175.3 as 165-175", once, in order. They were rounded without a word, and
    /// the export read back with zones other than the plan's.
    public static func zonesRounded(_ plan: Plan) -> [String] {
        var said: [String] = []
        for case let zone? in plan.timeline().map(\.zone) where zone.low != zone.low.rounded() || zone.high != zone.high.rounded() {
            let text =
                "\(JSONValue.format(zone.low))-\(JSONValue.format(zone.high)) as \(Int(zone.low.rounded()))-\(Int(zone.high.rounded()))"
            if !said.contains(text) { said.append(text) }
        }
        return said
    }

    /// The plan's name and step labels a FIT workout cannot hold whole (over 200 bytes): cut
    /// without a word, they came back another plan's name when imported again.
    public static func textsCut(_ plan: Plan) -> [String] {
        ([plan.name] + plan.timeline().compactMap(\.label)).filter { fitString($0) != String($0.filter { $0 != "\0" }) }
    }

    /// FIT string fields end at a NUL and hold at most 255 bytes with it: NULs are left out
    /// and the text is cut at a character boundary; a first character of over 200 bytes (a
    /// letter under a stack of combining marks) at a scalar's, or the name was left out whole.
    static func fitString(_ text: String) -> String {
        var kept = ""
        var bytes = 0
        for character in text where character != "\0" {
            bytes += character.utf8.count
            if bytes > 200 { break }
            kept.append(character)
        }
        if kept.isEmpty, let first = text.first(where: { $0 != "\0" }) {
            var scalars = String.UnicodeScalarView()
            var used = 0
            for scalar in first.unicodeScalars {
                used += UTF8.width(scalar)
                if used > 200 { break }
                scalars.append(scalar)
            }
            kept = String(scalars)
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
