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
            let colour = Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal)
            for finding in findings {
                let mark = finding.ok ? (colour ? "\u{1B}[32m✓\u{1B}[0m" : "✓") : (colour ? "\u{1B}[31m✗\u{1B}[0m" : "✗")
                print("\(mark) \(finding.check): \(finding.detail)")
                if let fix = finding.fix, !finding.ok { print("    fix: \(fix)") }
            }
        }
        if findings.contains(where: Checkup.blocks) { throw ExitCode(ExitStatus.unavailable.rawValue) }
    }
}
