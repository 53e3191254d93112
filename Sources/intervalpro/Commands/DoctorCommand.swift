import ArgumentParser
import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProLaunch
import IntervalProMPRIS
import IntervalProNetwork
import IntervalProServices
import IntervalProSound

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check Bluetooth (bus, bluetoothd, permission, adapter, rfkill) and sound, and say what to fix.",
        discussion: "Exits 0 when everything a live session needs is in place, 69 otherwise."
    )

    @Flag(help: "Print the findings as JSON.")
    var json = false

    func run() async throws {
        var findings = BlueZDiagnosis.run { try DBusConnection.system() }
        findings += SystemDiagnosis.run().map { Diagnosis(check: $0.check, ok: $0.ok, detail: $0.detail, fix: $0.fix) }
        findings.append(musicFinding())
        findings += await accountFindings()
        // A missing sound card, music player or account does not stop a session: reported, not failed.
        let advisory = Set(["sound", "music", "accounts", "ant stick"] + Service.allCases.map(\.rawValue))
        let blocking = findings.filter { !$0.ok && !advisory.contains($0.check) }
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

    /// Each service: whether its account works, asked once with a short time limit.
    private func accountFindings() async -> [Diagnosis] {
        let context: ServiceContext
        do {
            let file = try ServiceOptions.accountFile()
            var policy = RetryPolicy()
            policy.maxAttempts = 1
            context = ServiceContext(
                file: file, accounts: try ServiceOptions.load(file), verbose: false, timeout: 5, policy: policy)
        } catch let failure as Failure {
            return [Diagnosis(check: "accounts", ok: false, detail: failure.message, fix: "fix or remove the file")]
        } catch {
            return [Diagnosis(check: "accounts", ok: false, detail: "\(error)", fix: nil)]
        }
        var findings: [Diagnosis] = []
        for service in Service.allCases {
            guard context.accounts.services.contains(service) else {
                findings.append(
                    Diagnosis(check: service.rawValue, ok: true, detail: "no account (see `intervalpro account add --help`)", fix: nil))
                continue
            }
            do throws(ServiceFailure) {
                let who: String
                switch service {
                case .intervalsICU:
                    let api = try context.intervalsICU()
                    let response = try await context.caller(.intervalsICU).success(api.athlete(), doing: "checking the key")
                    who = IntervalsICU.athleteName(response) ?? api.account.athleteID
                case .strava:
                    let authorization = StravaAuthorization(context: context)
                    let strava = authorization.strava
                    _ = try await authorization.success({ strava.athlete(token: $0) }, doing: "checking the authorization")
                    who = context.accounts.strava?.athleteName ?? "the athlete"
                }
                findings.append(Diagnosis(check: service.rawValue, ok: true, detail: "works (\(who))", fix: nil))
            } catch {
                let fix: String? =
                    switch error.kind {
                    case .credentials: "add the account again: `intervalpro account add \(service.rawValue) ...`"
                    case .unavailable: "check the network; uploads wait in the queue meanwhile (`intervalpro upload --pending`)"
                    case .rejected, .notFound: nil
                    }
                findings.append(Diagnosis(check: service.rawValue, ok: false, detail: error.message, fix: fix))
            }
        }
        return findings
    }
}
