import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// Which adapter and sensors to use; shared by `run`, `record`, `serve` and `readiness`.
struct SensorOptions<Use: SensorUse>: ParsableArguments {
    @Option(help: .adapter)
    var adapter: String?

    @Option(
        help: ArgumentHelp("Heart-rate device: an address or a name (or its first words), or ant:NUMBER for an ANT+ strap (ant:0, any).", valueName: "device"),
        completion: .rememberedSensors)
    var hr: String?

    @Option(
        help: ArgumentHelp(
            "Cadence device (footpod, HRM-Pro, Stryd): an address or a name (or its first words), or ant:NUMBER for an ANT+ foot pod (ant:0, any).",
            valueName: "device", visibility: Use.cadenceVisibility),
        completion: .rememberedSensors)
    var cadence: String?

    @Option(help: ArgumentHelp("The ANT stick: /dev/bus/usb/BBB/DDD (libusb) or a serial device, /dev/ttyUSBn (default: the first ANT stick found).", valueName: "path"))
    var antStick: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds to look for sensors before giving up.", valueName: "seconds"))
    var scanTimeout: Double = 20

    @Option(
        help: ArgumentHelp(
            "How measurements are subscribed: auto (AcquireNotify where offered, else StartNotify), acquire or start.",
            valueName: "method"))
    var notify: NotifyMethodArgument = .init(.auto)

    @Flag(name: .shortAndLong, help: "Log every BlueZ call, reply, signal and notification socket to stderr.")
    var verbose = false

    /// The same choices as plain values, for the launcher.
    var request: SensorRequest {
        var request = SensorRequest(
            adapter: adapter, heartRate: hr, cadence: cadence, scanTimeout: scanTimeout, notify: notify.method,
            verbose: verbose)
        request.antStick = antStick
        return request
    }

    func validate() throws {
        guard scanTimeout > 0, scanTimeout <= 600 else {
            throw ValidationError("--scan-timeout must be more than 0 and at most 600 seconds")
        }
        if let adapter, !adapter.allSatisfy({ $0.isLetter || $0.isNumber }) {
            throw ValidationError("--adapter takes an adapter name such as hci0")
        }
    }
}

/// What a command listens to, for its help: a readiness measurement takes the strap alone, and
/// its help offered `--cadence`, which it refuses.
protocol SensorUse { static var cadenceVisibility: ArgumentVisibility { get } }
enum HeartRateAndCadence: SensorUse { static var cadenceVisibility: ArgumentVisibility { .default } }
enum HeartRateAlone: SensorUse { static var cadenceVisibility: ArgumentVisibility { .hidden } }

extension CompletionKind {
    /// Files `run`, `plan` and `render-audio` read as plans.
    static var planFiles: CompletionKind { files(["json", "txt", "zwo", "fit"]) }
    /// Files `replay` and `--replay` read.
    static var recordingFiles: CompletionKind { files(["jsonl", "fit", "tcx", "gpx", "gz", "zip"]) }
    /// And RR intervals as text, which HRV apps export.
    static var readinessFiles: CompletionKind { files(["jsonl", "fit", "tcx", "gpx", "gz", "zip", "txt", "csv"]) }

    /// Files of these extensions in either case: watches write `.FIT`, and the readers go by
    /// what a file holds, not its name.
    private static func files(_ extensions: [String]) -> CompletionKind {
        .file(extensions: extensions + extensions.map { $0.uppercased() })
    }
    /// The addresses of the sensors remembered from earlier sessions (scanning would take seconds).
    static var rememberedSensors: CompletionKind {
        .custom { _, _, _ in
            guard let path = SensorMemory.defaultPath, let memory = try? SensorMemory.load(from: path) else { return [] }
            return Array(Set([memory.heartRate?.address, memory.cadence?.address].compactMap { $0 })).sorted()
        }
    }
}

struct NotifyMethodArgument: ExpressibleByArgument {
    var method: SensorLinkMachine.NotifyMethod
    init(_ method: SensorLinkMachine.NotifyMethod) { self.method = method }
    init?(argument: String) {
        guard let method = SensorLinkMachine.NotifyMethod(rawValue: argument) else { return nil }
        self.method = method
    }
    var defaultValueDescription: String { method.rawValue }
    static var allValueStrings: [String] { SensorLinkMachine.NotifyMethod.allCases.map(\.rawValue) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

