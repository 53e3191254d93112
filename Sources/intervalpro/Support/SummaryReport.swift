import IntervalProCore
import IntervalProLaunch

/// The human-readable summary printed at the end of a session.
enum SummaryReport {
    static func text(_ summary: SessionSummary, colour: Bool) -> String {
        func bold(_ s: String) -> String { colour ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
        func figure(_ value: Double?, _ places: Int = 0) -> String {
            value.map { JSONValue.format($0.rounded(toPlaces: places)) } ?? "-"
        }
        let rows = summary.steps.map { r -> [String] in
            let zone = r.step.zone.map { "\(JSONValue.format($0.low))-\(JSONValue.format($0.high))" } ?? "-"
            let zoned = r.step.zone != nil
            return [
                "\(r.step.index + 1)", r.step.title, formatClock(r.duration.seconds), zone,
                zoned ? figure(r.inZonePercent, 1) + "%" : "-",
                zoned ? formatClock(r.below.seconds) : "-", zoned ? formatClock(r.above.seconds) : "-",
                formatClock(r.noSignal.seconds), figure(r.averageCadence), figure(r.averageHeartRate),
                r.maxHeartRate.map(String.init) ?? "-",
            ]
        }
        var lines = [
            "",
            bold("\(summary.plan) — \(summary.source.rawValue), \(formatClock(summary.duration.seconds))"
                + (summary.completed ? "" : " (finished early)")),
            "",
        ]
        lines += TextTable.render(
            header: ["#", "step", "time", "zone", "in zone", "below", "above", "no signal", "spm", "HR", "max HR"],
            rows: rows, rightAligned: [0, 2, 4, 5, 6, 7, 8, 9, 10])
        lines.append("")
        var totals = "In zone: \(figure(summary.inZonePercent, 1))%"
        totals += "   avg cadence \(figure(summary.averageCadence)) spm (work \(figure(summary.averageWorkCadence)))"
        totals += "   avg HR \(figure(summary.averageHeartRate))"
        if let distance = summary.distance { totals += "   \(JSONValue.format((distance / 1000).rounded(toPlaces: 2))) km" }
        lines.append(bold(totals))
        return lines.joined(separator: "\n")
    }
}
