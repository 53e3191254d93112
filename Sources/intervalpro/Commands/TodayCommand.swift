import ArgumentParser
import IntervalProCore
import IntervalProFormats
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices

struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "List today's planned runs from the intervals.icu calendar.",
        discussion: "Run one with `intervalpro run icu:ID`, or `intervalpro run today` when there is one."
    )

    @Option(help: ArgumentHelp("Another day (YYYY-MM-DD).", valueName: "date"))
    var date: String?

    @Flag(help: "Print the list as JSON.")
    var json = false

    @OptionGroup var options: ServiceOptions

    func validate() throws {
        if let date {
            let parts = date.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.map(\.count) == [4, 2, 2], parts.allSatisfy({ $0.allSatisfy(\.isNumber) }) else {
                throw ValidationError("--date must be YYYY-MM-DD, like 2026-11-24")
            }
        }
    }

    func run() async throws {
        try await reportingFailures {
            let context = try options.context()
            let day = date ?? ServiceContext.localDate(secondsSince1970: context.now())
            let runs = try await PlannedRuns.runs(on: day, context: context)
            let readiness = ReadinessToday.read(StoreLocation(), today: day)
            // The day's wellness as a watch, ring or app gave it to intervals.icu, beside the strap's.
            let wellness = await ReadinessReport.wellness(on: day, context: context)
            let rows = runs.map { workout -> (workout: PlannedWorkout, plan: Plan?, problem: String?) in
                do throws(ImportError) {
                    return (workout, try workout.plan().plan, nil)
                } catch {
                    return (workout, nil, error.description)
                }
            }
            if json {
                let list = rows.map { row in
                    var members: [(String, JSONValue)] = [
                        ("id", .string(row.workout.id)), ("reference", .string(row.workout.reference)),
                        ("date", .string(row.workout.date)), ("name", .string(row.workout.name)),
                        ("type", .string(row.workout.type)),
                    ]
                    if let plan = row.plan {
                        let steps = plan.timeline()
                        members.append(("steps", .number(Double(steps.count))))
                        members.append(("duration_s", steps.duration.map { .number($0.seconds) } ?? .null))
                    }
                    members.append(("problem", row.problem.map(JSONValue.string) ?? .null))
                    return JSONValue.object(members)
                }
                let readinessJSON = readiness.map(ReadinessJSON.today) ?? .null
                print(
                    JSONValue.object([
                        ("date", .string(day)), ("runs", .array(list)), ("readiness", readinessJSON),
                        ("intervals_icu_wellness", ReadinessReport.json(wellness)),
                    ]).serialized(pretty: true))
                return
            }
            if let readiness { print(readiness.line) }
            if let other = ReadinessReport.text(wellness) { print("intervals.icu wellness (a watch, ring or app): \(other)") }
            guard !rows.isEmpty else {
                print("No run planned in intervals.icu for \(day).")
                return
            }
            print("Planned in intervals.icu for \(day):")
            for row in rows {
                var line = "  \(row.workout.reference)  \(row.workout.name)"
                if let plan = row.plan {
                    let steps = plan.timeline()
                    line += "  (\(steps.count) step\(steps.count == 1 ? "" : "s")"
                    if let length = steps.duration { line += ", \(formatClock(length.seconds))" }
                    line += ")"
                }
                print(line)
                if let problem = row.problem { print("      cannot run it: \(problem)") }
            }
            let isToday = day == ServiceContext.localDate(secondsSince1970: context.now())
            if rows.count == 1, rows[0].plan != nil {
                print("Run it with: intervalpro run \(isToday ? "today" : rows[0].workout.reference)")
            } else {
                print("Run one with: intervalpro run icu:ID")
            }
        }
    }
}
