public import IntervalProCore
import IntervalProHRV

/// The human-readable summary printed at the end of a session and by `show`.
public enum SummaryReport {
    /// `interrupted`: the process stopped before the session did (`show` of such a session
    /// said "finished early", which is a runner's q or Ctrl-C). `width`: the terminal's, which
    /// the table is made to fit (92 columns wrapped every row on 80, each onto three lines on
    /// 40): shorter headings and the steps' names cut, then, where that is still too wide, a
    /// few lines for each step.
    public static func text(_ summary: SessionSummary, colour: Bool, interrupted: Bool = false, width: Int? = nil) -> String {
        func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
        let measured = summary.source != .metronome
        let rows = summary.steps.map { r -> [String] in
            let zone = r.step.zone.map { "\(JSONValue.format($0.low))-\(JSONValue.format($0.high))" } ?? "-"
            let zoned = r.step.zone != nil
            let place = ["\(r.step.index + 1)", r.step.title, formatClock(r.duration.seconds), zone]
            guard measured else { return place }
            return place + [
                // A zone step of 0:00 (finished as it began) has no share: "-", not "-%".
                zoned ? r.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "-" : "-",
                zoned ? formatClock(r.below.seconds) : "-", zoned ? formatClock(r.above.seconds) : "-",
                formatClock(r.noSignal.seconds), formatFigure(r.averageCadence), formatFigure(r.averageHeartRate),
                r.maxHeartRate.map(String.init) ?? "-",
            ] + (summary.hrv.map { [formatFixed($0.stepAlpha1[r.step.index], 2)] } ?? [])
        }
        var lines = [
            "",
            bold("\(summary.plan.printable) — \(summary.source.rawValue), \(formatClock(summary.duration.seconds))"
                + (interrupted ? " (interrupted)" : summary.completed ? "" : " (finished early)")),
            "",
        ]
        // The alpha 1 column only when the heart-rate device sent RR intervals.
        let alpha = summary.hrv == nil ? [String]() : ["alpha 1"]
        let place = ["#", "step", "time", "zone"]
        let header = measured ? place + ["in zone", "below", "above", "no signal", "spm", "HR", "max HR"] + alpha : place
        let rightAligned = measured ? [0, 2, 4, 5, 6, 7, 8, 9, 10, 11] : [0, 2]
        var table = TextTable.render(header: header, rows: rows, rightAligned: rightAligned)
        if let width, !fits(table, width) {
            let short = measured ? place + ["in", "below", "above", "lost", "spm", "HR", "max"] + alpha.map { _ in "a1" } : place
            table = TextTable.render(header: short, rows: rows, rightAligned: rightAligned, fitting: width, shrinking: 1)
            if !fits(table, width) { table = rows.flatMap { stepLines($0, header: header, width: width) } }
        }
        lines += table
        lines.append("")
        guard summary.source != .metronome else {
            // The figures are a runner's, and there was none: a row of dashes and "In zone: 0.0%".
            return (lines + wrapped("No runner: the metronome and the step cues alone, nothing measured or saved.", width: width))
                .joined(separator: "\n")
        }
        // A plan without zones (an imported run) has no in-zone figure: a dash, not "-%".
        var totals = ["In zone: \(summary.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "-")"]
        totals.append("avg cadence \(formatFigure(summary.averageCadence)) spm (work \(formatFigure(summary.averageWorkCadence)))")
        totals.append("avg HR \(formatFigure(summary.averageHeartRate))")
        if let distance = summary.distance { totals.append("\(JSONValue.format((distance / 1000).rounded(toPlaces: 2))) km") }
        lines += joined(totals, separator: "   ", width: width).map(bold)
        if let hrv = summary.hrv {
            lines += wrapped(beatsLine(hrv, runSeconds: summary.duration.seconds), width: width)
        } else if summary.averageHeartRate != nil {
            // A strap that sends heart rate alone was met with silence about alpha 1.
            lines += wrapped("No RR intervals came with the heart rate: no alpha 1 (optical sensors and some straps send none).", width: width)
        }
        return lines.joined(separator: "\n")
    }

    private static func fits(_ lines: [String], _ width: Int) -> Bool {
        lines.allSatisfy { $0.terminalWidth <= width }
    }

    /// A step's row as lines of "heading figure" pairs, as many to a line as `width` holds:
    /// "1 Warmup, 10:00, zone 155-165" then "  in zone 95.0%, below 0:10, ...".
    private static func stepLines(_ row: [String], header: [String], width: Int) -> [String] {
        let figures = zip(header, row).dropFirst(4).map { "\($0) \($1)" }
        let zone = row[3] == "-" ? [] : ["zone \(row[3])"]
        // What follows a step's first line is indented under it.
        let title = "\(row[0]) \(row[1].printable)".cut(toColumns: width - 2)
        let heading = joined([title, row[2]] + zone, separator: ", ", width: width - 2)
        return Array(heading.prefix(1)) + (heading.dropFirst() + joined(figures, separator: ", ", width: width - 2)).map { "  " + $0 }
    }

    /// `text` cut between its words into lines of `width` (nil: one line).
    static func wrapped(_ text: String, width: Int?) -> [String] {
        joined(text.split(separator: " ").map(String.init), separator: " ", width: width)
    }

    /// `items` joined by `separator`, a new line wherever the next would pass `width`.
    private static func joined(_ items: [String], separator: String, width: Int?) -> [String] {
        guard let width else { return [items.joined(separator: separator)] }
        var lines: [String] = []
        for item in items {
            if let last = lines.last, (last + separator + item).terminalWidth <= width {
                lines[lines.count - 1] = last + separator + item
            } else {
                lines.append(item)
            }
        }
        return lines
    }

    /// "Beats 5402, 0.4% corrected; alpha 1 crossed 0.75 at 24:10 (HR 152, 168 spm); not 0.5."
    public static func beatsLine(_ hrv: SessionHRV, runSeconds: Double? = nil) -> String {
        hrv.line(runSeconds: runSeconds)
    }
}
