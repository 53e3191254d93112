import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IntervalProTestSupport
import Synchronization
import Testing

/// `readiness` live: through a private bus and the fake org.bluez, from a terminal and from the
/// page.
extension ReadinessCommandTests {
    @Test("live, through the fake org.bluez: a one-minute measurement from a resting strap")
    func live() throws {
        let fake = try FakeBlueZ(scenario: "readiness-strap")
        let dir = try ScratchDirectory()
        let result = try intervalpro(
            arguments: ["readiness", "--duration", "1", "--hr", "Polar H10 12345678", "--json"],
            environment: environment(dir, bus: fake.bus.address), watchdog: 300)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(jsonObject(result.stdoutData))
        #expect(json["source"] as? String == "live")
        #expect(json["device"] as? String == "A0:9E:1A:12:34:56")
        #expect(abs((number(json["rmssd_ms"]) ?? 0) - 23.02) < 1)
        #expect((57...62).contains(json["beats"] as? Int ?? 0))
        // Taken now, so its clock time is known: it was saved as null, and history said "--:--".
        #expect((json["local_time"] as? String)?.count == 8, "\(json["local_time"] ?? "nil")")
        let history = try intervalpro(arguments: ["readiness", "history"], environment: environment(dir))
        #expect(!history.stdout.contains("--:--"), "\(history.stdout)")
    }

    /// A footpod on the shoes by the bed: before, the measurement looked for one for 5 s (the
    /// strap's first values going unread), connected it and said "no cadence sensor found"
    /// when there was none.
    @Test("live: the strap alone is connected, a footpod in range is left alone")
    func liveLeavesTheFootpodAlone() throws {
        func scenario(_ name: String) throws -> [String: Any] {
            let url = FakeBlueZ.packageRoot.appendingPathComponent("Tests/FakeBlueZ/scenarios/\(name).json")
            return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        }
        var world = try scenario("readiness-strap")
        let footpod = try #require((try scenario("hr-only-strap-and-footpod")["devices"] as? [[String: Any]])?.first { $0["name"] as? String == "Stryd" })
        world["devices"] = (world["devices"] as? [[String: Any]] ?? []) + [footpod]
        let fake = try FakeBlueZ(json: String(decoding: try JSONSerialization.data(withJSONObject: world), as: UTF8.self))
        let dir = try ScratchDirectory()
        let result = try intervalpro(
            arguments: ["readiness", "--duration", "1", "--json", "--no-save"], environment: environment(dir, bus: fake.bus.address),
            watchdog: 300)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(jsonObject(result.stdoutData)?["device"] as? String == "A0:9E:1A:12:34:56")
        let connected = fake.calls("Connect").compactMap { $0["path"] as? String }
        #expect(connected == ["/org/bluez/hci0/dev_A0_9E_1A_12_34_56"], "connected: \(connected)")
        #expect(!result.stderr.contains("cadence"), "stderr: \(result.stderr)")
    }

    @Test("live: Ctrl-C mid-measurement cancels it, 130, nothing saved")
    func liveInterrupted() throws {
        let fake = try FakeBlueZ(scenario: "readiness-strap")
        let dir = try ScratchDirectory()
        let command = try RunningCommand(
            ["readiness", "--duration", "1", "-v"], environment: environment(dir, bus: fake.bus.address))
        // -v logs the subscription; a few values later the measurement is under way.
        let subscribed = command.stderr.wait(upTo: 20) { $0.contains("Notify") }
        #expect(subscribed, "stderr: \(String(decoding: command.stderr.snapshot, as: UTF8.self))")
        usleep(3_000_000)
        command.interrupt()
        let result = command.finish()
        #expect(result.status == 130, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("measurement cancelled; nothing was saved"))
        #expect(!looksLikeACrash(result.stderr))
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        #expect(String(decoding: history.stdoutData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("from the phone: serve measures on POST /api/readiness, its progress and result in the state, saved")
    func fromThePage() throws {
        let fake = try FakeBlueZ(scenario: "readiness-strap")
        let dir = try ScratchDirectory()
        let port = try freePort()
        // An account that sends every measurement to intervals.icu's wellness, here a closed
        // port: the page's measurement was never sent nor queued, where `readiness`'s is.
        let accounts = dir.path("config") + "/intervalpro"
        try FileManager.default.createDirectory(atPath: accounts, withIntermediateDirectories: true)
        try Data(#"{"version": 1, "accounts": {"intervals.icu": {"athlete_id": "i1", "api_key": "k", "readiness_to_wellness": true}}}"#.utf8)
            .write(to: URL(fileURLWithPath: accounts + "/accounts.json"))
        chmod(accounts + "/accounts.json", 0o600)
        var serving = environment(dir, bus: fake.bus.address)
        serving["INTERVALPRO_INTERVALS_ICU_URL"] = "http://127.0.0.1:9"
        // A minute and a half of measuring, in a suite that runs beside it on two cores.
        let command = try RunningCommand(
            ["serve", "--listen", "127.0.0.1:\(port)", "--hr", "Polar H10 12345678"] + servingAsUs,
            environment: serving, watchdog: 400)
        defer {
            command.interrupt()
            _ = command.finish()
        }
        #expect(command.stderr.wait(upTo: 30) { $0.contains("web page at http://127.0.0.1:\(port)/") })
        let base = URL(string: "http://127.0.0.1:\(port)")!
        // Blocking requests: an await here could wait on a cooperative pool that the suite's
        // other tests keep busy, while the server's watchdog runs.
        func exchange(_ path: String, post body: String? = nil) -> (status: Int, data: Data) {
            var request = URLRequest(url: base.appendingPathComponent(path))
            if let body {
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(body.utf8)
            }
            let done = DispatchSemaphore(value: 0)
            let answer = Mutex<(Int, Data)>((0, Data()))
            URLSession.shared.dataTask(with: request) { data, response, _ in
                answer.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()) }
                done.signal()
            }.resume()
            done.wait()
            return answer.withLock { (status: $0.0, data: $0.1) }
        }
        #expect(exchange("api/readiness", post: #"{"duration": 9}"#).status == 400)
        #expect(exchange("api/readiness", post: #"{"duration": 1}"#).status == 202)
        #expect(exchange("api/readiness", post: #"{"duration": 1}"#).status == 409, "one measurement at a time")
        #expect(exchange("api/sessions", post: #"{"plan": "x", "source": "simulate"}"#).status != 201)
        // A measurement takes no pause, resume or next: they were "accepted" and did nothing.
        #expect(exchange("api/command", post: #"{"command": "pause"}"#).status == 409)
        var phases: Set<String> = []
        var state: [String: Any] = [:]
        for _ in 0..<400 {
            state = jsonObject(exchange("api/state").data) ?? [:]
            if let phase = state["phase"] as? String { phases.insert(phase) }
            if ["done", "failed", "cancelled"].contains(state["phase"] as? String ?? "") { break }
            usleep(500_000)
        }
        #expect(state["status"] as? String == "readiness")
        #expect(state["phase"] as? String == "done", "\(state)")
        #expect(phases.isSuperset(of: ["settling", "measuring"]), "\(phases)")
        let result = try #require(state["result"] as? [String: Any])
        #expect(abs((number(result["rmssd_ms"]) ?? 0) - 23.02) < 1)
        #expect(result["source"] as? String == "live")
        #expect((result["assessment"] as? [String: Any])?["verdict"] as? String == "building")
        let history = try intervalpro("readiness", "history", "--json", environment: environment(dir))
        let listed = try #require(try JSONSerialization.jsonObject(with: history.stdoutData) as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["id"] as? Int == result["id"] as? Int)
        // Then written to the day's wellness, as `readiness` writes it: here it fails after the
        // retries, is said on the page and stays queued.
        var wellness: String?
        for _ in 0..<80 where wellness == nil {
            wellness = (jsonObject(exchange("api/state").data)?["result"] as? [String: Any])?["wellness"] as? String
            if wellness == nil { usleep(250_000) }
        }
        #expect(wellness?.contains("readiness \(result["id"] as? Int ?? 0) (") == true && wellness?.contains("→ intervals.icu wellness") == true
            && wellness?.contains("queued") == true, "\(wellness ?? "no wellness")")
    }

    @Test("live: a strap that sends no RR intervals is named within seconds (69)")
    func liveWithoutRR() throws {
        let fake = try FakeBlueZ(scenario: "strap-without-rr")
        let dir = try ScratchDirectory()
        let result = try intervalpro(arguments: ["readiness"], environment: environment(dir, bus: fake.bus.address))
        #expect(result.status == 69)
        #expect(result.stderr.contains("Old strap (A0:9E:1A:65:43:21) sends heart rate but no RR intervals"))
    }
}
