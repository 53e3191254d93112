import ArgumentParser
import IntervalProCore
import IntervalProFormats
import IntervalProIO
import IntervalProLaunch

struct PlanImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn a workout from intervals.icu, Zwift or Garmin into a plan file.",
        discussion: """
            Reads intervals.icu workout text, a Zwift .zwo file or a FIT workout (recognised by \
            content), writes the plan, and prints the timeline it understood. `run`, `plan check` \
            and `render-audio` also take these files directly.
            """
    )

    @Argument(help: ArgumentHelp("The workout: intervals.icu text, .zwo or FIT workout.", valueName: "file"), completion: .planFiles)
    var workout: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The plan to write ('-' for standard output; default: the workout file's name with .json; standard output for '-' and /dev/stdin).",
            valueName: "file"),
        completion: .file(extensions: ["json"]))
    var output: String?

    @Flag(help: "Replace the output file if it exists.")
    var force = false

    @Flag(help: "Print the timeline as JSON.")
    var json = false

    func run() throws {
        try reportingFailures {
            let imported = try importPlan(workout)
            // A workout on standard input has no name to write beside: it wrote "-.json", and
            // /dev/stdin.json into /dev (a pipe from <(…) was refused at /dev/fd/63.json).
            let piped =
                workout == "-" || workout == "/dev/stdin" || workout.hasPrefix("/dev/fd/") || workout.hasPrefix("/proc/")
                || FileIO.isStream(workout)
            let target = output ?? (piped ? "-" : Self.defaultOutput(for: workout))
            let text = PlanWriter.json(imported.plan).serialized(pretty: true) + "\n"
            let timeline = imported.plan.timeline()
            let report =
                json
                ? PlanPreview.json(imported.plan, timeline).serialized(pretty: true)
                : "\(workout): \(imported.format.rawValue)\n" + PlanPreview.table(imported.plan, timeline)
            if target == "-" {
                print(text, terminator: "")
                Terminal.writeStandardError(report + "\n")
                return
            }
            if !force, (try? FileIO.readAll(target)) != nil {
                throw LaunchError("\(target) exists; choose another name with -o, or replace it with --force", kind: .usage)
            }
            // Not over the workout read, --force or not: the .zwo was gone, its plan in its place.
            try writeOutput(Array(text.utf8), to: target, readingFrom: [workout])
            print(report)
            Terminal.writeStandardError("intervalpro: wrote \(target)\n")
        }
    }

    /// "workouts/5x1k.zwo" → "workouts/5x1k.json".
    static func defaultOutput(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        return folder + WorkoutImport.stem(of: path) + ".json"
    }
}
