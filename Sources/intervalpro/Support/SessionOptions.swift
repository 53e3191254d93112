import ArgumentParser
import IntervalProCore
import IntervalProLaunch

/// Pacing and output options shared by `run` and `replay`.
struct PacingOptions: ParsableArguments {
    @Option(help: "Replay this many times faster than real time (e.g. 60: a minute per second).")
    var speed: Double?

    @Flag(help: "Replay on virtual time, as fast as possible (same result as real time).")
    var fast = false

    @Flag(help: "Print the JSON summary (version 1) on stdout; progress lines go to stderr.")
    var json = false

    @Option(help: ArgumentHelp("Also write what the source delivered to this recording file.", valueName: "file"))
    var record: String?

    @Option(help: "Cadence unit of the RSC devices: steps, strides (per foot, doubled) or auto.")
    var cadenceUnit: CadenceUnitArgument?

    func validate() throws {
        if let speed {
            guard !fast else { throw ValidationError("--speed and --fast cannot be used together") }
            guard speed > 0, speed <= 10_000 else { throw ValidationError("--speed must be more than 0 and at most 10000") }
        }
    }
}

struct CadenceUnitArgument: ExpressibleByArgument {
    var unit: CadenceUnit

    init?(argument: String) {
        guard let unit = CadenceUnit(rawValue: argument.lowercased()) else { return nil }
        self.unit = unit
    }

    static var allValueStrings: [String] { CadenceUnit.allCases.map(\.rawValue) }
}

extension SessionRequest {
    /// What `run` and `replay` say of pacing, output, sound and saving.
    mutating func take(_ pacing: PacingOptions, audio: AudioOptions, save: SaveOptions) {
        speed = pacing.speed
        fast = pacing.fast
        cadenceUnit = pacing.cadenceUnit?.unit
        recordPath = pacing.record
        self.audio = audio.choice
        store = save.location
        presentation = .terminal(json: pacing.json)
    }
}
