import IntervalProCore
import Testing

@testable import IntervalProHRV
@testable import IntervalProLaunch
@testable import IntervalProWeb

@Suite("A measurement's progress on the page")
struct ReadinessProgressTests {
    @Test func itSaysWhetherTheHeartIsOverARestingRate() {
        for over in [true, false] {
            let progress = ReadinessMeasurement.Progress(
                phase: .measuring, timeLeft: .seconds(60), heartRate: over ? 130 : 58, beats: 40, sendsNoRR: false,
                aboveRestingRate: over)
            let published = JSONValue.object(SessionHost.progress(ReadinessRun.Status(progress: progress, artifactsSoFar: 1, device: nil)))
            #expect(published.serialized().contains(#""heartRate":\#(over ? 130 : 58),"aboveRestingRate":\#(over)"#), "\(published.serialized())")
        }
    }

    @Test func itSaysWhetherTheIntervalsAreWorkedOutFromAHeartRate() {
        for madeUp in [true, false] {
            var progress = ReadinessMeasurement.Progress(phase: .measuring, timeLeft: .seconds(60), heartRate: 58, beats: 40, sendsNoRR: false)
            progress.intervalsFromHeartRate = madeUp
            let published = JSONValue.object(SessionHost.progress(ReadinessRun.Status(progress: progress, artifactsSoFar: 1, device: nil)))
            #expect(published.serialized().contains(#""intervalsFromHeartRate":\#(madeUp)"#), "\(published.serialized())")
        }
    }
}
