import ArgumentParser
import IntervalProCore
import IntervalProFormats
import IntervalProIO
import IntervalProLaunch

struct PlanExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a plan for a watch (FIT workout) or as a plan file (JSON).",
        discussion: """
            fit: a FIT workout with cadence targets (low/high per step, in steps/min) and repeats, \
            for Garmin Connect or a watch's NewFiles folder. json: the plan as plan-format JSON \
            (useful for a workout read from another format).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case fit, json
    }

    @Argument(help: ArgumentHelp("The plan (any format `plan import` reads).", valueName: "plan"), completion: .planFiles)
    var plan: String

    @Option(help: "fit or json.")
    var format: Format

    @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file"))
    var output: String

    func run() async throws {
        try await reportingFailures {
            let plan = try loadPlan(plan)
            let bytes: [UInt8]
            switch format {
            case .fit:
                let now = UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0
                bytes = FITWorkout.encode(plan, createdUnixSeconds: now)
            case .json:
                bytes = Array((PlanWriter.json(plan).serialized(pretty: true) + "\n").utf8)
            }
            do {
                try FileIO.write(bytes, to: output)
            } catch let error as FileError {
                throw LaunchError(error)
            }
            Terminal.writeStandardError("intervalpro: wrote \(plan.name) (\(plan.timeline().count) steps) to \(output)\n")
        }
    }
}
