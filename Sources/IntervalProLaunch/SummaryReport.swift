public import IntervalProCore
import IntervalProHRV

/// The human-readable summary printed at the end of a session and by `show`.
public enum SummaryReport {
    /// `interrupted`: the process stopped before the session did (`show` of such a session
    /// said "finished early", which is a runner's q or Ctrl-C).
    public static func text(_ summary: SessionSummary, colour: Bool, interrupted: Bool = false) -> String {
        func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
        let rows = summary.steps.map { r -> [String] in
            let zone = r.step.zone.map { "\(JSONValue.format($0.low))-\(JSONValue.format($0.high))" } ?? "-"
            let zoned = r.step.zone != nil
            return [
                "\(r.step.index + 1)", r.step.title, formatClock(r.duration.seconds), zone,
                zoned ? formatFixed(r.inZonePercent, 1) + "%" : "-",
                zoned ? formatClock(r.below.seconds) : "-", zoned ? formatClock(r.above.seconds) : "-",
                formatClock(r.noSignal.seconds), formatFigure(r.averageCadence), formatFigure(r.averageHeartRate),
                r.maxHeartRate.map(String.init) ?? "-",
            ] + (summary.hrv.map { [formatFigure($0.stepAlpha1[r.step.index], 2)] } ?? [])
        }
        var lines = [
            "",
            bold("\(summary.plan.printable) — \(summary.source.rawValue), \(formatClock(summary.duration.seconds))"
                + (interrupted ? " (interrupted)" : summary.completed ? "" : " (finished early)")),
            "",
        ]
        // The alpha 1 column only when the heart-rate device sent RR intervals.
        let header = ["#", "step", "time", "zone", "in zone", "below", "above", "no signal", "spm", "HR", "max HR"]
        lines += TextTable.render(
            header: header + (summary.hrv == nil ? [] : ["alpha 1"]), rows: rows,
            rightAligned: [0, 2, 4, 5, 6, 7, 8, 9, 10, 11])
        lines.append("")
        // A plan without zones (an imported run) has no in-zone figure: a dash, not "-%".
        var totals = "In zone: \(summary.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "-")"
        totals += "   avg cadence \(formatFigure(summary.averageCadence)) spm (work \(formatFigure(summary.averageWorkCadence)))"
        totals += "   avg HR \(formatFigure(summary.averageHeartRate))"
        if let distance = summary.distance { totals += "   \(JSONValue.format((distance / 1000).rounded(toPlaces: 2))) km" }
        lines.append(bold(totals))
        if let hrv = summary.hrv {
            lines.append(beatsLine(hrv, runSeconds: summary.duration.seconds))
        } else if summary.averageHeartRate != nil {
            // A strap that sends heart rate alone was met with silence about alpha 1.
            lines.append("No RR intervals came with the heart rate: no alpha 1 (optical sensors and some straps send none).")
        }
        return lines.joined(separator: "\n")
    }

    /// "Beats 5402, 0.4% corrected; alpha 1 crossed 0.75 at 24:10 (HR 152, 168 spm); not 0.5."
    public static func beatsLine(_ hrv: SessionHRV, runSeconds: Double? = nil) -> String {
        hrv.line(runSeconds: runSeconds)
    }
}
