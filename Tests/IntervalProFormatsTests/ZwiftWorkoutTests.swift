import IntervalProCore
import IntervalProFormats
import IntervalProIO
import Testing

/// Zwift .zwo files in the forms Zwift writes, read through the real XML reader.
struct ZwiftWorkoutTests {
    func read(_ xml: String, file: String = "w.zwo") throws -> ImportedPlan {
        try WorkoutImport.read(Array(xml.utf8), file: file, xml: MarkupReader.read)
    }

    /// Before: "an XML file whose root is <gpx>, not a Zwift workout", and a recording "invalid
    /// JSON: unexpected '{' after the JSON value" at its second line.
    @Test("an activity or a recording given for a plan is said to be one, with the command that reads it")
    func activitiesAndRecordingsAreNotPlans() {
        func refusal(_ text: String, file: String) -> String? {
            do {
                _ = try read(text, file: file)
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(
            refusal(#"<gpx version="1.1"><trk><trkseg/></trk></gpx>"#, file: "run.gpx")
                == "run.gpx: a GPX activity (a recorded run), not a workout: score it with `intervalpro replay run.gpx --plan PLAN`")
        #expect(
            refusal("<TrainingCenterDatabase><Activities/></TrainingCenterDatabase>", file: "run.tcx")
                == "run.tcx: a TCX activity (a recorded run), not a workout: score it with `intervalpro replay run.tcx --plan PLAN`")
        // A TCX of workouts is not read, and not called an activity.
        #expect(
            refusal("<TrainingCenterDatabase><Workouts/></TrainingCenterDatabase>", file: "w.tcx")
                == "w.tcx:1: an XML file whose root is <TrainingCenterDatabase>, not a Zwift workout (<workout_file>)")
        let recording = #"{"intervalpro_recording":1,"started_at":"2026-11-25T06:30:00Z","devices":[]}"# + "\n" + #"{"t":1,"dev":"x","char":"2a37","hex":"063c"}"#
        #expect(
            refusal(recording, file: "run.jsonl")
                == "run.jsonl: an IntervalPro recording, not a plan: replay it with `intervalpro replay run.jsonl` (`--plan PLAN` scores it against another plan)")
        // A JSON plan with comments before it, as editors allow: said for what it is, not read
        // as intervals.icu text without steps.
        for text in ["// tempo\n{\"name\": \"x\", \"steps\": []}", "/* tempo */ {\"name\": \"x\", \"steps\": []}"] {
            let message = refusal(text, file: "tempo.json") ?? ""
            #expect(message.contains("a JSON plan cannot hold comments"), "\(message)")
        }
        // A .json that is no JSON: said so, with what it starts with, not "no steps found".
        #expect(
            refusal("\n404: Not Found\n<p>gone</p>", file: "tempo.json")
                == "tempo.json: not JSON, though named .json: a plan starts with '{', and this file with \"404: Not Found\"")
        #expect(refusal(String(repeating: "x", count: 50), file: "tempo.JSON")?.hasSuffix("with \"\(String(repeating: "x", count: 40))…\"") == true)
        // intervals.icu text under that name is read, as before; under another name the text's reason stays.
        #expect(refusal("- 5m 170rpm\n", file: "tempo.json") == nil)
        #expect(refusal("not a plan {\n", file: "tempo.txt")?.contains("no steps found") == true)
    }

    @Test func everyStepElementAndIntervalsT() throws {
        let imported = try read(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <workout_file>
              <author>Zwift</author>
              <name>Cadence builder</name>
              <description>Quick feet</description>
              <sportType>run</sportType>
              <workout>
                <Warmup Duration="600" PowerLow="0.25" PowerHigh="0.75" Cadence="160"/>
                <SteadyState Duration="300" Power="0.8" Cadence="170">
                  <textevent timeoffset="0" message="Settle in"/>
                </SteadyState>
                <IntervalsT Repeat="3" OnDuration="60" OffDuration="30" OnPower="1.2" OffPower="0.5" Cadence="185" CadenceResting="165">
                  <textevent timeoffset="0" message="Fast feet"/>
                  <textevent timeoffset="60" message="Easy"/>
                </IntervalsT>
                <FreeRide Duration="120" FlatRoad="1"/>
                <Ramp Duration="90" PowerLow="0.6" PowerHigh="0.8"/>
                <Cooldown Duration="300" PowerLow="0.6" PowerHigh="0.25" Cadence="155"/>
              </workout>
            </workout_file>
            """)
        #expect(imported.format == .zwift)
        #expect(imported.plan.name == "Cadence builder")
        #expect(imported.plan.description == "Quick feet")
        #expect(imported.warnings.isEmpty)
        let steps = imported.plan.timeline()
        #expect(steps.map(\.kind) == [.warmup, .work, .work, .rest, .work, .rest, .work, .rest, .work, .work, .cooldown])
        #expect(steps[1].label == "Settle in")
        #expect(steps[2].label == "Fast feet" && steps[3].label == "Easy")
        #expect(steps[2].zone == CadenceZone(target: 185, tolerance: 5))
        #expect(steps[3].zone == CadenceZone(target: 165, tolerance: 5))
        #expect(steps[8].zone == nil && steps[8].label == "free run")
        #expect(steps.timedDuration == .seconds(600 + 300 + 3 * 90 + 120 + 90 + 300))
    }

    @Test func distanceWorkoutsAndLowerCaseAttributes() throws {
        let steps = try read(
            """
            <workout_file><name>Track</name><sportType>run</sportType><durationType>distance</durationType>
            <workout><SteadyState duration="400" power="1.0" cadence="180"/></workout></workout_file>
            """
        ).plan.timeline()
        #expect(steps.map(\.end) == [.distance(400)])
        #expect(steps[0].zone?.target == 180)
    }

    @Test func cadenceAllBelowRunningIsSaid() throws {
        let imported = try read(
            """
            <workout_file><name>x</name><sportType>run</sportType>
            <workout><SteadyState Duration="600" Cadence="88"/><SteadyState Duration="60" Cadence="92"/></workout></workout_file>
            """)
        #expect(imported.plan.timeline().first?.zone?.target == 88)
        #expect(imported.warnings.map(\.message).contains { $0.contains("(92 is 184 steps/min)") }, "\(imported.warnings)")
    }

    @Test func unknownElementsAndLateTextEventsAreWarnings() throws {
        let imported = try read(
            """
            <workout_file><name>x</name><workout>
            <SteadyState Duration="60" Cadence="170"><textevent timeoffset="30" message="Half"/></SteadyState>
            <Sprint Duration="10"/>
            </workout></workout_file>
            """)
        #expect(imported.plan.timeline().count == 1)
        #expect(imported.warnings.map(\.place) == ["2", "3"])
    }

    /// Zwift's own workouts place text events in metres (`distoffset`): one 500 m into a step
    /// was its label, and said "at 0 s"; two lines of one message at the start were "not at a
    /// step's start".
    @Test func textEventsPlacedInMetresAndTwoLinesAtTheStart() throws {
        let imported = try read(
            """
            <workout_file><workout>
            <SteadyState Duration="120" Cadence="170"><textevent distoffset="500" message="At 500 m"/></SteadyState>
            <SteadyState Duration="60" Cadence="175"><textevent timeoffset="0" message="Quick"/><textevent timeoffset="0" y="270" message="feet"/></SteadyState>
            </workout></workout_file>
            """)
        #expect(imported.plan.timeline().map(\.label) == [nil, "Quick feet"])
        #expect(imported.warnings.map(\.description) == ["w.zwo:2: the text event at 500 m into <SteadyState> is not at a step's start; left out"])
    }

    /// Auuki writes a single step with a slope as `IntervalsT Repeat="1" OffDuration="0"`;
    /// an element or part that lasts 0 is left out, not refused as a 0 s step.
    @Test func partsThatLastZeroAreLeftOut() throws {
        let imported = try read(
            """
            <workout_file><workout>
            <IntervalsT Repeat="1" OnDuration="300" OffDuration="0" OnSlope="1" Cadence="170"/>
            <IntervalsT Repeat="2" OnDuration="0" OffDuration="30" CadenceResting="160"><textevent timeoffset="0" message="easy"/></IntervalsT>
            <SteadyState Duration="0" Cadence="180"/>
            <IntervalsT Repeat="3" OnDuration="0" OffDuration="0"/>
            </workout></workout_file>
            """)
        let timeline = imported.plan.timeline()
        #expect(timeline.map(\.kind) == [.work, .rest, .rest])
        #expect(timeline.map(\.end) == [.time(.seconds(300)), .time(.seconds(30)), .time(.seconds(30))])
        #expect(timeline.map(\.label) == [nil, "easy", "easy"])
        #expect(timeline.map(\.zone?.target) == [170, 160, 160])
        #expect(imported.plan.nodes.count == 2, "the single step stands alone; the off parts stay a repeat")
        #expect(imported.warnings.map(\.place) == ["4", "5"])
        #expect(imported.warnings.map(\.message) == ["<SteadyState> lasts 0 s: left out", "<IntervalsT> lasts 0 s: left out"])
    }

    /// Zwift's own workouts hold a coach's messages at times inside steps, a dozen or more
    /// (and durations like 60.000004); other tools write Cadence="-1" for none.
    @Test func zwiftsOwnMessagesAreOneWarningAndMinusOneIsNoCadence() throws {
        let imported = try read(
            """
            <workout_file><workout>
            <Warmup Duration="480.00003" PowerLow="0.55" PowerHigh="0.75" pace="0">
            <textevent timeoffset="15" message="Welcome."/>
            <textevent timeoffset="420" message="In 60 seconds we rest."/></Warmup>
            <IntervalsT Repeat="4" OnDuration="20" OffDuration="100.00001" Cadence="-1" CadenceResting="-1">
            <textevent timeoffset="0" message="Hit these hard!"/>
            <textevent timeoffset="120" message="Go Go Go!"/>
            </IntervalsT>
            <SteadyState Duration="60" Cadence="0"/>
            <SteadyState Duration="60" Cadence="172"/>
            </workout></workout_file>
            """)
        let timeline = imported.plan.timeline()
        #expect(timeline.count == 1 + 8 + 2)
        #expect(timeline.map(\.zone?.target) == Array(repeating: nil, count: 10) + [172])
        #expect(timeline[1].label == "Hit these hard!")
        #expect(imported.warnings.map(\.place) == ["3"])
        #expect(imported.warnings.first?.message.hasPrefix("3 text events are not at a step's start") == true)
        #expect(imported.warnings.first?.message.contains("the last at line 7") == true)
    }

    /// A .zwo beside the activities of a folder `history import` reads: a plan, not a file it
    /// cannot read.
    /// Zwift's CadenceLow/CadenceHigh (on SteadyState, IntervalsT, Warmup, Cooldown, FreeRide):
    /// the zone is the range; before, such a step had no zone and no word was said.
    @Test func cadenceLowAndHighAreTheZone() throws {
        let plan = try read(
            """
            <workout_file><sportType>run</sportType><workout>
            <SteadyState Duration="600" Power="0.8" CadenceLow="170" CadenceHigh="176"/>
            <IntervalsT Repeat="2" OnDuration="60" OffDuration="60" CadenceLow="180" CadenceHigh="186" CadenceResting="160"/>
            <FreeRide Duration="60" CadenceHigh="165"/>
            </workout></workout_file>
            """
        ).plan
        let steps = plan.timeline()
        #expect(steps.map { $0.zone.map { [$0.low, $0.high] } }.prefix(2) == [[170, 176], [180, 186]])
        #expect(steps[2].zone?.target == 160, "the off part keeps CadenceResting's zone")
        #expect(steps.last?.zone?.target == 165, "one of the two alone: a target")
        #expect(throws: ImportError.self) {
            try read(#"<workout_file><workout><SteadyState Duration="60" CadenceLow="180" CadenceHigh="170"/></workout></workout_file>"#)
        }
    }

    @Test func readAsAnActivityItIsAWorkout() throws {
        let root = try MarkupReader.read(Array("<workout_file><workout><SteadyState Duration=\"60\"/></workout></workout_file>".utf8))
        #expect(throws: ImportError(file: "w.zwo", message: "a Zwift workout (a plan), not an activity: run it with `intervalpro run w.zwo`", kind: .notAnActivity)) {
            try ActivityImport.readXML(root, file: "w.zwo")
        }
    }

    @Test func errorsNameTheLine() {
        #expect(throws: ImportError(file: "w.zwo", place: "2", message: "IntervalsT needs a whole-number Repeat attribute")) {
            try read("<workout_file><workout>\n<IntervalsT OnDuration=\"60\" OffDuration=\"60\"/></workout></workout_file>")
        }
        #expect(throws: ImportError.self) { try read("<workout_file><workout><SteadyState Duration=") }
        #expect(throws: ImportError.self) { try read("<html><body/></html>") }
    }
}

struct MarkupReaderTests {
    @Test func emptyProcessingInstructionsAreRefused() {
        #expect(throws: MarkupError(line: 2, message: "a processing instruction with nothing in it (like <?xml?>)")) {
            try MarkupReader.read(Array("<a>\n<?pi ?></a>".utf8))
        }
        #expect(throws: MarkupError.self) { try MarkupReader.read(Array("<?xml?><a/>".utf8)) }
        #expect((try? MarkupReader.read(Array("<?xml version=\"1.0\"?><a><?pi data?></a>".utf8)))?.name == "a")
    }

    /// Strava's TCX and GPX exports start with ten spaces before the XML declaration, which
    /// XML forbids and libxml2 refuses ("XML declaration allowed only at the start of the
    /// document"); they read, and lines keep their numbers.
    @Test func aDeclarationAfterSpacesAsStravaWritesItReads() throws {
        let root = try MarkupReader.read(Array("          <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>\n<b/></a>".utf8))
        #expect(root.name == "a" && root.line == 2)
        #expect(root.children.first?.line == 3)
    }

    /// XML in the encodings other tools write: ISO-8859-1 declared (older GPS tools),
    /// UTF-16 with its byte order mark (Windows tools), Windows-1252 undeclared (a Zwift
    /// workout saved in the Windows code page, which XML would refuse as bad UTF-8).
    @Test func documentsInOtherEncodingsRead() throws {
        let latin1 = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<gpx><name>M".utf8) + [0xFC] + Array("hle</name></gpx>".utf8)
        #expect(try MarkupReader.read(latin1).child("name")?.text == "Mühle")
        let late = Array("   <?xml version='1.0' encoding='ISO-8859-1'?>\n<a>".utf8) + [0xE9] + Array("</a>".utf8)
        #expect(try MarkupReader.read(late).text == "é", "a late declaration's encoding still counts")
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<a>\n<b>Ü</b></a>"
        let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let root = try MarkupReader.read(utf16)
        #expect(root.child("b")?.text == "Ü" && root.child("b")?.line == 3)
        #expect(WorkoutImport.format(of: utf16) == .zwift)
        #expect(ActivityImport.encoding(of: utf16) == .markup)
        let windows = Array("<workout_file>\n<name>Don".utf8) + [0x92] + Array("t stop ".utf8) + [0x96, 0x81] + Array("</name></workout_file>".utf8)
        #expect(try MarkupReader.read(windows).child("name")?.text == "Don\u{2019}t stop \u{2013}\u{81}")
    }

    /// A watch's file cut right after its declaration: libxml2 says "Extra content at the end
    /// of the document". One cut inside its first point keeps libxml2's word alone, as does a
    /// small file whose error libxml2 meets before the reader hands over its first element.
    @Test func aDocumentWithoutAnElementIsSaidToBeOne() {
        for (text, noElement) in [
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", true),
            ("<?xml version=\"1.0\"?>\n<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2024-01-01T00:00:00Z</ti", false),
            ("<a>\n<b>&undefined;</b></a>", false),
        ] {
            do {
                _ = try MarkupReader.readSalvaging(Array(text.utf8))
                Issue.record("no element to give")
            } catch {
                #expect(error.message.hasPrefix("no element in the document") == noElement, "\(error.message)")
            }
        }
    }

    @Test func textThatIsNotInTheEncodingItDeclaresIsRefused() {
        #expect(throws: MarkupError(line: nil, message: "no element in the document (or none that reads as windows-1252, the encoding it declares)")) {
            try MarkupReader.read(Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?><a>".utf8) + [0x81] + Array("</a>".utf8))
        }
    }

    /// Older Zwift workouts write "stop & go" with a bare ampersand, which XML refuses and
    /// Zwift reads; references, comments and CDATA keep theirs as they are.
    @Test func aBareAmpersandReadsAsOne() throws {
        let text = "<a n=\"R&D\">\nstop & go &amp; &#233;&#xE9; &lt;<!-- a & b --><![CDATA[c & d]]>\n<b>x & y &</b></a>"
        let root = try MarkupReader.read(Array(text.utf8))
        #expect(root.attribute("n") == "R&D")
        #expect(root.text.hasPrefix("stop & go & éé <c & d"))
        #expect(root.child("b")?.line == 3)
        #expect(throws: MarkupError.self) { try MarkupReader.read(Array("<a>&undefined;</a>".utf8)) }
    }

    /// Tools that write `encoding="UTF-8"` as boilerplate and the text in their code page:
    /// read as Windows-1252 too (libxml2 refused it on two lines, "Input is not proper UTF-8,
    /// indicate encoding !" and "Bytes: 0xFF 0x3C 0x2F 0x61").
    @Test func aUTF8DeclarationOverTextThatIsNotIsReadAsTheCodePage() throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>caf".utf8) + [0xE9] + Array("</a>".utf8)
        #expect(try MarkupReader.read(bytes).text == "café")
    }
}
