import IntervalProCore
import IntervalProRuntime
import Synchronization
import Testing

/// The hand-over from the sensors' thread to the runner, on a clock the test moves.
struct LiveFeedTests {
    final class TestClock: Sendable {
        let now = Mutex(Duration.zero)
        func advance(_ by: Duration) { now.withLock { $0 += by } }
    }

    func value(_ device: String, _ characteristic: GATTCharacteristic, _ byte: UInt8) -> (SessionTime) -> RecordingEntry {
        { .notification(RawNotification(time: $0, device: device, characteristic: characteristic, bytes: [0, byte])) }
    }

    /// A pod heard while a strap was still looked for put all its values at time zero: 20 s of
    /// ANT+ pages, and the distance run meanwhile counted into the session.
    @Test func beforeTheSessionBeginsEachValueReplacesTheOneBefore() {
        let clock = TestClock()
        let feed = LiveFeed(clock: { clock.now.withLock { $0 } })
        for second in 0..<20 {
            feed.push(value("pod", .rscMeasurement, UInt8(second)))
            if second == 5 { feed.push { .event(time: $0, device: "strap", name: "connected") } }
            if second == 6 { feed.push(value("strap", .heartRateMeasurement, 60)) }
            clock.advance(.seconds(1))
        }
        feed.begin()
        clock.advance(.seconds(1))
        feed.push(value("pod", .rscMeasurement, 100))
        feed.push(value("pod", .rscMeasurement, 101))
        let poll = feed.poll()
        #expect(poll.now == .seconds(1))
        let kept = poll.entries.map { entry -> String in
            switch entry {
            case .notification(let n): "\(n.device) \(n.bytes[1]) at \(n.time.seconds)"
            case .event(let time, let device, let name): "\(device) \(name) at \(time.seconds)"
            }
        }
        #expect(kept == ["strap connected at 0.0", "strap 60 at 0.0", "pod 19 at 0.0", "pod 100 at 1.0", "pod 101 at 1.0"])
    }
}
