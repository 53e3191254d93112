import IntervalProAudio
import IntervalProBlueZ
public import IntervalProCore
import IntervalProDBus
import IntervalProIO
import IntervalProMPRIS
import IntervalProNetwork
import IntervalProServices
import IntervalProSound

/// What a live session needs, checked: the system bus, bluetoothd, the permission to talk to
/// it, the adapter and rfkill (those block), and the sound card, the voice, music players, the page's
/// server, ANT stick and service accounts (advisory): `doctor` prints it, the page's sensors view shows it.
public enum Checkup {
    /// Every finding, in the order `doctor` prints them.
    public static func run() async -> [Diagnosis] {
        var findings = withoutBluetoothd(BlueZDiagnosis.run { try DBusConnection.system() }, kernelAdapters: SystemDiagnosis.kernelAdapters())
        let system = SystemDiagnosis.run()
        findings += groupAsAsked(
            system, bluetoothdAnswers: findings.contains { $0.check == "permission" && $0.ok },
            unblockingNeedsIt: system.contains(where: SystemDiagnosis.isSoftBlock) && !SystemDiagnosis.mayUnblock())
            .map { $0.check == "sound" ? soundFinding(devices: $0, opening: PCMPlayback.opens("default")) : $0 }
        findings.append(voiceFinding(CueLanguage.allCases.map { language in (language, speechProblem(language)) }))
        findings.append(musicFinding())
        findings.append(webServerFinding())
        findings += await accountFindings()
        findings.append(clockFinding(now: UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0))
        if let zone = timeZoneFinding(tz: ProcessEnvironment.value("TZ")) { findings.append(zone) }
        if let path = try? StoreLocation(path: nil).databasePath(), let store = storeFinding(path: path, mode: FileIO.permissions(path)) {
            findings.append(store)
        }
        return findings
    }

    /// Where the system bus or bluetoothd cannot be asked, what is left unasked, and whether
    /// the kernel sees an adapter at all: with none, "start D-Bus" or "install bluez" alone was
    /// advice that finds no sensor.
    static func withoutBluetoothd(_ findings: [Diagnosis], kernelAdapters: [String]) -> [Diagnosis] {
        guard let failed = findings.firstIndex(where: { ["system bus", "bluetoothd"].contains($0.check) && !$0.ok }) else { return findings }
        var findings = findings
        if findings[failed].check == "system bus" {
            findings[failed].detail += " (bluetoothd, the permission and the adapter are asked over it: not checked)"
        }
        if kernelAdapters.isEmpty {
            findings.append(
                Diagnosis(
                    check: "adapter", ok: false, detail: "the kernel sees no Bluetooth adapter (/sys/class/bluetooth has none)",
                    fix: "plug in a Bluetooth adapter (a USB dongle; on a Pi, the built-in one may be turned off in config.txt); "
                        + "ANT+ sensors need an ANT+ stick instead"))
        }
        return findings
    }

    /// The session store holds heart rate, written 0600; a copy restored with `cp -r` (the
    /// umask's 0644) left it readable by every account, and nothing said so. Nil when there is
    /// no store yet (`mode` nil) or it is the owner's alone.
    static func storeFinding(path: String, mode: UInt32?) -> Diagnosis? {
        guard let mode, mode & 0o077 != 0 else { return nil }
        return Diagnosis(
            check: "store", ok: false,
            detail: "\(path) may be read by other users (mode \(String(mode, radix: 8))): it holds your heart rate",
            fix: "chmod 600 \(path)")
    }

    /// A Pi has no real-time clock: until the network sets it, it says 1970 or the time it was
    /// last shut down. Sessions and mornings measured then were dated so (a 1970 run uploaded
    /// as 2106) without a word from `doctor`. Only a clock before this version is caught here.
    static func clockFinding(now: Int64) -> Diagnosis {
        guard let notSet = WallClock.notSetBecause(now: now) else {
            return Diagnosis(check: "clock", ok: true, detail: "the system clock says \(WallClock.localDateTime(unixSeconds: now))")
        }
        return Diagnosis(
            check: "clock", ok: false, detail: notSet,
            fix: "a Pi without a real-time clock sets it from the network (`timedatectl` says whether it is synchronized); "
                + "sessions and readiness measured before then are dated wrongly, and a session dated so is not uploaded")
    }

    /// A TZ that names no zone is read by the C library as UTC, in silence: history's dates,
    /// `today`'s day, the weeks of trends and the day of a morning were UTC's. A POSIX zone
    /// ("CET-1CEST,M3.5.0,M10.5.0/3", with its offsets in figures) is read as it says. Nil when
    /// TZ is unset or names a zone that is here.
    static func timeZoneFinding(tz: String?, zoneinfo: String = "/usr/share/zoneinfo") -> Diagnosis? {
        guard var name = tz else { return nil }
        if name.hasPrefix(":") { name.removeFirst() }
        guard !name.contains(where: \.isNumber) else { return nil }
        let path = name.hasPrefix("/") ? name : zoneinfo + "/" + name
        guard name.isEmpty || !FileIO.isRegularFile(path) else { return nil }
        return Diagnosis(
            check: "time zone", ok: false,
            detail: "TZ=\(tz ?? "") names no time zone here: the clock is read as UTC (dates, today's run, readiness days)",
            fix: "unset TZ, or name a zone of \(zoneinfo) (`timedatectl list-timezones`), such as TZ=Europe/Berlin")
    }

    /// The metronome's sound is what ALSA's default device does, not /dev/snd: a sound server's
    /// socket plays with none (a container, a toolbox), and a /dev/snd without a card plays
    /// nothing; `doctor` said the opposite of both. Where it does not open, /dev/snd's finding
    /// says why when it has one (no card, not in the audio group).
    static func soundFinding(devices: Diagnosis, opening failure: ALSAError?) -> Diagnosis {
        guard let failure else { return Diagnosis(check: "sound", ok: true, detail: "ALSA's default device opens") }
        guard devices.ok else { return devices }
        return Diagnosis(
            check: "sound", ok: false, detail: "\(failure)",
            fix: "set a default that plays in ~/.asoundrc, or give run --audio-device; without it the metronome is silent, and sessions still run")
    }

    /// Whether espeak-ng speaks `language`: the cues' voice, started as a session starts it.
    static func speechProblem(_ language: CueLanguage) -> SpeechError? {
        do {
            _ = try SpeechSynthesizer(language: language)
            return nil
        } catch {
            return error
        }
    }

    /// The voice cues: a session without espeak-ng runs with clicks only and says so once,
    /// but `doctor` said nothing of it.
    static func voiceFinding(_ problems: [(CueLanguage, SpeechError?)]) -> Diagnosis {
        let failing = problems.filter { $0.1 != nil }
        guard let (_, problem) = failing.first, let problem else {
            let languages = problems.map(\.0.rawValue).joined(separator: ", ")
            return Diagnosis(check: "voice", ok: true, detail: "espeak-ng speaks the cues (\(languages))")
        }
        let fix =
            switch problem.status {
            case .notInstalled: "sudo apt install libespeak-ng1; without it the cues are not spoken, and sessions still run with clicks"
            case .notFound: "sudo apt install espeak-ng-data (its voices); the cues in \(failing.map(\.0.rawValue).joined(separator: ", ")) are not spoken"
            default: "sudo apt install --reinstall libespeak-ng1 espeak-ng-data; without it the cues are not spoken"
            }
        let languages = failing.count == problems.count ? "" : " (\(failing.map(\.0.rawValue).joined(separator: ", ")))"
        return Diagnosis(check: "voice", ok: false, detail: "\(problem)\(languages)", fix: fix)
    }

    /// The bluetooth group matters where bluetoothd's D-Bus policy asks for it: where it answered
    /// this account, not being in the group is no problem (Debian 12's policy lets every account
    /// talk to it, and `doctor` failed an account whose `scan` worked). Unless the radio is
    /// soft-blocked and this account may not unblock it (`unblockingNeedsIt`): the group may,
    /// under IntervalPro's udev rule, and "not needed" beside "rfkill unblock bluetooth" sent a
    /// Pi's runner over ssh to a command refused.
    static func groupAsAsked(_ findings: [Diagnosis], bluetoothdAnswers: Bool, unblockingNeedsIt: Bool = false) -> [Diagnosis] {
        guard bluetoothdAnswers else { return findings }
        return findings.map { finding in
            guard finding.check == "bluetooth group", !finding.ok else { return finding }
            guard !unblockingNeedsIt else {
                return Diagnosis(
                    check: finding.check, ok: false,
                    detail: "not a member: bluetoothd answers this account, but the radio is soft-blocked and only the group may unblock it without sudo",
                    fix: finding.fix)
            }
            return Diagnosis(check: finding.check, ok: true, detail: "not a member, and not needed: bluetoothd answers this account")
        }
    }

    /// A missing sound card, music player, ANT stick or account does not stop a session:
    /// reported, not failed.
    public static func blocks(_ finding: Diagnosis) -> Bool {
        !finding.ok && !advisory.contains(finding.check)
    }

    static let advisory = Set(["sound", "voice", "music", "web page", "accounts", "ant stick", "clock", "time zone", "store"] + Service.allCases.map(\.rawValue))

    /// `doctor --json`'s object: whether nothing blocks, and each check.
    public static func json(_ findings: [Diagnosis]) -> JSONValue {
        let list = findings.map { finding in
            JSONValue.object([
                ("check", .string(finding.check)), ("ok", .bool(finding.ok)), ("detail", .string(finding.detail)),
                ("fix", finding.fix.map(JSONValue.string) ?? .null),
            ])
        }
        return .object([("ok", .bool(!findings.contains(where: blocks))), ("checks", .array(list))])
    }

    /// The MPRIS players on the session bus, which --music can follow.
    static func musicFinding() -> Diagnosis {
        let connection: DBusConnection
        do {
            connection = try MusicLink.sessionBus(address: ProcessEnvironment.value("DBUS_SESSION_BUS_ADDRESS"))
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

    /// The program that serves the page (`serve`, `run --web`, Strava's sign-in), installed with
    /// this one.
    static func webServerFinding() -> Diagnosis {
        let name = CompanionProgram.webServer
        if let path = CompanionProgram.find(name) {
            return Diagnosis(check: "web page", ok: true, detail: "served by \(path)", fix: nil)
        }
        return Diagnosis(
            check: "web page", ok: false,
            detail: "\(CompanionProgram.notInstalled(name)): serve, run --web and Strava's sign-in cannot start",
            fix: CompanionProgram.reinstall)
    }

    /// Each service: whether its account works, asked once with a short time limit.
    static func accountFindings() async -> [Diagnosis] {
        let context: ServiceContext
        do throws(AccountFile.Problem) {
            guard let file = AccountFile.standard() else {
                return [Diagnosis(check: "accounts", ok: false, detail: "no configuration folder: set XDG_CONFIG_HOME or HOME", fix: nil)]
            }
            var policy = RetryPolicy()
            policy.maxAttempts = 1
            context = ServiceContext(file: file, accounts: try file.load(), verbose: false, timeout: 5, policy: policy)
        } catch {
            switch error {
            case .malformed(let path, let problem):
                return [
                    Diagnosis(
                        check: "accounts", ok: false, detail: "\(path): \(problem.path): \(problem.message)", fix: "fix or remove the file")
                ]
            case .unreadable(let error):
                return [Diagnosis(check: "accounts", ok: false, detail: "\(error)", fix: nil)]
            }
        }
        var findings: [Diagnosis] = []
        // The file holds keys and tokens: written 0600, but a copy or an editor may leave it
        // readable by others, and nothing said so.
        if !context.accounts.services.isEmpty, let mode = FileIO.permissions(context.file.path), mode & 0o077 != 0 {
            findings.append(
                Diagnosis(
                    check: "accounts", ok: false,
                    detail: "\(context.file.path) may be read by other users (mode \(String(mode, radix: 8))): it holds keys and tokens",
                    fix: "chmod 600 \(context.file.path)"))
        }
        for service in Service.allCases {
            guard context.accounts.services.contains(service) else {
                findings.append(
                    Diagnosis(check: service.rawValue, ok: true, detail: "no account (see `intervalpro account add --help`)", fix: nil))
                continue
            }
            do throws(ServiceError) {
                let who: String
                switch service {
                case .intervalsICU:
                    let api = try context.intervalsICU()
                    let response = try await context.caller(.intervalsICU).success(api.athlete(), doing: "checking the key")
                    try ServiceError.unlessProfile(response, service: .intervalsICU, doing: "checking the key")
                    who = IntervalsICU.athleteName(response) ?? api.account.athleteID
                case .strava:
                    let authorization = StravaAuthorization(context: context)
                    let strava = authorization.strava
                    let response = try await authorization.success({ strava.athlete(token: $0) }, doing: "checking the authorization")
                    try ServiceError.unlessProfile(response, service: .strava, doing: "checking the authorization")
                    who = context.accounts.strava?.athleteName ?? "the athlete"
                }
                findings.append(Diagnosis(check: service.rawValue, ok: true, detail: "works (\(who))", fix: nil))
            } catch {
                let fix: String? =
                    switch error.kind {
                    case .credentials: "add the account again: `intervalpro account add \(service.rawValue) ...`"
                    // A rate limit or the service failing is no network of the runner's to check.
                    case .unavailable where error.status == 429:
                        "wait until the limit lifts (said above); uploads wait in the queue meanwhile (`intervalpro upload --pending`)"
                    case .unavailable where (error.status ?? 0) >= 500:
                        "\(service.rawValue) is failing on its side: try again later; uploads wait in the queue meanwhile (`intervalpro upload --pending`)"
                    case .unavailable: "check the network; uploads wait in the queue meanwhile (`intervalpro upload --pending`)"
                    case .rejected, .notFound: nil
                    }
                findings.append(Diagnosis(check: service.rawValue, ok: false, detail: error.message, fix: fix))
            }
        }
        return findings
    }

    /// What `doctor` prints: a mark, the check and what was found; how to fix what failed.
    public static func lines(_ findings: [Diagnosis], colour: Bool) -> [String] {
        findings.flatMap { finding -> [String] in
            let mark = finding.ok ? (colour ? "\u{1B}[32m✓\u{1B}[0m" : "✓") : (colour ? "\u{1B}[31m✗\u{1B}[0m" : "✗")
            var lines = ["\(mark) \(finding.check): \(finding.detail)"]
            if let fix = finding.fix, !finding.ok { lines.append("    fix: \(fix)") }
            return lines
        }
    }
}
