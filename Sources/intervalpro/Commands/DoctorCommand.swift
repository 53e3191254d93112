import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProLaunch

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check Bluetooth (bus, bluetoothd, permission, adapter, rfkill) and sound, and say what to fix.",
        discussion: "Exits 0 when everything a live session needs is in place, 69 otherwise."
    )

    @Flag(help: "Print the findings as JSON.")
    var json = false

    func run() throws {
        var findings = BlueZDiagnosis.run { try DBusConnection.system() }
        findings += SystemDiagnosis.run().map { Diagnosis(check: $0.check, ok: $0.ok, detail: $0.detail, fix: $0.fix) }
        // A missing sound card does not stop a session: it is reported, not failed.
        let blocking = findings.filter { !$0.ok && $0.check != "sound" }
        if json {
            let list = findings.map { finding in
                JSONValue.object([
                    ("check", .string(finding.check)), ("ok", .bool(finding.ok)), ("detail", .string(finding.detail)),
                    ("fix", finding.fix.map(JSONValue.string) ?? .null),
                ])
            }
            print(JSONValue.object([("ok", .bool(blocking.isEmpty)), ("checks", .array(list))]).serialized(pretty: true))
        } else {
            let colour = Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal)
            for finding in findings {
                let mark = finding.ok ? (colour ? "\u{1B}[32m✓\u{1B}[0m" : "✓") : (colour ? "\u{1B}[31m✗\u{1B}[0m" : "✗")
                print("\(mark) \(finding.check): \(finding.detail)")
                if let fix = finding.fix, !finding.ok { print("    fix: \(fix)") }
            }
        }
        if !blocking.isEmpty { throw ExitCode(ExitStatus.unavailable.rawValue) }
    }
}
