import GRDB
import IntervalProCore
import IntervalProHistory
import IntervalProRuntime
import Testing

@testable import IntervalProStorage

/// A disk full for a moment (a download finishing beside a run on a Pi's SD card) stopped
/// saving for the rest of the session: 79 s kept of 240, the disk full for 2 of them.
@Suite("a full disk")
struct SessionWriterFullDiskTests {
    @Test("a full disk holds the session in memory, saved whole once there is room, said both times")
    func aFullDiskHoldsTheSessionUntilThereIsRoom() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        var warnings: [StoreError] = []
        var notes: [String] = []
        let writer = SessionWriter(store: store, sessionID: id, warn: { warnings.append($0) }, note: { notes.append($0) })
        var recorder = SessionRecorder(writer: writer)
        let engine = SessionEngine(plan: try PlanDecoder.decode(Array(plan.utf8), file: "plan"), source: .replay)
        // Enough readings a second that each second needs pages of its own.
        let perSecond = 400
        func second(_ second: Int) {
            for k in 0..<perSecond { recorder.received(notification(Double(second) + Double(k) / Double(perSecond), 80)) }
            let sample = SessionSample(
                second: second, stepIndex: 0, rawCadence: 80, cadence: 80, heartRate: nil, speed: nil, distance: nil,
                zoneStatus: .below)
            recorder.engine(engine, performed: [.sample(sample)], at: .seconds(Double(second) + 1))
        }

        // SQLite's own limit on the file's pages: its writes fail as on a full disk (SQLITE_FULL).
        let pages = try store.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 }
        try store.write { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
        for s in 0..<3 { second(s) }
        #expect(writer.failure == nil)
        #expect(warnings.isEmpty)
        #expect(notes.count == 1 && notes.first?.contains("the disk is full") == true, "\(notes)")
        #expect(try store.session(id: id)?.samples.isEmpty == true)

        // Room again: the next second's commit saves all that was held.
        try store.write { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
        second(3)
        #expect(notes.count == 2 && notes.last?.contains("saving again") == true, "\(notes)")
        let stored = try #require(try store.session(id: id))
        #expect(stored.samples.map(\.second) == [0, 1, 2, 3])
        #expect(stored.entries.count == 4 * perSecond)
        #expect(writer.savedThrough >= .seconds(3), "\(writer.savedThrough)")
        #expect(warnings.isEmpty)
    }
}
