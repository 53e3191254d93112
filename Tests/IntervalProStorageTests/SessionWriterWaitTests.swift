import Dispatch
import GRDB
import IntervalProCore
import IntervalProHistory
import IntervalProRuntime
import IntervalProStorage
import Testing

@Suite("a running session's commits beside another process's write")
struct SessionWriterWaitTests {
    /// The session's own thread commits each second, and it feeds the metronome: a commit that
    /// waited the store's whole wait for another process's write (5 s) silenced the clicks for
    /// as long as the store was held past a second. A second's commit waits a fifth of a
    /// second; what it holds goes with the next. Here another connection holds the store for
    /// 3 s of a 30 s wait: a commit that waited saved the second before it returned.
    @Test func aSecondsCommitDoesNotWaitTheStoresWait() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        let store = try SessionStore(path: path, busyTimeout: 30)
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        var warnings: [StoreError] = []
        let writer = SessionWriter(store: store, sessionID: id) { warnings.append($0) }
        var recorder = SessionRecorder(writer: writer)
        let engine = SessionEngine(plan: try PlanDecoder.decode(Array(plan.utf8), file: "plan"), source: .replay)
        let entries = (0..<4).map { notification(Double($0) * 0.5, 80) }
        let samples = (0..<2).map {
            SessionSample(
                second: $0, stepIndex: 0, rawCadence: 80, cadence: 80, heartRate: nil, speed: nil, distance: nil,
                zoneStatus: .below)
        }
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: holding)
        try other.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            _ = try? other.inDatabase { try $0.execute(sql: "COMMIT") }
            released.signal()
        }
        recorder.received(entries[0])
        recorder.received(entries[1])
        recorder.engine(engine, performed: [.sample(samples[0])], at: .seconds(1))
        #expect(writer.failure == nil && warnings.isEmpty)
        #expect(try store.session(id: id)?.entries.isEmpty == true, "kept for the next second, not waited for")
        released.wait()

        // Let go: the next second's commit takes the first second's with it, and the store
        // waits as long as it did for everything else.
        recorder.received(entries[2])
        recorder.received(entries[3])
        recorder.engine(engine, performed: [.sample(samples[1])], at: .seconds(2))
        #expect(try store.session(id: id)?.entries == entries)
        #expect(try store.session(id: id)?.samples == samples)
    }
}
