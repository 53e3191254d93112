import ArgumentParser
import IntervalProANT
import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProLaunch

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List nearby heart-rate (0x180D) and running speed and cadence (0x1814) sensors, and ANT+ ones.",
        discussion: """
            Other Bluetooth devices are not listed. Battery is known for devices BlueZ has connected before. \
            With an ANT USB stick plugged in, the ANT+ devices it hears are listed too, as ant:NUMBER \
            (what --hr and --cadence take).
            """
    )

    @Option(help: ArgumentHelp("Seconds to scan.", valueName: "seconds"))
    var timeout: Double = 10

    @Option(help: ArgumentHelp("Bluetooth adapter to use (default: the first powered one).", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp("The ANT stick to scan with (default: the first one plugged in, if any).", valueName: "path"))
    var antStick: String?

    @Flag(help: "Print the devices as JSON.")
    var json = false

    func validate() throws {
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be more than 0 and at most 600") }
    }

    func run() async throws {
        try await reportingFailures {
            // The ANT stick scans on its own loop meanwhile, when there is one.
            let wantsANT = antStick != nil || !USBDeviceNodes.antSticks().isEmpty || !SerialPort.antSticks().isEmpty
            let antScan = wantsANT ? Task { [antStick, timeout] in await Self.scanANT(antStick, seconds: timeout) } : nil
            var configuration = SensorLinkMachine.Configuration(adapter: adapter)
            configuration.scanOnly = true
            let clock = ContinuousClock()
            let origin = clock.now
            let sensors: LiveSensors
            do {
                sensors = try LiveSensors(
                    configuration: configuration, connect: { try DBusConnection.system() },
                    clock: { origin.duration(to: clock.now) }, status: { _ in })
                try sensors.startScan()
            } catch {
                guard let antScan, case .success(let ant) = await antScan.value else {
                    throw Failure("cannot reach the system bus: \(error)", status: .unavailable)
                }
                Terminal.writeStandardError("intervalpro: cannot reach the system bus (\(error)): ANT+ devices only\n")
                return output(adapter: nil, [], ant: ant)
            }
            let showProgress = !json && Terminal.standardErrorIsTerminal
            let end = clock.now + .seconds(timeout)
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
                if showProgress {
                    let left = Int((clock.now.duration(to: end) / .seconds(1)).rounded(.up))
                    Terminal.writeStandardError("\rscanning… \(machine.candidates.count) found, \(left) s left ")
                }
            }
            if showProgress { Terminal.writeStandardError("\r\u{1B}[K") }
            let problem = machine.adapterProblem
            let devices = machine.candidates
            let adapterName = machine.adapterName
            await sensors.stop()
            var ant: [ANTPlusSighting] = []
            switch await antScan?.value {
            case .success(let sightings): ant = sightings
            case .failure(let unavailable): Terminal.writeStandardError("intervalpro: ANT stick: \(unavailable)\n")
            case nil: break
            }
            if let problem, ant.isEmpty { throw Failure(problem, status: .unavailable) }
            if let problem { Terminal.writeStandardError("intervalpro: \(problem)\n") }
            output(adapter: adapterName, devices, ant: ant)
        }
    }

    /// The ANT stick's scan, its problems said on stderr.
    static func scanANT(_ path: String?, seconds: Double) async -> Result<[ANTPlusSighting], ANTSensors.Unavailable> {
        do {
            let (sightings, problems) = try await ANTSensors.scan(path: path, duration: .seconds(seconds))
            for problem in problems { Terminal.writeStandardError("intervalpro: \(problem)\n") }
            return .success(sightings)
        } catch {
            return .failure(error)
        }
    }

    func output(adapter: String?, _ devices: [BlueZObjectTree.Device], ant: [ANTPlusSighting]) {
        if json {
            print(Self.json(adapter: adapter, devices, ant: ant).serialized(pretty: true))
        } else {
            print(Self.text(devices, ant: ant))
        }
    }

    static func services(_ device: BlueZObjectTree.Device) -> [String] {
        [BlueZ.heartRateService, BlueZ.runningSpeedAndCadenceService].filter(device.serviceUUIDs.contains).map {
            String($0, radix: 16)
        }
    }

    static func json(adapter: String?, _ devices: [BlueZObjectTree.Device], ant: [ANTPlusSighting] = []) -> JSONValue {
        .object([
            ("adapter", adapter.map(JSONValue.string) ?? .null),
            (
                "devices",
                .array(
                    devices.map { device in
                        .object([
                            ("address", .string(device.address)),
                            ("name", device.name.map(JSONValue.string) ?? .null),
                            ("rssi", device.rssi.map(JSONValue.int) ?? .null),
                            ("services", .array(services(device).map(JSONValue.string))),
                            ("battery_percent", device.batteryPercent.map(JSONValue.int) ?? .null),
                            ("transport", .string("bluetooth")),
                        ])
                    }
                        + ant.map { sighting in
                            .object([
                                ("address", .string(sighting.device.description)),
                                ("name", .string(sighting.kind)),
                                ("rssi", .null),
                                ("services", .array(sighting.profile.map { [JSONValue.string($0.rawValue)] } ?? [])),
                                ("battery_percent", .null),
                                ("transport", .string("ant+")),
                                ("ant_device_type", .int(Int(sighting.device.type))),
                                ("manufacturer", sighting.manufacturer.map(JSONValue.string) ?? .null),
                            ])
                        })
            ),
        ])
    }

    static func text(_ devices: [BlueZObjectTree.Device], ant: [ANTPlusSighting] = []) -> String {
        guard !devices.isEmpty || !ant.isEmpty else {
            return "No heart-rate or running sensor found. Wake the sensor (a Garmin watch: enable Broadcast Heart Rate) and scan again."
        }
        let rows = devices.map { device in
            [
                device.name ?? "(no name)", device.address, device.rssi.map { "\($0) dBm" } ?? "",
                services(device).map { $0 == "180d" ? "heart rate" : "speed+cadence" }.joined(separator: ", "),
                device.batteryPercent.map { "\($0)%" } ?? "",
            ]
        }
        let antRows = ant.map { sighting in
            [
                [sighting.manufacturer, sighting.kind].compactMap { $0 }.joined(separator: " "), sighting.device.description, "",
                sighting.profile.map { $0 == .heartRate ? "heart rate (ANT+)" : "foot pod (ANT+)" } ?? "ANT+ type \(sighting.device.type)",
                "",
            ]
        }
        return TextTable.render(header: ["name", "address", "signal", "services", "battery"], rows: rows + antRows).joined(separator: "\n")
    }
}
