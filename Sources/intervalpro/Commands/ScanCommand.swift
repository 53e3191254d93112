import ArgumentParser
import IntervalProCore
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
            let showProgress = !json && Terminal.standardErrorIsTerminal
            let result: SensorScan.Result
            do {
                result = try await SensorScan.run(adapter: adapter, antStick: antStick, seconds: timeout) { found, left in
                    if showProgress { Terminal.writeStandardError("\rscanning… \(found.count) found, \(left) s left ") }
                }
            } catch {
                if showProgress { Terminal.writeStandardError("\r\u{1B}[K") }
                throw LaunchError("\(error)", kind: .unavailable)
            }
            if showProgress { Terminal.writeStandardError("\r\u{1B}[K") }
            for problem in result.problems { Terminal.writeStandardError("intervalpro: \(problem)\n") }
            if json {
                print(Self.json(adapter: result.adapter, result.sensors).serialized(pretty: true))
            } else {
                print(Self.text(result.sensors))
            }
        }
    }

    static func json(adapter: String?, _ sensors: [ScannedSensor]) -> JSONValue {
        .object([("adapter", adapter.map(JSONValue.string) ?? .null), ("devices", .array(sensors.map(\.json)))])
    }

    static func text(_ sensors: [ScannedSensor]) -> String {
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
