import IntervalProCore
import IntervalProFIT
@testable import IntervalProFormats
import Testing

/// The FIT reader on files the writer makes and on hand-made bytes for what the writer
/// never writes (big-endian, compressed timestamps, chains); FIT workouts both ways; FIT
/// activities as recordings.
struct FITTests {
    /// A whole FIT file around `body` (header with CRC, file CRC).
    static func file(_ body: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [14, 0x20, 0x54, 0x08]
        let size = UInt32(body.count)
        header += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: size >> UInt32($0)) }
        header += Array(".FIT".utf8)
        let headerCRC = FITChecksum.crc(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        var file = header + body
        let crc = FITChecksum.crc(file)
        file += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return file
    }

    @Test func readsWhatTheWriterWrites() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(20, [FITField(253, .uint32, .int(1000)), FITField(3, .uint8, .int(150)), FITField(6, .uint16, .int(3125))]))
        writer.write(FITMessage(20, [FITField(253, .uint32, .int(1001)), FITField(3, .uint8, .int(nil))]))
        writer.write(FITMessage(26, [FITField(8, .string, .string("Track 6×400"))]))
        let records = try FITFileReader.read(writer.fileBytes())
        #expect(records.map(\.global) == [20, 20, 26])
        #expect(records[0].integer(253) == 1000 && records[0].integer(3) == 150 && records[0].integer(6) == 3125)
        #expect(records[1].integer(3) == nil)  // the invalid value reads as "not given"
        #expect(records[2].string(8) == "Track 6×400")
    }

    @Test func bigEndianDefinitionsCompressedTimestampsAndDeveloperFields() throws {
        // Local 0: record, big-endian, timestamp uint32 + heart_rate uint8, one 2-byte developer field.
        var body: [UInt8] = [0x60, 0, 1, 0, 20, 2, 253, 4, 0x86, 3, 1, 0x02, 1, 0, 2, 0]
        body += [0x00, 0x00, 0x00, 0x03, 0xFE, 140, 0xAA, 0xBB]  // timestamp 0x3FE = 1022, hr 140
        // Local 1: record with heart_rate only, for compressed-timestamp headers.
        body += [0x41, 0, 1, 0, 20, 1, 3, 1, 0x02]
        // Compressed header: local 1, offset 3 → 1022 rolls past 0x1F to 1027 (0x403).
        body += [0x80 | 1 << 5 | 3, 141]
        let records = try FITFileReader.read(Self.file(body))
        #expect(records.count == 2)
        #expect(records[0].integer(253) == 1022 && records[0].integer(3) == 140)
        #expect(records[1].integer(253) == 1027 && records[1].integer(3) == 141)
    }

    @Test func chainedFilesAreReadOneAfterTheOther() throws {
        let one = Self.file([0x40, 0, 0, 20, 0, 1, 3, 1, 0x02, 0x00, 120])
        let records = try FITFileReader.read(one + one)
        #expect(records.map { $0.integer(3) } == [120, 120])
    }

    @Test func damageIsRefusedWithItsPlace() {
        var bytes = Self.file([0x40, 0, 0, 20, 0, 1, 3, 1, 0x02, 0x00, 120])
        bytes[bytes.count - 3] ^= 1
        #expect(throws: FITReadError(offset: bytes.count - 2, message: "file CRC does not match: the file is damaged")) {
            try FITFileReader.read(bytes)
        }
        #expect(throws: FITReadError.self) { try FITFileReader.read(Array(bytes.prefix(20))) }
        #expect(throws: FITReadError.self) { try FITFileReader.read(Self.file([0x05, 1, 2])) }  // data before any definition
        #expect(!FITFileReader.looksLikeFIT(Array("{\"name\": 1}".utf8)))
    }

    static let plan = Plan(
        name: "Ladder", tolerance: 4,
        nodes: [
            .step(PlanStep(kind: .warmup, end: .fixed(.time(.seconds(600))), cadence: .fixed(.target(160)))),
            .group(
                repeat: 4,
                nodes: [
                    .step(PlanStep(kind: .work, end: .fixed(.distance(400)), cadence: .fixed(.range(low: 178, high: 186)), label: "Fast")),
                    .step(PlanStep(kind: .rest, end: .fixed(.time(.seconds(90))), label: "Jog")),
                ]),
            .group(
                repeat: 2,
                nodes: [.step(PlanStep(kind: .work, end: .perRepetition([.time(.seconds(60)), .time(.seconds(120))]), cadence: .fixed(.target(175))))]),
            .step(PlanStep(kind: .cooldown, end: .fixed(.open))),
        ])

    /// A walking plan (zones under 120 steps/min) came back doubled: the reader took
    /// IntervalPro's own steps/min for Garmin's per-foot counts.
    @Test func aWalkingPlanImportsBackAsItWas() throws {
        let walk = try PlanDecoder.decode(
            Array(#"{"name": "Walk", "steps": [{"kind": "work", "duration": 600, "cadence": {"low": 96, "high": 104}}]}"#.utf8),
            file: "walk.json")
        let imported = try FITWorkout.read(FITWorkout.encode(walk, createdUnixSeconds: 1_772_350_200), file: "walk.fit")
        #expect(imported.plan.timeline().first?.zone == walk.timeline().first?.zone)
        #expect(!imported.warnings.contains { $0.message.contains("per foot") }, "\(imported.warnings)")
    }

    /// time_created is when the file was made, unless the clock says a time FIT cannot name:
    /// a Pi's clock before it is set reads 1970, which was written as 2106.
    @Test func aClockFITCannotNameLeavesTheCreationTimeUnknown() throws {
        func created(_ unixSeconds: Int64) throws -> Int64? {
            let records = try FITFileReader.read(FITWorkout.encode(Self.plan, createdUnixSeconds: unixSeconds))
            return try #require(records.first { $0.global == 0 }).integer(4)
        }
        #expect(try created(1_772_350_200) == 1_772_350_200 - FITTime.epochOffset)
        #expect(try created(0) == nil)
        #expect(try created(FITTime.epochOffset) == nil)
        #expect(try created(FITTime.epochOffset + FITTime.firstAbsolute) == FITTime.firstAbsolute)
        #expect(try FITWorkout.read(FITWorkout.encode(Self.plan, createdUnixSeconds: 0), file: "x.fit").plan.name == "Ladder")
    }

    /// FIT text is UTF-8. A name cut to its field's size in the middle of a character, or written
    /// in Windows-1252, was dropped whole: the workout took the file's name, the step no label.
    @Test func namesThatAreNotAllUTF8AreKept() throws {
        func workout(name: [UInt8], step: [UInt8]) throws -> ImportedPlan {
            var writer = FITFileWriter()
            writer.write(FITMessage(0, [FITField(0, .enumeration, .int(5))]))
            writer.write(FITMessage(26, [FITField(4, .enumeration, .int(1)), FITField(8, .string, .bytes(name + [0]))]))
            writer.write(
                FITMessage(
                    27,
                    [
                        FITField(254, .uint16, .int(0)), FITField(0, .string, .bytes(step + [0])), FITField(1, .enumeration, .int(0)),
                        FITField(2, .uint32, .int(300_000)),
                    ]))
            return try FITWorkout.read(writer.fileBytes(), file: "w.fit")
        }
        // "Läufe" and the first of the three bytes of "—"; "Kör 400 m" and the first of "—".
        let cut = try workout(name: Array("Läufe".utf8) + [0xE2], step: Array("Kör 400 m".utf8) + [0xE2, 0x80])
        #expect(cut.plan.name == "Läufe")
        #expect(cut.plan.timeline().map(\.label) == ["Kör 400 m"])
        #expect(cut.warnings.isEmpty, "\(cut.warnings)")
        let windows1252 = try workout(name: [0x4C, 0xE4, 0x75, 0x66, 0x65], step: [0x4B, 0xF6, 0x72])
        #expect(windows1252.plan.name == "L\u{FFFD}ufe")
        #expect(windows1252.plan.timeline().map(\.label) == ["K\u{FFFD}r"])
        #expect(windows1252.warnings.map(\.message).allSatisfy { $0.contains("is not all UTF-8, as FIT text is") })
        #expect(windows1252.warnings.count == 2)
    }

    /// A FIT workout's cadence targets are whole steps/min: the zones it rounds are said.
    @Test func theZonesAFITWorkoutRoundsAreNamed() throws {
        let text = #"{"name":"Z","tolerance":5,"steps":[{"kind":"work","duration":60,"cadence":170.3},{"kind":"rest","duration":60,"cadence":{"low":150.4,"high":171.6}},{"kind":"work","duration":60,"cadence":170.3},{"kind":"work","duration":60,"cadence":170}]}"#
        let plan = try PlanDecoder.decode(Array(text.utf8), file: "z.json")
        #expect(FITWorkout.zonesRounded(plan) == ["165.3-175.3 as 165-175", "150.4-171.6 as 150-172"])
        let back = try FITWorkout.read(FITWorkout.encode(plan, createdUnixSeconds: 0), file: "z.fit").plan.timeline()
        #expect(back.map { $0.zone.map { [$0.low, $0.high] } } == [[165, 175], [150, 172], [165, 175], [165, 175]])
        #expect(FITWorkout.zonesRounded(Self.plan).isEmpty)
    }

    @Test func aWorkoutImportsBackToTheSameTimeline() throws {
        let bytes = FITWorkout.encode(Self.plan, createdUnixSeconds: 1_772_350_200)
        let imported = try FITWorkout.read(bytes, file: "ladder.fit")
        #expect(imported.plan.name == "Ladder")
        let back = imported.plan.timeline()
        let original = Self.plan.timeline()
        #expect(back.count == original.count)
        for (a, b) in zip(back, original) {
            #expect(a.kind == b.kind && a.end == b.end && a.zone == b.zone && a.label == b.label)
        }
        // Fixed repeats stay repeats; the per-repetition group is written out in full.
        #expect(back[1].repetition == .init(number: 1, count: 4))
        #expect(back[9].repetition == nil)
    }

    /// A running workout (file type 5, sport 1 unless said) of one five-minute step with `targets`.
    static func fiveMinuteRunStep(_ targets: [FITField], sport: Int = 1) -> [UInt8] {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(5))]))
        writer.write(FITMessage(26, [FITField(4, .enumeration, .int(sport))]))
        writer.write(
            FITMessage(
                27, [FITField(254, .uint16, .int(0)), FITField(1, .enumeration, .int(0)), FITField(2, .uint32, .int(300_000))] + targets))
        return writer.fileBytes()
    }

    @Test func perFootCadenceTargetsAreDoubled() throws {
        let file = Self.fiveMinuteRunStep([
            FITField(3, .enumeration, .int(3)), FITField(4, .uint32, .int(0)), FITField(5, .uint32, .int(85)), FITField(6, .uint32, .int(90)),
        ])
        let imported = try FITWorkout.read(file, file: "w.fit")
        #expect(imported.plan.timeline()[0].zone == CadenceZone(target: 175, low: 170, high: 180))
        #expect(imported.warnings.count == 1)
    }

    /// A name or label over 200 bytes was cut in the FIT workout without a word (imported
    /// again, it was another plan's name): the texts cut are known, to be said.
    @Test func textsAFITWorkoutCannotHoldWholeAreKnown() throws {
        let long = String(repeating: "n", count: 300), umlauts = String(repeating: "Ü", count: 200)
        let text = #"{"name": "\#(long)", "steps": [{"kind": "work", "duration": 60, "label": "\#(umlauts)"}, {"kind": "rest", "duration": 60, "label": "jog"}]}"#
        let plan = try PlanDecoder.decode(Array(text.utf8), file: "long.json")
        #expect(FITWorkout.textsCut(plan) == [long, umlauts])
        let short = try PlanDecoder.decode(Array(#"{"name": "Ladder", "steps": [{"kind": "work", "duration": 60, "label": "Ü"}]}"#.utf8), file: "p.json")
        #expect(FITWorkout.textsCut(short).isEmpty)
        // One letter under 120 combining marks (241 bytes): cut at a mark, not left out whole.
        let stacked = "Z" + String(repeating: "\u{0301}", count: 120)
        let cut = FITWorkout.fitString(stacked)
        #expect(cut.utf8.count <= 200 && cut.utf8.count >= 199 && cut.unicodeScalars.first == "Z", "\(cut.utf8.count) bytes")
    }

    /// A workout of sport "generic" (what a tool writes when it does not say) with per-foot
    /// targets was neither doubled nor warned about: 85-90 scored as steps/min, where a file
    /// without a sport was doubled. Generic may be a run, as it is for activities.
    @Test func aGenericWorkoutsPerFootTargetsAreDoubledAsARunsAre() throws {
        let targets = [
            FITField(3, .enumeration, .int(3)), FITField(4, .uint32, .int(0)), FITField(5, .uint32, .int(85)), FITField(6, .uint32, .int(90)),
        ]
        let imported = try FITWorkout.read(Self.fiveMinuteRunStep(targets, sport: 0), file: "w.fit")
        #expect(imported.plan.timeline()[0].zone == CadenceZone(target: 175, low: 170, high: 180))
        #expect(imported.warnings.map(\.message).contains { $0.contains("per foot") }, "\(imported.warnings)")
    }

    /// Garmin Connect's run step with a pace target keeps cadence as its secondary target: it
    /// was left out without a word, the step without a zone.
    @Test func aSecondaryCadenceTargetIsTheZone() throws {
        // Primary: speed (0), custom 3.0-3.3 m/s; secondary: cadence (3), custom 88-92 per foot.
        let file = Self.fiveMinuteRunStep([
            FITField(3, .enumeration, .int(0)), FITField(4, .uint32, .int(0)), FITField(5, .uint32, .int(3000)),
            FITField(6, .uint32, .int(3300)), FITField(19, .enumeration, .int(3)), FITField(20, .uint32, .int(0)),
            FITField(21, .uint32, .int(88)), FITField(22, .uint32, .int(92)),
        ])
        let imported = try FITWorkout.read(file, file: "w.fit")
        #expect(imported.plan.timeline()[0].zone == CadenceZone(target: 180, low: 176, high: 184))
        // The pace target beside it is not scored, and that is said (it went without a word).
        #expect(imported.warnings.map(\.message).contains("1 step has a pace, heart-rate or power target, which are not scored here (cadence is)"), "\(imported.warnings)")
    }

    /// A workout of `steps` (each its duration type and value), `sport` its sport.
    static func workout(sport: Int, _ steps: [(type: Int, value: Int)]) -> [UInt8] {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(5))]))
        writer.write(FITMessage(26, [FITField(4, .enumeration, .int(sport))]))
        for (index, step) in steps.enumerated() {
            writer.write(
                FITMessage(
                    27,
                    [
                        FITField(254, .uint16, .int(index)), FITField(1, .enumeration, .int(step.type)),
                        FITField(2, .uint32, .int(step.value)), FITField(3, .enumeration, .int(3)), FITField(4, .uint32, .int(0)),
                        FITField(5, .uint32, .int(170)), FITField(6, .uint32, .int(176)),
                    ]))
        }
        return writer.fileBytes()
    }

    /// A step of 0 s refused the whole workout (a .zwo's is left out); a repeat until a TSS
    /// goal became an extra open step; a ride's rpm was taken for a run's steps without a word.
    @Test func whatAWatchWorkoutHoldsThatCannotRunHereIsSaid() throws {
        let zero = try FITWorkout.read(Self.workout(sport: 1, [(0, 300_000), (0, 0), (0, 60_000)]), file: "w.fit")
        #expect(zero.plan.timeline().map(\.end) == [.time(.seconds(300)), .time(.seconds(60))])
        #expect(zero.warnings.map(\.description) == ["w.fit: workout_step 1 (message 3): a step that lasts 0 was left out"])
        for type in [17, 18, 27] {
            #expect(throws: ImportError.self, "duration type \(type)") {
                try FITWorkout.read(Self.workout(sport: 1, [(0, 300_000), (type, 0)]), file: "w.fit")
            }
        }
        let ride = try FITWorkout.read(Self.workout(sport: 2, [(0, 300_000)]), file: "ride.fit")
        #expect(ride.warnings.map(\.message).contains("a cycling workout, not a run: its cadence (rpm) is read as steps/min"), "\(ride.warnings)")
        // A walk's cadence is steps/min already: no "rpm" for it.
        let walk = try FITWorkout.read(Self.workout(sport: 11, [(0, 300_000)]), file: "walk.fit")
        #expect(walk.warnings.map(\.message).contains("a walking workout, not a run: its cadence targets are read as steps/min, as written"), "\(walk.warnings)")
    }

    @Test func anActivityIsNotAWorkoutAndTheErrorSaysWhatToDo() {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        #expect(throws: ImportError.self) { try FITWorkout.read(writer.fileBytes(), file: "run.fit") }
        let message = (try? FITWorkout.read(writer.fileBytes(), file: "run.fit")).map { _ in "" }
        #expect(message == nil)
    }

    @Test func anActivityReadsAsARecordingInSteps() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        for second in 0..<3 {
            writer.write(
                FITMessage(
                    20,
                    [
                        FITField(253, .uint32, .int(start + second)), FITField(3, .uint8, .int(150 + second)),
                        FITField(4, .uint8, .int(85)), FITField(53, .uint8, .int(64)),  // 85.5 per foot
                        FITField(6, .uint16, .int(3125)), FITField(5, .uint32, .int(312 * (second + 1))),
                    ]))
        }
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        #expect(activity.points == 3)
        #expect(activity.recording.header.startedAt == "2026-03-01T07:30:00Z")
        #expect(activity.recording.header.devices == [RecordedDevice(id: "watch", name: "FIT activity", cadenceUnit: .steps)])
        let readings = activity.recording.entries.compactMap { entry -> SensorReading? in
            guard case .notification(let n) = entry, let characteristic = n.characteristic else { return nil }
            return try? SensorReading.decode(characteristic, n.bytes)
        }
        #expect(readings.count == 6)
        guard case .rsc(let rsc) = readings[2], case .heartRate(let hr) = readings[3] else {
            Issue.record("expected RSC then heart rate, got \(readings)")
            return
        }
        #expect(rsc.cadence == 171 && rsc.speedMps == 3.125 && rsc.totalDistanceM == 6.2)
        #expect(hr.heartRate == 151)
        #expect(activity.recording.entries[2].time == .seconds(1))
    }

    /// Older Garmin watches (Forerunner 405, 310XT) pack speed and distance into a record's
    /// compressed_speed_distance: 12 bits of 1/100 m/s, then 12 bits of 1/16 m that count on
    /// from the record before and wrap at 4096 (256 m).
    @Test func compressedSpeedAndDistanceAreUnpacked() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        let packed = [(354, 0), (355, 232), (300, 4000), (0, 104)]
        // A minute apart, so that 235 m between two is a runner's (a second apart, it was
        // 235 m/s, which the reader leaves out as damage).
        for (minute, (speed, distance)) in packed.enumerated() {
            let bytes = [UInt8(speed & 0xFF), UInt8(speed >> 8 | (distance & 0xF) << 4), UInt8(distance >> 4)]
            writer.write(
                FITMessage(
                    20, [FITField(253, .uint32, .int(start + 60 * minute)), FITField(4, .uint8, .int(85)), FITField(8, .byte, .bytes(bytes))]))
        }
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        let rsc = activity.recording.entries.compactMap { entry -> RSCMeasurement? in
            guard case .notification(let n) = entry, case .rsc(let rsc) = try? SensorReading.decode(.rscMeasurement, n.bytes) else { return nil }
            return rsc
        }
        // The fourth wrapped: 4000, then 104 is 200 more.
        #expect(rsc.map(\.totalDistanceM) == [0, 14.5, 250, 262.5])
        let speeds = rsc.map(\.speedMps), expected = [3.54, 3.55, 3.0, 0]
        #expect(zip(speeds, expected).allSatisfy { abs($0 - $1) < 1.0 / 256 }, "\(speeds)")
    }

    /// Smart recording's records seconds apart are held, but not over a pause: after the
    /// timer stops (event timer, stop_all) the gap to the next record stays a gap.
    @Test func aRecordIsNotHeldOverAPause() throws {
        let writer = {
            var writer = FITFileWriter()
            writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
            return writer
        }()
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        func record(_ second: Int) -> FITMessage {
            FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(4, .uint8, .int(85))])
        }
        func timer(_ second: Int, _ type: Int) -> FITMessage {
            FITMessage(21, [FITField(253, .uint32, .int(start + second)), FITField(0, .enumeration, .int(0)), FITField(1, .enumeration, .int(type))])
        }
        // Paused at a crossing from 5 s to 15 s; the stop written after the record of its
        // second, or before it.
        for stopFirst in [false, true] {
            var writer = writer
            writer.write(timer(0, 0))
            writer.write(record(0))
            if stopFirst { writer.write(timer(5, 4)) }
            writer.write(record(5))
            if !stopFirst { writer.write(timer(5, 4)) }
            writer.write(timer(15, 0))
            writer.write(record(15))
            writer.write(record(16))
            let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
            #expect(activity.recording.entries.map(\.time.seconds) == [0, 1, 2, 3, 4, 5, 15, 16], "stop first: \(stopFirst)")
            #expect(activity.pauses == [.seconds(5) ..< .seconds(15)], "stop first: \(stopFirst)")
        }
    }

    /// Some watches write records on while the timer is stopped: cadence 0 and the heart rate
    /// standing. They were read as running: the 10 s stop gone from the run's time, and its
    /// zeros in the cadence.
    @Test func recordsWhileTheTimerIsStoppedAreNotTheRuns() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        func record(_ second: Int, cadence: Int) -> FITMessage {
            FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(4, .uint8, .int(cadence))])
        }
        func timer(_ second: Int, _ type: Int) -> FITMessage {
            FITMessage(21, [FITField(253, .uint32, .int(start + second)), FITField(0, .enumeration, .int(0)), FITField(1, .enumeration, .int(type))])
        }
        writer.write(timer(0, 0))
        for second in 0...5 { writer.write(record(second, cadence: 85)) }
        writer.write(timer(5, 4))
        for second in 6...14 { writer.write(record(second, cadence: 0)) }
        writer.write(timer(15, 0))
        for second in 15...20 { writer.write(record(second, cadence: 85)) }
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        #expect(activity.pauses == [.seconds(5) ..< .seconds(15)])
        let cadences = activity.recording.entries.compactMap { entry -> Double? in
            guard case .notification(let n) = entry, n.characteristic == .rscMeasurement, let rsc = try? RSCMeasurement.parse(n.bytes) else {
                return nil
            }
            return Double(rsc.cadence)
        }
        #expect(!cadences.isEmpty && !cadences.contains(0), "\(cadences)")
        #expect(activity.recording.entries.map(\.time.seconds).max() == 20)
    }

    /// A cadence of quarter strides (85.75, 85.25 strides/min) is a half step: all rounded up,
    /// every such run read 0.25 spm high on average. Halves go to the even neighbour.
    @Test func halfStepsRoundToTheEvenNeighbour() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        for (second, fraction) in [96, 32, 96, 32].enumerated() {
            writer.write(
                FITMessage(
                    20, [FITField(253, .uint32, .int(start + second)), FITField(4, .uint8, .int(85)), FITField(53, .uint8, .int(fraction))]))
        }
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        let cadences = activity.recording.entries.compactMap { entry -> Int? in
            guard case .notification(let n) = entry, n.characteristic == .rscMeasurement, let rsc = try? RSCMeasurement.parse(n.bytes) else {
                return nil
            }
            return Int(rsc.cadence)
        }
        #expect(cadences == [172, 170, 172, 170], "\(cadences)")
    }

    /// A watch writes `hrv` messages on through a timer stop: the beats after the last record
    /// before the stop were all put in its second (902 beats of a 5-minute stop in one), and
    /// counted as the run's.
    @Test func beatsWhileTheTimerIsStoppedAreNotTheRuns() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        func record(_ second: Int) -> FITMessage {
            FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(3, .uint8, .int(150))])
        }
        func timer(_ second: Int, _ type: Int) -> FITMessage {
            FITMessage(21, [FITField(253, .uint32, .int(start + second)), FITField(0, .enumeration, .int(0)), FITField(1, .enumeration, .int(type))])
        }
        func hrv(_ times: [Int]) -> FITMessage {
            FITMessage(78, [FITField(0, .uint16, .integers(times.map { UInt64($0) }))])
        }
        writer.write(timer(0, 0))
        writer.write(record(0))
        writer.write(hrv([400, 400, 400, 400, 400]))
        writer.write(record(2))
        // Stopped at 3 s: the beats of the second before it, then 60 s standing.
        writer.write(hrv([400, 400, 400]))
        writer.write(timer(3, 4))
        for _ in 0..<60 { writer.write(hrv([1000])) }
        writer.write(timer(63, 0))
        writer.write(record(63))
        writer.write(hrv([400, 400]))
        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        let beats = activity.recording.entries.compactMap { entry -> [UInt16]? in
            guard case .notification(let n) = entry, n.characteristic == .heartRateMeasurement,
                let hr = try? HeartRateMeasurement.parse(n.bytes)
            else { return nil }
            return Array(hr.rrIntervals)
        }
        // 400 ms is 410 units: 2 s and 3 beats to the stop, the last begun before it.
        #expect(beats.joined().count == 5 + 3 + 2, "\(beats)")
        #expect(!beats.joined().contains(1024), "no beat of the stop: \(beats)")
    }

    @Test func theFileIDNamesTheWatchAndOtherFileTypesAreNoActivity() throws {
        func file(type: Int) -> [UInt8] {
            var writer = FITFileWriter()
            writer.write(
                FITMessage(
                    0, [FITField(0, .enumeration, .int(type)), FITField(1, .uint16, .int(1)), FITField(2, .uint16, .int(3121)),
                        FITField(3, .uint32, .int(3_900_000_001))]))
            writer.write(FITMessage(20, [FITField(253, .uint32, .int(1_000_000_000)), FITField(4, .uint8, .int(85))]))
            return writer.fileBytes()
        }
        #expect(try ActivityImport.readFIT(file(type: 4), file: "run.fit").creator == "fit 1/3121/3900000001")
        #expect(throws: ImportError(file: "daily.fit", message: "a FIT monitoring file, not an activity", kind: .notAnActivity)) {
            try ActivityImport.readFIT(file(type: 32), file: "daily.fit")
        }
    }

    /// A watch's `hrv` messages: five times to a message in milliseconds, invalid padding,
    /// no timestamp; their beats go with the record before them and replay as RR intervals.
    @Test func hrvMessagesReplayAsRRIntervals() throws {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        func hrv(_ times: [Int?]) -> FITMessage {
            FITMessage(78, [FITField(0, .uint16, .integers(times.map { $0.map(UInt64.init) }))])
        }
        writer.write(hrv([400, nil, nil, nil, nil]))  // before any record: the first record's
        writer.write(FITMessage(20, [FITField(253, .uint32, .int(start)), FITField(3, .uint8, .int(150))]))
        writer.write(hrv([401, 402, 403, 404, 405]))
        writer.write(hrv([406, 407, 408, 409, 410]))
        writer.write(hrv([411, nil, nil, nil, nil]))
        // A record without heart rate: its beats give one.
        writer.write(FITMessage(20, [FITField(253, .uint32, .int(start + 1))]))
        writer.write(hrv([500, 500, nil, nil, nil]))
        let records = try FITFileReader.read(writer.fileBytes())
        #expect(records[1].integers(0) == [400, nil, nil, nil, nil])

        let activity = try ActivityImport.readFIT(writer.fileBytes(), file: "run.fit")
        let beats = activity.recording.entries.compactMap { entry -> (SessionTime, UInt16, [UInt16])? in
            guard case .notification(let n) = entry, n.characteristic == .heartRateMeasurement,
                let hr = try? HeartRateMeasurement.parse(n.bytes)
            else { return nil }
            return (n.time, hr.heartRate, Array(hr.rrIntervals))
        }
        // Milliseconds back to the strap's 1/1024 s; more than nine take a second measurement.
        let units = { (ms: [Int]) in ms.map { UInt16((Double($0) * 1.024).rounded()) } }
        #expect(beats.count == 3)
        #expect(beats[0].0 == .zero && beats[0].1 == 150 && beats[0].2 == units([400] + Array(401...408)))
        #expect(beats[1].0 == .zero && beats[1].1 == 150 && beats[1].2 == units([409, 410, 411]))
        #expect(beats[2].0 == .seconds(1) && beats[2].1 == 120 && beats[2].2 == units([500, 500]))
    }
}
