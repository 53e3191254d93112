import IntervalProCore
@testable import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import Testing

/// `today` and the page read the calendar's workouts through `PlannedRun`; `TodayReport`
/// says what there is to run and how.
@Suite struct TodayReportTests {
    func workouts(_ events: String) throws -> [PlannedWorkout] {
        try IntervalsICU.plannedWorkouts(HTTPResponse(status: 200, body: Array(events.utf8)))
    }

    let runnable = """
        {"id": 41, "start_date_local": "2026-11-26T00:00:00", "name": "Cadence builder", "type": "Run",
         "description": "Warmup\\n- 5m 160-170rpm\\n\\nMain set 3x\\n- 1m 180rpm\\n- 1m 165rpm"}
        """
    let unreadable = """
        {"id": 42, "start_date_local": "2026-11-26T00:00:00", "name": "Easy", "type": "Run", "description": "just run"}
        """

    @Test func aWorkoutIsReadAsAPlanOrSaysWhyNot() throws {
        let runs = try workouts("[\(runnable), \(unreadable)]").map(PlannedRun.init)
        #expect(runs.count == 2)
        #expect(runs[0].plan?.name == "Cadence builder")
        #expect(runs[0].timeline.count == 7)
        #expect(runs[0].timeline.duration == .seconds(11 * 60))
        #expect(runs[0].problem == nil)
        #expect(runs[1].plan == nil)
        #expect(runs[1].timeline.isEmpty)
        #expect(runs[1].problem?.isEmpty == false)
    }

    @Test func oneRunnableRunTodayIsRunAsToday() throws {
        let runs = try workouts("[\(runnable)]").map(PlannedRun.init)
        let today = TodayReport(day: "2026-11-26", isToday: true, runs: runs, readiness: nil, wellness: nil)
        #expect(
            today.lines == [
                "Planned in intervals.icu for 2026-11-26:", "  icu:41  Cadence builder  (7 steps, 11:00)",
                "Run it with: intervalpro run today",
            ])
        let later = TodayReport(day: "2026-11-27", isToday: false, runs: runs, readiness: nil, wellness: nil)
        #expect(later.lines.last == "Run it with: intervalpro run icu:41")
    }

    @Test func aRunThatCannotBeReadSaysWhyAndNamesNone() throws {
        let runs = try workouts("[\(runnable), \(unreadable)]").map(PlannedRun.init)
        let lines = TodayReport(day: "2026-11-26", isToday: true, runs: runs, readiness: nil, wellness: nil).lines
        #expect(lines.contains { $0.hasPrefix("      cannot run it: ") })
        #expect(lines.last == "Run one with: intervalpro run icu:ID")
        // The one planned run cannot be read: no command is offered ("Run one with" was).
        let alone = TodayReport(
            day: "2026-11-26", isToday: true, runs: try workouts("[\(unreadable)]").map(PlannedRun.init), readiness: nil, wellness: nil)
        #expect(alone.lines.last?.hasPrefix("      cannot run it: ") == true, "\(alone.lines)")
        #expect(
            TodayReport(day: "2026-11-26", isToday: true, runs: [], readiness: nil, wellness: nil).lines
                == ["No run planned in intervals.icu for 2026-11-26."])
    }

    @Test func theJSONListsStepsOnlyForReadableRuns() throws {
        let runs = try workouts("[\(runnable), \(unreadable)]").map(PlannedRun.init)
        let json = TodayReport(day: "2026-11-26", isToday: true, runs: runs, readiness: nil, wellness: nil).json.serialized()
        #expect(json.contains(#""steps":7"#))
        #expect(json.contains(#""duration_s":660"#))
        #expect(json.contains(#""readiness":null"#))
    }
}
