import IntervalProCore
import Testing

@testable import IntervalProLaunch

@Suite("The summary printed at a session's end")
struct SummaryReportTests {
    struct NoSummary: Error {}

    func summary(source: SessionSourceKind = .simulation) throws -> SessionSummary {
        let plan = try PlanDecoder.decode(
            Array(#"""
                {"name": "Ladder", "steps": [
                  {"kind": "warmup", "duration": 60, "cadence": 160},
                  {"repeat": 2, "steps": [{"kind": "work", "duration": 60, "cadence": 175, "label": "Strides uphill"}]},
                  {"kind": "cooldown", "duration": 60, "cadence": 158}]}
                """#.utf8), file: "ladder.json")
        var engine = SessionEngine(plan: plan, source: source)
        for second in 0...300 {
            for case .sessionFinished(let summary) in engine.handle(.tick, now: .seconds(Double(second))) { return summary }
        }
        throw NoSummary()
    }

    /// The table was 92 columns whatever the terminal: on 80 each row wrapped onto two lines,
    /// on 40 onto three, words cut in the middle.
    @Test(arguments: [80, 60, 40])
    func itFitsTheTerminal(columns: Int) throws {
        let text = SummaryReport.text(try summary(), colour: false, width: columns)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { String($0).terminalWidth <= columns }, "\(columns):\n\(text)")
        // Every step is there, with its time in zone.
        for step in ["Warmup", "Strides uphill", "Cooldown"] {
            #expect(text.contains(step) || text.contains(String(step.prefix(5))), "\(columns):\n\(text)")
        }
        #expect(text.contains("In zone: "), "\(columns):\n\(text)")
    }

    /// Each step's alpha 1 with two decimals, as the column lines them up: 0.9 stood among
    /// 0.87 and 0.93.
    @Test func alphaOneHasTwoDecimals() throws {
        var summary = try summary()
        summary.hrv = SessionHRV(beats: 1000, artifacts: 0, stepAlpha1: [0: 0.9, 1: 0.874], crossings: [], scoredWindows: 20)
        let text = SummaryReport.text(summary, colour: false, width: 200)
        #expect(text.contains(" 0.90") && text.contains(" 0.87"), "\(text)")
        #expect(!text.contains(" 0.9 "), "\(text)")
    }

    /// The alpha 1 line ("Beats 4329, 0.6% corrected; alpha 1 crossed 0.75 at 13:00 ...", 85
    /// to 134 columns) and show's heading were left whole: the terminal broke their words.
    @Test func theLinesUnderTheTableBreakBetweenWords() {
        let text = "No RR intervals came with the heart rate: no alpha 1 (optical sensors and some straps send none)."
        let lines = SummaryReport.wrapped(text, width: 40)
        #expect(lines.count > 1 && lines.allSatisfy { $0.terminalWidth <= 40 }, "\(lines)")
        #expect(lines.joined(separator: " ") == text)
        #expect(SummaryReport.wrapped(text, width: nil) == [text])
    }

    /// The metronome alone (`run --no-runner`): a row of dashes a step and "In zone: 0.0%"
    /// scored a runner who was not there.
    @Test(arguments: [nil, 40])
    func withNoRunnerTheStepsAloneAndNoFigures(columns: Int?) throws {
        let text = SummaryReport.text(try summary(source: .metronome), colour: false, width: columns)
        #expect(text.contains("Ladder — metronome, 4:00") && text.contains("Strides up"), "\(text)")
        #expect(!text.contains("In zone") && !text.contains("no signal") && !text.contains("0.0%"), "\(text)")
        let words = text.replacing("\n", with: " ")
        #expect(words.contains("No runner: the metronome and the step cues alone, nothing measured or saved."), "\(text)")
        #expect(text.split(separator: "\n").allSatisfy { String($0).terminalWidth <= (columns ?? 80) }, "\(text)")
        // The live screen: no advice, no "no signal" in red, no share of a zone nobody ran in.
        let plan = try PlanDecoder.decode(Array(#"{"name":"L","steps":[{"kind":"work","duration":600,"cadence":180}]}"#.utf8), file: "p.json")
        var engine = SessionEngine(plan: plan, source: .metronome)
        _ = engine.handle(.tick, now: .zero)
        var screen = LiveScreen(colour: false)
        let frame = screen.draw(SessionView(engine, at: .seconds(20)), columns: 80)
        #expect(frame.contains("METRONOME") && frame.contains("sensor: none") && frame.contains("in zone so far --"), "\(frame)")
        #expect(!frame.contains("no signal"), "\(frame)")
    }

    /// A zone step finished as it began had "-%" for its share.
    @Test func aZoneStepOfNoTimeHasNoShare() throws {
        let plan = try PlanDecoder.decode(Array(#"{"name":"Z","steps":[{"kind":"work","duration":60,"cadence":170}]}"#.utf8), file: "p.json")
        var step = StepResult(step: plan.timeline()[0])
        step.endedBy = .finished
        let text = SummaryReport.text(SessionSummary(plan: "Z", source: .replay, steps: [step], completed: false), colour: false)
        #expect(!text.contains("-%") && text.contains("In zone: -"), "\(text)")
    }

    @Test func withoutAWidthTheTableIsWhole() throws {
        let text = SummaryReport.text(try summary(), colour: false)
        #expect(text.contains("no signal") && text.contains("Strides uphill"), "\(text)")
        #expect(text.split(separator: "\n").contains { String($0).terminalWidth > 80 }, "\(text)")
    }
}
