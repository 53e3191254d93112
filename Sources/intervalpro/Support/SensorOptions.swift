import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProRuntime

/// Which adapter and sensors to use; shared by `run`, `record` and `scan`.
struct SensorOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Bluetooth adapter to use (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp("Heart-rate device: an address or a name.", valueName: "device"), completion: .rememberedSensors)
    var hr: String?

    @Option(
        help: ArgumentHelp("Cadence device (footpod, HRM-Pro, Stryd): an address or a name.", valueName: "device"),
        completion: .rememberedSensors)
    var cadence: String?

    @Option(help: ArgumentHelp("Seconds to look for sensors before giving up.", valueName: "seconds"))
    var scanTimeout: Double = 20

    @Option(
        help: ArgumentHelp(
            "How measurements are subscribed: auto (AcquireNotify where offered, else StartNotify), acquire or start.",
            valueName: "method"))
    var notify: NotifyMethodArgument = .init(.auto)

    @Flag(name: .shortAndLong, help: "Log every BlueZ call, reply, signal and notification socket to stderr.")
    var verbose = false

    func validate() throws {
        guard scanTimeout > 0, scanTimeout <= 600 else {
            throw ValidationError("--scan-timeout must be more than 0 and at most 600 seconds")
        }
        if let adapter, !adapter.allSatisfy({ $0.isLetter || $0.isNumber }) {
            throw ValidationError("--adapter takes an adapter name such as hci0")
        }
    }
}

extension CompletionKind {
    /// Files `run`, `plan` and `render-audio` read as plans.
    static var planFiles: CompletionKind { .file(extensions: ["json", "txt", "zwo", "fit"]) }
    /// Files `replay` and `--replay` read.
    static var recordingFiles: CompletionKind { .file(extensions: ["jsonl", "fit", "tcx"]) }
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
}

/// Connecting to live sensors for a command, with progress on stderr and the choice
/// remembered for next time.
struct LiveSensorConnection {
    let sensors: LiveSensors
    let devices: [RecordedDevice]

    /// Why live sensors could not be used; the caller falls back or exits 69.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// - Parameter requireCadence: no cadence source is a failure (`--require-sensor`), not a
    ///   session with heart rate alone.
    ///   - coalescing: for a recording: acquired values read together once per window, with
    ///     their arrival times (a session takes each at once).
    static func connect(
        _ options: SensorOptions, cadenceUnit: CadenceUnit?, quiet: Bool = false, requireCadence: Bool = false,
        coalescing: Duration = .zero
    ) async throws -> LiveSensorConnection {
        let memoryPath = SensorMemory.defaultPath
        var memory = SensorMemory()
        if let memoryPath {
            do {
                memory = try SensorMemory.load(from: memoryPath)
            } catch {
                Terminal.writeStandardError("intervalpro: warning: ignoring remembered sensors: \(error)\n")
            }
        }
        // A device named on the command line is required; a remembered one only preferred.
        var configuration = SensorLinkMachine.Configuration(
            adapter: options.adapter,
            heartRate: options.hr.map { DeviceChoice($0) }
                ?? memory.heartRate.map { DeviceChoice($0.address, remembered: true) },
            cadence: options.cadence.map { DeviceChoice($0) }
                ?? memory.cadence.map { DeviceChoice($0.address, remembered: true) })
        configuration.notify = options.notify.method
        let clock = ContinuousClock()
        let origin = clock.now
        let sensors: LiveSensors
        do {
            sensors = try LiveSensors(
                configuration: configuration, connect: { try DBusConnection.system() }, coalescing: coalescing,
                trace: options.verbose ? Self.trace(since: origin) : nil, clock: { origin.duration(to: clock.now) },
                status: { status in
                    guard !quiet, let message = status.message else { return }
                    Terminal.writeStandardError("intervalpro: \(message)\n")
                })
        } catch {
            throw Unavailable(description: "\(error)")
        }

        let readiness: LiveSensors.Readiness
        do {
            readiness = try await sensors.connect(timeout: .seconds(options.scanTimeout))
        } catch let failure as DBusFailure {
            throw Unavailable(description: "cannot reach the system bus: \(failure)")
        }
        switch readiness {
        case .noAdapter(let reason):
            await sensors.stop()
            throw Unavailable(description: reason)
        case .noSensor:
            await sensors.stop()
            throw Unavailable(
                description: "no heart-rate or running sensor found within \(Int(options.scanTimeout)) s")
        case .ready(var devices):
            let machine = await sensors.machine()
            let roles = Set(machine.chosenDevices.flatMap(\.roles))
            if requireCadence, !roles.contains(.cadence) {
                await sensors.stop()
                throw Unavailable(description: "no cadence sensor found within \(Int(options.scanTimeout)) s")
            }
            // Said once: the session goes on with what there is.
            for role in SensorLinkMachine.Role.allCases where !roles.contains(role) && !quiet {
                let other = role == .cadence ? "heart rate" : "cadence"
                Terminal.writeStandardError("intervalpro: no \(role.rawValue) sensor found; going on with \(other) only\n")
            }
            let rememberedUnit = memory.cadence?.cadenceUnit
            for i in devices.indices where devices[i].cadenceUnit != nil {
                devices[i].cadenceUnit =
                    cadenceUnit ?? (memory.cadence?.address == devices[i].id ? rememberedUnit : nil) ?? .auto
            }
            remember(devices, machine: machine, memory: memory, path: memoryPath)
            return LiveSensorConnection(sensors: sensors, devices: devices)
        }
    }

    /// The `-v` log: one stderr line each, with the seconds since connecting began.
    static func trace(since origin: ContinuousClock.Instant) -> BlueZClient.Trace {
        { line in
            let milliseconds = Int(origin.duration(to: .now) / .milliseconds(1))
            let fraction = String(milliseconds % 1000)
            let stamp = "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
            Terminal.writeStandardError("intervalpro: [\(stamp)] \(line)\n")
        }
    }

    private static func remember(
        _ devices: [RecordedDevice], machine: SensorLinkMachine, memory: SensorMemory, path: String?
    ) {
        guard let path else { return }
        var updated = memory
        // A remembered device found not to offer a role is forgotten for it.
        let lacking = machine.lacking
        if let address = memory.heartRate?.address, lacking[.heartRate]?.contains(address) ?? false { updated.heartRate = nil }
        if let address = memory.cadence?.address, lacking[.cadence]?.contains(address) ?? false { updated.cadence = nil }
        for chosen in machine.chosenDevices {
            guard let device = devices.first(where: { $0.id == chosen.address }) else { continue }
            let sensor = SensorMemory.Sensor(address: device.id, name: device.name, cadenceUnit: device.cadenceUnit)
            if chosen.roles.contains(.heartRate) { updated.heartRate = SensorMemory.Sensor(address: device.id, name: device.name) }
            if chosen.roles.contains(.cadence) { updated.cadence = sensor }
        }
        guard updated != memory else { return }
        do {
            try updated.save(to: path)
        } catch {
            Terminal.writeStandardError("intervalpro: warning: could not remember the sensors: \(error)\n")
        }
    }
}
