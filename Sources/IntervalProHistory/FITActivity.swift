import IntervalProCore
import IntervalProFIT

/// A stored session as a FIT activity file: what Garmin Connect, Strava and
/// intervals.icu import.
///
/// One record per stored second (heart rate, cadence, speed, distance) and one more at the
/// session's end with the last second's values, as a watch writes its last record when it stops
/// (a reader takes the activity's time from its first record to its last), one lap per step,
/// one running session, and per record two developer fields: the step's target cadence
/// (steps/min) and whether the runner was in the zone. FIT counts running cadence in
/// strides per minute (one foot), so steps/min are halved, the half kept in
/// fractional_cadence. The beats' RR intervals follow each record in `hrv` messages, as a
/// watch writes them: five to a message in milliseconds, the unused places invalid.
public enum FITActivity {
    typealias Message = FITMessageNumber
    typealias Field = FITFieldNumber

    /// The developer fields, numbered as the field_description messages declare them.
    public enum DeveloperField {
        public static let targetCadence: UInt8 = 0
        public static let inZone: UInt8 = 1
    }

    /// Identifies IntervalPro as the developer application (a fixed random UUID).
    static let applicationID: [UInt8] = [
        0x5d, 0x2e, 0x8a, 0x41, 0x93, 0x0c, 0x4f, 0x7e, 0xb2, 0x61, 0x1f, 0xd4, 0x37, 0xa9, 0xc0, 0x58,
    ]

    static let timestamp = Field.timestamp
    static let messageIndex = Field.messageIndex

    /// Why `session` cannot be a FIT activity: it began on a clock not yet set (a Pi without a
    /// real-time clock, before the network set it), before the first time a FIT file dates. Its
    /// 1970 was written as 2106, and uploaded as a run of that day.
    public static func undatable(_ session: StoredSession) -> String? {
        guard session.startUnixSeconds < earliestDatable else { return nil }
        return "session \(session.listing.id) is dated \(session.listing.startedAt.printable), before the system clock was set "
            + "(a Pi without a real-time clock sets it from the network): a FIT file cannot date it (it counts from "
            + "1989-12-31, and reads a time before mid-1998 as one since the device started), and a service would file it "
            + "in 2106. TCX and jsonl exports keep its date"
    }

    /// FIT reads a date_time under 0x10000000 (1998-07-03) as seconds since the device started.
    static let earliestDatable = FITTime.epochOffset + FITTime.firstAbsolute

    /// - Parameter utcOffset: the runner's clock at a moment (Unix seconds), seconds east of
    ///   UTC: the activity's `local_timestamp`, which Garmin Connect and a watch's own files
    ///   date a run by where it was run (without it, a reader takes its own zone); nil: none.
    public static func encode(_ session: StoredSession, utcOffset: ((Int64) -> Int64)? = nil) -> [UInt8] {
        let start = session.startUnixSeconds - FITTime.epochOffset
        func time(_ second: Int) -> FITValue { .int(Int(start) + second) }
        let spans = session.lapSpans
        let endSecond = spans.last?.endSecond ?? 0
        var writer = FITFileWriter()

        writer.write(
            FITMessage(
                Message.fileID,
                [
                    FITField(Field.FileID.type, .enumeration, .int(Int(FITFileType.activity))),
                    FITField(Field.FileID.manufacturer, .uint16, .int(Int(FITManufacturer.development))),
                    FITField(Field.FileID.product, .uint16, .int(1)),
                    FITField(Field.FileID.serialNumber, .uint32z, .int(Int(session.listing.id))),  // serial number: the session id
                    FITField(Field.FileID.timeCreated, .uint32, time(0)),
                ]))
        writer.write(
            FITMessage(Message.fileCreator, [FITField(Field.FileCreator.softwareVersion, .uint16, .int(1))]))
        writer.write(
            FITMessage(
                Message.developerDataID,
                [
                    FITField(Field.DeveloperDataID.applicationID, .byte, .bytes(applicationID)),
                    FITField(Field.DeveloperDataID.developerDataIndex, .uint8, .int(0)),
                    FITField(Field.DeveloperDataID.applicationVersion, .uint32, .int(1)),
                ]))
        for (number, name, type, units) in [
            (DeveloperField.targetCadence, "target_cadence", FITBaseType.uint16, "spm"),
            (DeveloperField.inZone, "in_cadence_zone", FITBaseType.uint8, "bool"),
        ] {
            writer.write(
                FITMessage(
                    Message.fieldDescription,
                    [
                        FITField(Field.FieldDescription.developerDataIndex, .uint8, .int(0)),
                        FITField(Field.FieldDescription.fieldDefinitionNumber, .uint8, .int(Int(number))),
                        FITField(Field.FieldDescription.fitBaseTypeID, .uint8, .int(Int(type.rawValue))),
                        FITField(Field.FieldDescription.fieldName, .string, .string(name)),
                        FITField(Field.FieldDescription.units, .string, .string(units)),
                    ]))
        }
        writer.write(
            FITMessage(
                Message.deviceInfo,
                [
                    FITField(timestamp, .uint32, time(0)),
                    FITField(Field.DeviceInfo.deviceIndex, .uint8, .int(0)),  // device index: the creator
                    FITField(Field.DeviceInfo.manufacturer, .uint16, .int(Int(FITManufacturer.development))),
                    FITField(Field.DeviceInfo.product, .uint16, .int(1)),
                    FITField(Field.DeviceInfo.productName, .string, .string(ProgramName.creator)),
                ]))
        // The simulator's sensors, by address: imported elsewhere, the file is the simulator's
        // run, left out of trends and uploads as it is here (it was taken for a runner's).
        if session.devices.areAllSimulators {
            for (index, device) in session.devices.enumerated() {
                writer.write(
                    FITMessage(
                        Message.deviceInfo,
                        [
                            FITField(timestamp, .uint32, time(0)),
                            FITField(Field.DeviceInfo.deviceIndex, .uint8, .int(index + 1)),
                            FITField(Field.DeviceInfo.descriptor, .string, .string(device.id)),
                            FITField(Field.DeviceInfo.productName, .string, .string(device.name ?? device.id)),
                        ]))
            }
        }
        writer.write(event(at: time(0), type: 0))  // timer start
        // The runner's pauses, as a watch writes them: the timer stopped at the first paused
        // second and started again at the first after, no record between.
        var paused = false

        for (lapIndex, span) in spans.enumerated() {
            let zone = span.result.step.zone
            // The last lap's samples end with the session's end, at the last second's values.
            var samples = Array(span.samples)
            if lapIndex == spans.count - 1, var closing = samples.last, closing.second < endSecond {
                closing.second = endSecond
                closing.rrIntervals = []
                // The distance covered to the session's end, as the session message says it (the
                // last second's fell a few metres short: imported again, a run lost them).
                if let total = session.summary?.distance, total > closing.distance ?? 0 { closing.distance = total }
                samples.append(closing)
            }
            for sample in samples {
                if (sample.zoneStatus == .paused) != paused {
                    paused.toggle()
                    writer.write(event(at: time(sample.second), type: paused ? 4 : 0))  // timer stop all, start
                }
                if paused { continue }
                let cadence = sample.cadence.map(strideCadence)
                // Only steps with a zone carry the developer fields: readers do not all
                // treat a developer field's invalid value as absent.
                var developer: [FITDeveloperField] = []
                if let zone {
                    developer = [
                        FITDeveloperField(DeveloperField.targetCadence, .uint16, .int(Int(zone.target.rounded()))),
                        FITDeveloperField(DeveloperField.inZone, .uint8, .int(sample.zoneStatus == .inZone ? 1 : 0)),
                    ]
                }
                writer.write(
                    FITMessage(
                        Message.record,
                        [
                            FITField(timestamp, .uint32, time(sample.second)),
                            FITField(Field.Record.heartRate, .uint8, .int(sample.heartRate)),
                            FITField(Field.Record.cadence, .uint8, .int(cadence?.whole)),
                            FITField(Field.Record.fractionalCadence, .uint8, .int(cadence?.fraction128)),
                            FITField(Field.Record.speed, .uint16, .int(sample.speed.map { Int(($0 * 1000).rounded()) })),
                            FITField(Field.Record.distance, .uint32, .int(sample.distance.map { Int(($0 * 100).rounded()) })),
                        ],
                        developer: developer))
                for message in hrvMessages(sample.rrIntervals) { writer.write(message) }
            }
            writer.write(lap(span, index: lapIndex, time: time))
        }

        writer.write(event(at: time(endSecond), type: 4))  // timer stop all
        writer.write(sessionMessage(session, spans, time: time, endSecond: endSecond))
        var activity = [FITField(timestamp, .uint32, time(endSecond))]
        if let utcOffset {
            let end = session.startUnixSeconds + Int64(endSecond)
            activity.append(FITField(Field.Activity.localTimestamp, .uint32, .int(Int(end + utcOffset(end) - FITTime.epochOffset))))
        }
        activity += [
            FITField(Field.Activity.totalTimerTime, .uint32, .int(milliseconds(session.summary?.duration))),
            FITField(Field.Activity.numSessions, .uint16, .int(1)),
            FITField(Field.Activity.type, .enumeration, .int(0)),  // manual
            FITField(Field.Activity.event, .enumeration, .int(26)),  // event: activity
            FITField(Field.Activity.eventType, .enumeration, .int(1)),  // event type: stop
        ]
        writer.write(FITMessage(Message.activity, activity))
        return writer.fileBytes()
    }

    /// The `hrv` messages (78) of one second's RR intervals: field 0, `time`, an array of five
    /// uint16 in seconds with scale 1000 (milliseconds), rounded from the strap's 1/1024 s.
    static func hrvMessages(_ intervals: [UInt16]) -> [FITMessage] {
        stride(from: 0, to: intervals.count, by: hrvPerMessage).map { start in
            let chunk = intervals[start..<min(intervals.count, start + hrvPerMessage)]
            var times: [UInt64?] = chunk.map { UInt64(milliseconds(rr: $0)) }
            times += Array(repeating: nil, count: hrvPerMessage - times.count)
            return FITMessage(Message.hrv, [FITField(Field.HRV.time, .uint16, .integers(times))])
        }
    }

    static let hrvPerMessage = 5

    /// An RR interval of 1/1024 s in whole milliseconds.
    public static func milliseconds(rr: UInt16) -> Int { Int((Double(rr) * 1000 / 1024).rounded()) }

    /// Steps per minute as FIT's strides per minute: whole strides and 1/128ths.
    static func strideCadence(_ stepsPerMinute: Int) -> (whole: Int, fraction128: Int) {
        (stepsPerMinute / 2, stepsPerMinute % 2 == 1 ? 64 : 0)
    }

    static func strideCadence(_ stepsPerMinute: Double) -> (whole: Int, fraction128: Int) {
        let strides = stepsPerMinute / 2
        var whole = Int(strides)
        var fraction = Int(((strides - Double(whole)) * 128).rounded())
        if fraction == 128 {
            whole += 1
            fraction = 0
        }
        return (whole, fraction)
    }

    static func milliseconds(_ time: SessionTime?) -> Int? {
        time.map { Int($0.microseconds / 1000) }
    }

    static func event(at time: FITValue, type: Int) -> FITMessage {
        FITMessage(
            Message.event,
            [
                FITField(timestamp, .uint32, time),
                FITField(Field.Event.event, .enumeration, .int(0)),  // event: timer
                FITField(Field.Event.eventType, .enumeration, .int(type)),
                FITField(Field.Event.eventGroup, .uint8, .int(0)),
            ])
    }

    static func lap(_ span: StepSpan, index: Int, time: (Int) -> FITValue) -> FITMessage {
        let result = span.result
        let average = result.averageCadence.map(strideCadence)
        let maximum = span.maxCadence.map(strideCadence)
        let intensity: Int =
            switch result.step.kind {
            case .work: 0  // active
            case .rest: 1
            case .warmup: 2
            case .cooldown: 3
            }
        let trigger: Int =
            switch result.endedBy {
            case .time: 1
            case .distance: 2
            case .next: 0  // manual
            case .finished, .sourceEnded: 7  // session end
            }
        return FITMessage(
            Message.lap,
            [
                FITField(messageIndex, .uint16, .int(index)),
                FITField(timestamp, .uint32, time(span.endSecond)),
                FITField(Field.Lap.event, .enumeration, .int(9)),  // event: lap
                FITField(Field.Lap.eventType, .enumeration, .int(1)),  // event type: stop
                FITField(Field.Lap.startTime, .uint32, time(span.startSecond)),
                // Whole seconds from sample to sample, which pauses lengthen; never less than the
                // timer, which a step ending between two seconds (200.75 to 336.0 s) made it.
                FITField(
                    Field.Lap.totalElapsedTime, .uint32,
                    .int(max((span.endSecond - span.startSecond) * 1000, milliseconds(result.duration) ?? 0))),
                FITField(Field.Lap.totalTimerTime, .uint32, .int(milliseconds(result.duration))),  // timer (pauses excluded)
                FITField(Field.Lap.totalDistance, .uint32, .int(result.distance.map { Int(($0 * 100).rounded()) })),
                // Left invalid without a cadence reading: 0 would say the runner took no step.
                FITField(Field.Lap.totalCycles, .uint32, .int(span.hasCadence ? strides(cadenceSeconds: span.cadenceSeconds) : nil)),
                FITField(Field.Lap.avgHeartRate, .uint8, .int(result.averageHeartRate.map { Int($0.rounded()) })),
                FITField(Field.Lap.maxHeartRate, .uint8, .int(result.maxHeartRate)),
                FITField(Field.Lap.avgCadence, .uint8, .int(average?.whole)),
                FITField(Field.Lap.maxCadence, .uint8, .int(maximum?.whole)),
                FITField(Field.Lap.avgFractionalCadence, .uint8, .int(average?.fraction128)),
                FITField(Field.Lap.maxFractionalCadence, .uint8, .int(maximum?.fraction128)),
                FITField(Field.Lap.intensity, .enumeration, .int(intensity)),
                FITField(Field.Lap.lapTrigger, .enumeration, .int(trigger)),
                FITField(Field.Lap.sport, .enumeration, .int(Int(FITSport.running))),
                FITField(Field.Lap.workoutStepIndex, .uint16, .int(result.step.index)),
            ])
    }

    static func sessionMessage(
        _ session: StoredSession, _ spans: [StepSpan], time: (Int) -> FITValue, endSecond: Int
    ) -> FITMessage {
        let summary = session.summary
        let average = summary?.averageCadence.map(strideCadence)
        let maximum = spans.compactMap(\.maxCadence).max().map(strideCadence)
        let cadenceSeconds = spans.reduce(0) { $0 + $1.cadenceSeconds }
        return FITMessage(
            Message.session,
            [
                FITField(messageIndex, .uint16, .int(0)),
                FITField(timestamp, .uint32, time(endSecond)),
                FITField(Field.Session.event, .enumeration, .int(8)),  // event: session
                FITField(Field.Session.eventType, .enumeration, .int(1)),  // event type: stop
                FITField(Field.Session.startTime, .uint32, time(0)),
                FITField(Field.Session.sport, .enumeration, .int(Int(FITSport.running))),
                FITField(Field.Session.subSport, .enumeration, .int(0)),  // sub sport: generic
                FITField(Field.Session.totalElapsedTime, .uint32, .int(endSecond * 1000)),
                FITField(Field.Session.totalTimerTime, .uint32, .int(milliseconds(summary?.duration))),
                FITField(Field.Session.totalDistance, .uint32, .int(summary?.distance.map { Int(($0 * 100).rounded()) })),
                FITField(
                    Field.Session.totalCycles, .uint32,
                    .int(spans.contains(where: \.hasCadence) ? strides(cadenceSeconds: cadenceSeconds) : nil)),
                FITField(Field.Session.avgHeartRate, .uint8, .int(summary?.averageHeartRate.map { Int($0.rounded()) })),
                FITField(Field.Session.maxHeartRate, .uint8, .int(summary?.maxHeartRate)),
                FITField(Field.Session.avgCadence, .uint8, .int(average?.whole)),
                FITField(Field.Session.maxCadence, .uint8, .int(maximum?.whole)),
                FITField(Field.Session.avgFractionalCadence, .uint8, .int(average?.fraction128)),
                FITField(Field.Session.maxFractionalCadence, .uint8, .int(maximum?.fraction128)),
                FITField(Field.Session.firstLapIndex, .uint16, .int(0)),
                FITField(Field.Session.numLaps, .uint16, .int(spans.count)),
                FITField(Field.Session.trigger, .enumeration, .int(0)),  // trigger: activity end
            ])
    }
}
