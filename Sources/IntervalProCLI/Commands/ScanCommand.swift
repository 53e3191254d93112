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

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to scan.", valueName: "seconds"))
    var timeout: Double = 10

    @Option(help: .adapter)
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
                print(result.json.serialized(pretty: true))
            } else {
                print(result.text)
            }
        }
    }
}
