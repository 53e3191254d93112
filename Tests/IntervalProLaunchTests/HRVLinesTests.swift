import IntervalProCore
@testable import IntervalProLaunch
import Testing

/// What the summary's closing line and the live screen say of alpha 1.
struct HRVLinesTests {
    func window(second: Int, status: AlphaWindow.Status = .scored, beats: Int = 300, artifacts: Int = 0, alpha1: Double? = 0.7) -> AlphaWindow {
        AlphaWindow(
            second: second, stepIndex: 0, status: status, beats: beats, artifacts: artifacts, alpha1: alpha1, heartRate: 153,
            cadence: 160)
    }

    func hrv(crossings: [AlphaCrossing], scoredWindows: Int = 100) -> SessionHRV {
        SessionHRV(beats: 5200, artifacts: 62, stepAlpha1: [:], crossings: crossings, scoredWindows: scoredWindows)
    }

    @Test func theClosingLineReadsAsASentence() {
        let aerobic = AlphaCrossing(threshold: 0.75, window: window(second: 745))
        let anaerobic = AlphaCrossing(threshold: 0.5, window: window(second: 1500))
        #expect(
            SummaryReport.beatsLine(hrv(crossings: [aerobic]))
                == "Beats 5200, 1.2% corrected; alpha 1 crossed 0.75 at 12:25 (HR 153, 160 spm); not 0.5.")
        #expect(
            SummaryReport.beatsLine(hrv(crossings: [aerobic, anaerobic]))
                == "Beats 5200, 1.2% corrected; alpha 1 crossed 0.75 at 12:25 (HR 153, 160 spm), 0.5 at 25:00 (HR 153, 160 spm).")
        // It was "alpha 1 crossed 0.75 not crossed, 0.5 not crossed."
        #expect(SummaryReport.beatsLine(hrv(crossings: [])) == "Beats 5200, 1.2% corrected; alpha 1 crossed neither 0.75 nor 0.5.")
        #expect(SummaryReport.beatsLine(hrv(crossings: [], scoredWindows: 0)).contains("no two-minute window could be scored"))
        // A one-minute session blamed the strap, and so did one of exactly two minutes.
        for seconds in [60.0, 120] {
            #expect(SummaryReport.beatsLine(hrv(crossings: [], scoredWindows: 0), runSeconds: seconds).hasSuffix(
                "; no alpha 1: the first window takes the two minutes of beats after the start, and the session was no longer."))
        }
        #expect(SummaryReport.beatsLine(hrv(crossings: [], scoredWindows: 0), runSeconds: 121).contains("no two-minute window could be scored"))
    }

    /// A window left unscored with a few corrected beats was said to be so for its artifacts,
    /// where its beats were missing (a dropout, a strap without contact).
    @Test func anUnreliableWindowSaysWhy() {
        #expect(LiveScreen.alphaOneText(window(second: 300, status: .unreliable, beats: 200, artifacts: 2, alpha1: nil))
            == "alpha 1 unreliable (too few beats)")
        #expect(LiveScreen.alphaOneText(window(second: 300, status: .unreliable, beats: 200, artifacts: 8, alpha1: nil))
            == "alpha 1 unreliable (4% artifacts)")
        #expect(LiveScreen.alphaOneText(window(second: 300)) == "alpha 1 0.70", "two decimals, as the summary gives it")
        // After a dropout, 92 beats of which 4 were corrected: the missing beats are why.
        var fewAfterADropout = window(second: 1880, status: .unreliable, beats: 92, artifacts: 4, alpha1: nil)
        fewAfterADropout.tooFewBeats = true
        #expect(LiveScreen.alphaOneText(fewAfterADropout) == "alpha 1 unreliable (too few beats)")
    }

    /// The cadence ladder's crossing at 0.7482 was given as "alpha1": 0.75, crossing 0.75.
    @Test func aCrossingsAlphaOneReadsBelowItsThreshold() {
        let crossing = AlphaCrossing(threshold: 0.75, window: window(second: 1270, alpha1: 0.7482))
        let json = hrv(crossings: [crossing]).json.serialized(pretty: false)
        #expect(json.contains(#""threshold":0.75,"second":1270,"alpha1":0.74"#), "\(json)")
    }

    /// 126 of 4,211 beats (2.99 %) read "3% corrected" without the warning 3 % gives.
    @Test func theShareCorrectedIsNotRoundedOverTheWarning() {
        let under = SessionHRV(beats: 4211, artifacts: 126, stepAlpha1: [:], crossings: [], scoredWindows: 10)
        #expect(SummaryReport.beatsLine(under).hasPrefix("Beats 4211, 2.9% corrected; alpha 1"), "\(SummaryReport.beatsLine(under))")
        let at = SessionHRV(beats: 4200, artifacts: 126, stepAlpha1: [:], crossings: [], scoredWindows: 10)
        #expect(SummaryReport.beatsLine(at).hasPrefix("Beats 4200, 3% corrected (too many to trust alpha 1"), "\(SummaryReport.beatsLine(at))")
    }

    /// A strap whose every interval was too short for a heartbeat: "No RR intervals came with
    /// the heart rate" said it sent none, and nothing of its contact.
    @Test func noBeatButArtifactsIsAllCorrected() {
        let noise = SessionHRV(beats: 0, artifacts: 640, stepAlpha1: [:], crossings: [], scoredWindows: 0)
        let line = SummaryReport.beatsLine(noise, runSeconds: 600)
        #expect(line.hasPrefix("Beats 0, 100% corrected (too many to trust alpha 1: wet the strap's electrodes"), "\(line)")
        #expect(line.contains("no two-minute window could be scored"), "\(line)")
        #expect(noise.json.serialized(pretty: false).contains(#""beats":0,"artifacts":640,"artifact_pct":100,"trusted":false"#))
    }

    /// On an 80-column terminal the heart-rate line with alpha 1 beside it was 87-91 characters:
    /// it wrapped, and each redraw, moving up by lines, left a row behind. Every line now fits.
    @Test func everyLineFitsTheTerminal() throws {
        let plan = try PlanDecoder.decode(
            Array(#"{"version":1,"name":"Ladder","steps":[{"kind":"work","duration":600,"cadence":180,"label":"Ladder rung"}]}"#.utf8),
            file: "p.json")
        var engine = SessionEngine(plan: plan, source: .simulation)
        _ = engine.handle(.tick, now: .zero)
        var view = SessionView(engine, at: .seconds(200))
        view.heartRate = 167
        view.alphaOne = window(second: 200, status: .unreliable, beats: 200, artifacts: 1, alpha1: nil)
        var screen = LiveScreen(colour: true)
        screen.warning = "ant:12345 disconnected: the foot pod is out of range, or its battery is low; looking for it again"
        let music = "A band with a very long name – A song whose title goes on and on and on (extended remix)"
        for frame in screen.draw(view, music: music, columns: 80).split(separator: "\n").dropLast() {
            let shown = frame.replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "")
            #expect(shown.count <= 79, "\(shown.count): \(shown)")
        }
        let second = screen.draw(view, music: music, columns: 80)
        #expect(second.contains("\u{1B}[9F"), "moves up by the nine lines it drew: \(second.debugDescription)")
        #expect(second.contains("alpha 1 unreliable (too few beats)"))
        #expect(LiveScreen.cut("\u{1B}[33mwarning: abcdef\u{1B}[0m", to: 10) == "\u{1B}[33mwarning: …\u{1B}[0m")
        #expect(LiveScreen.cut("short", to: 10) == "short")
        // Wide characters take two columns: a Japanese label was counted one a character, left
        // whole past the terminal's edge, and each redraw left a copy behind.
        #expect(LiveScreen.cut("ラダー走り", to: 6) == "ラダ…")
        #expect(LiveScreen.cut("ラダー", to: 6) == "ラダー")
        #expect(LiveScreen.cut("Work 2/6 · ラダー走り 段", to: 16).terminalWidth <= 16)
    }

    /// "C8:…: 2a53 through AcquireNotify" and "C8:… connected" were drawn as warnings, in
    /// yellow, for the whole run. A notice is said as one; a warning after it replaces it.
    @Test func aNoticeIsNotAWarning() throws {
        let plan = try PlanDecoder.decode(
            Array(#"{"name": "N", "steps": [{"kind": "work", "duration": 600, "cadence": 170}]}"#.utf8), file: "p.json")
        var engine = SessionEngine(plan: plan, source: .simulation)
        _ = engine.handle(.tick, now: .zero)
        let view = SessionView(engine, at: .seconds(20))
        var screen = LiveScreen(colour: false)
        screen.notice = "C8:3A:35:11:22:33: 2a53 through AcquireNotify"
        let quiet = screen.draw(view, music: nil, columns: 80)
        #expect(quiet.contains("C8:3A:35:11:22:33: 2a53 through AcquireNotify") && !quiet.contains("warning:"), "\(quiet)")
        screen.warning = "C8:3A:35:11:22:33 disconnected"
        let warned = screen.draw(view, music: nil, columns: 80)
        #expect(warned.contains("warning: C8:3A:35:11:22:33 disconnected") && !warned.contains("AcquireNotify"), "\(warned)")
    }

    /// A long step label was cut with the line, and PAUSED, REPLAY and the step number with
    /// it; a recording's event name reached the terminal as it was, escapes and all.
    @Test func aLongLabelIsCutBeforeTheBadges() throws {
        let label = String(repeating: "Lange Steigerung ", count: 8)
        let plan = try PlanDecoder.decode(
            Array(#"{"name": "N", "steps": [{"kind": "work", "duration": 600, "cadence": 170, "label": "\#(label)"}]}"#.utf8),
            file: "p.json")
        var engine = SessionEngine(plan: plan, source: .replay)
        _ = engine.handle(.tick, now: .zero)
        _ = engine.handle(.command(.pause), now: .seconds(5))
        let view = SessionView(engine, at: .seconds(20))
        var screen = LiveScreen(colour: true)
        screen.notice = "AA:BB boom\u{1B}]0;T\u{07}"
        let frame = screen.draw(view, music: nil, columns: 80)
        let title = try #require(frame.split(separator: "\n").first?.replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: ""))
        #expect(title.hasSuffix("…   step 1 of 1   REPLAY   PAUSED") && title.count <= 79, "\(title)")
        // At 40 columns the badges close up, and the label still has room.
        let narrow = try #require(screen.draw(view, music: nil, columns: 40).split(separator: "\n").first?.replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: ""))
        #expect(narrow.hasPrefix("Work · Lange") && narrow.hasSuffix("…  1/1  REPLAY  PAUSED") && narrow.count <= 39, "\(narrow)")
        #expect(frame.contains("AA:BB boom\u{FFFD}]0;T\u{FFFD}"), "\(frame.debugDescription)")
    }

    /// At 40 and 60 columns the bars stayed 40 wide: the time left and the zone were cut off.
    /// At 40 the narrowest bar still cut the zone's upper bound and the sensor's status: there
    /// the figures lose their words.
    @Test func theBarsNarrowWithTheTerminal() throws {
        let plan = try PlanDecoder.decode(
            Array(#"{"version":1,"name":"Ladder","steps":[{"kind":"work","duration":600,"cadence":180}]}"#.utf8), file: "p.json")
        var engine = SessionEngine(plan: plan, source: .replay)
        _ = engine.handle(.tick, now: .zero)
        var view = SessionView(engine, at: .seconds(200))
        view.cadence = 175
        for columns in [40, 60, 80] {
            var screen = LiveScreen(colour: false)
            let lines = screen.draw(view, columns: columns).replacing(/\u{1B}\[[0-9;?]*[A-Za-z]/, with: "").split(separator: "\n")
            #expect(lines.contains { $0.hasSuffix(" left") }, "\(columns): \(lines)")
            #expect(lines.contains { $0.contains(/\] +(zone )?175-185$/) }, "\(columns): \(lines)")
            #expect(lines.contains { $0.hasPrefix("HR ") && $0.hasSuffix("signal") }, "\(columns): \(lines)")
            #expect(lines.allSatisfy { $0.count < columns && !$0.hasSuffix("…") }, "\(columns): \(lines)")
        }
        #expect(LiveScreen.barWidth(columns: 80) == 40 && LiveScreen.barWidth(columns: 60) == 25)
        #expect(LiveScreen.barWidth(columns: 40) == 21)
    }
}
