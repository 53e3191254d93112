import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check Bluetooth (bus, bluetoothd, permission, adapter, rfkill) and sound, and say what to fix.",
        discussion: "Exits 0 when everything a live session needs is in place, 69 otherwise."
    )

    @Flag(help: "Print the findings as JSON.")
    var json = false

    func run() async throws {
        let findings = await Checkup.run()
        if json {
            print(Checkup.json(findings).serialized(pretty: true))
        } else {
            print(Checkup.lines(findings, colour: Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal)).joined(separator: "\n"))
        }
        if findings.contains(where: Checkup.blocks) { throw ExitCode(ExitStatus.unavailable.rawValue) }
    }
}
