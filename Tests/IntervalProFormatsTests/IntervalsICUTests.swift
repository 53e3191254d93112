import IntervalProCore
import IntervalProFormats
import Testing

/// intervals.icu workout texts, from the forms its workout builder documents.
struct IntervalsICUTests {
    func timeline(_ text: String) throws -> [TimelineStep] {
        try IntervalsICUWorkout.read(Array(text.utf8), file: "w.txt").plan.timeline()
    }

    /// Copied from intervals.icu into a Windows editor: CR LF line ends (one Character in
    /// Swift, so a split on "\n" found one line and no step) and a byte order mark.
    /// Past Int's range the count was no count: "99999999999999999999x" named a section run once;
    /// then it was refused as "repeat count 9223372036854775807", a number the file does not hold.
    @Test func aRepeatCountPastAnyRangeIsRefusedAsWritten() {
        for count in ["101", "9223372036854775808", "99999999999999999999"] {
            #expect(throws: ImportError(file: "w.txt", place: "1", message: "repeat count \(count) is outside 1-100")) {
                try IntervalsICUWorkout.read(Array("Main set \(count)x\n- 1m 170rpm\n- 1m 150rpm\n".utf8), file: "w.txt")
            }
        }
    }

    /// Pasted from a spreadsheet or a web page: a tab or a no-break space between words. A step
    /// line was refused ("no duration or distance"), and a section's "\t3x" was taken as its
    /// name and run once, without a word.
    @Test func wordsApartByTabsOrNoBreakSpaces() throws {
        let spaced = try timeline("Main set 3x\n- 10m 170rpm\n- 90s 160rpm\n")
        for text in ["Main set\t3x\n- 10m\t170rpm\n-\t90s 160rpm\n", "Main set\u{A0}3x\n- 10m\u{A0}170rpm\n- 90s\u{A0}160rpm\n"] {
            let steps = try timeline(text)
            #expect(steps.count == 6)
            #expect(steps == spaced, "\(text.debugDescription)")
        }
    }

    /// Guides to writing intervals.icu workouts put the notes below a Markdown rule, which was
    /// read as a step without a duration, and refused the workout.
    @Test func aMarkdownRuleIsNoStep() throws {
        let steps = try timeline("Warmup\n- 10m 170rpm\n\nMain Set\n- 30m 175rpm\n\n---\n\n**Notes:** carry water.\n")
        #expect(steps.map(\.zone?.target) == [170, 175])
        #expect(throws: ImportError.self) { try timeline("- 10m 170rpm\n- \n") }
    }

    @Test func windowsLineEndsAndAByteOrderMark() throws {
        let steps = try timeline("\u{FEFF}- 10m 170rpm\r\n\r\nMain 2x\r\n- 1m 180rpm\r\n- 1m 160rpm\r\n")
        #expect(steps.count == 5)
        #expect(steps.map(\.zone?.target) == [170, 180, 160, 180, 160])
        #expect(throws: ImportError(file: "w.txt", place: "3", message: "a repeat with no steps under it was left out")) {
            let imported = try IntervalsICUWorkout.read(Array("- 1m 170rpm\r\n\r\n3x\r\n\r\n".utf8), file: "w.txt")
            if let warning = imported.warnings.first { throw warning }
        }
    }

    /// Notepad's "Unicode" is UTF-16 with a byte order mark: "invalid JSON: unexpected '\u{FFFD}'".
    @Test func aPlanSavedAsUTF16IsRead() throws {
        let text = #"{"name": "Séance", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"# + "\r\n"
        let littleEndian: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for bytes in [littleEndian, bigEndian] {
            let imported = try WorkoutImport.read(bytes, file: "p.json") { _ throws(MarkupError) in throw MarkupError(line: nil, message: "") }
            #expect(imported.format == .planJSON && imported.plan.name == "Séance")
            #expect(imported.plan.nodes.count == 1)
        }
        let workout = "- 5m 170rpm\n"
        let utf16Workout: [UInt8] = [0xFF, 0xFE] + workout.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(try WorkoutImport.read(utf16Workout, file: "w.txt") { _ throws(MarkupError) in throw MarkupError(line: nil, message: "") }.format == .intervalsICU)
    }

    @Test func anEmptyFileIsSaidToBeEmpty() {
        for text in ["", " \n\r\n", "\u{FEFF}\n"] {
            #expect(throws: ImportError(file: "p.json", message: "the file is empty: no plan or workout in it")) {
                try WorkoutImport.read(Array(text.utf8), file: "p.json") { _ throws(MarkupError) in throw MarkupError(line: nil, message: "") }
            }
        }
    }

    /// `[ {step} ]`, `null`, `42`: JSON, but not the object a plan is; read as intervals.icu
    /// text, they were said to hold no step "like '- 5m 170rpm'".
    @Test func jsonThatIsNoObjectIsSaidToBeAPlanOfTheWrongShape() {
        for text in [#"[{"kind": "work", "duration": 60}]"#, "null", "42", #""hello""#] {
            #expect(WorkoutImport.format(of: Array(text.utf8)) == .planJSON, "\(text)")
            #expect {
                try WorkoutImport.read(Array(text.utf8), file: "p.json") { _ throws(MarkupError) in throw MarkupError(line: nil, message: "") }
            } throws: { error in
                "\(error)".contains("expected a plan (an object)") && "\(error)".contains("at the top level")
            }
        }
        #expect(WorkoutImport.format(of: Array("- 10m 170rpm\n".utf8)) == .intervalsICU)
    }

    @Test func durationsInEveryDocumentedForm() throws {
        let text = "- 30s 170rpm\n- 10m 170rpm\n- 1h 170rpm\n- 1m30 170rpm\n- 5' 170rpm\n- 30\" 170rpm\n- 1'30\" 170rpm\n- 1h2m30s 170rpm\n- 5m30s 170rpm"
        let seconds = try timeline(text).map { step -> Double in
            guard case .time(let length) = step.end else { return -1 }
            return length.seconds
        }
        #expect(seconds == [30, 600, 3600, 90, 300, 30, 90, 3750, 330])
    }

    @Test func distancesAreMetresKilometresAndMiles() throws {
        let ends = try timeline("- 400mtr 180rpm\n- 2km 170rpm\n- 1mi 170rpm\n- 0.4km 180rpm\n- 102mi").map(\.end)
        // To the millimetre, as plan files keep distances (102 mi is 164153.08800000002 m in doubles).
        #expect(ends == [.distance(400), .distance(2000), .distance(1609.344), .distance(400), .distance(164_153.088)])
    }

    @Test func repeatInAHeaderEndsAtABlankLine() throws {
        let steps = try timeline("Warmup\n- 10m 160rpm\n\nMain Set 3x\n- 3m 180rpm\n- 2m 165rpm\n\n- 5m 160rpm")
        #expect(steps.count == 1 + 6 + 1)
        #expect(steps.map(\.kind) == [.warmup, .work, .rest, .work, .rest, .work, .rest, .work])
        #expect(steps[1].repetition == .init(number: 1, count: 3))
        #expect(steps[6].repetition == .init(number: 3, count: 3))
        #expect(steps[7].repetition == nil)
    }

    /// A beginner's run-walk: the walk named, the run not. The run was made rest too (only the
    /// repeat's first step could be work), so nothing in the session was scored as work.
    @Test func theFirstStepNothingNamesIsWorkWhereverItIs() throws {
        let runWalk = try timeline("Run-walk 3x\n- Walk 1m\n- Run 90s 175rpm")
        #expect(runWalk.map(\.kind) == [.rest, .work, .rest, .work, .rest, .work])
        let recoveryFirst = try timeline("4x\n- Recovery jog 2m\n- 3m 180rpm")
        #expect(recoveryFirst.prefix(2).map(\.kind) == [.rest, .work])
        // A kind word counts at a word's beginning only: a hill's crest is no rest, a school no cool-down.
        let words = try timeline("- Hill crest surges 2m 180rpm\n- School loop 5m 170rpm\n- Easy jogging 3m 160rpm\n- Warm-up 5m 160rpm")
        #expect(words.map(\.kind) == [.work, .work, .rest, .warmup])
    }

    /// Cadence as runners write it by hand: a space before the unit, before the duration; and
    /// one not understood is said, not silently kept as a label.
    @Test func cadenceWrittenByHand() throws {
        let steps = try timeline("- 10m 170 rpm\n- 170rpm 5m\n- Strides 30s 185 spm")
        #expect(steps.map { $0.zone?.target } == [170, 170, 185])
        let imported = try IntervalsICUWorkout.read(Array("- 10m 170rpm\n- 5m 17Orpm\n".utf8), file: "w.txt")
        #expect(imported.plan.timeline()[1].zone == nil)
        #expect(imported.warnings.map(\.description) == ["w.txt:2: '17Orpm' is not a cadence (steps/min like 170rpm or 165-175rpm): the step has no zone from it"])
        // intervals.icu's bpm is heart rate: a step whose only target it is got no zone without a word.
        let heartRate = try IntervalsICUWorkout.read(Array("- 5m 175bpm\n- 1m 150rpm\n".utf8), file: "w.txt")
        #expect(heartRate.plan.timeline()[0].zone == nil)
        #expect(heartRate.warnings.map(\.description) == ["w.txt:1: '175bpm' is heart rate in intervals.icu text: kept in the label, not scored (a cadence target is 175rpm)"])
    }

    /// A range written with spaces was the label "165 -" and a target of 175: a zone 5 spm off.
    @Test func aCadenceRangeWithSpaces() throws {
        let steps = try timeline("- 2m 165 - 175rpm\n- 2m 165- 175 rpm\n- Hill 2m 160 -170rpm\n- 2m 10 - 170rpm")
        #expect(steps.prefix(3).map { $0.zone.map { [$0.low, $0.high] } } == [[165, 175], [165, 175], [160, 170]])
        #expect(steps.prefix(2).allSatisfy { $0.label == nil }, "\(steps.map(\.label))")
        #expect(steps[2].label == "Hill")
        // No range a plan may hold (10 steps/min): the words stay the label, 170 the target.
        #expect(steps[3].zone?.target == 170 && steps[3].label == "10 -", "\(steps[3])")
    }

    @Test func repeatOnALineOfItsOwn() throws {
        let steps = try timeline("5x\n- 30s 190rpm\n- 30s 160rpm\n- 5m 165rpm")
        // The third step is in the block too (no blank line): intervals.icu repeats all three.
        #expect(steps.count == 15)
        #expect(steps.filter { $0.kind == .work }.count == 5)
    }

    @Test func cadenceTargetsAndRangesBecomeZonesWithThePlanTolerance() throws {
        let steps = try timeline("- 5m 170rpm\n- 5m 165-175rpm\n- 5m 75% HR")
        #expect(steps[0].zone == CadenceZone(target: 170, low: 165, high: 175))
        #expect(steps[1].zone == CadenceZone(target: 170, low: 165, high: 175))
        #expect(steps[2].zone == nil)
    }

    @Test func cueTextAndTargetsBecomeTheLabel() throws {
        let steps = try timeline("Main set 2x\n- Hard effort 2m 5:00/km Pace 180rpm\n- Recovery jog 1m Z1 HR 160rpm")
        #expect(steps[0].label == "Hard effort · 5:00/km Pace")
        #expect(steps[1].label == "Recovery jog · Z1 HR")
        #expect(steps[1].kind == .rest)
    }

    @Test func pressLapMakesAnOpenStepAndIntensitySetsTheKind() throws {
        let steps = try timeline("- 9m Z2 press lap 170rpm\n- 5m intensity=cooldown 160rpm\n- 2m intensity=rest")
        #expect(steps[0].end == .open)
        #expect(steps[1].kind == .cooldown)
        #expect(steps[2].kind == .rest)
    }

    /// Read as written (steps/min), but said: a run's 80-90rpm can never be met, and the same
    /// targets in a FIT workout are doubled.
    @Test func twoCadencesInAStepAreSaid() throws {
        let imported = try IntervalsICUWorkout.read(Array("- 10m 170rpm 180rpm".utf8), file: "w.txt")
        #expect(imported.plan.timeline().first?.zone?.target == 180)
        #expect(imported.warnings.map(\.description) == ["w.txt:1: two cadence targets in one step: '180rpm', the last, is the zone (a range is written 165-175rpm)"])
    }

    @Test func zonesAllBelowRunningCadenceAreSaid() throws {
        let slow = try IntervalsICUWorkout.read(Array("- 10m 80-90rpm\n- 5m 88rpm".utf8), file: "w.txt")
        #expect(slow.plan.timeline().first?.zone?.high == 90)
        #expect(slow.warnings.map(\.message).contains { $0.hasPrefix("every cadence target is below 120 steps/min") }, "\(slow.warnings)")
        let running = try IntervalsICUWorkout.read(Array("- 10m 110rpm\n- 5m 170rpm".utf8), file: "w.txt")
        #expect(running.warnings.isEmpty, "\(running.warnings)")
    }

    @Test func pressLapWithoutADurationOrBeforeItIsAnOpenStep() throws {
        let steps = try timeline("- Jog press lap 160rpm\n- press lap 5m 165rpm\n- 5m 170rpm")
        #expect(steps.map(\.end) == [.open, .open, .time(.seconds(300))])
        #expect(steps[0].label == "Jog")
        #expect(steps[0].kind == .rest)
    }

    @Test func aStructuredWorkoutIsReadFieldByFieldNotAsText() throws {
        // The step's own words ("400m repeat", "Last 30s hard") are its label, never its end.
        let doc = try JSONParser.parse(
            Array(
                """
                {"steps": [
                  {"text": "Easy", "duration": 600, "cadence": {"start": 160, "end": 170}, "warmup": true},
                  {"reps": 4, "steps": [
                    {"text": "400m repeat", "duration": 100, "distance": 400, "cadence": {"value": 185}},
                    {"text": "Jog", "until_lap_press": true, "duration": 90}]},
                  {"text": "Last 30s hard", "duration": 120, "cadence": {"value": 180}},
                  {"text": "Walk it off"},
                  {"duration": 300, "intensity": "cooldown"}]}
                """.utf8))
        let imported = try IntervalsICUWorkout.read(workoutDoc: doc, file: "intervals.icu event 7")
        let steps = imported.plan.timeline()
        let repeated: [StepEnd] = [.distance(400), .open, .distance(400), .open, .distance(400), .open, .distance(400), .open]
        let expected: [StepEnd] = [.time(.seconds(600))] + repeated + [.time(.seconds(120)), .open, .time(.seconds(300))]
        #expect(steps.map(\.end) == expected)
        #expect(steps[1].label == "400m repeat")
        #expect(steps[1].kind == StepKind.work)
        #expect(steps[2].kind == StepKind.rest)
        #expect(steps[9].label == "Last 30s hard")
        #expect(steps[1].zone?.target == 185)
        #expect(steps.last?.kind == .cooldown)
    }

    @Test func aStructuredWorkoutsErrorsNameTheStep() throws {
        let doc = try JSONParser.parse(Array(#"{"steps": [{"duration": 60}, {"reps": 1e300, "steps": [{"duration": 30}]}]}"#.utf8))
        do throws(ImportError) {
            _ = try IntervalsICUWorkout.read(workoutDoc: doc, file: "e")
            Issue.record("a repeat count of 1e300 was read")
        } catch {
            #expect(error.place == "workout_doc.steps[1].reps")
        }
    }

    @Test func errorsNameTheLineAndWhatWasNotUnderstood() {
        #expect(throws: ImportError(file: "w.txt", place: "3", message: "cadence 400 steps/min is outside 60-260")) {
            try IntervalsICUWorkout.read(Array("Warmup\n- 10m\n- 5m 400rpm".utf8), file: "w.txt")
        }
        #expect(throws: ImportError.self) { try IntervalsICUWorkout.read(Array("just words".utf8), file: "w.txt") }
        #expect(throws: ImportError.self) { try IntervalsICUWorkout.read(Array("- 5m\n- fast please".utf8), file: "w.txt") }
    }

    @Test func aWorkoutWithoutCadenceWarnsThatNothingWillBeScored() throws {
        let imported = try IntervalsICUWorkout.read(Array("- 10m 75%".utf8), file: "easy.txt")
        #expect(imported.plan.name == "easy")
        #expect(imported.warnings.map(\.message).contains { $0.contains("nothing to score") })
    }
}
