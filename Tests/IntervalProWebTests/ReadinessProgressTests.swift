import IntervalProCore
import IntervalProHRV
import Testing

@testable import IntervalProLaunch
@testable import IntervalProWeb

@Suite("A measurement's progress on the page")
struct ReadinessProgressTests {
    @Test func itSaysWhetherTheHeartIsOverARestingRate() {
        var measurement = ReadinessMeasurement(settings: .init(duration: .seconds(120)))
        measurement.receive(HeartRateMeasurement(heartRate: 130, sensorContact: .detected), at: .seconds(1))
        let racing = JSONValue.object(SessionHost.progress(ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: 0, device: nil)))
        #expect(racing.serialized().contains(#""heartRate":130,"aboveRestingRate":true"#), "\(racing.serialized())")
        measurement.receive(HeartRateMeasurement(heartRate: 58, sensorContact: .detected), at: .seconds(2))
        let calm = JSONValue.object(SessionHost.progress(ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: 0, device: nil)))
        #expect(calm.serialized().contains(#""heartRate":58,"aboveRestingRate":false"#), "\(calm.serialized())")
    }
}
