import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IntervalProCore
import IntervalProIO
@testable import IntervalProLaunch
import IntervalProStorage
import Testing

/// A live run while another intervalpro records a live session (the page of `serve`, another
/// terminal): that one has the sensors. The run found none it could take, fell back to a
/// simulated runner and saved a second session of the same minutes.
@Suite struct LiveBesideAnotherTests {
    static let plan = #"{"name": "Short", "steps": [{"kind": "work", "duration": 20, "cadence": 170}]}"#

    /// A store in a scratch folder holding a running session of `source`, owned by a process
    /// that runs (a `sleep`), and a live run's request saving to it.
    final class Beside {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intervalpro-beside-\(UUID().uuidString)")
        let other = Process()
        var request: SessionRequest
        let id: Int64

        init(_ source: SessionSourceKind) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            other.executableURL = URL(fileURLWithPath: "/bin/sleep")
            other.arguments = ["60"]
            try other.run()
            let owner = try #require(ProcessIdentity.identity(of: Int(other.processIdentifier)))
            let location = StoreLocation(path: folder.appendingPathComponent("intervalpro.sqlite").path)
            id = try location.open().beginSession(
                startedAt: "2026-11-29T07:00:00Z", planName: "Short", planText: LiveBesideAnotherTests.plan, source: source,
                devices: [], owner: owner)
            let plan = try PlanDecoder.decode(Array(LiveBesideAnotherTests.plan.utf8), file: "short.json")
            request = SessionRequest(
                plan: plan, planText: LiveBesideAnotherTests.plan, planFile: "short.json",
                source: .live(SensorRequest(scanTimeout: 1), fallback: .simulate))
            request.fast = true
            request.audio = AudioChoice(mode: .off, noVoice: true)
            request.store = location
        }

        deinit {
            // SIGKILL: the test runner's threads block SIGTERM, and a child inherits that.
            kill(other.processIdentifier, SIGKILL)
            other.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func aLiveRunBesideAnotherLiveSessionIsRefused() async throws {
        let beside = try Beside(.live)
        let refusal = await #expect(throws: LaunchError.self) { _ = try await SessionLauncher.run(beside.request) }
        #expect(refusal?.kind == .unavailable)
        #expect(refusal?.message.contains("session \(beside.id) is being recorded from live sensors by another intervalpro") == true)
        // Nothing saved beside it.
        #expect(try beside.request.store!.open(readingOnly: true).listings().count == 1)
    }

    @Test func theStoreFindsOnlyTheLiveSessionsOfOtherRunningProcesses() throws {
        let beside = try Beside(.simulation)
        let store = try beside.request.store!.open(readingOnly: true)
        let me = ProcessIdentity.current()
        #expect(try store.sessionsRunning(elsewhereThan: me, isRunning: ProcessIdentity.isRunning) == [beside.id])
        #expect(try store.sessionsRunning(elsewhereThan: me, from: .live, isRunning: ProcessIdentity.isRunning).isEmpty)
        #expect(try store.sessionsRunning(elsewhereThan: me, from: .simulation, isRunning: { _ in false }).isEmpty)
    }
}
