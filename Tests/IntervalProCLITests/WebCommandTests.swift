import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound on loopback and listening, so the port it holds is in use.
final class HeldPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// A port free now (held, then released for the command to take).
func freePort() throws -> Int { try HeldPort().port }

/// What serving the page takes from whoever runs the tests: root (CI) must say so.
let servingAsUs: [String] = geteuid() == 0 ? ["--allow-root"] : []

/// Whether a network namespace of its own can be made here (root, and a kernel that lets it).
let canUnshareTheNetwork: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    probe.arguments = ["-n", "true"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()

@Suite(.serialized) struct WebCommandTests {
    @Test func aPortInUseStopsRunBeforeTheSessionStarts() throws {
        let held = try HeldPort()
        let result = try intervalpro(
            "run", "Plans/first-cadence-session.json", "--simulate", "--speed", "10", "--web", "\(held.port)",
            "--metronome", "off", "--no-voice", "--allow-root")
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(held.port): Address already in use"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no session ran, so no summary")
        #expect(!looksLikeACrash(result.stderr))
    }

    @Test func serveSaysSoToo() throws {
        let held = try HeldPort()
        let result = try intervalpro("serve", "--listen", "127.0.0.1:\(held.port)", "--allow-root")
        #expect(result.status == 69)
        #expect(result.stderr.contains("Address already in use"))
        // A host name that does not resolve was printed raw ("SocketAddressError.UnknownHost"), exit 1.
        let unknown = try intervalpro("serve", "--listen", "no-such-host.invalid:\(held.port)", "--allow-root")
        #expect(unknown.status == 64, "stderr: \(unknown.stderr)")
        #expect(unknown.stderr.contains("no address found for that host name"), "stderr: \(unknown.stderr)")
        // --port, as other servers take it, on --listen's address (it was "Unknown option '--port'").
        let byPort = try intervalpro("serve", "--port", "\(held.port)", "--allow-root")
        #expect(byPort.status == 69, "stderr: \(byPort.stderr)")
        #expect(byPort.stderr.contains("cannot listen on 127.0.0.1:\(held.port): Address already in use"), "stderr: \(byPort.stderr)")
        let both = try intervalpro("serve", "--listen", "0.0.0.0:9000", "--port", "\(held.port)", "--allow-root")
        #expect(both.status == 64, "stderr: \(both.stderr)")
        #expect(both.stderr.contains("--listen 0.0.0.0:9000 gives a port already"), "stderr: \(both.stderr)")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can be refused for being root"))
    func rootIsRefusedUnlessItAsks() throws {
        let port = try freePort()
        for arguments in [
            ["serve", "--listen", "127.0.0.1:\(port)"],
            ["run", "Plans/first-cadence-session.json", "--simulate", "--fast", "--web", "\(port)", "--no-save"],
        ] {
            let result = try intervalpro(arguments: arguments)
            #expect(result.status == 77, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("not served as root"))
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func theLiveSessionIsReadAndFinishedOverHTTP() async throws {
        let port = try freePort()
        let command = try RunningCommand([
            "run", "Plans/first-cadence-session.json", "--simulate", "--speed", "10", "--web", "\(port)", "--json",
            "--metronome", "off", "--no-voice", "--no-save",
        ] + servingAsUs)
        #expect(command.stderr.wait(upTo: 30) { $0.contains("web page at http://127.0.0.1:\(port)/") })
        let base = URL(string: "http://127.0.0.1:\(port)")!
        // The first state may come before the session's first step: wait for it to run.
        var state: [String: Any] = [:]
        for _ in 0..<100 {
            let (data, response) = try await URLSession.shared.data(from: base.appendingPathComponent("api/state"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            state = jsonObject(data) ?? [:]
            if state["status"] as? String == "running" { break }
            usleep(100_000)
        }
        #expect(state["status"] as? String == "running")
        #expect(state["plan"] as? String == "First cadence session")
        let step = try #require(state["step"] as? [String: Any])
        #expect(number(step["number"]) == 1)

        var finish = URLRequest(url: base.appendingPathComponent("api/command"))
        finish.httpMethod = "POST"
        finish.setValue("application/json", forHTTPHeaderField: "Content-Type")
        finish.httpBody = Data(#"{"command": "finish"}"#.utf8)
        let answered: (Data, URLResponse)
        do {
            answered = try await URLSession.shared.data(for: finish)
        } catch {
            // Say what became of the command: a refused connection alone does not tell.
            command.interrupt()
            let result = command.finish()
            Issue.record("POST /api/command: \(error); the command exited \(result.status): \(result.stderr)")
            return
        }
        let (answer, response) = answered
        #expect((response as? HTTPURLResponse)?.statusCode == 202, "\(String(decoding: answer, as: UTF8.self))")

        let result = command.finish()
        #expect(result.status == 0, "\(result.stderr)")
        // stdout holds the summary alone: the server writes nothing there.
        let summary = try #require(jsonObject(result.stdout))
        #expect(summary["completed"] as? Bool == false)
        #expect(summary["plan"] as? String == "First cadence session")
    }

    /// A Pi's service starts before its Wi-Fi: it printed "web page at http://0.0.0.0:8417/?token=…"
    /// and a QR code of it, which no phone opens. In a network namespace of loopback alone
    /// (`unshare -n`, where this machine lets the tests make one).
    @Test(.enabled(if: canUnshareTheNetwork))
    func serveBeforeTheNetworkIsUpSaysSo() throws {
        let dir = try ScratchDirectory()
        let result = try intervalpro(
            arguments: ["-c", #"exec unshare -n timeout -s INT 3 "$0" serve --listen 0.0.0.0:8417 --allow-root"#, executablePath],
            environment: dir.ownFolders, executable: "/bin/sh")
        #expect(result.stderr.contains("web page on port 8417 of every address, but this machine has no network address yet"), "\(result.stderr)")
        #expect(result.stderr.contains("open http://ADDRESS:8417/?token="), "\(result.stderr)")
        #expect(!result.stderr.contains("0.0.0.0"), "\(result.stderr)")
    }

    /// `intervalpro` has no web stack: it hands `serve` to `intervalpro-web` beside it, which
    /// takes over the same process (the caller's pid, its pipes, its exit status).
    @Test func serveGoesOnInIntervalProWebInTheSameProcess() throws {
        let port = try freePort()
        let command = try RunningCommand(["serve", "--listen", "127.0.0.1:\(port)"] + servingAsUs)
        #expect(command.stderr.wait(upTo: 30) { $0.contains("web page at http://127.0.0.1:\(port)/") })
        let running = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(command.process.processIdentifier)/exe")
        #expect(running == URL(fileURLWithPath: executablePath).deletingLastPathComponent().appendingPathComponent("intervalpro-web").path)
        command.interrupt()
        let result = command.finish()
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Without `intervalpro-web`, the commands that serve a page say what is missing and where
    /// it was looked for (69), after checking their arguments (64 first); the others run.
    @Test func withoutIntervalProWebTheCommandsThatServeSayWhatIsMissing() throws {
        let scratch = try ScratchDirectory()
        let alone = scratch.path("bin/intervalpro")
        try FileManager.default.createDirectory(atPath: scratch.path("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: executablePath, toPath: alone)
        for arguments in [
            ["serve"],
            ["run", "Plans/first-cadence-session.json", "--simulate", "--fast", "--web", "18417", "--no-save"],
            ["account", "add", "strava", "--client-id", "1", "--client-secret", "s"],
        ] {
            let result = try intervalpro(arguments: arguments, executable: alone)
            #expect(result.status == 69, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("error: intervalpro-web is not installed"), "\(result.stderr)")
            #expect(result.stderr.contains(scratch.path("bin/intervalpro-web")))
            #expect(result.stderr.contains(scratch.path("libexec/intervalpro/intervalpro-web")))
            #expect(!looksLikeACrash(result.stderr))
        }
        #expect(try intervalpro(arguments: ["serve", "--listen", "nonsense"], executable: alone).status == 64)
        // doctor says so, and says it does not stop a live session.
        let doctor = try intervalpro(arguments: ["doctor"], environment: noSystemBus, executable: alone)
        #expect(doctor.stdout.contains("✗ web page: intervalpro-web is not installed"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("fix: install IntervalPro again"))
        let replay = try intervalpro(
            arguments: ["replay", "Recordings/first-cadence-session.jsonl", "--fast", "--no-save"], executable: alone)
        #expect(replay.status == 0, "\(replay.stderr)")
        // Away from the package, no bundled recordings are found: `--fallback recording`
        // simulates, as for a plan without one (it stopped with 69).
        let plan = try scratch.write("plan.json", #"{"name": "Short", "steps": [{"kind": "work", "duration": 5, "cadence": 170}]}"#)
        let fallback = try intervalpro(
            arguments: ["run", plan, "--fallback", "recording", "--fast", "--no-save"], in: scratch.url,
            environment: noSystemBus, executable: alone)
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(fallback.stderr.contains("simulating a runner instead"), "\(fallback.stderr)")
    }
}
