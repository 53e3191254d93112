import Foundation
import IntervalProTestSupport
import Testing

/// `scan`, `record` and `run` on live sensors: the real binary through real libdbus to a
/// private dbus-daemon, where a fake org.bluez plays one scenario per test.
@Suite struct LiveSensorTests {
    /// The environment that points the binary at the fake's bus and scratch config and data folders.
    func environment(_ fake: FakeBlueZ, _ dir: ScratchDirectory) -> [String: String?] {
        ["DBUS_SYSTEM_BUS_ADDRESS": fake.bus.address, "XDG_CONFIG_HOME": dir.path("config"), "XDG_DATA_HOME": dir.path("data")]
    }

    /// The notification lines of a recording: (time, device, characteristic, hex).
    func notifications(in path: String) throws -> [(t: Double, dev: String, char: String, hex: String)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            guard let object = jsonObject(String(line)), let char = object["char"] as? String,
                let hex = object["hex"] as? String, let dev = object["dev"] as? String, let t = number(object["t"])
            else { return nil }
            return (t, dev, char, hex)
        }
    }

    func events(in path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { jsonObject(String($0))?["event"] as? String }
    }

    static let hrmPro = "C8:3A:35:11:22:33"

    /// `record` from the HRM-Pro, named so that no settle time is spent choosing it.
    func recordHRMPro(_ fake: FakeBlueZ, _ dir: ScratchDirectory, seconds: Int, extra: [String] = []) throws
        -> (result: CommandResult, path: String)
    {
        // A new file each time: `record` never writes over a recording.
        var out = dir.path("live.jsonl")
        var count = 1
        while FileManager.default.fileExists(atPath: out) {
            count += 1
            out = dir.path("live-\(count).jsonl")
        }
        let result = try intervalpro(
            arguments: ["record", out, "--duration", String(seconds), "--hr", Self.hrmPro, "--cadence", Self.hrmPro]
                + extra,
            environment: environment(fake, dir))
        return (result, out)
    }

    /// A six-second plan at the fake's cadence (170 spm).
    static let livePlan = """
        {"name": "Live", "steps": [
          {"kind": "work", "duration": 4, "cadence": 170, "tolerance": 5},
          {"kind": "rest", "duration": 2}
        ]}
        """

    @Test("scan lists only fitness sensors, with their services, and filters discovery on 180D and 1814")
    func scanListsFitnessSensorsOnly() throws {
        let fake = try FakeBlueZ(scenario: "non-fitness-devices")
        let dir = try ScratchDirectory()
        let result = try intervalpro("scan", "--timeout", "1.5", "--json", environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let scan = try #require(jsonObject(result.stdoutData))
        #expect(scan["adapter"] as? String == "hci0")
        let devices = try #require(scan["devices"] as? [[String: Any]])
        #expect(devices.map { $0["address"] as? String } == [Self.hrmPro])
        #expect(devices.first?["name"] as? String == "HRM-Pro Plus:123456")
        #expect(devices.first?["services"] as? [String] == ["180d", "1814"])
        #expect(number(devices.first?["rssi"]) != nil)

        let filter = try #require(fake.calls("SetDiscoveryFilter").first?["args"] as? [[String: Any]])
        #expect(
            Set(filter.first?["UUIDs"] as? [String] ?? [])
                == ["0000180d-0000-1000-8000-00805f9b34fb", "00001814-0000-1000-8000-00805f9b34fb"])
        #expect(filter.first?["Transport"] as? String == "le")
        #expect(filter.first?["DuplicateData"] as? Bool == false)
        #expect(fake.calls("Connect").isEmpty, "scan only looks")
        #expect(fake.calls("StopDiscovery").count == 1)
    }

    @Test("record writes every notification byte for byte, reads the static values, and cleans up")
    func recordCapturesEveryNotification() throws {
        let fake = try FakeBlueZ(scenario: "one-device-both-services")
        let dir = try ScratchDirectory()
        let out = dir.path("live.jsonl")
        // A stick named, and no ANT+ device asked for: said, not passed over in silence.
        let result = try intervalpro(
            "record", out, "--duration", "3", "--ant-stick", "/dev/ttyUSB9", environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--ant-stick /dev/ttyUSB9: no ANT+ device is asked for"), "stderr: \(result.stderr)")

        let recorded = try notifications(in: out)
        let sent = fake.sentNotifications()
        let measurements = recorded.filter { $0.char == "2a37" || $0.char == "2a53" }
        // Everything received up to the end is there, in the order the device sent it.
        #expect(measurements.count >= 8)
        #expect(sent.count >= measurements.count)
        #expect(
            measurements.map(\.hex) == sent.prefix(measurements.count).map(\.hex),
            "recorded at \(measurements.map { "\($0.char)@\($0.t)" })")
        #expect(measurements.allSatisfy { $0.dev == Self.hrmPro })
        #expect(measurements.filter { $0.char == "2a37" }.allSatisfy { $0.hex == "168c9a01" })
        // Values read once after connecting: sensor location, RSC features, battery.
        #expect(Set(recorded.filter { !["2a37", "2a53"].contains($0.char) }.map(\.char)) == ["2a38", "2a54", "2a19"])
        #expect(recorded.map(\.t) == recorded.map(\.t).sorted())

        // Each measurement acquired exactly once (the fake offers AcquireNotify, as BlueZ
        // does); every socket closed, and the device disconnected, on exit.
        let acquired = fake.calls("AcquireNotify").compactMap { $0["path"] as? String }
        #expect(acquired.count == 2 && Set(acquired).count == 2)
        #expect(fake.calls("StartNotify").isEmpty)
        #expect(Set(fake.events("released").compactMap { $0["path"] as? String }) == Set(acquired))
        #expect(fake.calls("Disconnect").count == 1)
        #expect(result.stderr.contains("2a37 through AcquireNotify") && result.stderr.contains("2a53 through AcquireNotify"))
        #expect(try events(in: out).first == "connected")

        // The choice is remembered for the next run.
        let memory = try String(contentsOfFile: dir.path("config/intervalpro/sensors.json"), encoding: .utf8)
        #expect(memory.contains(Self.hrmPro))
    }

    @Test("a live run scores as its own recording replayed")
    func liveRunMatchesItsReplay() throws {
        let fake = try FakeBlueZ(scenario: "one-device-both-services")
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", Self.livePlan)
        let recording = dir.path("run.jsonl")
        let live = try intervalpro(
            "run", plan, "--require-sensor", "--json", "--record", recording, "--hr", Self.hrmPro, "--cadence",
            Self.hrmPro, environment: environment(fake, dir))
        #expect(live.status == 0, "stderr: \(live.stderr)")
        let liveSummary = try #require(jsonObject(live.stdoutData))
        #expect(liveSummary["source"] as? String == "live")
        let steps = try #require(liveSummary["steps"] as? [[String: Any]])
        #expect(steps.count == 2)
        #expect(number(steps.first?["in_zone_s"]) ?? 0 > 2, "the fake runs at 170 spm, the zone's target")
        #expect(number(steps.first?["avg_cadence_spm"]) == 170)

        let replay = try intervalpro("replay", recording, "--plan", plan, "--fast", "--json")
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        let replayed = try #require(jsonObject(replay.stdoutData))
        let replayedSteps = try #require(replayed["steps"] as? [[String: Any]])
        #expect(NSArray(array: steps).isEqual(to: replayedSteps))
        // The strap's RR intervals went through the live session's beat-to-beat analysis too.
        let liveBeats = try #require(liveSummary["hrv"] as? [String: Any])
        // One beat a second for 6 s; a loaded machine subscribes a second or two late.
        #expect(number(liveBeats["beats"]) ?? 0 >= 3)
        let replayedBeats = try #require(replayed["hrv"] as? [String: Any])
        for key in ["beats", "artifacts", "scored_windows", "artifact_pct"] {
            #expect(number(liveBeats[key]) == number(replayedBeats[key]), "\(key)")
        }
    }

    @Test("heart rate from a watch and cadence from a footpod, two devices at once")
    func watchAndFootpod() throws {
        let fake = try FakeBlueZ(scenario: "watch-hr-and-footpod-rsc")
        let dir = try ScratchDirectory()
        let out = dir.path("two.jsonl")
        let result = try intervalpro("record", out, "--duration", "3", environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let recorded = try notifications(in: out)
        #expect(Set(recorded.filter { $0.char == "2a37" }.map(\.dev)) == ["F0:F1:F2:F3:F4:F5"])
        #expect(Set(recorded.filter { $0.char == "2a53" }.map(\.dev)) == ["D4:D5:D6:D7:D8:D9"])
        #expect(fake.calls("Connect").count == 2)
        let header = try #require(jsonObject(String(try String(contentsOfFile: out, encoding: .utf8).prefix { $0 != "\n" })))
        let devices = try #require(header["devices"] as? [[String: Any]])
        #expect(Set(devices.compactMap { $0["id"] as? String }) == ["F0:F1:F2:F3:F4:F5", "D4:D5:D6:D7:D8:D9"])
    }

    @Test("a footpod slower to resolve than the watch by more than the grace is still waited for")
    func slowSecondDevice() throws {
        // The footpod's services take 7 s, the watch's 0.2 s: beyond the 5 s given a device
        // that is not on its way up, within the 20 s scan timeout.
        let fake = try FakeBlueZ(
            json: #"{"adapters": [{"name": "hci0"}], "devices": ["#
                + #"{"address": "F0:F1:F2:F3:F4:F5", "name": "Forerunner 265", "services": ["180d"], "#
                + #""resolve_delay": 0.2, "notifications": [[0.0, "2a37", "168c9a01"]], "loop": true}, "#
                + #"{"address": "D4:D5:D6:D7:D8:D9", "name": "Stryd", "services": ["1814"], "appears_after": 0.5, "#
                + #""resolve_delay": 7, "notifications": [[0.0, "2a53", "05d002aa6200"]], "loop": true}]}"#)
        let dir = try ScratchDirectory()
        let out = dir.path("slow.jsonl")
        let result = try intervalpro("record", out, "--duration", "2", environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let header = try #require(jsonObject(String(try String(contentsOfFile: out, encoding: .utf8).prefix { $0 != "\n" })))
        let devices = try #require(header["devices"] as? [[String: Any]])
        #expect(Set(devices.compactMap { $0["id"] as? String }) == ["F0:F1:F2:F3:F4:F5", "D4:D5:D6:D7:D8:D9"])
        #expect(try notifications(in: out).contains { $0.char == "2a53" })
    }

    /// The HRM-Pro streaming HR 1 Hz and RSC 4 Hz, with `extra` device keys.
    func hrmProScenario(_ extra: String) -> String {
        #"{"adapters": [{"name": "hci0"}], "devices": [{"address": "C8:3A:35:11:22:33", "#
            + #""name": "HRM-Pro Plus:123456", "services": ["180d", "1814"], "known": true, "#
            + #""notifications": [[0.0, "2a37", "168c9a01"], [0.0, "2a53", "05d002aa6200"], "#
            + #"[0.25, "2a53", "05d002aa6200"], [0.5, "2a53", "05d002aa6200"], [0.75, "2a53", "05d002aa6200"]], "#
            + #""loop": true\#(extra)}]}"#
    }

    @Test("record reads acquired values a window at a time, each with its own arrival time, in order")
    func recordKeepsArrivalTimes() throws {
        let fake = try FakeBlueZ(json: hrmProScenario(""))
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 4)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let recorded = try notifications(in: out)
        #expect(recorded.map(\.t) == recorded.map(\.t).sorted(), "the file is in time order")
        let rsc = recorded.filter { $0.char == "2a53" }.map(\.t)
        let sent = fake.log().filter { $0["event"] as? String == "notify" && $0["characteristic"] as? String == "2a53" }
            .compactMap { number($0["t"]) }
        #expect(rsc.count >= 10)
        // The gaps between values are the gaps at which the device sent them (0.25 s), not
        // the one-second windows they were read in.
        let gaps = zip(rsc.dropFirst(), rsc).map { $0 - $1 }
        let sentGaps = zip(sent.dropFirst(), sent).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 < 0.5 }, "\(gaps)")
        for (got, expected) in zip(gaps, sentGaps) { #expect(abs(got - expected) < 0.03, "\(gaps) vs \(sentGaps)") }
    }

    @Test("AcquireNotify refused (another client holds it): StartNotify instead, and the recording is the same")
    func acquireRefusedFallsBack() throws {
        let fake = try FakeBlueZ(json: hrmProScenario(#", "acquire_notify": "refused""#))
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 2)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(fake.calls("AcquireNotify").count == 2)
        #expect(fake.calls("StartNotify").count == 2)
        #expect(result.stderr.contains("2a37 through StartNotify (AcquireNotify refused: Notify acquired"))
        let recorded = try notifications(in: out).filter { $0.char == "2a37" || $0.char == "2a53" }
        #expect(recorded.count >= 6)
        #expect(recorded.map(\.hex) == fake.sentNotifications().prefix(recorded.count).map(\.hex))
    }

    @Test("--notify start never acquires; --notify acquire with a bluetoothd that cannot says so")
    func notifyMethodChosen() throws {
        let fake = try FakeBlueZ(json: hrmProScenario(""))
        let dir = try ScratchDirectory()
        let (started, out) = try recordHRMPro(fake, dir, seconds: 2, extra: ["--notify", "start"])
        #expect(started.status == 0, "stderr: \(started.stderr)")
        #expect(fake.calls("AcquireNotify").isEmpty)
        #expect(fake.calls("StartNotify").count == 2)
        #expect(try notifications(in: out).contains { $0.char == "2a53" })

        let old = try FakeBlueZ(json: hrmProScenario(#", "acquire_notify": "absent""#))
        let (strict, strictOut) = try recordHRMPro(old, dir, seconds: 1, extra: ["--notify", "acquire"])
        #expect(strict.status == 0, "stderr: \(strict.stderr)")
        #expect(old.calls("StartNotify").isEmpty)
        #expect(strict.stderr.contains("2a37 through AcquireNotify refused: "))
        #expect(try notifications(in: strictOut).allSatisfy { $0.char != "2a37" && $0.char != "2a53" })

        let bad = try intervalpro("record", dir.path("x.jsonl"), "--notify", "sometimes")
        #expect(bad.status == 64)
    }

    @Test("-v logs each BlueZ call with its answer, the signals and the sockets, never the values; without it, none")
    func verboseLog() throws {
        let fake = try FakeBlueZ(json: hrmProScenario(#", "hang_up_after": 1.0"#))
        let dir = try ScratchDirectory()
        let (result, _) = try recordHRMPro(fake, dir, seconds: 2, extra: ["-v"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let log = result.stderr.split(separator: "\n").filter { $0.hasPrefix("intervalpro: [") }
        let device = "/org/bluez/hci0/dev_C8_3A_35_11_22_33"
        #expect(log.contains { $0.hasSuffix("→ Connect \(device)") })
        #expect(log.contains { $0.hasSuffix("← Connect \(device): done") })
        #expect(log.contains { $0.contains("PropertiesChanged \(device) ") && $0.contains("Connected=true") })
        #expect(log.contains { $0.contains("← AcquireNotify \(device)/") && $0.hasSuffix(": done") })
        #expect(log.contains { $0.contains("reading 2a53 of \(Self.hrmPro) from socket ") })
        #expect(log.contains { $0.contains("hung up") }, "the fake hangs the sockets up after 1 s")
        #expect(log.contains { $0.contains("→ Disconnect \(device)") })
        #expect(!log.contains { $0.contains("Value") }, "values are not logged")
        // Lines carry the seconds since connecting began, in order.
        let seconds = log.compactMap { line in Double(line.dropFirst("intervalpro: [".count).prefix { $0 != "]" }) }
        #expect(seconds.count == log.count && seconds == seconds.sorted())

        let quiet = try FakeBlueZ(json: hrmProScenario(""))
        let (plain, _) = try recordHRMPro(quiet, dir, seconds: 1)
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(!plain.stderr.contains("→ ") && !plain.stderr.contains("intervalpro: ["))
    }

    static let forerunner = "F0:F1:F2:F3:F4:F5"
    static let stryd = "D4:D5:D6:D7:D8:D9"

    /// sensors.json as an earlier session with the HRM-Pro left it.
    func rememberHRMPro(in dir: ScratchDirectory) throws {
        try FileManager.default.createDirectory(atPath: dir.path("config/intervalpro"), withIntermediateDirectories: true)
        try dir.write(
            "config/intervalpro/sensors.json",
            #"{"version": 1, "heart_rate": {"address": "\#(Self.hrmPro)", "name": "HRM-Pro Plus:123456"}, "#
                + #""cadence": {"address": "\#(Self.hrmPro)", "name": "HRM-Pro Plus:123456", "cadence_unit": "auto"}}"#)
    }

    @Test("a remembered sensor out of range gives way to the watch and footpod that are there, and is forgotten")
    func rememberedSensorAbsent() throws {
        let fake = try FakeBlueZ(scenario: "watch-hr-and-footpod-rsc")
        let dir = try ScratchDirectory()
        try rememberHRMPro(in: dir)
        let plan = try dir.write("plan.json", Self.livePlan)
        let recording = dir.path("run.jsonl")
        let result = try intervalpro(
            "run", plan, "--require-sensor", "--json", "--record", recording, environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the remembered \(Self.hrmPro) is not in range"))
        let recorded = try notifications(in: recording)
        #expect(recorded.contains { $0.char == "2a37" && $0.dev == Self.forerunner })
        #expect(recorded.contains { $0.char == "2a53" && $0.dev == Self.stryd })
        let memory = try String(contentsOfFile: dir.path("config/intervalpro/sensors.json"), encoding: .utf8)
        #expect(memory.contains(Self.forerunner) && memory.contains(Self.stryd) && !memory.contains(Self.hrmPro))
    }

    /// A named device is required: one not there (a mistyped address) gave a session of heart
    /// rate alone, exit 0, its cadence scored 0 % in zone.
    @Test("a cadence sensor named with --cadence that is not there: exit 69, named, no session")
    func namedSensorAbsent() throws {
        let fake = try FakeBlueZ(scenario: "watch-hr-and-footpod-rsc")
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", Self.livePlan)
        let result = try intervalpro(
            "run", plan, "--cadence", "AA:BB:CC:DD:EE:FF", "--scan-timeout", "4", "--json",
            environment: environment(fake, dir))
        #expect(result.status == 69, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--cadence AA:BB:CC:DD:EE:FF: not found within 4 s"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        // Nothing in range at all: still named (it was "no heart-rate sensor found").
        let empty = try FakeBlueZ(
            json: #"{"adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": true}], "devices": []}"#)
        let alone = try intervalpro(
            "readiness", "--hr", "AA:BB:CC:DD:EE:01", "--scan-timeout", "2", "--no-save", environment: environment(empty, dir))
        #expect(alone.status == 69, "stderr: \(alone.stderr)")
        #expect(alone.stderr.contains("--hr AA:BB:CC:DD:EE:01: not found within 2 s"), "stderr: \(alone.stderr)")
    }

    /// The wait for a remembered device away was 5 s whatever --scan-timeout said: with 4 s,
    /// the sensors in range were never taken ("no heart-rate or running sensor found", a
    /// simulated runner instead, or 69 with --require-sensor).
    @Test("with a short --scan-timeout, a remembered sensor out of range still gives way to those there")
    func rememberedSensorAbsentShortTimeout() throws {
        let fake = try FakeBlueZ(scenario: "watch-hr-and-footpod-rsc")
        let dir = try ScratchDirectory()
        try rememberHRMPro(in: dir)
        let plan = try dir.write("plan.json", Self.livePlan)
        let recording = dir.path("run.jsonl")
        let result = try intervalpro(
            "run", plan, "--require-sensor", "--scan-timeout", "4.5", "--json", "--record", recording,
            environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let recorded = try notifications(in: recording)
        #expect(recorded.contains { $0.char == "2a37" && $0.dev == Self.forerunner })
    }

    /// ANT+ sensors remembered, no stick plugged in: Bluetooth looked for "ant:12345" as a
    /// remembered device, said it was not in range and waited for it.
    @Test("ANT+ sensors remembered without a stick: Bluetooth does not look for them")
    func rememberedANTWithoutAStick() throws {
        let fake = try FakeBlueZ(scenario: "watch-hr-and-footpod-rsc")
        let dir = try ScratchDirectory()
        try FileManager.default.createDirectory(atPath: dir.path("config/intervalpro"), withIntermediateDirectories: true)
        try dir.write(
            "config/intervalpro/sensors.json",
            #"{"version": 1, "heart_rate": {"address": "ant:12345", "name": "ANT+ heart rate"}, "#
                + #""cadence": {"address": "ant:4321", "name": "ANT+ foot pod", "cadence_unit": "steps"}}"#)
        let plan = try dir.write("plan.json", Self.livePlan)
        // No ANT stick is plugged in where the tests run (USB sticks are the real-stack suite's).
        let result = try intervalpro("run", plan, "--require-sensor", "--json", "--no-save", environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("ant:"), "stderr: \(result.stderr)")
    }

    @Test("a remembered cadence device that offers only heart rate keeps heart rate; the footpod takes cadence")
    func rememberedDeviceLacksCadence() throws {
        let fake = try FakeBlueZ(scenario: "hr-only-strap-and-footpod")
        let dir = try ScratchDirectory()
        try rememberHRMPro(in: dir)
        let out = dir.path("live.jsonl")
        let result = try intervalpro("record", out, "--duration", "3", environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("\(Self.hrmPro) offers no cadence"))
        #expect(!result.stderr.contains("never resolved"))
        let recorded = try notifications(in: out)
        #expect(recorded.contains { $0.char == "2a37" && $0.dev == Self.hrmPro })
        #expect(recorded.contains { $0.char == "2a53" && $0.dev == Self.stryd })
        // One connection each: the heart-rate link was never dropped to look for cadence.
        #expect(fake.calls("Connect").count == 2)
        let memory = try String(contentsOfFile: dir.path("config/intervalpro/sensors.json"), encoding: .utf8)
        let saved = try #require(jsonObject(memory))
        #expect((saved["heart_rate"] as? [String: Any])?["address"] as? String == Self.hrmPro)
        #expect((saved["cadence"] as? [String: Any])?["address"] as? String == Self.stryd)
    }

    @Test("heart rate alone: record goes on and says once what is missing; run --require-sensor exits 69")
    func heartRateOnly() throws {
        let scenario = #"{"adapters": [{"name": "hci0"}], "devices": [{"address": "F0:F1:F2:F3:F4:F5", "#
            + #""name": "Forerunner 265", "services": ["180d"], "notifications": [[0.0, "2a37", "168c9a01"]], "#
            + #""loop": true}]}"#
        let dir = try ScratchDirectory()
        let recordFake = try FakeBlueZ(json: scenario)
        let out = dir.path("live.jsonl")
        let recorded = try intervalpro(
            "record", out, "--duration", "2", "--scan-timeout", "4", environment: environment(recordFake, dir))
        #expect(recorded.status == 0, "stderr: \(recorded.stderr)")
        #expect(recorded.stderr.components(separatedBy: "no cadence sensor found; going on with heart rate only").count == 2)
        #expect(try notifications(in: out).contains { $0.char == "2a37" })

        let runFake = try FakeBlueZ(json: scenario)
        let plan = try dir.write("plan.json", Self.livePlan)
        let run = try intervalpro(
            "run", plan, "--require-sensor", "--scan-timeout", "4", environment: environment(runFake, dir))
        #expect(run.status == 69)
        #expect(run.stderr.contains("no cadence sensor found"))
    }

    @Test("no adapter, or the adapter off: --require-sensor exits 69 and says which")
    func noAdapterAndAdapterOff() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", Self.livePlan)
        let none = try FakeBlueZ(scenario: "no-adapter")
        let noAdapter = try intervalpro(
            "run", plan, "--require-sensor", "--scan-timeout", "2", environment: environment(none, dir))
        #expect(noAdapter.status == 69)
        #expect(noAdapter.stderr.contains("no Bluetooth adapter"))

        let off = try FakeBlueZ(scenario: "adapter-off")
        let adapterOff = try intervalpro(
            "run", plan, "--require-sensor", "--scan-timeout", "2", environment: environment(off, dir))
        #expect(adapterOff.status == 69)
        #expect(adapterOff.stderr.contains("powered off"))
        #expect(off.calls("StartDiscovery").isEmpty)

        let blocked = try FakeBlueZ(
            json: #"{"adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": false, "blocked": true}], "devices": []}"#)
        let adapterBlocked = try intervalpro(
            "run", plan, "--require-sensor", "--scan-timeout", "2", environment: environment(blocked, dir))
        #expect(adapterBlocked.status == 69)
        #expect(adapterBlocked.stderr.contains("blocked by rfkill"))

        // No wait brings an adapter: the run fell back only after the whole scan (20 s), here
        // ten minutes, which the watchdog (100 s) would cut.
        for scenario in ["no-adapter", "adapter-off"] {
            let fake = try FakeBlueZ(scenario: scenario)
            let fellBack = try intervalpro(
                arguments: ["run", plan, "--fast", "--json", "--no-save", "--scan-timeout", "600"], environment: environment(fake, dir),
                watchdog: 100)
            #expect(fellBack.status == 0 && fellBack.stderr.contains("simulating a runner instead"), "\(scenario): \(fellBack.stderr)")
        }
    }
}

extension LiveSensorTests {
    @Test("doctor reports bus, bluetoothd, permission and adapter, and exits 69 when the adapter is off")
    func doctorReportsWhatToFix() throws {
        let dir = try ScratchDirectory()
        let good = try FakeBlueZ(scenario: "one-device-both-services")
        let fine = try intervalpro("doctor", "--json", environment: environment(good, dir))
        let report = try #require(jsonObject(fine.stdoutData), "stdout: \(fine.stdout)")
        let checks = try #require(report["checks"] as? [[String: Any]])
        let byName = Dictionary(checks.map { ($0["check"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["system bus"]?["ok"] as? Bool == true)
        #expect(byName["bluetoothd"]?["ok"] as? Bool == true)
        #expect(byName["permission"]?["ok"] as? Bool == true)
        #expect(byName["adapter hci0"]?["ok"] as? Bool == true)
        // The page's server is found beside the binary (advisory: a live session does not need it).
        let webServer = URL(fileURLWithPath: executablePath).deletingLastPathComponent().appendingPathComponent("intervalpro-web").path
        #expect(byName["web page"]?["ok"] as? Bool == true)
        #expect(byName["web page"]?["detail"] as? String == "served by \(webServer)")
        // No sensor connected: the rule for choosing the notification path.
        #expect((byName["notifications"]?["detail"] as? String)?.contains("AcquireNotify where a sensor offers it") == true)

        let off = try FakeBlueZ(scenario: "adapter-off")
        let failing = try intervalpro("doctor", environment: environment(off, dir))
        #expect(failing.status == 69)
        #expect(failing.stdout.contains("✗ adapter hci0: powered off"))
        #expect(failing.stdout.contains("fix: bluetoothctl power on"))
        // The first adapter off, a second one on: sessions use the second, so nothing fails.
        let second = try FakeBlueZ(
            json: #"{"adapters": [{"name": "hci0", "address": "00:11:22:33:44:55", "powered": false}, "#
                + #"{"name": "hci1", "address": "00:11:22:33:44:66", "powered": true}], "devices": []}"#)
        let twoAdapters = try intervalpro("doctor", environment: environment(second, dir))
        #expect(twoAdapters.status == 0, "stdout: \(twoAdapters.stdout)")
        #expect(twoAdapters.stdout.contains("adapter hci0: powered off; not needed: sessions use hci1"), "\(twoAdapters.stdout)")

        let noBus = try intervalpro("doctor", environment: noSystemBus)
        #expect(noBus.status == 69)
        #expect(noBus.stdout.contains("✗ system bus"))

        // Sound is what ALSA's default device does: the tests' default plays (no /dev/snd
        // needed); one that cannot open is said with the fix, whatever /dev/snd holds.
        var plays = environment(good, dir)
        plays["ALSA_CONFIG_PATH"] = testALSAConfig
        #expect(try intervalpro("doctor", environment: plays).stdout.contains("✓ sound: ALSA's default device opens"))
        let broken = try dir.write("asound.conf", "pcm.!default { type hw card 9 }\n")
        var silent = environment(good, dir)
        silent["ALSA_CONFIG_PATH"] = broken
        let noSound = try intervalpro("doctor", environment: silent)
        #expect(noSound.status == 0, "sound is advisory: \(noSound.stdout)")
        #expect(
            noSound.stdout.contains("✗ sound: ") && noSound.stdout.contains("--audio-device")
                || noSound.stdout.contains("✗ sound: no /dev/snd"), "\(noSound.stdout)")
    }
}
