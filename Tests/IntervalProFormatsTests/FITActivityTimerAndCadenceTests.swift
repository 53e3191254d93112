import IntervalProCore
import IntervalProFIT
@testable import IntervalProFormats
import Testing

/// A watch's activity read as the watch counted it: its timer's stops, and cadence per foot
/// or in steps as the file holds it.
struct FITActivityTimerAndCadenceTests {
    /// A watch's timer counts the second of the record before its stop: paused from that
    /// record, every stop lost a second (27:58 for a watch's 27:59), and another at every
    /// export and import again.
    @Test func aPauseStartsAtTheTimersStop() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        func timer(_ second: Int, _ type: Int) -> FITMessage {
            FITMessage(21, [FITField(253, .uint32, .int(start + second)), FITField(0, .enumeration, .int(0)), FITField(1, .enumeration, .int(type))])
        }
        writer.write(timer(0, 0))
        for second in 0...5 { writer.write(FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(4, .uint8, .int(85))])) }
        writer.write(timer(6, 4))
        writer.write(timer(15, 0))
        for second in 15...20 { writer.write(FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(4, .uint8, .int(85))])) }
        writer.write(timer(20, 4))
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        // Running 0 to 6 and 15 to 20: the watch's total_timer_time of 11 s.
        #expect(activity.pauses == [.seconds(6) ..< .seconds(15)])
        #expect(activity.recording.entries.map(\.time.seconds) == [0, 1, 2, 3, 4, 5, 15, 16, 17, 18, 19, 20])
    }

    /// A FIT file's cadence is one foot's (the profile's rpm): doubled, unless the file holds
    /// steps a minute (as some apps write them), which were doubled to 340 and cut to the 255 a
    /// measurement carries; a sprint over 255 steps a minute was cut to 255 too.
    @Test func cadenceInStepsIsNotDoubledAndSprintsAreNotCut() throws {
        func activity(_ cadences: [Int]) throws -> ImportedActivity {
            var writer = FITFileWriter()
            writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
            let start = 1_772_350_200 - Int(FITTime.epochOffset)
            for (second, cadence) in cadences.enumerated() {
                writer.write(FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(4, .uint8, .int(cadence))]))
            }
            return try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        }
        func stepsPerMinute(_ activity: ImportedActivity) throws -> [Int] {
            let unit = try #require(activity.recording.header.devices.first?.cadenceUnit)
            return activity.recording.entries.compactMap { entry in
                guard case .notification(let notification) = entry, notification.characteristic == .rscMeasurement,
                    let rsc = try? RSCMeasurement.parse(notification.bytes)
                else { return nil }
                return Int(rsc.cadence) * (unit == .strides ? 2 : 1)
            }
        }
        let inSteps = try activity([168, 170, 172, 175])
        #expect(try stepsPerMinute(inSteps) == [168, 170, 172, 175])
        #expect(inSteps.warnings.map(\.description) == ["run.fit: cadence 172 in the middle: steps per minute already, so not doubled"])
        let sprints = try activity([85, 86, 132, 132, 85, 86])
        #expect(try stepsPerMinute(sprints) == [170, 172, 264, 264, 170, 172])
        #expect(sprints.warnings.isEmpty)
    }

    /// A morning's FIT (heart rate, no steps) read for readiness said "no cadence in any
    /// sample: nothing to score" before scoring it; read as a run, it is still said.
    @Test func aMorningsHeartRateSaysNothingOfCadence() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        for second in 0..<10 { writer.write(FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(3, .uint8, .int(55))])) }
        let morning = try ActivityImport.readFIT(writer.fileBytes(), file: "morning.fit", choice: ActivityChoice(heartRateOnly: true))
        #expect(morning.warnings.isEmpty, "\(morning.warnings)")
        let run = try ActivityImport.readFIT(writer.fileBytes(), file: "morning.fit")
        #expect(run.warnings.map(\.description) == ["morning.fit: no cadence in any sample: nothing to score"])
    }

    /// A record read from a damaged file's bytes said 389,852 km nine minutes into a run: a
    /// distance further on than a runner goes is left out, and the run's distance is the rest's.
    @Test func aDistanceNoRunnerCoversIsLeftOut() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        // record: timestamp (253), distance (5, in centimetres), cadence (4).
        for (second, metres) in [0, 3, 6, 9, 389_852_097, 12, 15].enumerated() {
            writer.write(
                FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(5, .uint32, .int(metres * 100)), FITField(4, .uint8, .int(85))]))
        }
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        #expect(activity.warnings.map(\.description) == ["run.fit: 1 distance further from the one before than 15 m/s could go left out, as damage"])
        let distances = activity.recording.entries.compactMap { entry -> Double? in
            guard case .notification(let notification) = entry, let rsc = try? RSCMeasurement.parse(notification.bytes) else { return nil }
            return rsc.totalDistanceRaw.map { Double($0) / 10 }
        }
        #expect(distances.max() == 15, "\(distances)")
    }

    /// The FIT export writes a record a second, a smart-recording point's distance repeated
    /// until the next: 22 m after five seconds of one distance was taken for 22 m in one
    /// second, left out as damage 139 times in one run exported and read again here.
    @Test func aDistanceHeldSecondsIsNotDamageWhenItMovesOn() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        for (second, metres) in [0, 4, 4, 4, 4, 4, 26, 30].enumerated() {
            writer.write(
                FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(5, .uint32, .int(metres * 100)), FITField(4, .uint8, .int(85))]))
        }
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        #expect(activity.warnings.isEmpty, "\(activity.warnings)")
    }

    @Test("the watch's clock: a start written on it keeps the moment; an offset no clock has is none")
    func watchClockOffsets() {
        #expect(ActivityImport.withOffset("2026-11-24T21:30:00Z", 9 * 3600) == "2026-11-25T06:30:00+09:00")
        #expect(ActivityImport.withOffset("2026-11-24T21:30:00Z", -5 * 3600) == "2026-11-24T16:30:00-05:00")
        #expect(ActivityImport.withOffset("2026-11-24T21:30:00Z", 5 * 3600 + 45 * 60) == "2026-11-25T03:15:00+05:45")
        #expect(ActivityImport.withOffset("2026-11-24T21:30:00Z", -(9 * 3600 + 30 * 60)) == "2026-11-24T12:00:00-09:30")
        func activity(_ utc: Int, _ local: Int) -> FITRecord? {
            var writer = FITFileWriter()
            writer.write(
                FITMessage(FITMessageNumber.activity, [
                    FITField(FITFieldNumber.timestamp, .uint32, .int(utc)), FITField(FITFieldNumber.Activity.localTimestamp, .uint32, .int(local)),
                ]))
            return try? FITFileReader.read(writer.fileBytes()).first
        }
        let utc = 1_100_000_000
        #expect(ActivityImport.localClockOffset([activity(utc, utc + 3600)].compactMap { $0 }) == 3600)
        #expect(ActivityImport.localClockOffset([activity(utc, utc + 15 * 3600)].compactMap { $0 }) == nil)
        #expect(ActivityImport.localClockOffset([activity(utc, utc + 3601)].compactMap { $0 }) == nil)
    }
}
