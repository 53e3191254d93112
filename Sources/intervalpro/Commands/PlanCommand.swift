import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Work with plan files.",
        subcommands: [PlanCheckCommand.self, PlanImportCommand.self, PlanExportCommand.self]
    )
}

struct PlanCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a plan and print its expanded timeline."
    )

    @Argument(
        help: "The plan: a plan file (JSON, version 1 or 2), intervals.icu text, a Zwift .zwo or a FIT workout.",
        completion: .planFiles)
    var plan: String

    @Flag(help: "Print the timeline as JSON.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let plan = try loadPlan(plan)
            let timeline = plan.timeline()
            if json {
                print(PlanPreview.json(plan, timeline).serialized(pretty: true))
            } else {
                print(Self.table(plan, timeline))
            }
        }
    }

    static func table(_ plan: Plan, _ timeline: [TimelineStep]) -> String {
        let rows = timeline.map { step in
            [
                "\(step.index + 1)", step.kind.rawValue, step.label ?? "", step.repetition?.description ?? "",
                PlanText.end(step.end), PlanText.zone(step.zone),
            ]
        }
        let header = ["#", "kind", "label", "rep", "duration", "zone"]
        var lines = ["\(plan.name): \(timeline.count) steps", ""]
        lines += TextTable.render(header: header, rows: rows, rightAligned: [0, 4])
        lines.append("")
        var total = "total: \(formatClock(timeline.timedDuration.seconds))"
        let open = timeline.filter { $0.end == .open }.count
        let distance = timeline.filter { if case .distance = $0.end { true } else { false } }.count
        if open > 0 { total += " + \(open) open step\(open == 1 ? "" : "s")" }
        if distance > 0 { total += " + \(distance) distance step\(distance == 1 ? "" : "s")" }
        lines.append(total)
        return lines.joined(separator: "\n")
    }

}
