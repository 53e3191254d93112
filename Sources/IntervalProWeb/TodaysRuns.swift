import IntervalProCore
import IntervalProFormats
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices

/// Today's planned runs from the intervals.icu calendar for the start page, as `intervalpro
/// today` lists them, each with its preview; and one of them read as a plan, as `run icu:ID`
/// reads it (`PlannedRuns`).
enum TodaysRuns {
    /// The account's context, or why there is none (no account is no error: nothing planned).
    static func context() -> ServiceContext? {
        guard let context = try? ServiceContext.standard(), context.accounts.services.contains(.intervalsICU) else { return nil }
        return context
    }

    /// `GET /api/today`: `{"date", "account", "runs": [{"id", "reference", "name", "steps",
    /// "duration_s", "preview", "problem"}], "error"}`.
    static func json() async -> String {
        guard let context = context() else {
            return JSONValue.object([("date", .string(WallClock.localDateToday())), ("account", .bool(false)), ("runs", .array([]))])
                .serialized(pretty: false)
        }
        let day = ServiceContext.localDate(secondsSince1970: context.now())
        let runs: [PlannedRun]
        do {
            runs = try await PlannedRuns.readable(on: day, context: context)
        } catch let failure as LaunchError {
            return JSONValue.object([
                ("date", .string(day)), ("account", .bool(true)), ("runs", .array([])), ("error", .string(failure.message)),
            ]).serialized(pretty: false)
        } catch {
            return JSONValue.object([("date", .string(day)), ("account", .bool(true)), ("runs", .array([])), ("error", .string("\(error)"))])
                .serialized(pretty: false)
        }
        let list: [JSONValue] = runs.map { run in
            var members: [(String, JSONValue)] = [
                ("id", .string(run.workout.id)), ("reference", .string(run.workout.reference)), ("name", .string(run.workout.name)),
            ]
            if let plan = run.plan {
                members += [
                    ("steps", .int(run.timeline.count)), ("duration_s", run.timeline.duration.map { .number($0.seconds) } ?? .null),
                    ("preview", PlanPreview.json(plan, run.timeline)), ("problem", .null),
                ]
            } else {
                members += [("steps", .null), ("duration_s", .null), ("preview", .null), ("problem", run.problem.map(JSONValue.string) ?? .null)]
            }
            return .object(members)
        }
        return JSONValue.object([("date", .string(day)), ("account", .bool(true)), ("runs", .array(list))]).serialized(pretty: false)
    }

    /// The planned run `event` as a plan, with the plan-format text the history keeps.
    static func plan(event: String) async throws -> (plan: Plan, text: String) {
        guard let context = context() else {
            throw LaunchError("no intervals.icu account: `intervalpro account add intervals.icu ...` adds one", kind: .refused)
        }
        return try await PlannedRuns.plan(.event(event), context: context)
    }
}
