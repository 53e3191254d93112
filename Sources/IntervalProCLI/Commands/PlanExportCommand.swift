public import ArgumentParser
import IntervalProCore
import IntervalProFormats
import IntervalProIO
import IntervalProLaunch

struct PlanExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a plan for a watch (FIT workout) or as a plan file (JSON).",
        discussion: """
            fit: a FIT workout with cadence targets (low/high per step, in steps/min) and repeats, \
            for Garmin Connect or a watch's NewFiles folder. json: the plan as plan-format JSON \
            (useful for a workout read from another format).
            """
    )

    @Argument(help: ArgumentHelp("The plan (any format `plan import` reads).", valueName: "plan"), completion: .planFiles)
    var plan: String

    @Option(help: "fit or json.")
    var format: PlanExport

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file"), completion: .file())
    var output: String

    func run() throws {
        try reportingFailures {
            let file = self.plan
            let plan = try loadPlan(file)
            try writeOutput(
                format.encode(plan, createdUnixSeconds: UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0), to: output, readingFrom: [file])
            Terminal.writeStandardError("intervalpro: wrote \(plan.name.printable) (\(plan.timeline().count == 1 ? "1 step" : "\(plan.timeline().count) steps")) to \(output == "-" ? "standard output" : output)\n")
        }
    }
}

extension PlanExport: ExpressibleByArgument {}
