import IntervalProCore
public import IntervalProHRV

/// One self-contained HTML page for a stored session: summary figures, the cadence trace
/// over each step's zone band, heart rate, and a bar per step split into in-zone, below,
/// above and no signal. Everything is drawn here as SVG; the page loads nothing.
public enum HTMLReport {
    static let inZoneColour = "#2e9d5b"
    static let belowColour = "#e0a526"
    static let aboveColour = "#d64545"
    static let noSignalColour = "#a9acb3"
    static let zoneBandColour = "#2e9d5b"
    static let cadenceColour = "#1f5fbf"
    static let heartRateColour = "#c2185b"
    static let readinessColour = "#5b3cc4"
    static let normalRangeColour = "#e6e0fa"
    static let alphaColour = "#00838f"
    static let thresholdColour = "#8a909c"

    /// `readiness`: the runner's morning readiness over the weeks up to the session's day,
    /// charted when any of those days was measured.
    /// `localStart`: when it began on the runner's clock ("2026-11-06 00:30"), as the page's
    /// history says it; the title and heading gave the UTC date, a day off for a run after
    /// midnight east of Greenwich.
    public static func page(_ session: StoredSession, readiness: ReadinessTrend? = nil, localStart: String? = nil) -> String {
        let listing = session.listing
        let title = "\(listing.planName) — \((localStart ?? listing.startedAt).prefix(10))"
        let utc = listing.startedAt.replacingFirst("T", " ").replacingFirst("Z", " UTC")
        let when = localStart.map { "\($0) (\(utc))" } ?? utc
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped(title)) · IntervalPro</title>
            <style>
            body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 980px;
                   color: #1d2330; background: #fbfbfd; padding: 0 16px; }
            h1 { font-size: 1.5em; margin-bottom: 0.1em; }
            h2 { font-size: 1.1em; margin: 1.6em 0 0.4em; }
            .meta { color: #5b6270; margin-top: 0; }
            .figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
            .figure { background: #fff; border: 1px solid #e2e4ea; border-radius: 8px; padding: 10px 14px; min-width: 110px; }
            .figure .value { font-size: 1.5em; font-weight: 600; }
            .figure .label { color: #5b6270; font-size: 0.85em; }
            svg { background: #fff; border: 1px solid #e2e4ea; border-radius: 8px; width: 100%; height: auto; }
            svg text { font-family: inherit; font-size: 12px; fill: #3a4150; }
            .legend span { display: inline-block; margin-right: 14px; font-size: 0.9em; }
            .legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 5px;
                        vertical-align: -1px; }
            footer { color: #5b6270; font-size: 0.8em; margin-top: 2em; }
            /* A name of one long word wraps rather than widen the page. */
            h1, p { overflow-wrap: anywhere; }
            .chart { overflow-x: auto; }
            /* Held sideways too (to 780 px) a phone's charts scroll rather than shrink. */
            @media screen and (max-width: 780px) { .chart svg { min-width: 760px; } }
            /* Printed, a heading and its legend stay with their chart, and the legend's colours print. */
            @media print {
              h2, .legend { break-after: avoid; } .chart { break-inside: avoid; overflow: visible; }
              .legend i { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
            }
            :root { color-scheme: light dark; }
            /* The phone page's dark palette when the reader prefers dark. */
            @media (prefers-color-scheme: dark) {
              body { color: #eee; background: #111; }
              .meta, .figure .label, footer { color: #9aa0a6; }
              .figure, svg { background: #1d1f21; border-color: #333; }
              svg text { fill: #c8ccd2; }
              a { color: #8ab4f8; }
            }
            </style>
            </head>
            <body>
            <main>
            <h1>\(escaped(listing.planName))</h1>
            <p class="meta">Session \(listing.id) · \(escaped(when)) · \
            \(listing.source.rawValue) · \(listing.statusText)</p>

            """
        html += figures(session)
        let spans = session.stepSpans
        html += "<h2>Cadence and zones</h2>\n"
        html += cadenceChart(session, spans)
        // The figures `show` and the screen's summary give (beats corrected, the crossings, whether
        // to trust them), then the chart: the report drew the chart alone.
        if let hrv = session.summary?.hrv {
            html += "<h2>DFA alpha 1</h2>\n"
            html += "<p class=\"hrv-line\">\(escaped(hrv.line(runSeconds: session.summary?.duration.seconds)))</p>\n"
            // Each name isolated (<bdi>): a Hebrew step name carried the numbers beside it
            // across to the next step's.
            let perStep = spans.compactMap { span in
                hrv.stepAlpha1[span.result.step.index].map {
                    "\(span.result.step.index + 1). <bdi>\(escaped(span.result.step.title))</bdi> \(formatFixed($0, 2))"
                }
            }
            if !perStep.isEmpty { html += "<p class=\"meta hrv-steps\">Alpha 1 per step: \(perStep.joined(separator: " · "))</p>\n" }
        }
        if session.alphaWindows.contains(where: { $0.status == .scored }) {
            if session.summary?.hrv == nil { html += "<h2>DFA alpha 1</h2>\n" }
            html += """
                <p class="legend"><span><i style="background:\(alphaColour)"></i>alpha 1, each 2-minute window</span>\
                <span><i style="background:\(thresholdColour);height:3px;vertical-align:3px"></i>0.75 aerobic, \
                0.5 anaerobic threshold</span></p>

                """
            html += alphaChart(session, spans)
        }
        html += "<h2>Heart rate</h2>\n"
        html += heartRateChart(session, spans)
        html += "<h2>Time in zone per step</h2>\n"
        html += """
            <p class="legend"><span><i style="background:\(inZoneColour)"></i>in zone</span>\
            <span><i style="background:\(belowColour)"></i>below</span>\
            <span><i style="background:\(aboveColour)"></i>above</span>\
            <span><i style="background:\(noSignalColour)"></i>no signal</span></p>

            """
        html += stepBars(spans)
        if let readiness, !readiness.isEmpty {
            html += "<h2>Readiness before this run</h2>\n"
            html += """
                <p class="legend"><span><i style="background:\(readinessColour)"></i>ln rMSSD each morning</span>\
                <span><i style="background:\(readinessColour);height:3px;vertical-align:3px"></i>7-day baseline</span>\
                <span><i style="background:\(normalRangeColour)"></i>normal range (60-day mean ± 0.5 SD)</span></p>

                """
            html += readinessChart(readiness)
        }
        html += "</main>\n<footer>Drawn by IntervalPro from the stored session. Cadence in steps per minute.</footer>\n"
        html += "</body>\n</html>\n"
        return html
    }

    // MARK: - Summary figures

    static func figures(_ session: StoredSession) -> String {
        let summary = session.summary
        func figure(_ value: Double?, _ places: Int, _ unit: String) -> String {
            value.map { JSONValue.format($0.rounded(toPlaces: places)) + unit } ?? "–"
        }
        let items: [(String, String)] = [
            ("duration", formatClock(summary?.duration.seconds ?? 0)),
            // As `show` writes it: 75.0%, not 75%.
            ("in zone", summary?.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "–"),
            ("avg cadence", figure(summary?.averageCadence, 0, " spm")),
            ("avg work cadence", figure(summary?.averageWorkCadence, 0, " spm")),
            ("avg heart rate", figure(summary?.averageHeartRate, 0, " bpm")),
            ("max heart rate", summary?.maxHeartRate.map { "\($0) bpm" } ?? "–"),
            ("distance", figure(summary?.distance.map { $0 / 1000 }, 2, " km")),
        ]
        var html = "<div class=\"figures\">\n"
        for (label, value) in items {
            html += "<div class=\"figure\"><div class=\"value\">\(escaped(value))</div><div class=\"label\">\(label)</div></div>\n"
        }
        return html + "</div>\n"
    }

    // MARK: - Charts

    static let chartWidth = 940.0
    static let chartHeight = 260.0
    static let left = 48.0
    static let right = 12.0
    static let top = 12.0
    static let bottom = 28.0

    struct Frame {
        var seconds: Double
        var low: Double
        var high: Double

        func x(_ second: Double) -> Double {
            left + (chartWidth - left - right) * second / max(seconds, 1)
        }

        func y(_ value: Double) -> Double {
            top + (chartHeight - top - bottom) * (1 - (value - low) / max(high - low, 1e-9))
        }
    }

    static func cadenceChart(_ session: StoredSession, _ spans: [StepSpan]) -> String {
        let cadences = session.samples.compactMap(\.cadence).map(Double.init)
        let zones = spans.compactMap(\.result.step.zone)
        let low = ((cadences + zones.map(\.low)).min() ?? 140) - 5
        let high = ((cadences + zones.map(\.high)).max() ?? 190) + 5
        let frame = Frame(seconds: Double(session.samples.count), low: (low / 5).rounded(.down) * 5, high: (high / 5).rounded(.up) * 5)
        var svg = open("cadence", "Cadence trace with each step's zone")
        for span in spans {
            guard let zone = span.result.step.zone, span.endSecond > span.startSecond else { continue }
            let x = frame.x(Double(span.startSecond))
            let width = frame.x(Double(span.endSecond)) - x
            svg += "<rect class=\"zone\" x=\"\(n(x))\" y=\"\(n(frame.y(zone.high)))\" width=\"\(n(width))\" "
                + "height=\"\(n(frame.y(zone.low) - frame.y(zone.high)))\" fill=\"\(zoneBandColour)\" fill-opacity=\"0.16\"/>\n"
        }
        svg += grid(frame, step: frame.high - frame.low > 60 ? 20 : 10, unit: "")
        svg += stepDividers(frame, spans)
        svg += polyline(session.samples.map { $0.cadence.map(Double.init) }, frame, colour: cadenceColour, name: "cadence")
        svg += timeAxis(frame)
        return svg + closing
    }

    static func heartRateChart(_ session: StoredSession, _ spans: [StepSpan]) -> String {
        let rates = session.samples.compactMap(\.heartRate).map(Double.init)
        guard let lowest = rates.min(), let highest = rates.max() else {
            return "<p>No heart rate was recorded.</p>\n"
        }
        let frame = Frame(
            seconds: Double(session.samples.count), low: ((lowest - 5) / 10).rounded(.down) * 10,
            high: ((highest + 5) / 10).rounded(.up) * 10)
        var svg = open("heart-rate", "Heart rate")
        svg += grid(frame, step: frame.high - frame.low > 80 ? 20 : 10, unit: "")
        svg += stepDividers(frame, spans)
        svg += polyline(session.samples.map { $0.heartRate.map(Double.init) }, frame, colour: heartRateColour, name: "heart-rate")
        svg += timeAxis(frame)
        return svg + closing
    }

    /// Alpha 1 of each scored window at the second it ends, joined where windows follow each
    /// other; the 0.75 and 0.5 thresholds as dashed lines (docs/hrv-during-the-run.md).
    static func alphaChart(_ session: StoredSession, _ spans: [StepSpan]) -> String {
        let frame = Frame(seconds: Double(session.samples.count), low: 0, high: 1.75)
        var svg = open("alpha1", "DFA alpha 1 over the session, with the 0.75 and 0.5 thresholds")
        svg += grid(frame, step: 0.25, unit: "")
        svg += stepDividers(frame, spans)
        for threshold in SessionHRV.thresholds {
            let y = n(frame.y(threshold))
            svg += "<line class=\"threshold\" x1=\"\(n(left))\" y1=\"\(y)\" x2=\"\(n(chartWidth - right))\" y2=\"\(y)\" "
                + "stroke=\"\(thresholdColour)\" stroke-dasharray=\"6 4\"/>\n"
        }
        var path = ""
        var previous: Int?
        for window in session.alphaWindows where window.status == .scored {
            guard let alpha = window.alpha1 else { continue }
            let joined = previous.map { window.second - $0 <= AlphaOneTracker.everySeconds } ?? false
            path += (joined ? "L" : "M") + "\(n(frame.x(Double(window.second)))) \(n(frame.y(min(frame.high, alpha)))) "
            previous = window.second
        }
        svg += "<path class=\"alpha1\" d=\"\(path.trimmingSuffixSpace)\" fill=\"none\" stroke=\"\(alphaColour)\" "
            + "stroke-width=\"1.6\" stroke-linejoin=\"round\"/>\n"
        svg += timeAxis(frame)
        return svg + closing
    }

    /// ln rMSSD per day: the normal range as a band, the 7-day baseline as a line, each
    /// morning's value as a dot.
    static func readinessChart(_ trend: ReadinessTrend) -> String {
        let values = trend.days.flatMap { [$0.value, $0.baseline, $0.normalLow, $0.normalHigh].compactMap { $0 } }
        guard let lowest = values.min(), let highest = values.max() else { return "" }
        let frame = Frame(
            seconds: Double(max(1, trend.days.count - 1)), low: ((lowest - 0.05) * 10).rounded(.down) / 10,
            high: ((highest + 0.05) * 10).rounded(.up) / 10)
        var svg = open("readiness", "Readiness: ln rMSSD per morning")
        svg += grid(frame, step: frame.high - frame.low > 1 ? 0.5 : 0.1, unit: "")
        let width = (chartWidth - left - right) / Double(max(1, trend.days.count - 1))
        for (index, day) in trend.days.enumerated() {
            guard let low = day.normalLow, let high = day.normalHigh else { continue }
            svg += "<rect class=\"normal-range\" x=\"\(n(frame.x(Double(index)) - width / 2))\" y=\"\(n(frame.y(high)))\" "
                + "width=\"\(n(width))\" height=\"\(n(frame.y(low) - frame.y(high)))\" fill=\"\(normalRangeColour)\"/>\n"
        }
        svg += polyline(trend.days.map(\.baseline), frame, colour: readinessColour, name: "baseline")
        for (index, day) in trend.days.enumerated() {
            guard let value = day.value else { continue }
            svg += "<circle class=\"morning\" cx=\"\(n(frame.x(Double(index))))\" cy=\"\(n(frame.y(value)))\" r=\"3.5\" "
                + "fill=\"\(readinessColour)\"><title>\(day.date): ln rMSSD \(formatFixed(value, 2))</title></circle>\n"
        }
        if let first = trend.days.first?.date, let last = trend.days.last?.date {
            svg += "<text x=\"\(n(left))\" y=\"\(n(chartHeight - 8))\">\(first)</text>\n"
            svg += "<text x=\"\(n(chartWidth - right))\" y=\"\(n(chartHeight - 8))\" text-anchor=\"end\">\(last)</text>\n"
        }
        return svg + closing
    }

    /// A chart in a box of its own, which scrolls sideways on a phone rather than shrink its
    /// text to 4 px (the charts are 940 wide).
    static func open(_ id: String, _ label: String, height: Double = chartHeight) -> String {
        "<div class=\"chart\"><svg id=\"\(id)\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(chartWidth)) \(n(height))\" "
            + "role=\"img\" aria-label=\"\(label)\">\n"
    }

    static let closing = "</svg></div>\n"

    static func grid(_ frame: Frame, step: Double, unit: String) -> String {
        var svg = ""
        // Counted in steps, not added up: 0.1 added to 3.2 is 3.3000000000000003, which the
        // label printed.
        let first = (frame.low / step).rounded(.up), last = (frame.high / step + 1e-9).rounded(.down)
        for count in stride(from: first, through: last, by: 1) {
            let value = (count * step).rounded(toPlaces: 6)
            let y = frame.y(value)
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(y))\" x2=\"\(n(chartWidth - right))\" y2=\"\(n(y))\" stroke=\"#e6e8ee\"/>\n"
            svg += "<text x=\"\(n(left - 6))\" y=\"\(n(y + 4))\" text-anchor=\"end\">\(JSONValue.format(value))\(unit)</text>\n"
        }
        return svg
    }

    static func stepDividers(_ frame: Frame, _ spans: [StepSpan]) -> String {
        var svg = ""
        for span in spans.dropFirst() {
            let x = frame.x(Double(span.startSecond))
            svg += "<line x1=\"\(n(x))\" y1=\"\(n(top))\" x2=\"\(n(x))\" y2=\"\(n(chartHeight - bottom))\" "
                + "stroke=\"#c9ccd4\" stroke-dasharray=\"3 3\"/>\n"
        }
        return svg
    }

    static func timeAxis(_ frame: Frame) -> String {
        let minutes = frame.seconds / 60
        let step: Double = minutes > 90 ? 15 : minutes > 40 ? 10 : minutes > 15 ? 5 : minutes > 5 ? 2 : 1
        var svg = ""
        var minute = 0.0
        while minute * 60 <= frame.seconds {
            let x = frame.x(minute * 60)
            svg += "<text x=\"\(n(x))\" y=\"\(n(chartHeight - 8))\" text-anchor=\"middle\">\(Int(minute))′</text>\n"
            minute += step
        }
        return svg
    }

    /// One path, broken where there is no value (no signal).
    static func polyline(_ values: [Double?], _ frame: Frame, colour: String, name: String) -> String {
        var path = ""
        var drawing = false
        for (second, value) in values.enumerated() {
            guard let value else {
                drawing = false
                continue
            }
            path += (drawing ? "L" : "M") + "\(n(frame.x(Double(second)))) \(n(frame.y(value))) "
            drawing = true
        }
        guard !path.isEmpty else { return "" }
        return "<path class=\"\(name)\" d=\"\(path.trimmingSuffixSpace)\" fill=\"none\" stroke=\"\(colour)\" "
            + "stroke-width=\"1.6\" stroke-linejoin=\"round\"/>\n"
    }

    /// What fits the 222 units before the bars at 12 px, in characters of an average width
    /// (some 6.5 units).
    static let stepLabelCharacters = 32

    /// `text` cut to `width` average characters, with "…": a wide one (a capital; W, M, a
    /// Chinese character or an emoji most) counts more. Counted in characters, "步频训练…"
    /// ran past the clip, which took its "…".
    static func cut(_ text: String, toWidth width: Int) -> String {
        // In half characters of the average width.
        func units(_ character: Character) -> Int {
            guard let scalar = character.unicodeScalars.first else { return 2 }
            if "mwMW".contains(character) || scalar.properties.isEmojiPresentation || (0x2E80...0xFFEF).contains(scalar.value) { return 4 }
            return character.isUppercase ? 3 : 2
        }
        var used = 0
        var kept = ""
        for character in text {
            used += units(character)
            if used <= 2 * width - 2 { kept.append(character) }
            if used > 2 * width { return kept + "…" }
        }
        return text
    }

    static func stepBars(_ spans: [StepSpan]) -> String {
        let zoned = spans.filter { $0.result.step.zone != nil && $0.result.duration > .zero }
        guard !zoned.isEmpty else { return "<p>No step of this plan has a cadence zone.</p>\n" }
        let rowHeight = 26.0
        let labelWidth = 230.0
        let barWidth = chartWidth - labelWidth - 70
        let height = Double(zoned.count) * rowHeight + 12
        var svg = open("steps", "Time in zone per step", height: height)
        svg += "<clipPath id=\"step-labels\"><rect x=\"0\" y=\"0\" width=\"\(n(labelWidth - 8))\" height=\"\(n(height))\"/></clipPath>\n"
        for (row, span) in zoned.enumerated() {
            let result = span.result
            let y = 6 + Double(row) * rowHeight
            let total = Double(result.duration.microseconds)
            // Cut to its room before the bar (it ran under the bars and over the percentage),
            // whole in its tooltip.
            let label = "\(result.step.index + 1). \(result.step.title)"
            let shown = Self.cut(label, toWidth: Self.stepLabelCharacters)
            svg += "<text x=\"8\" y=\"\(n(y + 16))\" clip-path=\"url(#step-labels)\">\(escaped(String(shown)))<title>\(escaped(label))</title></text>\n"
            var x = labelWidth
            for (part, colour, name) in [
                (result.inZone, inZoneColour, "in-zone"), (result.below, belowColour, "below"),
                (result.above, aboveColour, "above"), (result.noSignal, noSignalColour, "no-signal"),
            ] {
                let width = barWidth * Double(part.microseconds) / total
                guard width > 0 else { continue }
                svg += "<rect class=\"\(name)\" x=\"\(n(x))\" y=\"\(n(y + 3))\" width=\"\(n(width))\" height=\"18\" "
                    + "fill=\"\(colour)\"><title>\(name): \(formatClock(part.seconds))</title></rect>\n"
                x += width
            }
            let percent = result.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "–"
            svg += "<text x=\"\(n(labelWidth + barWidth + 8))\" y=\"\(n(y + 16))\">\(percent)</text>\n"
        }
        return svg + closing
    }

    /// Coordinates with at most one decimal keep the page small.
    static func n(_ value: Double) -> String { JSONValue.format(value.rounded(toPlaces: 1)) }

    static func escaped(_ text: String) -> String { TCXActivity.escaped(text) }
}

extension String {
    fileprivate func replacingFirst(_ target: Character, _ replacement: String) -> String {
        guard let index = firstIndex(of: target) else { return self }
        return String(self[..<index]) + replacement + String(self[self.index(after: index)...])
    }

    fileprivate var trimmingSuffixSpace: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
