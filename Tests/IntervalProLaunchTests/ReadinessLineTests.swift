import IntervalProCore
import IntervalProHRV
import Testing

@testable import IntervalProLaunch

@Suite("The readiness measurement's live line")
struct ReadinessLineTests {
    @Test func itSaysWhileTheHeartIsNotAtRest() {
        var measurement = ReadinessMeasurement(settings: .init(duration: .seconds(120)))
        measurement.receive(HeartRateMeasurement(heartRate: 130, sensorContact: .detected), at: .seconds(1))
        let racing = ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: 0, device: nil).line
        #expect(racing == "settling, not scored yet: lie still  2:30 left  HR 130 (not at rest yet: lie still)")
        measurement.receive(HeartRateMeasurement(heartRate: 58, sensorContact: .detected), at: .seconds(2))
        let calm = ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: 0, device: nil).line
        #expect(calm == "settling, not scored yet: lie still  2:29 left  HR 58")
    }
}
