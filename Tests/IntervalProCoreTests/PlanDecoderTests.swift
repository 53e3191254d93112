import Foundation
import Testing
@testable import IntervalProCore

private func decode(_ text: String, file: String = "plan.json") throws(PlanError) -> Plan {
    try PlanDecoder.decode(Array(text.utf8), file: file)
}

private func planError(_ text: String, file: String = "plan.json") -> PlanError? {
    do {
        _ = try decode(text, file: file)
        return nil
    } catch {
        return error
    }
}

/// A step with one change, wrapped in a minimal plan; `step` goes on line 4.
private func planWithStep(_ step: String) -> String {
    """
    {
      "name": "One step",
      "steps": [
        \(step)
      ]
    }
    """
}

/// A group of `repeat` around `step`; `step` goes on line 5.
private func planWithGroup(repeat count: Int, _ step: String) -> String {
    """
    {
      "name": "Group",
      "steps": [
        {"repeat": \(count), "steps": [
          \(step)
        ]}
      ]
    }
    """
}

@Suite("PlanDecoder: timeline")
struct PlanTimelineTests {
    static let text = """
        {
          "$schema": "./plan.schema.json",
          "version": 2,
          "name": "Timeline",
          "description": "every feature once",
          "tolerance": 4,
          "metronome": {"mode": "off-target", "accent": "alternate"},
          "steps": [
            {"kind": "warmup", "duration": "5:00", "cadence": 160},
            {"repeat": 3, "steps": [
              {"kind": "work", "duration": [60, "1:30", "0:02:00"], "cadence": [170, {"low": 172, "high": 180}, 176], "tolerance": 2, "label": "Build"},
              {"kind": "rest", "distance": ["200m", 300, "0.4km"]}
            ]},
            {"repeat": 2, "steps": [
              {"repeat": 2, "steps": [
                {"kind": "work", "duration": 30, "cadence": [180, 185]}
              ]},
              {"kind": "rest", "duration": [45, 50], "tolerance": 0, "cadence": 150}
            ]},
            {"kind": "cooldown", "duration": "open"}
          ]
        }
        """

    @Test func planFields() throws {
        let plan = try decode(Self.text)
        #expect(plan.name == "Timeline")
        #expect(plan.description == "every feature once")
        #expect(plan.tolerance == 4)
        #expect(plan.version == 2)
        #expect(plan.metronome?.mode == .offTarget)
        #expect(plan.metronome?.accent == .alternate)
        #expect(plan.nodes.count == 4)
    }

    @Test("an optional key given as null is the key left out; a required one is still required")
    func nullOptionalKeys() throws {
        let withNulls = try decode(
            """
            {"name": "Nulls", "version": null, "description": null, "tolerance": null, "metronome": null,
             "steps": [
               {"kind": "work", "duration": "1:00", "distance": null, "cadence": null, "tolerance": null, "label": null},
               {"kind": "rest", "duration": null, "distance": 400}
             ]}
            """)
        let without = try decode(
            """
            {"name": "Nulls", "steps": [{"kind": "work", "duration": "1:00"}, {"kind": "rest", "distance": 400}]}
            """)
        #expect(withNulls.timeline() == without.timeline())
        #expect(withNulls.version == 1 && withNulls.description == nil && withNulls.metronome == nil)
        #expect(withNulls.tolerance == Plan.defaultTolerance)
        let settings = try decode(
            #"{"name": "M", "version": 2, "metronome": {"mode": null, "volume": null, "voice": null}, "steps": [{"kind": "work", "duration": 60}]}"#)
        #expect(settings.metronome == MetronomeSettings())
        #expect(planError(#"{"name": null, "steps": [{"kind": "work", "duration": 60}]}"#)?.message.contains("expected a non-empty string, found null") == true)
        // A step's only end given as null: said as the value it is.
        #expect(planError(planWithStep(#"{"kind": "work", "duration": null}"#))?.message.contains("found null at steps[0].duration") == true)
    }

    /// `plan check`, the screen and the summary printed `158.20000000000002-162.4 spm`.
    /// A plan saved as Notepad's "ANSI" was read with U+FFFD for each accent, stored, uploaded
    /// and shown so: "S\u{FFFD}ance fractionn\u{FFFD}e \u{FFFD} \u{FFFD}bung".
    @Test("a plan saved in Windows-1252 is read as Windows-1252")
    func windows1252Plan() throws {
        let bytes: [UInt8] = Array(#"{"name": "S"#.utf8) + [0xE9] + Array("ance fractionn".utf8) + [0xE9, 0x65, 0x20, 0x96, 0x20, 0xDC]
            + Array(#"bung", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#.utf8)
        let plan = try PlanDecoder.decode(bytes, file: "ansi.json")
        #expect(plan.name == "Séance fractionnée – Übung")
        #expect(try decode(#"{"name": "Übung", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#).name == "Übung")
        // UTF-8 with one byte damaged stays UTF-8: its other accents were each read as two.
        let damaged = Array(#"{"name": "Séance "#.utf8) + [0xE9] + Array(#"", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#.utf8)
        #expect(try PlanDecoder.decode(damaged, file: "damaged.json").name == "Séance \u{FFFD}")
    }

    @Test func zoneBoundsHaveNoBinaryNoise() {
        let zone = CadenceZone(target: 160.3, tolerance: 2.1)
        #expect(zone.low == 158.2 && zone.high == 162.4)
        #expect("\(zone.low)" == "158.2")
        #expect(CadenceZone(target: 160, low: 157.75, high: 162.25).low == 157.75)
    }

    @Test func expansion() throws {
        let timeline = try decode(Self.text).timeline()
        typealias R = TimelineStep.Repetition
        let expected: [TimelineStep] = [
            TimelineStep(index: 0, kind: .warmup, end: .time(.seconds(300)), zone: CadenceZone(target: 160, low: 156, high: 164)),
            // Per-repetition duration and cadence; the step tolerance (2) overrides the plan's (4).
            TimelineStep(index: 1, kind: .work, label: "Build", repetition: R(number: 1, count: 3), end: .time(.seconds(60)), zone: CadenceZone(target: 170, low: 168, high: 172)),
            TimelineStep(index: 2, kind: .rest, repetition: R(number: 1, count: 3), end: .distance(200)),
            // A {low, high} zone ignores the tolerance and targets the midpoint.
            TimelineStep(index: 3, kind: .work, label: "Build", repetition: R(number: 2, count: 3), end: .time(.seconds(90)), zone: CadenceZone(target: 176, low: 172, high: 180)),
            TimelineStep(index: 4, kind: .rest, repetition: R(number: 2, count: 3), end: .distance(300)),
            TimelineStep(index: 5, kind: .work, label: "Build", repetition: R(number: 3, count: 3), end: .time(.seconds(120)), zone: CadenceZone(target: 176, low: 174, high: 178)),
            TimelineStep(index: 6, kind: .rest, repetition: R(number: 3, count: 3), end: .distance(400)),
            // Nested groups: the inner step numbers and indexes its arrays by the innermost group.
            TimelineStep(index: 7, kind: .work, repetition: R(number: 1, count: 2), end: .time(.seconds(30)), zone: CadenceZone(target: 180, low: 176, high: 184)),
            TimelineStep(index: 8, kind: .work, repetition: R(number: 2, count: 2), end: .time(.seconds(30)), zone: CadenceZone(target: 185, low: 181, high: 189)),
            TimelineStep(index: 9, kind: .rest, repetition: R(number: 1, count: 2), end: .time(.seconds(45)), zone: CadenceZone(target: 150, low: 150, high: 150)),
            TimelineStep(index: 10, kind: .work, repetition: R(number: 1, count: 2), end: .time(.seconds(30)), zone: CadenceZone(target: 180, low: 176, high: 184)),
            TimelineStep(index: 11, kind: .work, repetition: R(number: 2, count: 2), end: .time(.seconds(30)), zone: CadenceZone(target: 185, low: 181, high: 189)),
            TimelineStep(index: 12, kind: .rest, repetition: R(number: 2, count: 2), end: .time(.seconds(50)), zone: CadenceZone(target: 150, low: 150, high: 150)),
            TimelineStep(index: 13, kind: .cooldown, end: .open),
        ]
        #expect(timeline.count == expected.count)
        for (got, want) in zip(timeline, expected) {
            #expect(got == want)
        }
        #expect(timeline.timedDuration == .seconds(300 + 60 + 90 + 120 + 4 * 30 + 45 + 50))
    }

    @Test func titles() throws {
        let timeline = try decode(Self.text).timeline()
        #expect(timeline[0].title == "Warmup")
        #expect(timeline[1].title == "Work 1/3 · Build")
        #expect(timeline[6].title == "Rest 3/3")
        #expect(timeline[13].title == "Cooldown")
        #expect(TimelineStep(index: 0, kind: .work, label: "Build", repetition: .init(number: 3, count: 8), end: .open).title == "Work 3/8 · Build")
    }

    @Test func zoneBoundsAreInclusive() {
        let zone = CadenceZone(target: 170, tolerance: 5)
        #expect(zone.low == 165 && zone.high == 175)
        #expect(zone.contains(165))
        #expect(zone.contains(175))
        #expect(zone.contains(170))
        #expect(!zone.contains(164.999))
        #expect(!zone.contains(175.001))
    }

    @Test("durations", arguments: [
        ("60", 60_000_000), ("1.5", 1_500_000), ("\"0:01\"", 1_000_000), ("\"10:00\"", 600_000_000),
        ("\"90:00\"", 5_400_000_000), ("\"1:02:03\"", 3_723_000_000), ("\"0:32:00\"", 1_920_000_000),
        ("\"24:00:00\"", 86_400_000_000), ("86400", 86_400_000_000),
    ] as [(String, Int64)])
    func durations(json: String, microseconds: Int64) throws {
        let plan = try decode(planWithStep(#"{"kind": "work", "duration": \#(json)}"#))
        #expect(plan.timeline()[0].end == .time(SessionTime(microseconds: microseconds)))
    }

    @Test("distances", arguments: [
        ("400", 400.0), ("\"400m\"", 400), ("\"1.5km\"", 1500), ("\"1.5 km\"", 1500), ("\"400M\"", 400),
        ("\"0.4km\"", 400), ("\"10KM\"", 10_000), ("12.3456", 12.346), ("\"1000km\"", 1_000_000),
    ])
    func distances(json: String, metres: Double) throws {
        let plan = try decode(planWithStep(#"{"kind": "work", "distance": \#(json)}"#))
        #expect(plan.timeline()[0].end == .distance(metres))
    }

    @Test func clockSeconds() {
        #expect(PlanDecoder.clockSeconds("10:00") == 600)
        #expect(PlanDecoder.clockSeconds("0:32:00") == 1920)
        #expect(PlanDecoder.clockSeconds("123:45") == 7425)
        for bad in ["1:75", "1:5", "1:60", "1:60:00", "1:00:60", "1:2:03", ":30", "1:", "1", "1:00:00:00", "a:00", "1234567:00", "-1:00", " 1:00", "1:0a", ""] {
            #expect(PlanDecoder.clockSeconds(bad) == nil, "\(bad)")
        }
    }

    @Test func distanceMetres() {
        #expect(PlanDecoder.distanceMetres("400m") == 400)
        #expect(PlanDecoder.distanceMetres("1.5km") == 1500)
        for bad in ["400", "m", "km", "-5m", "1e3m", "1.2.3m", "400mi", "400 yards", "fourm", "."] {
            #expect(PlanDecoder.distanceMetres(bad) == nil, "\(bad)")
        }
    }

    @Test func editDistanceAndSuggestions() {
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("abc", "") == 3)
        #expect(editDistance("same", "same") == 0)
        #expect(editDistance("durration", "duration") == 1)
    }
}

@Suite("PlanDecoder: validation errors")
struct PlanValidationTests {
    /// Decodes `text`, expecting an error at the `occurrence`-th `needle` with `message`.
    func expectError(
        _ text: String, at needle: String, occurrence: Int = 1, path: String, _ message: String,
        file: String = "plan.json", sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let error = planError(text, file: file) else {
            Issue.record("the plan decoded", sourceLocation: sourceLocation)
            return
        }
        let where_ = lineColumn(of: needle, in: text, occurrence: occurrence)
        #expect(error.description == "\(file):\(where_): \(message)", sourceLocation: sourceLocation)
        #expect(error.path == path, sourceLocation: sourceLocation)
        #expect(error.file == file, sourceLocation: sourceLocation)
        #expect(error.location?.description == where_, sourceLocation: sourceLocation)
    }

    @Test func unknownKeyWithSuggestion() throws {
        let text = """
            {
              "name": "x",
              "steps": [{"kind": "work",
                "durration": 60}]
            }
            """
        let error = try #require(planError(text))
        #expect(error.description == "plan.json:4:5: unknown key 'durration' at steps[0]; did you mean 'duration'?")
        #expect(error.location == IntervalProCore.SourceLocation(line: 4, column: 5))
        #expect(error.path == "steps[0]")
        #expect(error.message == "unknown key 'durration' at steps[0]; did you mean 'duration'?")
    }

    @Test func unknownKeys() {
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadance": 170}"#), at: #""cadance""#, path: "steps[0]",
            "unknown key 'cadance' at steps[0]; did you mean 'cadence'?")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "zzz": 1}"#), at: #""zzz""#, path: "steps[0]",
            "unknown key 'zzz' at steps[0]")
        // The help says BPM in a plan is steps: the key that holds them is named.
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "bpm": 170}"#), at: #""bpm""#, path: "steps[0]",
            "unknown key 'bpm' at steps[0]; a step's target is 'cadence', in steps per minute (BPM in a plan means steps)")
        expectError(#"{"Name": "x", "steps": []}"#, at: #""Name""#, path: "",
            "unknown key 'Name' at the top level; did you mean 'name'?")
        expectError(#"{"name": "x", "colour": "red", "steps": []}"#, at: #""colour""#, path: "",
            "unknown key 'colour' at the top level")
        expectError(planWithStep(#"{"repeat": 2, "step": []}"#), at: #""step""#, path: "steps[0]",
            "unknown key 'step' at steps[0]; did you mean 'steps'?")
        expectError(planWithStep(#"{"repeat": 2, "kind": "work", "steps": []}"#), at: #""kind""#, path: "steps[0]",
            "unknown key 'kind' at steps[0]")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": {"low": 170, "hgh": 180}}"#), at: #""hgh""#,
            path: "steps[0].cadence", "unknown key 'hgh' at steps[0].cadence; did you mean 'high'?")
        // Too far from any allowed key to be a typo: no suggestion.
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": {"low": 170, "hi": 180}}"#), at: #""hi""#,
            path: "steps[0].cadence", "unknown key 'hi' at steps[0].cadence")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "lbl": "x"}"#), at: #""lbl""#, path: "steps[0]",
            "unknown key 'lbl' at steps[0]; did you mean 'label'?")  // two edits on a longer key
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "lable": "x"}"#), at: #""lable""#, path: "steps[0]",
            "unknown key 'lable' at steps[0]; did you mean 'label'?")
        expectError(planWithStep(#"{"knd": "work", "duration": 60}"#), at: #""knd""#, path: "steps[0]",
            "unknown key 'knd' at steps[0]; did you mean 'kind'?")  // one edit on a short key
        expectError(planWithStep(#"{"kd": "work", "duration": 60}"#), at: #""kd""#, path: "steps[0]",
            "unknown key 'kd' at steps[0]")  // two edits on a short key: no suggestion
        expectError(planWithStep(#"{"kind": "work", "durashun": 60}"#), at: #""durashun""#, path: "steps[0]",
            "unknown key 'durashun' at steps[0]")
        expectError(planWithStep(#"{"kind": "work", "durasion": 60}"#), at: #""durasion""#, path: "steps[0]",
            "unknown key 'durasion' at steps[0]; did you mean 'duration'?")
        expectError(planWithStep(#"{"kind": "work", "duraton": 60}"#), at: #""duraton""#, path: "steps[0]",
            "unknown key 'duraton' at steps[0]; did you mean 'duration'?")
    }

    @Test func missingName() throws {
        let text = "\n  {\"steps\": [{\"kind\": \"work\", \"duration\": 60}]}"
        let error = try #require(planError(text))
        #expect(error.description == "plan.json:2:3: missing required key 'name' at the top level")
        #expect(error.path == "")
    }

    @Test func badNameAndTopLevel() {
        expectError(#"{"name": "  ", "steps": []}"#, at: #""  ""#, path: "name",
            "expected a non-empty string, found only spaces at name")
        expectError(#"{"name": 5, "steps": []}"#, at: "5", path: "name", "expected a non-empty string, found a number at name")
        expectError(#"{"name": "x"}"#, at: "{", path: "", "missing required key 'steps' at the top level")
        expectError("  [1]", at: "[", path: "", "expected a plan (an object), found an array at the top level")
        expectError(#"{"name": "x", "description": 5, "steps": []}"#, at: "5", path: "description",
            "expected a string, found a number at description")
        expectError(#"{"version": 2, "name": "x", "metronome": [], "steps": []}"#, at: "[]", path: "metronome",
            "expected metronome settings (an object), found an array at metronome")
        expectError(#"{"name": "x", "steps": []}"#, at: "[]", path: "steps", "expected at least one step at steps")
        expectError(#"{"name": "x", "steps": {}}"#, at: "{}", path: "steps", "expected an array of steps, found an object at steps")
        expectError(planWithStep(#""warmup""#), at: #""warmup""#, path: "steps[0]",
            "expected a step or a group (an object), found a string at steps[0]")
    }

    @Test func toleranceOutOfRange() {
        expectError(#"{"name": "x", "tolerance": 31, "steps": []}"#, at: "31", path: "tolerance",
            "31 spm is out of range (0-30) at tolerance")
        expectError(#"{"name": "x", "tolerance": -1, "steps": []}"#, at: "-1", path: "tolerance",
            "-1 spm is out of range (0-30) at tolerance")
        expectError(#"{"name": "x", "tolerance": "5", "steps": []}"#, at: #""5""#, path: "tolerance",
            "expected a number, found a string at tolerance")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": 170, "tolerance": 30.5}"#), at: "30.5",
            path: "steps[0].tolerance", "30.5 spm is out of range (0-30) at steps[0].tolerance")
    }

    @Test func repeatCounts() {
        let step = #"{"kind": "work", "duration": 60}"#
        expectError(planWithGroup(repeat: 0, step), at: #"0, "steps""#, path: "steps[0].repeat",
            "0 is out of range (1-100) at steps[0].repeat")
        expectError(planWithGroup(repeat: 101, step), at: "101", path: "steps[0].repeat",
            "101 is out of range (1-100) at steps[0].repeat")
        expectError(planWithStep(#"{"repeat": 2.5, "steps": [\#(step)]}"#), at: "2.5", path: "steps[0].repeat",
            "expected a whole number, found 2.5 at steps[0].repeat")
        // It said "expected a whole number, found a number" of a large one.
        expectError(planWithGroup(repeat: 1_000_000_000, step), at: "1000000000", path: "steps[0].repeat",
            "1000000000 is out of range (1-100) at steps[0].repeat")
        expectError(planWithStep(#"{"repeat": "3", "steps": [\#(step)]}"#), at: #""3""#, path: "steps[0].repeat",
            "expected a whole number, found a string at steps[0].repeat")
        expectError(planWithStep(#"{"repeat": 3}"#), at: #"{"repeat""#, path: "steps[0]",
            "missing required key 'steps' at steps[0]")
        expectError(planWithGroup(repeat: 2, #"{"repeat": 2, "steps": []}"#), at: "[]", path: "steps[0].steps[0].steps",
            "expected at least one step at steps[0].steps[0].steps")
    }

    @Test func cadenceValues() {
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": 300}"#), at: "300", path: "steps[0].cadence",
            "300 spm is out of range (60-260) at steps[0].cadence")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": 59.5}"#), at: "59.5", path: "steps[0].cadence",
            "59.5 spm is out of range (60-260) at steps[0].cadence")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": "fast"}"#), at: #""fast""#,
            path: "steps[0].cadence",
            #"expected a cadence in spm (a number or {"low", "high"}), found a string at steps[0].cadence"#)
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": {"low": 180, "high": 170}}"#),
            at: #"{"low""#, path: "steps[0].cadence", "'low' (180) is above 'high' (170) at steps[0].cadence")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": {"low": 170}}"#),
            at: #"{"low""#, path: "steps[0].cadence", "a cadence range needs both 'low' and 'high' at steps[0].cadence")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": {"low": 50, "high": 170}}"#),
            at: "50", path: "steps[0].cadence.low", "50 spm is out of range (60-260) at steps[0].cadence.low")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": {"low": 170, "high": 261}}"#),
            at: "261", path: "steps[0].cadence.high", "261 spm is out of range (60-260) at steps[0].cadence.high")
    }

    @Test func perRepetitionArrays() {
        expectError(planWithGroup(repeat: 3, #"{"kind": "work", "duration": 60, "cadence": [170, 175]}"#), at: "[170",
            path: "steps[0].steps[0].cadence",
            "expected 3 values (one per repetition of the enclosing group), found 2 at steps[0].steps[0].cadence")
        expectError(planWithGroup(repeat: 2, #"{"kind": "work", "duration": [60, 60, 60]}"#), at: "[60",
            path: "steps[0].steps[0].duration",
            "expected 2 values (one per repetition of the enclosing group), found 3 at steps[0].steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": [60]}"#), at: "[60]", path: "steps[0].duration",
            "a per-repetition array needs an enclosing repeat group at steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "cadence": [170]}"#), at: "[170]", path: "steps[0].cadence",
            "a per-repetition array needs an enclosing repeat group at steps[0].cadence")
        expectError(planWithGroup(repeat: 2, #"{"kind": "work", "duration": 60, "cadence": [[170], [175]]}"#), at: "[170]",
            path: "steps[0].steps[0].cadence[0]", "nested arrays are not allowed at steps[0].steps[0].cadence[0]")
        expectError(planWithGroup(repeat: 2, #"{"kind": "work", "duration": 60, "cadence": [170, 300]}"#), at: "300",
            path: "steps[0].steps[0].cadence[1]", "300 spm is out of range (60-260) at steps[0].steps[0].cadence[1]")
        expectError(planWithGroup(repeat: 2, #"{"kind": "work", "distance": ["400m", "4 laps"]}"#), at: #""4 laps""#,
            path: "steps[0].steps[0].distance[1]",
            #"invalid distance "4 laps": expected metres, "400m" or "1.5km" at steps[0].steps[0].distance[1]"#)
        // Inside a nested group the array follows the innermost group's count, not the outer one's.
        let nested = """
            {"name": "n", "steps": [
              {"repeat": 2, "steps": [
                {"repeat": 3, "steps": [{"kind": "work", "duration": 60, "cadence": [170, 175]}]}
              ]}
            ]}
            """
        expectError(nested, at: "[170", path: "steps[0].steps[0].steps[0].cadence",
            "expected 3 values (one per repetition of the enclosing group), found 2 at steps[0].steps[0].steps[0].cadence")
    }

    @Test func durations() {
        expectError(planWithStep(#"{"kind": "work", "duration": "1:75"}"#), at: #""1:75""#, path: "steps[0].duration",
            #"invalid duration "1:75": expected seconds, "m:ss", "h:mm:ss" or "open" at steps[0].duration"#)
        expectError(planWithStep(#"{"kind": "work", "duration": "soon"}"#), at: #""soon""#, path: "steps[0].duration",
            #"invalid duration "soon": expected seconds, "m:ss", "h:mm:ss" or "open" at steps[0].duration"#)
        expectError(planWithStep(#"{"kind": "work", "duration": 0}"#), at: "0}", path: "steps[0].duration",
            "duration must be more than 0 and at most 24 hours at steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": "0:00"}"#), at: #""0:00""#, path: "steps[0].duration",
            "duration must be more than 0 and at most 24 hours at steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": -60}"#), at: "-60", path: "steps[0].duration",
            "duration must be more than 0 and at most 24 hours at steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": "24:00:01"}"#), at: #""24"#, path: "steps[0].duration",
            "duration must be more than 0 and at most 24 hours at steps[0].duration")
        // More than 0, but nothing in the engine's microseconds: "more than 0" was no reason.
        expectError(planWithStep(#"{"kind": "work", "duration": 0.0000001}"#), at: "0.0000001", path: "steps[0].duration",
            "duration must be at least a microsecond (the engine's unit) at steps[0].duration")
        // Far beyond Int64 microseconds: refused, not trapped (found by fuzzing).
        expectError(planWithStep(#"{"kind": "work", "duration": 1e13}"#), at: "1e13", path: "steps[0].duration",
            "duration must be more than 0 and at most 24 hours at steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": -1e13}"#), at: "-1e13", path: "steps[0].duration",
            "duration must be more than 0 and at most 24 hours at steps[0].duration")
        expectError(planWithStep(#"{"kind": "work", "duration": true}"#), at: "true", path: "steps[0].duration",
            #"expected a duration (seconds, "m:ss", "h:mm:ss" or "open"), found a boolean at steps[0].duration"#)
    }

    @Test func durationAndDistance() {
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "distance": "400m"}"#), at: #"{"kind""#, path: "steps[0]",
            "give either 'duration' or 'distance', not both, at steps[0]")
        expectError(planWithStep(#"{"kind": "work", "cadence": 170}"#), at: #"{"kind""#, path: "steps[0]",
            "missing required key 'duration' (or 'distance') at steps[0]")
        expectError(planWithStep(#"{"duration": 60}"#), at: #"{"duration""#, path: "steps[0]",
            "missing required key 'kind' (or 'repeat' for a group) at steps[0]")
    }

    @Test func kinds() {
        expectError(planWithStep(#"{"kind": "sprint", "duration": 60}"#), at: #""sprint""#, path: "steps[0].kind",
            "expected one of warmup, work, rest, cooldown at steps[0].kind")
        expectError(planWithStep(#"{"kind": 1, "duration": 60}"#), at: "1,", path: "steps[0].kind",
            "expected one of warmup, work, rest, cooldown at steps[0].kind")
        expectError(planWithStep(#"{"kind": "Work", "duration": 60}"#), at: #""Work""#, path: "steps[0].kind",
            "expected one of warmup, work, rest, cooldown at steps[0].kind")
    }

    @Test func distances() {
        expectError(planWithStep(#"{"kind": "work", "distance": "400 yards"}"#), at: #""400"#, path: "steps[0].distance",
            #"invalid distance "400 yards": expected metres, "400m" or "1.5km" at steps[0].distance"#)
        expectError(planWithStep(#"{"kind": "work", "distance": "0m"}"#), at: #""0m""#, path: "steps[0].distance",
            "distance must be more than 0 and at most 1000 km at steps[0].distance")
        expectError(planWithStep(#"{"kind": "work", "distance": 1000001}"#), at: "1000001", path: "steps[0].distance",
            "distance must be more than 0 and at most 1000 km at steps[0].distance")
        expectError(planWithStep(#"{"kind": "work", "distance": null}"#), at: "null", path: "steps[0].distance",
            #"expected a distance (metres, "400m" or "1.5km"), found null at steps[0].distance"#)
    }

    @Test func labels() {
        expectError(planWithStep(#"{"kind": "work", "duration": 60, "label": 5}"#), at: "5}", path: "steps[0].label",
            "expected a string, found a number at steps[0].label")
    }

    @Test func invalidJSON() throws {
        let text = """
            {
              "name": "x",
              "steps": [}
            }
            """
        let error = try #require(planError(text, file: "Plans/broken.json"))
        #expect(error.description == "Plans/broken.json:3:13: invalid JSON: unexpected '}', expected a value")
        #expect(error.path == "")
        expectError(#"{"name": "a", "name": "b", "steps": []}"#, at: #""name""#, occurrence: 2, path: "",
            #"invalid JSON: duplicate key "name""#)
        expectError(#"{"name": "a", "steps": [{"kind": "work", "duration": 60}]} x"#, at: "x", path: "",
            "invalid JSON: unexpected 'x' after the JSON value")
        expectError("", at: "", path: "", "invalid JSON: unexpected end of input, expected a value")
    }

    @Test func tooManySteps() {
        let text = """
            {"name": "huge", "steps": [
              {"repeat": 100, "steps": [{"repeat": 100, "steps": [
                {"kind": "work", "duration": 1}, {"kind": "rest", "duration": 1}
              ]}]}
            ]}
            """
        expectError(text, at: "[\n", path: "steps", "the plan expands to 20000 steps, more than 10000 at steps")
        // Five nests of 100: 10^10 steps, past what the count holds; it said 2147483647.
        let nest = String(repeating: #"{"repeat": 100, "steps": ["#, count: 5) + #"{"kind": "work", "duration": 1}"# + String(repeating: "]}", count: 5)
        expectError(#"{"name": "huge", "steps": ["# + nest + "]}", at: "[", path: "steps", "the plan expands to over 2147483646 steps, more than 10000 at steps")
    }

    @Test func errorWithoutLocation() {
        let error = PlanError(file: "plan.json", location: nil, path: "", message: "cannot read the file")
        #expect(error.description == "plan.json: cannot read the file")
    }
}
