import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// Pacing and output options shared by `run` and `replay`.
struct PacingOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Replay this many times faster than real time (e.g. 60: a minute per second).")
    var speed: Double?

    @Flag(help: "Replay on virtual time, as fast as possible (same result as real time).")
    var fast = false

    @Flag(help: "Print the JSON summary (version 1) on stdout; progress lines go to stderr.")
    var json = false

    @Option(
        help: ArgumentHelp("Also write what the source delivered to this recording file.", valueName: "file"),
        completion: .file(extensions: ["jsonl"]))
    var record: String?

    @Option(help: "Cadence unit of the RSC devices: steps, strides (per foot, doubled) or auto.")
    var cadenceUnit: CadenceUnitArgument?

    func validate() throws {
        if let speed {
            guard !fast else { throw ValidationError("--speed and --fast cannot be used together") }
            guard speed > 0, speed <= 10_000 else { throw ValidationError("--speed must be more than 0 and at most 10000") }
        }
        // It wrote a file named "-", where everywhere else "-" is standard output, which
        // carries the session's own lines here.
        if record == "-" { throw ValidationError("--record writes a file: name one ('-' is standard output, where the session's lines go)") }
        if record?.isEmpty == true { throw ValidationError("--record names no file: an empty path") }
    }
}

struct CadenceUnitArgument: ExpressibleByArgument {
    var unit: CadenceUnit

    init?(argument: String) {
        guard let unit = CadenceUnit(rawValue: argument.lowercased()), CadenceUnit.ofSensors.contains(unit) else { return nil }
        self.unit = unit
    }

    static var allValueStrings: [String] { CadenceUnit.ofSensors.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
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
        display = .terminal(json: pacing.json)
    }
}

extension SessionDisplay {
    /// The live screen on stdout when it is a terminal that can move its cursor (on TERM=dumb
    /// the screen's redraws were raw escape codes); else plain lines, on stderr under --json so
    /// that stdout holds only the summary. Keys and Ctrl-C steer the session.
    static func terminal(json: Bool) -> SessionDisplay {
        let output = Stream(colour: Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal), region: .standardOutput) {
            Terminal.writeStandardOutput($0)
        }
        let showsScreen = Terminal.standardOutputIsTerminal && !Terminal.isDumb && !json
        return SessionDisplay(screen: showsScreen ? output : nil, lines: json ? .standardError : output, steering: true)
    }

    /// Plain lines on stderr, steered by nothing but the page: a server's sessions.
    static let serverLog = SessionDisplay(screen: nil, lines: .standardError, steering: false)
}

extension SessionDisplay.Stream {
    static var standardError: Self {
        Self(colour: Terminal.wantsColour(isTerminal: Terminal.standardErrorIsTerminal)) { Terminal.writeStandardError($0) }
    }
}
