public import IntervalProBlueZ
public import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProRuntime
import Logging

/// Which adapter and sensors to use, and how: `run`'s, `record`'s and the web page's choice.
public struct SensorRequest: Sendable {
    public var adapter: String?
    /// A heart-rate device named by address or name: required when given.
    public var heartRate: String?
    /// A cadence device named by address or name: required when given.
    public var cadence: String?
    public var scanTimeout: Double
    public var notify: SensorLinkMachine.NotifyMethod
    /// Log every BlueZ call, reply and signal to stderr.
    public var verbose: Bool
    /// The ANT stick's serial device (nil: the first one found), for devices named `ant:NUMBER`.
    public var antStick: String?
    /// What to find devices for: both, unless the command needs one (a readiness measurement
    /// reads heart rate alone, and neither waits for a footpod nor connects one).
    public var roles = Set(SensorLinkMachine.Role.allCases)

    /// A device is named `ant:NUMBER`: the session reads an ANT stick.
    public var usesANT: Bool { !antRoles.isEmpty }

    /// The roles named `ant:NUMBER`.
    public var antRoles: Set<SensorLinkMachine.Role> {
        var roles: Set<SensorLinkMachine.Role> = []
        if ANTSensors.deviceNumber(heartRate) != nil { roles.insert(.heartRate) }
        if ANTSensors.deviceNumber(cadence) != nil { roles.insert(.cadence) }
        return roles
    }

    public init(
        adapter: String? = nil, heartRate: String? = nil, cadence: String? = nil, scanTimeout: Double = 20,
        notify: SensorLinkMachine.NotifyMethod = .auto, verbose: Bool = false
    ) {
        self.adapter = adapter
        self.heartRate = heartRate
        self.cadence = cadence
        self.scanTimeout = scanTimeout
        self.notify = notify
        self.verbose = verbose
    }
}

/// Connecting to live sensors for a command, with progress on stderr and the choice
/// remembered for next time.
public struct LiveSensorConnection: Sendable {
    public let sensors: LiveSensors
    public let devices: [RecordedDevice]

    /// Why live sensors could not be used; the caller falls back or exits 69.
    public struct UnavailableError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Ctrl-C came while connecting: what was connecting is disconnected, nothing started.
    public struct InterruptedError: Error {}

    /// - Parameter requireCadence: no cadence source is a failure (`--require-sensor`), not a
    ///   session with heart rate alone.
    ///   - coalescing: for a recording: acquired values read together once per window, with
    ///     their arrival times (a session takes each at once).
    ///   - interrupt: ends connecting early (`InterruptedError`), the devices disconnected.
    public static func connect(
        _ options: SensorRequest, cadenceUnit: CadenceUnit?, quiet: Bool = false, requireCadence: Bool = false,
        coalescing: Duration = .zero, interrupt: LiveSensors.Interrupt? = nil
    ) async throws -> LiveSensorConnection {
        // Roles an ANT stick serves are not looked for on Bluetooth.
        let antRoles = options.antRoles
        let memoryPath = SensorMemory.defaultPath
        var memory = SensorMemory()
        if let memoryPath {
            do {
                memory = try SensorMemory.load(from: memoryPath)
            } catch {
                logger.warning("ignoring remembered sensors: \(error)")
            }
        }
        // A device named on the command line is required; a remembered one only preferred. An
        // ANT+ one remembered is the stick's to look for: Bluetooth waited for it, never to
        // appear, when no stick was plugged in.
        func remembered(_ sensor: SensorMemory.Sensor?) -> DeviceChoice? {
            guard let sensor, ANTSensors.deviceNumber(sensor.address) == nil else { return nil }
            return DeviceChoice(sensor.address, remembered: true)
        }
        var configuration = SensorLinkMachine.Configuration(
            adapter: options.adapter,
            heartRate: antRoles.contains(.heartRate) || !options.roles.contains(.heartRate)
                ? nil : options.heartRate.map { DeviceChoice($0) } ?? remembered(memory.heartRate),
            cadence: antRoles.contains(.cadence) || !options.roles.contains(.cadence)
                ? nil : options.cadence.map { DeviceChoice($0) } ?? remembered(memory.cadence))
        // A remembered device away is waited for a third of the search at most: with a short
        // --scan-timeout (4 s) the wait outlasted it, and the sensors in range were never taken.
        configuration.rememberedWait = min(configuration.rememberedWait, .seconds(options.scanTimeout / 3))
        configuration.notify = options.notify
        configuration.roles = options.roles.subtracting(antRoles)
        let clock = ContinuousClock()
        let origin = clock.now
        let sensors: LiveSensors
        do {
            sensors = try LiveSensors(
                configuration: configuration, connect: { try DBusConnection.system() }, coalescing: coalescing,
                trace: options.verbose ? Self.trace(since: origin) : nil, clock: { origin.duration(to: clock.now) },
                status: { _, line in
                    guard !quiet, let line else { return }
                    logger.notice("\(line)")
                })
        } catch {
            throw UnavailableError(description: "\(error)")
        }

        let readiness: LiveSensors.Readiness
        do {
            readiness = try await sensors.connect(timeout: .seconds(options.scanTimeout), interrupt: interrupt)
        } catch let failure as DBusCallError {
            throw UnavailableError(description: "cannot reach the system bus: \(failure)")
        }
        switch readiness {
        case .interrupted:
            await sensors.stop()
            throw InterruptedError()
        case .noAdapter(let reason):
            await sensors.stop()
            throw UnavailableError(description: reason)
        case .noSensor:
            await sensors.stop()
            // A device named is named back (`readiness --hr ADDRESS` said "no heart-rate sensor").
            if let named = options.heartRate ?? options.cadence, !named.lowercased().hasPrefix(RecordedDevice.antPrefix) {
                throw UnavailableError(
                    description: "\(options.heartRate != nil ? "--hr" : "--cadence") \(named): not found within \(Int(options.scanTimeout)) s")
            }
            throw UnavailableError(
                description: "no \(options.roles.contains(.cadence) ? "heart-rate or running" : "heart-rate") sensor found within \(Int(options.scanTimeout)) s")
        case .ready(var devices):
            let machine = await sensors.machine()
            let roles = Set(machine.chosenDevices.flatMap(\.roles))
            if requireCadence, !roles.contains(.cadence) {
                await sensors.stop()
                throw UnavailableError(description: "no cadence sensor found within \(Int(options.scanTimeout)) s")
            }
            // A device named for a role is required: a session without it went on, exit 0, and
            // scored a whole run of cadence at 0 % (`--cadence` with a mistyped address).
            for role in SensorLinkMachine.Role.allCases where !roles.contains(role) && !antRoles.contains(role) {
                guard let named = role == .heartRate ? options.heartRate : options.cadence else { continue }
                await sensors.stop()
                let flag = role == .heartRate ? "--hr" : "--cadence"
                throw UnavailableError(
                    description: machine.lacking[role]?.isEmpty == false
                        ? "\(flag) \(named) offers no \(role.rawValue)"
                        : "\(flag) \(named): not found within \(Int(options.scanTimeout)) s")
            }
            // Said once: the session goes on with what there is.
            for role in SensorLinkMachine.Role.allCases where options.roles.contains(role) && !roles.contains(role) && !antRoles.contains(role) && !quiet {
                let other = role == .cadence ? "heart rate" : "cadence"
                logger.notice("no \(role.rawValue) sensor found; going on with \(other) only")
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
    public static func trace(since origin: ContinuousClock.Instant) -> BlueZClient.Trace {
        { line in
            let milliseconds = Int(origin.duration(to: .now) / .milliseconds(1))
            let fraction = String(milliseconds % 1000)
            let stamp = "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
            logger.notice("[\(stamp)] \(line)")
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
            logger.warning("could not remember the sensors: \(error)")
        }
    }
}

extension LiveSensors.Interrupt {
    /// Ctrl-C (and SIGTERM, SIGHUP), caught from now on instead of ending the process, so that
    /// connecting can disconnect first; nil when the signals cannot be caught.
    static func ctrlC() -> Self? {
        InterruptSignal.install()
        guard let descriptor = InterruptSignal.descriptor else { return nil }
        return Self(descriptor: descriptor, drain: InterruptSignal.drain, raised: { InterruptSignal.isRaised })
    }
}
