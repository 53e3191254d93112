import Foundation
import IntervalProTestSupport
import Testing

/// Live sensors coming back: dropouts, a connection bluetoothd never signals, bluetoothd
/// restarting, the adapter off and on, failing connects and a hung-up socket.
extension LiveSensorTests {
    @Test("a dropout shows as events, the link comes back, and nothing received is lost")
    func dropoutAndReturn() throws {
        let fake = try FakeBlueZ(scenario: "dropout-and-return")
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 9)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try events(in: out) == ["connected", "disconnected", "connected"])
        #expect(fake.calls("Connect").count >= 2)
        let recorded = try notifications(in: out).filter { $0.char == "2a37" || $0.char == "2a53" }
        let sent = fake.sentNotifications()
        #expect(recorded.map(\.hex) == sent.prefix(recorded.count).map(\.hex))
        #expect(recorded.count > 20, "notifications after the return are recorded too")
        // Named as the device advertises itself: its address was read out in hex.
        #expect(result.stderr.contains("HRM-Pro Plus:123456: signal lost, reconnecting"), "\(result.stderr)")
    }

    /// The connection's lines named a device by its name alone, where the session's notices
    /// add the address when two chosen devices share the name: "Garmin: signal lost" left the
    /// runner to guess whether the strap or the footpod went.
    @Test("a dropout of one of two devices sharing a name: the line tells which, by its address")
    func dropoutOfOneOfTwoNamesakes() throws {
        let url = FakeBlueZ.packageRoot.appendingPathComponent("Tests/FakeBlueZ/scenarios/hr-only-strap-and-footpod.json")
        var world = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var devices = try #require(world["devices"] as? [[String: Any]])
        for index in devices.indices { devices[index]["name"] = "Garmin" }
        devices[0]["events"] = [[3.0, "disconnect"], [5.0, "return"]]
        world["devices"] = devices
        let fake = try FakeBlueZ(json: String(decoding: try JSONSerialization.data(withJSONObject: world), as: UTF8.self))
        let dir = try ScratchDirectory()
        let result = try intervalpro(
            arguments: ["record", dir.path("live.jsonl"), "--duration", "7", "--hr", Self.hrmPro, "--cadence", Self.stryd],
            environment: environment(fake, dir))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Garmin (\(Self.hrmPro)): signal lost, reconnecting"), "\(result.stderr)")
    }

    @Test("a dropout just after a value: what the socket held when the link went is recorded")
    func dropoutMidWindow() throws {
        // `record` reads acquired sockets once a second; the link drops 50 ms after a value,
        // and bluetoothd's signals of it come 300 ms before it closes the sockets.
        let fake = try FakeBlueZ(scenario: "dropout-mid-window")
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 6)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let recorded = try notifications(in: out).filter { $0.char == "2a37" || $0.char == "2a53" }
        let sent = fake.sentNotifications()
        #expect(recorded.map(\.hex) == sent.prefix(recorded.count).map(\.hex))
        #expect(recorded.count >= 15, "the value at 2.75 s, sent before the drop at 2.8 s, is kept")
    }

    @Test("a connection bluetoothd never signals (its ATT callback first): recorded, with no loss")
    func connectedUnsignalled() throws {
        let fake = try FakeBlueZ(scenario: "connected-unsignalled")
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 4)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try events(in: out) == ["connected"])
        #expect(fake.calls("Connect").count == 1)
        #expect(!result.stderr.contains("signal lost"), "stderr: \(result.stderr)")
        #expect(try notifications(in: out).filter { $0.char == "2a53" }.count >= 8)
    }

    @Test("bluetoothd restarting mid-recording: the mirror is rebuilt and the device reconnected")
    func bluetoothdRestart() throws {
        let fake = try FakeBlueZ(scenario: "bluetoothd-restart")
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 8)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("bluetoothd went away"))
        #expect(try events(in: out) == ["connected", "disconnected", "connected"])
        #expect(fake.calls("GetManagedObjects").count == 2)
        let recorded = try notifications(in: out)
        #expect(fake.log().contains { $0["event"] as? String == "restarted" })
        #expect(recorded.filter { $0.char == "2a53" }.count > 12, "notifications go on after the restart")
        // After the restart each measurement is acquired again: twice in all.
        #expect(fake.calls("AcquireNotify").count == 4)
    }

    @Test("the adapter switched off and on mid-recording: the device is reconnected")
    func adapterOffAndOnMidRun() throws {
        let fake = try FakeBlueZ(scenario: "adapter-off-mid-run")
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 8)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try events(in: out) == ["connected", "disconnected", "connected"])
        #expect(result.stderr.contains("powered off"))
        let recorded = try notifications(in: out).filter { $0.char == "2a53" }
        let reconnectedAt = try #require(
            String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").compactMap { jsonObject(String($0)) }
                .filter { $0["event"] as? String == "connected" }.last.flatMap { number($0["t"]) })
        #expect(recorded.contains { $0.t > reconnectedAt }, "notifications resume after the adapter is back")
    }

    @Test("connect failures are retried with backoff until one succeeds")
    func firstConnectsFailing() throws {
        let fake = try FakeBlueZ(scenario: "first-connects-failing")
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 1, extra: ["--scan-timeout", "30"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(fake.calls("Connect").count == 4)
        #expect(result.stderr.contains("le-connection-abort-by-local"))
        #expect(try notifications(in: out).contains { $0.char == "2a53" })
    }

    @Test("an acquired socket hung up while the link stays: acquired again, nothing after it lost")
    func hangUpReacquires() throws {
        let fake = try FakeBlueZ(json: hrmProScenario(#", "hang_up_after": 1.5"#))
        let dir = try ScratchDirectory()
        let (result, out) = try recordHRMPro(fake, dir, seconds: 4)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(fake.events("hang_up").count == 2)
        #expect(fake.calls("AcquireNotify").count == 4, "each measurement acquired again")
        #expect(fake.calls("Connect").count == 1, "the link itself never dropped")
        let hungUpAt = try #require(fake.events("hang_up").first.flatMap { number($0["t"]) })
        let sentAfter = fake.log().filter { $0["event"] as? String == "notify" && (number($0["t"]) ?? 0) > hungUpAt + 0.2 }
        #expect(sentAfter.count >= 4)
        let recorded = try notifications(in: out).filter { $0.char == "2a53" }
        #expect(recorded.count >= 12, "RSC goes on after the hang-up")
        // Every RSC value the fake sent while the recording ran is in the file.
        let sent = fake.sentNotifications().filter { $0.characteristic == "2a53" }
        #expect(sent.count - recorded.count <= 1)
    }

    @Test("Ctrl-C while a sensor is connecting: it is disconnected, 130, nothing kept (run, record, readiness)")
    func interruptedWhileConnecting() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("plan.json", Self.livePlan)
        let recording = dir.path("never.jsonl")
        let commands = [
            ["run", plan, "--hr", Self.hrmPro, "--cadence", Self.hrmPro, "--record", recording],
            ["record", recording, "--hr", Self.hrmPro, "--cadence", Self.hrmPro],
            ["readiness", "--hr", Self.hrmPro],
        ]
        for arguments in commands {
            // Its services take 30 s to resolve: Connect is still waiting for its answer.
            let fake = try FakeBlueZ(json: hrmProScenario(#", "resolve_delay": 30"#))
            var environment = environment(fake, dir)
            environment["XDG_DATA_HOME"] = dir.path("data")
            let command = try RunningCommand(arguments + ["-v"], environment: environment)
            let device = "/org/bluez/hci0/dev_C8_3A_35_11_22_33"
            #expect(command.stderr.wait(upTo: 20) { $0.contains("→ Connect \(device)") }, "\(arguments[0])")
            command.interrupt()
            let result = command.finish()
            #expect(result.status == 130, "\(arguments[0]) stderr: \(result.stderr)")
            // Killed instead, it left the strap connected to the computer, out of the watch's reach.
            #expect(fake.calls("Disconnect").count == 1, "\(arguments[0])")
            #expect(!result.stderr.contains("no signal") && !looksLikeACrash(result.stderr), "\(arguments[0])")
        }
        #expect(!FileManager.default.fileExists(atPath: recording))
        let stored = ["XDG_DATA_HOME": dir.path("data"), "XDG_CONFIG_HOME": dir.path("config")]
        let sessions = try intervalpro(arguments: ["history", "--json"], environment: stored)
        #expect((jsonObject(sessions.stdoutData)?["sessions"] as? [Any])?.isEmpty == true, "\(sessions.stdout)")
        let mornings = try intervalpro(arguments: ["readiness", "history", "--json"], environment: stored)
        #expect(String(decoding: mornings.stdoutData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}
