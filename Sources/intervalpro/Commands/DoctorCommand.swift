import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProLaunch
import IntervalProMPRIS
import IntervalProSound

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
        findings.append(musicFinding())
        // A missing sound card or music player does not stop a session: reported, not failed.
        let blocking = findings.filter { !$0.ok && $0.check != "sound" && $0.check != "music" }
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

    /// The MPRIS players on the session bus, which --music can follow.
    private func musicFinding() -> Diagnosis {
        let connection: DBusConnection
        do {
            connection = try MusicLink.sessionBus(address: Terminal.environment("DBUS_SESSION_BUS_ADDRESS"))
        } catch {
            return Diagnosis(
                check: "music", ok: false, detail: "\(error)",
                fix: "run from your desktop session (or a systemd user unit) to duck and pause your music player")
        }
        let players = MusicLink.listPlayers(on: connection)
        guard !players.isEmpty else {
            return Diagnosis(
                check: "music", ok: true, detail: "no MPRIS music player running (cues play over nothing to duck)", fix: nil)
        }
        let list = players.map { player in
            var text = "\(player.name) (\(player.status.rawValue.lowercased())"
            if !player.volumeWritable { text += ", volume fixed" }
            if let playing = player.nowPlaying { text += ": \(playing)" }
            return text + ")"
        }
        return Diagnosis(check: "music", ok: true, detail: "players: " + list.joined(separator: "; "), fix: nil)
    }
}
