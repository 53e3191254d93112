import Foundation
import Testing

@Suite("intervalpro plan check")
struct PlanCheckTests {
    @Test("the cadence ladder expands to 15 steps, 6 repetitions, 37 minutes")
    func cadenceLadder() throws {
        let result = try intervalpro("plan", "check", "Plans/cadence-ladder.json")
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("Cadence ladder: 15 steps"))
        for repetition in 1...6 { #expect(result.stdout.contains("\(repetition)/6")) }
        #expect(result.stdout.contains("3/6"))
        #expect(result.stdout.contains("total: 37:00"))
        #expect(!result.stdout.contains("\u{1B}"))
    }

    /// A shared plan's name and labels with escape sequences retitled and recoloured the
    /// terminal that checked, ran or listed it.
    @Test("a plan's escape sequences are shown, not obeyed: plan check, run, history")
    func escapeSequencesInAPlanAreShown() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write(
            "evil.json",
            #"{"name": "Track\u001b]0;PWNED\u0007", "steps": [{"kind": "work", "duration": 5, "cadence": 170, "label": "Fast\u001b[31m"}]}"#)
        let environment = ["XDG_DATA_HOME": dir.path("data"), "XDG_CONFIG_HOME": dir.path("config")]
        let checked = try intervalpro("plan", "check", plan, environment: environment)
        let ran = try intervalpro("run", plan, "--simulate", "--fast", environment: environment)
        let listed = try intervalpro("history", environment: environment)
        for (what, result) in [("plan check", checked), ("run", ran), ("history", listed)] {
            #expect(result.status == 0, "\(what): \(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("\u{1B}") && !(result.stdout + result.stderr).contains("\u{07}"), "\(what): \(result.stdout)")
            #expect(result.stdout.contains("Track\u{FFFD}]0;PWNED\u{FFFD}"), "\(what): \(result.stdout)")
        }
    }

    /// A shared recording's device id and name and its event names, and the name `plan export`
    /// said it wrote, reached the terminal as they were: one retitled the terminal and cleared it.
    @Test("a recording's names are shown, not obeyed: replay, replay with a plan, plan export")
    func escapeSequencesInARecordingAreShown() throws {
        let dir = try ScratchDirectory()
        let recording = try dir.write(
            "evil.jsonl",
            #"""
            {"intervalpro_recording":1,"started_at":"2026-11-16T18:05:00Z","devices":[{"id":"AA\u001b[31mid\u0007","name":"n\u001b[2J"}]}
            {"t":0.5,"dev":"AA\u001b[31mid\u0007","char":"2a37","hex":"0660"}
            {"t":1.0,"dev":"AA\u001b[31mid\u0007","event":"boom\u001b]0;T\u0007"}
            {"t":2.0,"dev":"AA\u001b[31mid\u0007","char":"2a37","hex":"0661"}
            """#)
        let plan = try dir.write(
            "evil.json", #"{"name": "Track\u001b]0;PWNED\u0007", "steps": [{"kind": "work", "duration": 5, "cadence": 170}]}"#)
        let environment = ["XDG_DATA_HOME": dir.path("data"), "XDG_CONFIG_HOME": dir.path("config")]
        let summed = try intervalpro("replay", recording, environment: environment)
        let replayed = try intervalpro("replay", recording, "--plan", plan, "--fast", "--no-save", environment: environment)
        let exported = try intervalpro("plan", "export", plan, "--format", "json", "-o", dir.path("out.json"), environment: environment)
        for (what, result) in [("replay", summed), ("replay --plan", replayed), ("plan export", exported)] {
            #expect(result.status == 0, "\(what): \(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("\u{1B}") && !(result.stdout + result.stderr).contains("\u{07}"), "\(what): \(result.stdout + result.stderr)")
        }
        #expect(summed.stdout.contains("AA\u{FFFD}[31mid\u{FFFD}"), "\(summed.stdout)")
        #expect(replayed.stdout.contains("boom\u{FFFD}]0;T\u{FFFD}"), "\(replayed.stdout)")
        #expect(exported.stderr.contains("Track\u{FFFD}]0;PWNED\u{FFFD}"), "\(exported.stderr)")
    }

    /// `-` was "cannot open '-'" (66).
    @Test("a plan on standard input: plan check -")
    func planOnStandardInput() throws {
        let result = try intervalpro(
            arguments: ["-c", "\"$0\" plan check - < Plans/cadence-ladder.json", executablePath], in: packageRoot, executable: "/bin/sh")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Cadence ladder: 15 steps"))
    }

    @Test("an example plan by name, from any folder; a file of that name comes first; INTERVALPRO_PLANS points elsewhere")
    func examplePlanByName() throws {
        let dir = try ScratchDirectory()
        let anywhere = dir.url
        let byName = try intervalpro("plan", "check", "cadence-ladder", in: anywhere)
        #expect(byName.status == 0, "stderr: \(byName.stderr)")
        #expect(byName.stdout.contains("Cadence ladder: 15 steps"))

        _ = try dir.write("cadence-ladder", #"{"name": "Mine", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#)
        let file = try intervalpro("plan", "check", "cadence-ladder", in: anywhere)
        #expect(file.stdout.contains("Mine: 1 step"), "stdout: \(file.stdout)")

        let plans = dir.path("plans")
        try FileManager.default.createDirectory(atPath: plans, withIntermediateDirectories: true)
        _ = try dir.write("plans/easy.json", #"{"name": "Easy", "steps": [{"kind": "rest", "duration": 30}]}"#)
        let overridden = try intervalpro("plan", "check", "easy", in: anywhere, environment: ["INTERVALPRO_PLANS": plans])
        #expect(overridden.stdout.contains("Easy: 1 step"), "stderr: \(overridden.stderr)")

        let missing = try intervalpro("plan", "check", "no-such-plan", in: anywhere)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("'no-such-plan'"))
    }

    /// A binary copied out of its checkout said only "cannot open 'pyramid': No such file or
    /// directory", as for a typo.
    @Test("a name given where no examples are found says so, and where they would be")
    func exampleNameWithoutExamples() throws {
        let dir = try ScratchDirectory()
        let binary = dir.path("intervalpro")
        try FileManager.default.copyItem(atPath: executablePath, toPath: binary)
        let plan = try intervalpro(arguments: ["plan", "check", "pyramid"], in: dir.url, executable: binary)
        #expect(plan.status == 66)
        #expect(plan.stderr.contains("cannot open 'pyramid'"), "\(plan.stderr)")
        #expect(plan.stderr.contains("no example plans were found either"), "\(plan.stderr)")
        #expect(plan.stderr.contains("INTERVALPRO_PLANS"), "\(plan.stderr)")
        let recording = try intervalpro(arguments: ["replay", "pyramid", "--fast", "--no-save"], in: dir.url, executable: binary)
        #expect(recording.status == 66)
        #expect(recording.stderr.contains("no example recordings were found either"), "\(recording.stderr)")
        // Where the examples are found, a typo is only a typo.
        let typo = try intervalpro("plan", "check", "pyramidd", in: dir.url)
        #expect(typo.status == 66)
        #expect(!typo.stderr.contains("no example"), "\(typo.stderr)")
    }

    @Test("--json gives the timeline with its total")
    func cadenceLadderJSON() throws {
        let result = try intervalpro("plan", "check", "Plans/cadence-ladder.json", "--json")
        #expect(result.status == 0)
        let object = try #require(jsonObject(result.stdout))
        #expect(object["plan"] as? String == "Cadence ladder")
        #expect(number(object["total_timed_s"]) == 2220)
        let steps = try #require(object["steps"] as? [[String: Any]])
        #expect(steps.count == 15)
        #expect(steps[5]["repetition"] as? String == "3/6")
        #expect(isNull(steps[2]["target_spm"]), "rest steps have no zone")
        #expect(steps.allSatisfy { $0["end"] as? String == "time" && $0["duration_s"] is NSNumber })
    }

    /// duration_s is seconds or "open", and missing on a distance step: a script read its type to
    /// learn which. `end` says it.
    @Test("--json says each step's end: time, distance or open")
    func stepEndsInJSON() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write(
            "p.json",
            #"{"name": "Ends", "steps": [{"kind": "warmup", "duration": 90}, {"kind": "work", "distance": 400, "cadence": 175}, {"kind": "cooldown", "duration": "open"}]}"#)
        let result = try intervalpro("plan", "check", plan, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let steps = try #require(jsonObject(result.stdout)?["steps"] as? [[String: Any]])
        #expect(steps.map { $0["end"] as? String } == ["time", "distance", "open"])
        #expect(number(steps[0]["duration_s"]) == 90 && number(steps[1]["distance_m"]) == 400)
        #expect(steps[2]["duration_s"] as? String == "open", "as it was before end was added")
    }

    @Test("a misspelt key exits 65 with FILE:LINE:COL and a suggestion")
    func typoKey() throws {
        let dir = try ScratchDirectory()
        let text = """
            {
              "name": "Typo",
              "steps": [
                {"kind": "work", "durration": 60, "cadence": 170}
              ]
            }

            """
        let path = try dir.write("typo.json", text)
        // The key's opening quote: line 4, after `    {"kind": "work", ` (21 characters).
        let result = try intervalpro("plan", "check", path)
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.contains("\(path):4:22: unknown key 'durration' at steps[0]; did you mean 'duration'?"),
            "stderr: \(result.stderr)")
    }

    @Test("a misspelt key inside a repeat group is located too")
    func typoKeyInGroup() throws {
        let dir = try ScratchDirectory()
        let text = """
            {"name": "Group",
             "steps": [
              {"repeat": 2, "steps": [
                {"kind": "work", "duration": 60},
                {"kind": "rest", "duration": 30, "labl": "jog"}
              ]}
             ]}
            """
        let path = try dir.write("group.json", text)
        let result = try intervalpro("plan", "check", path)
        #expect(result.status == 65)
        #expect(
            result.stderr.contains("\(path):5:38: unknown key 'labl' at steps[0].steps[1]; did you mean 'label'?"),
            "stderr: \(result.stderr)")
    }

    @Test("a missing plan exits 66 naming the path")
    func missingFile() throws {
        let dir = try ScratchDirectory()
        let path = dir.path("no-such-plan.json")
        let result = try intervalpro("plan", "check", path)
        #expect(result.status == 66)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("'\(path)'"))
        #expect(result.stderr.contains("No such file or directory"))
    }

    /// A file in the path where a folder belongs, a loop of links, a name too long: no file to
    /// read, as a missing one is (they exited 74, which is for what cannot be written).
    @Test("a path that names no file for another reason exits 66 too")
    func pathsThatNameNoFile() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", tenMinutePlanText)
        #expect(symlink(dir.path("loopB"), dir.path("loopA")) == 0 && symlink(dir.path("loopA"), dir.path("loopB")) == 0)
        for (path, reason) in [
            (plan + "/x", "Not a directory"), (dir.path("loopA"), "Too many levels of symbolic links"),
            (dir.path(String(repeating: "a", count: 260) + ".json"), "File name too long"),
        ] {
            let result = try intervalpro("plan", "check", path)
            #expect(result.status == 66, "\(path): \(result.stderr)")
            #expect(result.stderr.contains(reason), "\(result.stderr)")
        }
        #expect(try intervalpro("replay", dir.path("loopA")).status == 66)
    }

    @Test("a directory given as the plan is no input to read (66, as exit-codes.md says; 74 is for what cannot be written), not a crash")
    func directoryAsPlan() throws {
        let dir = try ScratchDirectory()
        let result = try intervalpro("plan", "check", dir.url.path)
        #expect(result.status == 66)
        #expect(result.stderr.contains(dir.url.path))
        #expect(!looksLikeACrash(result.stderr))
    }

    @Test("invalid JSON exits 65 with line:column")
    func invalidJSON() throws {
        let dir = try ScratchDirectory()
        let text = """
            {
              "name": "Broken",
              "steps": [,]
            }

            """
        let path = try dir.write("broken.json", text)
        let result = try intervalpro("plan", "check", path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):3:13: invalid JSON"), "stderr: \(result.stderr)")
    }

    @Test("invalid JSON at the end of the file reports the last line")
    func truncatedJSON() throws {
        let dir = try ScratchDirectory()
        let path = try dir.write("cut.json", "{\n  \"name\": \"Cut\",\n  \"steps\": [")
        let result = try intervalpro("plan", "check", path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):3:"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("invalid JSON"))
    }
}
