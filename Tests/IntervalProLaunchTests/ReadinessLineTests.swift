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

    /// The first scored beat was "1 beats".
    @Test func oneBeatAndOneArtifactAreSingular() {
        var measurement = ReadinessMeasurement(settings: .init(duration: .seconds(60)))
        var lines: [Int: String] = [:]
        for second in 1...40 {
            measurement.receive(
                HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: RRIntervals([1000])), at: .seconds(second))
            lines[measurement.beats] = ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: measurement.beats, device: nil).line
        }
        #expect(lines[1]?.hasSuffix("  1 beat  1 artifact") == true, "\(lines[1] ?? "none")")
        #expect(lines[2]?.hasSuffix("  2 beats  2 artifacts") == true, "\(lines[2] ?? "none")")
    }

    /// A strap that works its intervals out from its heart rate is refused at the end: the
    /// line says so once 30 are scored, not two minutes later.
    @Test func itSaysWhenTheIntervalsAreWorkedOutFromTheHeartRate() {
        for (label, intervals) in [("worked out", [1024, 1024, 1041, 1041, 1007]), ("timed", [1024, 1000, 1050, 990, 1013])] {
            var measurement = ReadinessMeasurement(settings: .init(duration: .seconds(120)))
            var lines: [Int: String] = [:]
            for second in 1...70 {
                let rr = RRIntervals([UInt16(intervals[second % intervals.count])])
                measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: rr), at: .seconds(second))
                lines[measurement.beats] = ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: 0, device: nil).line
            }
            let warning = "  (RR intervals worked out from the heart rate: it will be refused)"
            #expect(lines[29]?.hasSuffix(warning) == false, "\(label): \(lines[29] ?? "")")
            #expect(lines[30]?.hasSuffix(warning) == (label == "worked out"), "\(label): \(lines[30] ?? "")")
        }
    }

    /// Piped, or on TERM=dumb (a screen reader's plain output), a measurement said nothing for
    /// its two and a half minutes, a strap without skin contact included: a line for each
    /// change, and one a minute.
    @Test func withoutALineToDrawOverEachChangeIsSaidOnce() {
        var measurement = ReadinessMeasurement(settings: .init(duration: .seconds(120)))
        var said: [String] = []
        var last: ReadinessRun.Status?
        func report(_ second: Int) {
            let status = ReadinessRun.Status(progress: measurement.progress, artifactsSoFar: 0, device: nil)
            if let line = status.plainLine(after: last) { said.append("\(second): \(line)") }
            last = status
        }
        for second in 1...200 {
            // The strap loses contact from 40 s to 50 s.
            let contact: HeartRateMeasurement.SensorContact = (40..<50).contains(second) ? .notDetected : .detected
            measurement.receive(
                HeartRateMeasurement(heartRate: 58, sensorContact: contact, rrIntervals: RRIntervals([1000])), at: .seconds(second))
            report(second)
        }
        #expect(said.first == "1: settling, not scored yet: lie still  2:30 left  HR 58", "\(said)")
        #expect(said.contains { $0.hasPrefix("40: no skin contact: wet the strap and put it on") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("50: measuring") }, "\(said)")
        #expect(said.contains { $0.contains(": measuring  1:00 left") }, "\(said)")
        #expect(said.last?.hasSuffix(": complete") == true, "\(said)")
        // Each minute and each change once: not a line a second.
        #expect(said.count <= 8, "\(said)")
    }
}
