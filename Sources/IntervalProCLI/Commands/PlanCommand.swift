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

struct PlanCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a plan and print its expanded timeline."
    )

    @Argument(
        help: .planFile,
        completion: .planFiles)
    var plan: String

    @Flag(help: "Print the timeline as JSON.")
    var json = false

    func run() throws {
        try reportingFailures {
            let plan = try loadPlan(plan)
            let timeline = plan.timeline()
            if json {
                print(PlanPreview.json(plan, timeline).serialized(pretty: true))
            } else {
                print(PlanPreview.table(plan, timeline))
            }
        }
    }
}
