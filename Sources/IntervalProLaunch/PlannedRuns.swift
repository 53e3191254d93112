public import IntervalProCore
import IntervalProFormats
import IntervalProIO
public import IntervalProNetwork
public import IntervalProServices
import Logging

/// Planned workouts from the intervals.icu calendar, for `today`, `run today|icu:ID` and the
/// page's start view.
public enum PlannedRuns {
    /// What a plan argument names on the calendar, when it names nothing on disk.
    public enum Reference: Sendable {
        case today
        case event(String)

        public init?(_ argument: String) {
            guard !BundledFiles.exists(argument) else { return nil }
            if argument == "today" {
                self = .today
            } else if argument.hasPrefix("icu:"), argument.count > 4 {
                self = .event(String(argument.dropFirst(4)))
            } else {
                return nil
            }
        }
    }

    /// The runs planned on `date`.
    public static func runs(on date: String, context: ServiceContext) async throws -> [PlannedWorkout] {
        try await serviceCall { () throws(ServiceError) in
            let api = try context.intervalsICU()
            let response = try await context.caller(.intervalsICU).success(
                api.plannedWorkouts(on: date), doing: "reading the calendar")
            return try IntervalsICU.plannedWorkouts(response).filter(\.isRun)
        }
    }

    /// The runs planned on `date`, each read as a plan (or why it cannot be), as `today` and
    /// the page list them.
    public static func readable(on date: String, context: ServiceContext) async throws -> [PlannedRun] {
        try await runs(on: date, context: context).map(PlannedRun.init)
    }

    /// The plan of the referenced workout, and the plan-format text the history keeps.
    public static func plan(_ reference: Reference, context: ServiceContext) async throws -> (plan: Plan, text: String) {
        let workout: PlannedWorkout
        switch reference {
        case .today:
            let date = ServiceContext.localDate(secondsSince1970: context.now())
            let runs = try await runs(on: date, context: context)
            guard let first = runs.first else {
                throw LaunchError("no run planned in intervals.icu for today (\(date)); see `intervalpro today`", kind: .missingInput)
            }
            // Of several, the one that can be run: one without steps is no choice to make.
            let runnable = runs.filter { PlannedRun($0).plan != nil }
            if runs.count > 1, runnable.count != 1 {
                let list = runs.map { "\($0.reference) (\($0.name))" }.joined(separator: ", ")
                throw LaunchError("\(runs.count) runs are planned today: \(list); run one with `intervalpro run icu:ID`", kind: .usage)
            }
            workout = runs.count > 1 ? runnable[0] : first
        case .event(let id):
            workout = try await serviceCall { () throws(ServiceError) in
                let api = try context.intervalsICU()
                let response = try await context.caller(.intervalsICU).success(
                    api.plannedWorkout(id: id), doing: "reading event \(id)")
                return try IntervalsICU.plannedWorkout(response)
            }
            // A ride's 90rpm is no running cadence, and its FIT went up as a run.
            guard workout.isRun else {
                throw LaunchError(
                    "\(workout.reference) (\(workout.name)) is \(workout.type.isEmpty ? "no workout of a sport (a note?)" : "a \(workout.type) workout"), not a run: IntervalPro runs running workouts",
                    kind: .invalidData)
            }
        }
        let imported: ImportedPlan
        do {
            imported = try workout.plan()
        } catch {
            throw LaunchError(error.description, kind: .invalidData)
        }
        for warning in imported.warnings { logger.warning("\(warning)") }
        logger.notice("running \(workout.reference) \"\(workout.name)\" from intervals.icu")
        return (imported.plan, PlanWriter.json(imported.plan).serialized(pretty: true) + "\n")
    }
}

/// A planned workout as it would be run: its plan and steps, or why it cannot be read.
public struct PlannedRun: Sendable {
    public var workout: PlannedWorkout
    public var plan: Plan?
    public var timeline: [TimelineStep] = []
    /// Why the workout cannot be run (nil when `plan` is there).
    public var problem: String?

    public init(_ workout: PlannedWorkout) {
        self.workout = workout
        do throws(ImportError) {
            let plan = try workout.plan().plan
            self.plan = plan
            timeline = plan.timeline()
        } catch {
            problem = error.description
        }
    }
}
