import IntervalProCore
import IntervalProFormats
import IntervalProIO
import Testing

/// Zwift .zwo files in the forms Zwift writes, read through the real XML reader.
struct ZwiftWorkoutTests {
    func read(_ xml: String, file: String = "w.zwo") throws -> ImportedPlan {
        try WorkoutImport.read(Array(xml.utf8), file: file, xml: MarkupReader.read)
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

    @Test func errorsNameTheLine() {
        #expect(throws: ImportError(file: "w.zwo", place: "2", message: "IntervalsT needs a whole-number Repeat attribute")) {
            try read("<workout_file><workout>\n<IntervalsT OnDuration=\"60\" OffDuration=\"60\"/></workout></workout_file>")
        }
        #expect(throws: ImportError.self) { try read("<workout_file><workout><SteadyState Duration=") }
        #expect(throws: ImportError.self) { try read("<html><body/></html>") }
    }
}

/// Input that crashes Foundation's XMLParser is refused before it reaches it.
struct MarkupReaderTests {
    @Test func namesThatAreNotUTF8AndEmptyProcessingInstructionsAreRefused() {
        #expect(throws: MarkupError(line: nil, message: "not UTF-8 text")) {
            try MarkupReader.read(Array("<a b".utf8) + [0xFF] + Array("=\"1\"/>".utf8))
        }
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
}
