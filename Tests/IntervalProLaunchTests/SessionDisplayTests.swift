import IntervalProCore
import IntervalProLaunch
import IntervalProRuntime
import Synchronization
import Testing

/// A session's output goes where its starter says: the launcher writes nothing itself.
@Suite struct SessionDisplayTests {
    final class Written: Sendable {
        let texts = Mutex<[String]>([])
        var all: String { texts.withLock { $0.joined() } }
        var stream: SessionDisplay.Stream { SessionDisplay.Stream(colour: false) { text in self.texts.withLock { $0.append(text) } } }
    }

    static let plan = """
        {"name": "Short", "steps": [
          {"kind": "warmup", "duration": 20, "cadence": 160},
          {"kind": "work", "duration": 30, "cadence": 172}
        ]}
        """

    func request(fast: Bool, speed: Double? = nil, display: SessionDisplay) throws -> SessionRequest {
        let plan = try PlanDecoder.decode(Array(Self.plan.utf8), file: "short.json")
        var request = SessionRequest(plan: plan, planText: Self.plan, planFile: "short.json", source: .simulate(.covering(plan.timeline())))
        request.fast = fast
        request.speed = speed
        request.audio = AudioChoice(mode: .off, noVoice: true)
        request.display = display
        return request
    }

    @Test func aReplayOnVirtualTimeWritesLinesNotTheScreen() async throws {
        let (screen, lines) = (Written(), Written())
        let display = SessionDisplay(screen: screen.stream, lines: lines.stream, steering: false)
        _ = try await SessionLauncher.run(try request(fast: true, display: display))
        #expect(screen.all.isEmpty)
        #expect(lines.all.contains("[0:00] Warmup (1/2)"), "\(lines.all)")
        #expect(lines.all.contains("Work (2/2)"))
        #expect(lines.all.contains("in zone"))
    }

    @Test func realTimeDrawsTheScreenWhereTheDisplayHasOne() async throws {
        let (screen, lines) = (Written(), Written())
        let display = SessionDisplay(screen: screen.stream, lines: lines.stream, steering: false)
        // 50 s of plan at 100x: half a second.
        _ = try await SessionLauncher.run(try request(fast: false, speed: 100, display: display))
        #expect(lines.all.isEmpty)
        #expect(screen.all.contains("\u{1B}["), "the screen is drawn with escape sequences")
        #expect(screen.all.contains("step 1 of 2"))
        // A simulated runner is said on every frame: a live start that found no sensor runs one.
        #expect(screen.all.contains("step 1 of 2   SIMULATED"))
        #expect(screen.all.contains("sensor: simulated"))
    }

    /// A recording started from the page showed no badge and "sensor ok": a live run's look.
    @Test func aReplaySaysItIsOneOnEveryFrame() async throws {
        let (screen, lines) = (Written(), Written())
        let display = SessionDisplay(screen: screen.stream, lines: lines.stream, steering: false)
        var replay = try request(fast: false, speed: 100, display: display)
        let recording = "\(#filePath)".split(separator: "/").dropLast(3).joined(separator: "/")
        replay.source = .replay(path: "/" + recording + "/Recordings/first-cadence-session.jsonl")
        _ = try await SessionLauncher.run(replay)
        #expect(screen.all.contains("step 1 of 2   REPLAY"), "\(screen.all.suffix(400))")
        #expect(screen.all.contains("sensor: replayed"))
        #expect(!screen.all.contains("SIMULATED"))
    }

    @Test func withoutAScreenRealTimeWritesLines() async throws {
        let lines = Written()
        let display = SessionDisplay(screen: nil, lines: lines.stream, steering: false)
        _ = try await SessionLauncher.run(try request(fast: false, speed: 100, display: display))
        #expect(lines.all.contains("Work (2/2)"))
    }
}
