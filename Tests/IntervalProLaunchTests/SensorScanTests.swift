import Foundation
import IntervalProLaunch
import IntervalProTestSupport
import Synchronization
import Testing

/// Scanning for sensors as the page's sensors view does, with an ANT stick (a fake one behind a
/// pseudo-terminal) beside whatever Bluetooth there is.
@Suite struct SensorScanTests {
    /// The stick's devices came only when the scan ended, and with no Bluetooth the page's
    /// countdown stood still at its first figure the whole scan.
    @Test("the ANT stick's devices are told while the scan runs, the seconds left counting down")
    func stickDevicesAsTheyAreHeard() async throws {
        let stick = try PseudoTerminalStick(channels: 1, strap: false)
        defer { stick.stop() }
        let told = Mutex<[(found: [ScannedSensor], secondsLeft: Int)]>([])
        let result = try? await SensorScan.run(adapter: nil, antStick: stick.path, seconds: 4) { found, left in
            told.withLock { $0.append((found, left)) }
        }
        let progress = told.withLock { $0 }
        // When each report comes depends on the threads this test process lends it (other
        // suites block theirs): that they come, with the stick's device, and count down is
        // what is asserted, not at which second.
        #expect(progress.contains { report in report.found.contains { $0.address == "ant:4321" && $0.offersCadence } }, "\(progress)")
        #expect(progress.map(\.secondsLeft) == progress.map(\.secondsLeft).sorted(by: >), "\(progress.map(\.secondsLeft))")
        #expect(result?.sensors.contains { $0.address == "ant:4321" } == true)
    }
}
