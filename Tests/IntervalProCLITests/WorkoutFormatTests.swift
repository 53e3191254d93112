import Foundation
import Testing

/// Workouts from intervals.icu, Zwift and Garmin at the command line: imported to a plan,
/// run directly, sent to the watch, and a watch's run scored.
@Suite struct WorkoutFormatTests {
    static let zwo = """
        <workout_file><name>Quick feet</name><sportType>run</sportType><workout>
        <Warmup Duration="120" Cadence="165"/>
        <IntervalsT Repeat="2" OnDuration="30" OffDuration="30" Cadence="185" CadenceResting="165"/>
        </workout></workout_file>
        """

    @Test("plan import writes the plan beside the workout, prints the timeline and never overwrites unasked")
    func importWritesAPlan() throws {
        let scratch = try ScratchDirectory()
        let workout = try scratch.write("quick.zwo", Self.zwo)
        let first = try intervalpro("plan", "import", workout)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Zwift workout (.zwo)") && first.stdout.contains("Quick feet: 5 steps"))
        let written = scratch.path("quick.json")
        let check = try intervalpro("plan", "check", written, "--json")
        #expect(check.status == 0, "\(check.stderr)")
        let steps = try #require(jsonObject(check.stdoutData)?["steps"] as? [[String: Any]])
        #expect(steps.map { number($0["target_spm"]) } == [165, 185, 165, 185, 165])

        let again = try intervalpro("plan", "import", workout)
        #expect(again.status == 64 && again.stderr.contains("--force"))
        #expect(try intervalpro("plan", "import", workout, "--force").status == 0)
    }

    /// From standard input it wrote "-.json" in the current folder, a plan named "-"; named
    /// /dev/stdin, "/dev/stdin.json" into /dev (as root).
    @Test("plan import of standard input writes the plan to standard output, nothing beside it", arguments: ["-", "/dev/stdin"])
    func importFromStandardInput(name: String) throws {
        let scratch = try ScratchDirectory()
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data("- 1m 170rpm\n".utf8))
        try pipe.fileHandleForWriting.close()
        let result = try RunningCommand(["plan", "import", name], in: scratch.url, stdin: pipe.fileHandleForReading).finish()
        #expect(result.status == 0, "\(result.stderr)")
        let plan = try #require(jsonObject(result.stdoutData))
        #expect(plan["name"] as? String == (name == "-" ? "Imported plan" : "stdin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/dev/stdin.json"))
    }

    @Test("run takes a workout file directly and keeps the imported plan with the session")
    func runTakesAWorkout() throws {
        let scratch = try ScratchDirectory()
        let workout = try scratch.write("easy.txt", "Warmup\n- 2m 160rpm\n\n3x\n- 1m 180rpm\n- 1m 165rpm\n")
        let data = ["XDG_DATA_HOME": scratch.path("data")]
        let run = try intervalpro("run", workout, "--simulate", "--fast", "--json", environment: data)
        #expect(run.status == 0, "\(run.stderr)")
        #expect((jsonObject(run.stdoutData)?["steps"] as? [Any])?.count == 7)
        // The history keeps the imported plan as a plan file: the stored session loads (its
        // plan decodes) without the workout file.
        let show = try intervalpro("show", "last", "--json", environment: data)
        #expect(show.status == 0, "\(show.stderr)")
        let stored = try #require(jsonObject(show.stdoutData))
        #expect(stored["plan"] as? String == "easy")
        let steps = try #require(stored["steps"] as? [[String: Any]])
        #expect(steps.compactMap { $0["repetition"] as? String }.last == "3/3")
    }

    @Test("plan export writes a FIT workout that runs as the plan it came from")
    func exportToFIT() throws {
        let scratch = try ScratchDirectory()
        let fit = scratch.path("pyramid.fit")
        let export = try intervalpro("plan", "export", packagePath("Plans/pyramid.json"), "--format", "fit", "-o", fit)
        #expect(export.status == 0, "\(export.stderr)")
        let original = try intervalpro("plan", "check", packagePath("Plans/pyramid.json"), "--json")
        let back = try intervalpro("plan", "check", fit, "--json")
        let a = try #require(jsonObject(original.stdoutData)?["steps"] as? [[String: Any]])
        let b = try #require(jsonObject(back.stdoutData)?["steps"] as? [[String: Any]])
        #expect(a.map { number($0["duration_s"]) } == b.map { number($0["duration_s"]) })
        #expect(a.map { number($0["low_spm"]) } == b.map { number($0["low_spm"]) })
    }

    /// 260 ± 2.5 went out as 258-263 (whole steps), whose centre, 260.5, the import refused
    /// as past 260: the file `plan export` wrote was one IntervalPro would not read.
    @Test("a zone at the top of the cadence range with a fractional tolerance comes back from its FIT export")
    func exportAtTheRangesEdge() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "sprints.json",
            #"{"name": "Sprints", "tolerance": 2.5, "steps": [{"kind": "work", "duration": 15, "cadence": 260}, "#
                + #"{"kind": "rest", "duration": 15}]}"#)
        let fit = scratch.path("sprints.fit")
        let export = try intervalpro("plan", "export", plan, "--format", "fit", "-o", fit)
        #expect(export.status == 0, "\(export.stderr)")
        let back = try intervalpro("plan", "check", fit, "--json")
        #expect(back.status == 0, "\(back.stderr)")
        let steps = try #require(jsonObject(back.stdoutData)?["steps"] as? [[String: Any]])
        #expect(number(steps.first?["target_spm"]) == 260 && number(steps.first?["high_spm"]) == 262.5)
    }

    @Test("a watch's FIT activity replays, scores and is stored; a workout given as an activity is refused")
    func replayAnActivity() throws {
        let scratch = try ScratchDirectory()
        let data = ["XDG_DATA_HOME": scratch.path("data")]
        // A stored session exported as FIT is a FIT activity a watch could have made.
        let first = try intervalpro(
            "replay", packagePath("Recordings/pyramid.jsonl"), "--plan", packagePath("Plans/pyramid.json"), "--fast", "--json",
            environment: data)
        #expect(first.status == 0)
        let fit = scratch.path("run.fit")
        #expect(try intervalpro("export", "last", "--format", "fit", "-o", fit, environment: data).status == 0)
        let replay = try intervalpro("replay", fit, "--plan", packagePath("Plans/pyramid.json"), "--fast", "--json", environment: data)
        #expect(replay.status == 0, "\(replay.stderr)")
        let steps = try #require(jsonObject(replay.stdoutData)?["steps"] as? [[String: Any]])
        let original = try #require(jsonObject(first.stdoutData)?["steps"] as? [[String: Any]])
        #expect(steps.count == original.count)
        // 1 Hz samples of the same run: within a few seconds of the original in every step.
        for (a, b) in zip(steps, original) where b["target_spm"] is NSNumber {
            let difference = abs((number(a["in_zone_s"]) ?? -100) - (number(b["in_zone_s"]) ?? 100))
            #expect(difference <= 6, "\(a) vs \(b)")
        }
        let workout = scratch.path("plan.fit")
        #expect(try intervalpro("plan", "export", packagePath("Plans/pyramid.json"), "--format", "fit", "-o", workout).status == 0)
        let refused = try intervalpro("replay", workout, "--json", environment: data)
        #expect(refused.status == 65 && refused.stderr.contains("not an activity"), "\(refused.stderr)")
    }
}
