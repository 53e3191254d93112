public import IntervalProBlueZ
public import IntervalProCore
public import IntervalProEventLoop
import IntervalProANT
import IntervalProIO
public import IntervalProRuntime
import Logging

/// The live sensors of one session or recording: Bluetooth, an ANT stick, or both, their values
/// in one feed on one loop. `run` and `record` connect through it alike.
public final class LiveSensorSet: Sendable {
    public let devices: [RecordedDevice]
    public let feed: LiveFeed
    public let arrivals: LoopCondition
    private let bluetooth: LiveSensors?
    private let ant: ANTSensors?

    private init(devices: [RecordedDevice], bluetooth: LiveSensors?, ant: ANTSensors?) {
        self.devices = devices
        self.bluetooth = bluetooth
        self.ant = ant
        // Sharing, the stick feeds Bluetooth's feed on Bluetooth's loop.
        feed = bluetooth?.feed ?? ant!.feed
        arrivals = bluetooth?.arrivals ?? ant!.arrivals
    }

    /// Connects what `request` names: `ant:NUMBER` on the stick, anything else on Bluetooth, a
    /// role not named on Bluetooth (or, when the device remembered for it is an ANT+ one and a
    /// stick is plugged in, on the stick). Throws `LiveSensorConnection.UnavailableError` when there
    /// is nothing to use, a `LaunchError` (usage) for a malformed `ant:` choice.
    /// - Parameters:
    ///   - coalescing: for a recording (see `LiveSensorConnection.connect`).
    ///   - quiet: nothing said on stderr while connecting.
    ///   - interrupt: Ctrl-C, which ends connecting with `LiveSensorConnection.InterruptedError`,
    ///     what was connecting disconnected (nil: the process's own handling, a server's).
    public static func connect(
        _ request: SensorRequest, cadenceUnit: CadenceUnit?, requireCadence: Bool = false, quiet: Bool = false,
        coalescing: Duration = .zero, interrupt: LiveSensors.Interrupt? = nil
    ) async throws -> LiveSensorSet {
        let set = try await connecting(
            request, cadenceUnit: cadenceUnit, requireCadence: requireCadence, quiet: quiet, coalescing: coalescing,
            interrupt: interrupt)
        // Ctrl-C as the last device came up: nothing starts.
        if interrupt?.raised() ?? false {
            await set.stop()
            throw LiveSensorConnection.InterruptedError()
        }
        return set
    }

    private static func connecting(
        _ request: SensorRequest, cadenceUnit: CadenceUnit?, requireCadence: Bool, quiet: Bool,
        coalescing: Duration, interrupt: LiveSensors.Interrupt?
    ) async throws -> LiveSensorSet {
        let (request, remembered) = rememberedANT(request)
        // A stick named for nothing was passed over in silence (one missing too).
        if !request.usesANT, let stick = request.antStick, !quiet {
            logger.warning(
                "--ant-stick \(stick): no ANT+ device is asked for (--hr ant:0, --cadence ant:0) or remembered; the stick is not read")
        }
        guard request.usesANT else {
            let connection = try await LiveSensorConnection.connect(
                request, cadenceUnit: cadenceUnit, quiet: quiet, requireCadence: requireCadence, coalescing: coalescing,
                interrupt: interrupt)
            return LiveSensorSet(devices: connection.devices, bluetooth: connection.sensors, ant: nil)
        }
        let heartRate = ANTSensors.deviceNumber(request.heartRate)
        let cadence = ANTSensors.deviceNumber(request.cadence)
        for case .some(nil) in [heartRate, cadence] {
            throw LaunchError("an ANT+ device is ant:NUMBER, its device number (ant:0 for any)", kind: .usage)
        }
        var bluetooth: LiveSensorConnection?
        if !request.roles.subtracting(request.antRoles).isEmpty {
            do {
                bluetooth = try await LiveSensorConnection.connect(
                    request, cadenceUnit: cadenceUnit, quiet: quiet, requireCadence: requireCadence && cadence == nil,
                    coalescing: coalescing, interrupt: interrupt)
            } catch let unavailable as LiveSensorConnection.UnavailableError {
                // A Bluetooth device named on the command line is required; an unnamed role is not.
                let named = heartRate == nil ? request.heartRate : request.cadence
                if named != nil { throw unavailable }
                if !quiet { logger.notice("\(unavailable); going on with the ANT+ sensors only") }
            }
        }
        let ant: ANTSensors
        do {
            ant = try ANTSensors(
                path: request.antStick, heartRate: heartRate ?? nil, cadence: cadence ?? nil, sharing: bluetooth?.sensors)
        } catch {
            await bluetooth?.sensors.stop()
            throw LiveSensorConnection.UnavailableError(description: error.description)
        }
        if let interrupt { ant.wakeOnInput(interrupt.descriptor, drain: interrupt.drain) }
        let antDevices = await ant.connect(
            timeout: .seconds(request.scanTimeout), quiet: quiet,
            widening: Set(remembered.map { $0 == .cadence ? ANTPlusStrideSpeedPage.deviceType : ANTPlusHeartRatePage.deviceType }),
            until: { interrupt?.raised() ?? false })
        if interrupt?.raised() ?? false {
            ant.stop()
            await bluetooth?.sensors.stop()
            throw LiveSensorConnection.InterruptedError()
        }
        if antDevices.isEmpty || (requireCadence && cadence != nil && !antDevices.contains { $0.cadenceUnit != nil }) {
            // A stick that never answered was "no device heard", its cause said 20 s before.
            let failure = await ant.failureBeforeSetUp()
            ant.stop()
            await bluetooth?.sensors.stop()
            throw LiveSensorConnection.UnavailableError(
                description: failure.map {
                    "\($0) (\(ant.path)), in the \(Int(request.scanTimeout)) s it was given: unplug it and plug it in again"
                } ?? "no ANT+ \(antDevices.isEmpty ? "device" : "foot pod") heard on \(ant.path) within \(Int(request.scanTimeout)) s")
        }
        if !quiet {
            for device in antDevices { logger.notice("\(device.name ?? device.id): \(device.id)") }
            // A role asked of the stick and never heard was passed over in silence (a session
            // without heart rate, or with "no signal" throughout).
            let within = "on \(ant.path) within \(Int(request.scanTimeout)) s"
            if cadence != nil, !antDevices.contains(where: { $0.cadenceUnit != nil }) {
                logger.notice("no ANT+ foot pod heard \(within): going on without cadence from the stick")
            }
            if heartRate != nil, !antDevices.contains(where: { $0.cadenceUnit == nil }) {
                logger.notice("no ANT+ heart-rate strap heard \(within): going on without heart rate from the stick")
            }
        }
        rememberANT(antDevices)
        return LiveSensorSet(devices: (bluetooth?.devices ?? []) + antDevices, bluetooth: bluetooth?.sensors, ant: ant)
    }

    /// A role not named on the command line whose remembered device is an ANT+ one is read from
    /// the stick, when one is plugged in; without a stick the memory is left aside and Bluetooth
    /// looks for the role as always (what is there wins over what is remembered).
    static func rememberedANT(_ request: SensorRequest) -> (SensorRequest, remembered: Set<SensorLinkMachine.Role>) {
        guard let path = SensorMemory.defaultPath, let memory = try? SensorMemory.load(from: path) else { return (request, []) }
        return rememberedANT(request, memory: memory) { ANTSensors.stickWanted(request.antStick) }
    }

    /// The roles the command looks for, not named, whose remembered device is an ANT+ one,
    /// named after it when `stickPresent` says a stick is there (asked only then). A role the
    /// command does not look for is left alone: a morning measurement never listens for the
    /// foot pod a run remembered.
    static func rememberedANT(
        _ request: SensorRequest, memory: SensorMemory, stickPresent: () -> Bool
    ) -> (SensorRequest, remembered: Set<SensorLinkMachine.Role>) {
        let fromMemory = [(SensorLinkMachine.Role.heartRate, request.heartRate, memory.heartRate), (.cadence, request.cadence, memory.cadence)]
            .compactMap { role, named, sensor in
                // A remembered ANT+ device with a number, that is: a file edited into `ant:abc` is
                // a preference that cannot be followed, not a reason to fail the run.
                named == nil && request.roles.contains(role) && ANTSensors.deviceNumber(sensor?.address) ?? nil != nil
                    ? (role, sensor?.address) : nil
            }
        guard !fromMemory.isEmpty, stickPresent() else { return (request, []) }
        var request = request
        for (role, address) in fromMemory {
            if role == .heartRate { request.heartRate = address } else { request.cadence = address }
        }
        return (request, Set(fromMemory.map(\.0)))
    }

    /// The ANT+ devices heard, remembered for their roles (beside what Bluetooth remembered).
    static func rememberANT(_ devices: [RecordedDevice]) {
        guard let path = SensorMemory.defaultPath else { return }
        var memory = (try? SensorMemory.load(from: path)) ?? SensorMemory()
        let before = memory
        for device in devices {
            let sensor = SensorMemory.Sensor(address: device.id, name: device.name, cadenceUnit: device.cadenceUnit)
            if device.cadenceUnit != nil { memory.cadence = sensor } else { memory.heartRate = sensor }
        }
        guard memory != before else { return }
        do {
            try memory.save(to: path)
        } catch {
            logger.warning("could not remember the sensors: \(error)")
        }
    }

    /// Runs `body` on the sensors' loop.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        if let bluetooth { return try await bluetooth.run(body) }
        return try await ant!.run(body)
    }

    /// Wakes whoever waits on `arrivals` when `descriptor` is readable (keys, Ctrl-C).
    public func wakeOnInput(_ descriptor: Int32, drain: (@Sendable () -> Void)? = nil) {
        if let bluetooth { bluetooth.wakeOnInput(descriptor, drain: drain) } else { ant?.wakeOnInput(descriptor, drain: drain) }
    }

    /// Reads Bluetooth values waiting in a coalescing window (a recording's last second).
    public func readWaitingValues() async { await bluetooth?.readWaitingValues() }

    public func stop() async {
        ant?.stop()
        await bluetooth?.stop()
    }
}
