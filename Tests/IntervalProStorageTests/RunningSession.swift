import GRDB
import IntervalProCore
import IntervalProRuntime
import IntervalProStorage

/// A session saved second by second into a store of its own, as a live run saves it, and
/// another connection to that store, which can hold its write lock as another process's long
/// write does.
final class RunningSession {
    /// What the writer warned of.
    final class Warnings {
        var errors: [StoreError] = []
    }

    let directory: StoreDirectory
    let path: String
    let store: SessionStore
    let id: Int64
    let writer: SessionWriter
    let warnings = Warnings()
    /// Two readings a second, and each second's sample.
    let entries: [RecordingEntry]
    let samples: [SessionSample]
    /// Another connection. It may keep a transaction between accesses: unsafe for GRDB's own
    /// bookkeeping, and what another process's long write looks like.
    let other: DatabaseQueue
    private var recorder: SessionRecorder
    private let engine: SessionEngine

    init(seconds: Int, busyTimeout: Double) throws {
        directory = try StoreDirectory()
        path = directory.path + "/h.sqlite"
        store = try SessionStore(path: path, busyTimeout: busyTimeout)
        id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        let warnings = self.warnings
        writer = SessionWriter(store: store, sessionID: id) { warnings.errors.append($0) }
        recorder = SessionRecorder(writer: writer)
        engine = SessionEngine(plan: try PlanDecoder.decode(Array(plan.utf8), file: "plan"), source: .replay)
        entries = (0..<2 * seconds).map { notification(Double($0) * 0.5, 80) }
        samples = (0..<seconds).map {
            SessionSample(
                second: $0, stepIndex: 0, rawCadence: 80, cadence: 80, heartRate: nil, speed: nil, distance: nil,
                zoneStatus: .below)
        }
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        other = try DatabaseQueue(path: path, configuration: holding)
    }

    /// The session's second `second`: its two readings, then its sample, which commits.
    func run(second: Int) {
        recorder.received(entries[2 * second])
        recorder.received(entries[2 * second + 1])
        recorder.engine(engine, performed: [.sample(samples[second])], at: .seconds(Double(second) + 1))
    }

    /// The other connection takes the write lock and keeps it.
    func hold() throws { try other.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") } }

    func release() throws { try other.inDatabase { try $0.execute(sql: "COMMIT") } }
}
