import ArgumentParser
import IntervalProIO
import IntervalProLaunch

struct ReadinessDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a readiness measurement: it leaves the baseline and the normal range.",
        discussion: "Its wellness write, if any, stays in intervals.icu."
    )

    @Argument(help: "The measurement's id (see `intervalpro readiness history`).")
    var id: Int64

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard id > 0 else { throw ValidationError("the measurement's id is a positive number (see `intervalpro readiness history`)") }
    }

    func run() throws {
        try reportingFailures {
            let (deleted, path) = try store.location.deleteReadiness(id: id)
            guard deleted else { throw LaunchError("no readiness measurement \(id) in \(path)", kind: .missingInput) }
            Terminal.writeStandardError("intervalpro: deleted readiness measurement \(id)\n")
        }
    }
}
