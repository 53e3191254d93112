import Dispatch
import GRDB
import IntervalProHistory
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
        let running = try RunningSession(seconds: 2, busyTimeout: 30)
        try running.hold()
        let (other, released) = (running.other, DispatchSemaphore(value: 0))
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            _ = try? other.inDatabase { try $0.execute(sql: "COMMIT") }
            released.signal()
        }
        running.run(second: 0)
        #expect(running.writer.failure == nil && running.warnings.errors.isEmpty)
        #expect(try running.store.session(id: running.id)?.entries.isEmpty == true, "kept for the next second, not waited for")
        released.wait()

        // Let go: the next second's commit takes the first second's with it, and the store
        // waits as long as it did for everything else.
        running.run(second: 1)
        #expect(try running.store.session(id: running.id)?.entries == running.entries)
        #expect(try running.store.session(id: running.id)?.samples == running.samples)
    }
}
