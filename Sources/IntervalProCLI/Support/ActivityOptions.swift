import ArgumentParser
import IntervalProFormats

/// How `replay` and `run --replay` read a watch's activity file.
struct ActivityOptions: ParsableArguments {
    @Flag(help: "Refuse a damaged FIT activity instead of reading it up to the damage.")
    var strict = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The leg of a multisport activity to read (1 is the first; default: the first run).", valueName: "n"))
    var leg: Int?

    @Option(help: "run: only running legs; any: a ride or a swim too (its cadence doubled as a run's).")
    var sport: SportArgument = .run

    enum SportArgument: String, ExpressibleByArgument, CaseIterable {
        case run, any
    }

    func validate() throws {
        if let leg, leg < 1 { throw ValidationError("--leg must be 1 or more") }
    }

    /// Whether any of them was given (`run` takes them with --replay only).
    var given: Bool { strict || leg != nil || sport != .run }

    var choice: ActivityChoice { ActivityChoice(strict: strict, leg: leg, anySport: sport == .any) }
}
