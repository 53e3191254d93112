import IntervalProANT
import IntervalProBlueZ
public import IntervalProCore
import IntervalProDBus
import IntervalProIO
import Synchronization

/// A sensor found by a scan: a Bluetooth device offering heart rate or running speed and
/// cadence, or an ANT+ device the stick heard.
public struct ScannedSensor: Equatable, Sendable {
    /// What `--hr` and `--cadence` take: a Bluetooth address, or `ant:NUMBER`.
    public var address: String
    public var name: String?
    public var rssi: Int?
    /// "180d", "1814" (Bluetooth), "ant-hr", "ant-sdm" (ANT+).
    public var services: [String]
    public var batteryPercent: Int?
    public var isANT: Bool
    public var antDeviceType: Int?
    public var manufacturer: String?

    public var offersHeartRate: Bool { services.contains("180d") || services.contains("ant-hr") }
    public var offersCadence: Bool { services.contains("1814") || services.contains("ant-sdm") }

    init(_ device: BlueZObjectTree.Device) {
        address = device.address
        name = device.name
        rssi = device.rssi
        services = [BlueZ.heartRateService, BlueZ.runningSpeedAndCadenceService].filter(device.serviceUUIDs.contains).map {
            String($0, radix: 16)
        }
        batteryPercent = device.batteryPercent
        isANT = false
    }

    init(_ sighting: ANTPlusSighting) {
        address = sighting.device.description
        name = sighting.kind
        services = sighting.profile.map { [$0.rawValue] } ?? []
        isANT = true
        antDeviceType = Int(sighting.device.type)
        manufacturer = sighting.manufacturer
    }

    /// As `scan --json` and `GET /api/sensors` list it.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("address", .string(address)), ("name", name.map(JSONValue.string) ?? .null),
            ("rssi", rssi.map(JSONValue.int) ?? .null), ("services", .array(services.map(JSONValue.string))),
            ("battery_percent", batteryPercent.map(JSONValue.int) ?? .null),
            ("transport", .string(isANT ? "ant+" : "bluetooth")),
        ]
        if isANT {
            members += [
                ("ant_device_type", antDeviceType.map(JSONValue.int) ?? .null),
                ("manufacturer", manufacturer.map(JSONValue.string) ?? .null),
            ]
        }
        return .object(members)
    }
}

/// Scanning for sensors, as `scan` and the page's sensors view do: Bluetooth through bluetoothd
/// and, when an ANT stick is plugged in (or named), ANT+ on the stick at the same time.
public enum SensorScan {
    public struct Result: Sendable {
        public var adapter: String?
        public var sensors: [ScannedSensor]
        /// What went wrong on the way (no bluetoothd, no adapter, the stick refused), said once
        /// each; the sensors found elsewhere are still listed.
        public var problems: [String]
    }

    /// Why nothing could be scanned at all.
    public struct ScanError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Scans for `seconds`; `progress` hears the sensors found so far, Bluetooth's and the ANT
    /// stick's (about once a second each), and the seconds left. Throws when neither Bluetooth
    /// nor an ANT stick could be used.
    public static func run(
        adapter: String?, antStick: String?, seconds: Double,
        progress: @escaping @Sendable (_ found: [ScannedSensor], _ secondsLeft: Int) -> Void = { _, _ in }
    ) async throws(ScanError) -> Result {
        let clock = ContinuousClock()
        let origin = clock.now
        let end = origin + .seconds(seconds)
        // What each side found so far, told together by either: with Bluetooth unusable, the
        // page's countdown stood still and the stick's devices came only at the end.
        let seen = Mutex<(bluetooth: [ScannedSensor], ant: [ScannedSensor])>(([], []))
        // Told under the lock: the two sides' reports reach `progress` in order, the seconds
        // left never going back up.
        let report: @Sendable (_ bluetooth: [ScannedSensor]?, _ ant: [ScannedSensor]?) -> Void = { bluetooth, ant in
            seen.withLock { seen in
                if let bluetooth { seen.bluetooth = bluetooth }
                if let ant { seen.ant = ant }
                progress(seen.bluetooth + seen.ant, max(0, Int((clock.now.duration(to: end) / .seconds(1)).rounded(.up))))
            }
        }
        // The ANT stick scans on its own loop meanwhile, when there is one.
        let wantsANT = ANTSensors.stickWanted(antStick)
        let antScan =
            wantsANT
            ? Task { () -> Result in
                await scanANT(antStick, seconds: seconds) { heard in report(nil, heard) }
            } : nil
        var configuration = SensorLinkMachine.Configuration(adapter: adapter)
        configuration.scanOnly = true
        let sensors: LiveSensors
        do {
            sensors = try LiveSensors(
                configuration: configuration, connect: { try DBusConnection.system() },
                clock: { origin.duration(to: clock.now) }, status: { _, _ in })
            try sensors.startScan()
        } catch {
            let ant = await antScan?.value
            guard let ant, !ant.sensors.isEmpty else {
                throw ScanError(description: Self.saying("cannot reach the system bus: \(error) (`intervalpro doctor` says what is missing)", ant, seconds: seconds))
            }
            return Result(adapter: nil, sensors: ant.sensors, problems: ["cannot reach the system bus (\(error)): ANT+ devices only"] + ant.problems)
        }
        let bluezCheck = origin + .seconds(3)
        var machine = await sensors.machine()
        // Woken by what the machine reports, the bluetoothd check, the progress clock, the end.
        while clock.now < end {
            var wake = min(end, clock.now + .seconds(1))
            if clock.now < bluezCheck { wake = min(wake, bluezCheck) }
            await sensors.waitForChange(timeout: clock.now.duration(to: wake))
            machine = await sensors.machine()
            // A problem only once the bus has answered: a slow machine is not a missing bluetoothd.
            if clock.now >= bluezCheck, !machine.isAskingForBluez, machine.adapterProblem != nil { break }
            report(machine.candidates.map(ScannedSensor.init), nil)
        }
        let problem = machine.adapterProblem
        let found = machine.candidates.map(ScannedSensor.init)
        let adapterName = machine.adapterName
        await sensors.stop()
        let ant = await antScan?.value
        if let problem, ant?.sensors.isEmpty ?? true { throw ScanError(description: Self.saying(problem, ant, seconds: seconds)) }
        return Result(
            adapter: adapterName, sensors: found + (ant?.sensors ?? []), problems: (problem.map { [$0] } ?? []) + (ant?.problems ?? []))
    }

    /// Bluetooth's problem and, when an ANT stick was scanned too, what became of it: on a
    /// machine with no Bluetooth, a stick that may not be opened, or that heard nothing, was
    /// hidden behind "cannot reach the system bus".
    static func saying(_ problem: String, _ ant: Result?, seconds: Double) -> String {
        guard let ant else { return problem }
        let stick = ant.problems.isEmpty ? ["ANT stick: no ANT+ device heard in \(JSONValue.format(seconds)) s"] : ant.problems
        return ([problem] + stick).joined(separator: "; ")
    }

    /// The ANT stick's scan; a stick that cannot be used is a problem, not a failure.
    static func scanANT(_ path: String?, seconds: Double, heard: @escaping @Sendable ([ScannedSensor]) -> Void) async -> Result {
        do {
            let (sightings, problems) = try await ANTSensors.scan(path: path, duration: .seconds(seconds)) {
                heard($0.map(ScannedSensor.init))
            }
            return Result(adapter: nil, sensors: sightings.map(ScannedSensor.init), problems: problems)
        } catch {
            return Result(adapter: nil, sensors: [], problems: ["ANT stick: \(error)"])
        }
    }
}

extension SensorScan.Result {
    /// What `scan --json` prints.
    public var json: JSONValue {
        .object([("adapter", adapter.map(JSONValue.string) ?? .null), ("devices", .array(sensors.map(\.json)))])
    }

    /// What `scan` prints: a table of the sensors, or how to wake one.
    public var text: String {
        guard !sensors.isEmpty else {
            return "No heart-rate or running sensor found. Wake the sensor (a Garmin watch: enable Broadcast Heart Rate) and scan again."
        }
        let rows = sensors.map { sensor in
            if sensor.isANT {
                return [
                    [sensor.manufacturer, sensor.name].compactMap { $0 }.joined(separator: " "), sensor.address, "",
                    sensor.offersHeartRate
                        ? "heart rate (ANT+)" : sensor.offersCadence ? "foot pod (ANT+)" : "ANT+ type \(sensor.antDeviceType ?? 0)",
                    "",
                ]
            }
            return [
                sensor.name ?? "(no name)", sensor.address, sensor.rssi.map { "\($0) dBm" } ?? "",
                sensor.services.map { $0 == "180d" ? "heart rate" : "speed+cadence" }.joined(separator: ", "),
                sensor.batteryPercent.map { "\($0)%" } ?? "",
            ]
        }
        return TextTable.render(header: ["name", "address", "signal", "services", "battery"], rows: rows).joined(separator: "\n")
    }
}
