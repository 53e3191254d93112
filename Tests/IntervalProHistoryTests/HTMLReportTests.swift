import IntervalProCore
@testable import IntervalProHistory
import IntervalProHRV
import Testing

/// The HTML report: one page of SVG charts, its figures as `show` gives them, laid out for a
/// phone, a screen and paper.
extension HistoryTextTests {
    @Test("the report is one page with three SVG charts and no scripts")
    func report() {
        let html = HTMLReport.page(Self.storedSession())
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.occurrences(of: "<svg") == 3)
        #expect(!html.contains("<script"))
        #expect(html.occurrences(of: "class=\"zone\"") == 2, "two steps with a zone")
        #expect(html.contains("class=\"cadence\""))
        #expect(!html.contains("Readiness before this run"), "no readiness without measurements")
        // Dated on the runner's clock when the caller says it, as the page's history dates it.
        let local = HTMLReport.page(Self.storedSession(), localStart: "2026-03-02 00:30")
        #expect(local.contains("<title>Driven &lt;test&gt; &amp; co — 2026-03-02 · IntervalPro</title>"), "\(local.prefix(400))")
        #expect(local.contains("Session 7 · 2026-03-02 00:30 (2026-03-01 07:30:00 UTC)"))
    }

    @Test("with scored alpha 1 windows, the report charts them under the cadence, with both thresholds")
    func reportWithAlphaOne() {
        var session = Self.storedSession()
        func window(_ second: Int, _ alpha: Double?, _ status: AlphaWindow.Status = .scored) -> AlphaWindow {
            AlphaWindow(
                second: second, stepIndex: 0, status: status, beats: 300, artifacts: 0, alpha1: alpha, heartRate: 150,
                cadence: 170)
        }
        // Two runs of windows, split by an unreliable one; a settling one never drawn.
        session.alphaWindows = [
            window(5, nil, .settling), window(10, 1.1), window(15, 0.9), window(20, nil, .unreliable), window(25, 0.6),
        ]
        let html = HTMLReport.page(session)
        #expect(html.occurrences(of: "<svg") == 4)
        let cadence = html.firstRange(of: "id=\"cadence\"")?.lowerBound
        let alpha = html.firstRange(of: "id=\"alpha1\"")?.lowerBound
        let heart = html.firstRange(of: "id=\"heart-rate\"")?.lowerBound
        #expect(cadence! < alpha! && alpha! < heart!, "under the cadence chart")
        #expect(html.occurrences(of: "class=\"threshold\"") == 2)
        let path = html.split(separator: "class=\"alpha1\" d=\"")[1].prefix { $0 != "\"" }
        #expect(path.filter { $0 == "M" }.count == 2 && path.filter { $0 == "L" }.count == 1)
        #expect(!HTMLReport.page(Self.storedSession()).contains("id=\"alpha1\""), "no chart without scored windows")
    }

    /// The report drew the chart alone: nothing of the beats corrected, the crossings, nor that
    /// the figures were not to be trusted, which `show` says.
    @Test("the report says alpha 1's figures as show does: beats corrected, crossings, trust, each step's alpha 1")
    func reportSaysTheAlphaOneFigures() throws {
        var session = Self.storedSession()
        var summary = try #require(session.summary)
        let window = AlphaWindow(
            second: 610, stepIndex: 0, status: .scored, beats: 300, artifacts: 0, alpha1: 0.74, heartRate: 152, cadence: 168)
        summary.hrv = SessionHRV(
            beats: 1000, artifacts: 40, stepAlpha1: [0: 0.8], crossings: [AlphaCrossing(threshold: 0.75, window: window)],
            scoredWindows: 20)
        session.summary = summary
        let html = HTMLReport.page(session)
        let line = try #require(summary.hrv?.line(runSeconds: summary.duration.seconds))
        #expect(line.contains("too many to trust") && line.contains("crossed 0.75 at 10:10 (HR 152, 168 spm)"), "\(line)")
        #expect(html.contains("Beats 1000, 4% corrected (too many to trust alpha 1") && html.contains("crossed 0.75 at 10:10 (HR 152, 168 spm)"), "the line, as show says it")
        #expect(html.contains("Alpha 1 per step: 1. "), "each step's alpha 1")
        // Two decimals, as the summary's table gives it ("Pyramid 1.2 … Recover 0.8").
        #expect(html.contains(" 0.80</p>"), "\(html)")
    }

    /// A long step name ran under the bars and over the in-zone figure; a Hebrew one carried
    /// the numbers beside it across to the next step's; a name of one long word made the page
    /// 3,000 px wide; on a phone the charts' text was 4 px; printed, headings ended pages.
    @Test("the report's step names fit their room, right-to-left names are isolated, charts scroll on a phone")
    func reportLayout() throws {
        var session = Self.storedSession()
        var summary = try #require(session.summary)
        summary.steps[0].step.label = String(repeating: "W", count: 190)
        summary.steps[1].step.label = "ריצה קלה"
        summary.hrv = SessionHRV(beats: 1000, artifacts: 0, stepAlpha1: [0: 1.19, 1: 1.06], crossings: [], scoredWindows: 20)
        session.summary = summary
        let html = HTMLReport.page(session)
        let label = "1. Warmup · " + String(repeating: "W", count: 190)
        #expect(html.contains(">" + label.prefix(20) + "…<title>" + label + "</title></text>"), "W is wide: 1. Warmup · and 8 of them")
        // Wide characters are cut sooner, so that the "…" is in the room, not under the clip.
        #expect(HTMLReport.cut("3. Work · 步频训练间歇跑步频训练间歇跑步频训练间歇", toWidth: 32) == "3. Work · 步频训练间歇跑步频训…")
        #expect(HTMLReport.cut("1. Warmup · Easy jog", toWidth: 32) == "1. Warmup · Easy jog")
        #expect(html.contains("clip-path=\"url(#step-labels)\""))
        #expect(html.contains("2. <bdi>Work · ריצה קלה</bdi> 1.06"), "\(html)")
        #expect(html.occurrences(of: "<div class=\"chart\"><svg") == html.occurrences(of: "<svg"))
        #expect(html.contains("overflow-wrap: anywhere") && html.contains("@media print"))
        let inZone = try #require(summary.inZonePercent)
        #expect(html.contains("<div class=\"value\">\(formatFixed(inZone, 1))%</div>"), "in zone as show writes it, one decimal")
    }

    @Test("with readiness measured, the report charts each morning, the baseline and the normal range")
    func reportWithReadiness() {
        // Nine mornings of ten: from the 7th day on a normal range, from the 3rd a baseline.
        let measurements = (1...10).filter { $0 != 5 }.map {
            ReadinessBaseline.Measurement(date: "2026-03-\($0 < 10 ? "0" : "")\($0)", lnRMSSD: 4 + Double($0 % 3) / 10)
        }
        let trend = ReadinessTrend(measurements, days: 12, endingOn: "2026-03-12")
        let html = HTMLReport.page(Self.storedSession(), readiness: trend)
        #expect(html.occurrences(of: "<svg") == 4)
        #expect(html.contains("Readiness before this run"))
        #expect(html.occurrences(of: "class=\"morning\"") == 9)
        #expect(html.occurrences(of: "class=\"normal-range\"") == trend.days.filter { $0.normalLow != nil }.count)
        #expect(trend.days.filter { $0.normalLow != nil }.count > 0)
        #expect(html.contains("class=\"baseline\""))
        #expect(!html.contains("<script"))
    }

    /// The readiness chart's axis read "3.3000000000000003": its labels were added up 0.1 at a time.
    @Test("the chart's axis labels are the grid's values as written: 3.3, not 3.3000000000000003")
    func axisLabelsAreRound() {
        let grid = HTMLReport.grid(HTMLReport.Frame(seconds: 1, low: 3.2, high: 3.6), step: 0.1, unit: "")
        let labels = grid.split(separator: "</text>").dropLast().compactMap { $0.split(separator: ">").last.map(String.init) }
        #expect(labels == ["3.2", "3.3", "3.4", "3.5", "3.6"], "\(labels)")
    }
}
