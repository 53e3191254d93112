import Testing
@testable import IntervalProCore

private func parse(_ text: String, file: String = "run.jsonl") throws(RecordingError) -> (header: RecordingHeader, entries: [RecordingEntry]) {
    try RecordingParser.parse(Array(text.utf8), file: file)
}

private func recordingError(_ text: String, file: String = "run.jsonl") -> RecordingError? {
    do {
        _ = try parse(text, file: file)
        return nil
    } catch {
        return error
    }
}

private let header = #"{"intervalpro_recording":1,"devices":[{"id":"pod"}]}"#

@Suite("Recording parser")
struct RecordingParserTests {
    @Test func headerNotificationsAndEvents() throws {
        let text = """
            {"intervalpro_recording": 1, "started_at": "2024-05-01T07:00:00Z", "app": "ignored", "devices": [{"id": "AA:BB", "name": "HRM-Pro", "cadence_unit": "strides", "rssi": -60}, {"id": "CC"}, {"id": "DD", "cadence_unit": "auto"}]}

            {"t": 0.5, "dev": "AA:BB", "char": "2a53", "hex": "04 00 03 55", "rssi": -60}
            {"t": 1, "dev": "CC", "event": "connected", "extra": {"nested": [1]}}
            \t
            {"t": 1.25, "dev": "CC", "char": "00002a37-0000-1000-8000-00805f9b34fb", "hex": "0x1648"}
            {"t": 1.25, "dev": "CC", "char": "0x2A5B", "hex": ""}

            """
        let (parsedHeader, entries) = try parse(text)
        #expect(parsedHeader.startedAt == "2024-05-01T07:00:00Z")
        #expect(
            parsedHeader.devices == [
                RecordedDevice(id: "AA:BB", name: "HRM-Pro", cadenceUnit: .strides),
                RecordedDevice(id: "CC"),
                RecordedDevice(id: "DD", cadenceUnit: .auto),
            ])
        #expect(entries.count == 4)
        #expect(
            entries[0]
                == .notification(
                    RawNotification(time: .seconds(0.5), device: "AA:BB", characteristic: .rscMeasurement, bytes: [0x04, 0x00, 0x03, 0x55])))
        #expect(entries[1] == .event(time: .seconds(1), device: "CC", name: "connected"))
        guard case .notification(let hr) = entries[2], case .notification(let unknown) = entries[3] else {
            Issue.record("expected notifications")
            return
        }
        #expect(hr.characteristic == .heartRateMeasurement)
        #expect(hr.characteristicID == "00002a37-0000-1000-8000-00805f9b34fb")
        #expect(hr.bytes == [0x16, 0x48])
        #expect(hr.time == SessionTime(microseconds: 1_250_000))
        // A characteristic IntervalPro does not know is kept as written, undecoded.
        #expect(unknown.characteristic == nil)
        #expect(unknown.characteristicID == "0x2A5B")
        #expect(unknown.bytes == [])
        #expect(entries.map(\.time) == [at(0.5), at(1), at(1.25), at(1.25)])
    }

    @Test func minimalHeader() throws {
        let (parsedHeader, entries) = try parse("{\"intervalpro_recording\":1}\n")
        #expect(parsedHeader == RecordingHeader(startedAt: nil, devices: []))
        #expect(entries.isEmpty)
    }

    @Test("what a reasonable writer writes: version 1.0, a null cadence unit, a device id in another case")
    func reasonableWriters() throws {
        let text = """
            {"intervalpro_recording": 1.0, "devices": [{"id": "AA:BB:CC:DD:EE:01", "cadence_unit": "strides"}, {"id": "HR", "cadence_unit": null}]}
            {"t": 1, "dev": "aa:bb:cc:dd:ee:01", "char": "2a53", "hex": "02000355"}
            {"t": 2, "dev": "hr", "char": "2a37", "hex": "0096"}

            """
        let (parsedHeader, entries) = try parse(text)
        #expect(parsedHeader.devices == [RecordedDevice(id: "AA:BB:CC:DD:EE:01", cadenceUnit: .strides), RecordedDevice(id: "HR")])
        // The line's device is the header's, whose unit (strides) it then has.
        guard case .notification(let pod) = entries.first, case .notification(let strap) = entries.last else {
            Issue.record("\(entries)")
            return
        }
        #expect(pod.device == "AA:BB:CC:DD:EE:01")
        #expect(strap.device == "HR")
    }

    /// "none" came within version 1 (2026-11-28); a unit a later version adds so refused the
    /// whole recording here. It is decided from the readings, as "auto" is.
    @Test("a cadence unit a later version added reads as auto")
    func aLaterCadenceUnit() throws {
        let (header, entries) = try parse(#"""
            {"intervalpro_recording": 1, "devices": [{"id": "pod", "cadence_unit": "pedal_strokes"}]}
            {"t": 1, "dev": "pod", "char": "2a53", "hex": "02000355"}

            """#)
        #expect(header.devices == [RecordedDevice(id: "pod", cadenceUnit: .auto)])
        #expect(entries.count == 1)
    }

    /// Matched whatever its case, the last of two header ids that differ only in case took the
    /// lines of both: a per-foot pod's 85 strides were read as 85 steps.
    @Test("a line that names a header id exactly is that device's, though another differs only in case")
    func exactIDsBeforeCaselessOnes() throws {
        let text = """
            {"intervalpro_recording": 1, "devices": [{"id": "pod", "cadence_unit": "strides"}, {"id": "POD", "cadence_unit": "steps"}]}
            {"t": 1, "dev": "pod", "char": "2a53", "hex": "02000355"}
            {"t": 2, "dev": "POD", "char": "2a53", "hex": "020003aa"}
            {"t": 3, "dev": "Pod", "char": "2a53", "hex": "02000355"}

            """
        let (_, entries) = try parse(text)
        let devices = entries.compactMap { if case .notification(let n) = $0 { n.device } else { nil } }
        #expect(devices == ["pod", "POD", "pod"], "another spelling is the first header id's")
    }

    @Test func crlfLineEndings() throws {
        let text = header + "\r\n" + #"{"t":2,"dev":"pod","event":"disconnected"}"# + "\r\n"
        let (_, entries) = try parse(text)
        #expect(entries == [.event(time: .seconds(2), device: "pod", name: "disconnected")])
    }

    @Test func lineByLine() throws {
        var parser = RecordingParser(file: "live.jsonl")
        #expect(parser.header == nil)
        #expect(try parser.parse(line: ArraySlice("   ".utf8)) == nil)
        #expect(try parser.parse(line: ArraySlice(header.utf8)) == nil)
        #expect(parser.header?.devices == [RecordedDevice(id: "pod")])
        let entry = try parser.parse(line: ArraySlice(#"{"t":3,"dev":"pod","char":"2a19","hex":"64"}"#.utf8))
        #expect(entry == .notification(RawNotification(time: .seconds(3), device: "pod", characteristic: .batteryLevel, bytes: [100])))
        // A line earlier than the one before is taken, and counted.
        #expect(try parser.parse(line: ArraySlice(#"{"t":2,"dev":"pod","event":"x"}"#.utf8)) == .event(time: .seconds(2), device: "pod", name: "x"))
        #expect(parser.outOfOrderLines == 1)
        // Errors count every line fed so far, blank ones included.
        #expect(throws: RecordingError(file: "live.jsonl", line: 5, message: #"missing "dev" (the device id)"#)) {
            try parser.parse(line: ArraySlice(#"{"t":4}"#.utf8))
        }
    }

    /// Recording format version 1 gives every line a time and asks no order: two devices'
    /// streams merged, each in order, are read in time order (stable for equal times).
    @Test func linesOutOfOrderAreTakenInTimeOrder() throws {
        let text = [
            header,
            #"{"t":0.5,"dev":"hr","char":"2a19","hex":"01"}"#,
            #"{"t":1.5,"dev":"hr","char":"2a19","hex":"02"}"#,
            #"{"t":0.25,"dev":"pod","char":"2a19","hex":"03"}"#,
            #"{"t":1.5,"dev":"pod","char":"2a19","hex":"04"}"#,
            #"{"t":0.5,"dev":"pod","event":"connected"}"#,
        ].joined(separator: "\n")
        let recording = try RecordingParser.read(Array(text.utf8), file: "merged.jsonl")
        #expect(recording.outOfOrderLines == 2)
        #expect(recording.entries.map(\.time) == [0.25, 0.5, 0.5, 1.5, 1.5].map(SessionTime.seconds))
        // Equal times keep their file order.
        #expect(recording.entries.map(\.device) == ["pod", "hr", "pod", "hr", "pod"])
        #expect(try RecordingParser.read(Array(header.utf8), file: "empty.jsonl").outOfOrderLines == 0)
    }

    @Test("a last line cut part way ends the recording at the line before, when asked")
    func aCutLastLineIsLeftOutWhenAsked() throws {
        let whole = header + "\n" + #"{"t":0.5,"dev":"pod","char":"2a53","hex":"04000355"}"# + "\n"
        let cut = whole + #"{"t":1.5,"dev":"pod","char":"2a53","hex":"0400"#
        let read = try RecordingParser.read(Array(cut.utf8), file: "cut.jsonl", acceptingCutLastLine: true)
        #expect(read.entries.map(\.time) == [.seconds(0.5)])
        #expect(read.cutLastLine == RecordingError(file: "cut.jsonl", line: 3, message: "invalid JSON at column 42: unterminated string"))
        #expect(try RecordingParser.read(Array(whole.utf8), file: "whole.jsonl", acceptingCutLastLine: true).cutLastLine == nil)

        // Unasked, or anywhere but at the very end, such a line is an error; so is a last
        // line that is JSON but not an entry, and a cut header.
        #expect(throws: RecordingError(file: "cut.jsonl", line: 3, message: "invalid JSON at column 42: unterminated string")) {
            try RecordingParser.read(Array(cut.utf8), file: "cut.jsonl")
        }
        for (text, line, message) in [
            (cut + "\n", 3, "invalid JSON at column 42: unterminated string"),
            (whole + #"{"t":1.5,"dev":"pod"}"#, 3, #"missing "char" (the characteristic UUID) or "event""#),
            (#"{"intervalpro_recording":1,"dev"#, 1, "invalid JSON at column 28: unterminated string"),
        ] {
            #expect(throws: RecordingError(file: "cut.jsonl", line: line, message: message)) {
                try RecordingParser.read(Array(text.utf8), file: "cut.jsonl", acceptingCutLastLine: true)
            }
        }
    }

    @Test("line-numbered errors", arguments: [
        // Bad JSON: the column is 1-based within the line.
        (header + "\n" + #"{"t":1,"dev":"pod",}"#, 2, #"invalid JSON at column 20: expected a key in double quotes, found '}'"#),
        (header + "\n\n\n" + "{\"t\":1", 4, "invalid JSON at column 7: unexpected end of input inside an object"),
        ("not json", 1, "invalid JSON at column 1: invalid literal, expected 'null'"),
        ("  @", 1, "invalid JSON at column 3: unexpected '@', expected a value"),
        // A column counts from after a byte order mark, as the contract says (it was 3 on).
        ("\u{FEFF}  @", 1, "invalid JSON at column 3: unexpected '@', expected a value"),
        (header + "\n[1,2]", 2, "expected a JSON object, found an array"),
        // Missing or bad t.
        (header + "\n" + #"{"dev":"pod","event":"x"}"#, 2, #"missing "t" (seconds since the start)"#),
        (header + "\n" + #"{"t":"1","dev":"pod","event":"x"}"#, 2, #""t" must be a number of seconds from 0 to 10000000 (115 days)"#),
        (header + "\n" + #"{"t":-0.5,"dev":"pod","event":"x"}"#, 2, #""t" must be a number of seconds from 0 to 10000000 (115 days)"#),
        // Other fields.
        (header + "\n" + #"{"t":1,"event":"x"}"#, 2, #"missing "dev" (the device id)"#),
        (header + "\n" + #"{"t":1,"dev":"pod","event":7}"#, 2, #""event" must be a string"#),
        (header + "\n" + #"{"t":1,"dev":"pod","hex":"00"}"#, 2, #"missing "char" (the characteristic UUID) or "event""#),
        (header + "\n" + #"{"t":1,"dev":"pod","char":"2a53"}"#, 2, #"missing "hex" (the raw value)"#),
        (header + "\n" + #"{"t":1,"dev":"pod","char":"2a53","hex":"0g"}"#, 2, #""hex" holds characters that are not hex digits (0-9, a-f)"#),
        (header + "\n" + #"{"t":1,"dev":"pod","char":"2a53","hex":"000"}"#, 2, #""hex" is not an even number of hex digits"#),
        (header + "\n" + #"{"t":1,"dev":"pod","char":"2a53","hex":"0a0g"}"#, 2, #""hex" holds characters that are not hex digits (0-9, a-f)"#),
        (header + "\n" + #"{"t":1,"dev":"pod","char":"2a53","hex":"zz"}"#, 2, #""hex" holds characters that are not hex digits (0-9, a-f)"#),
        // Header problems.
        (#"{"t":0,"dev":"pod","event":"connected"}"#, 1, #"not an IntervalPro recording: the first line has no "intervalpro_recording" key"#),
        ("\n  \n" + #"{"t":0,"dev":"pod","event":"connected"}"#, 3, #"not an IntervalPro recording: the first line has no "intervalpro_recording" key"#),
        (#"{"intervalpro_recording":2}"#, 1, "recording format version 2 is a later IntervalPro's; this one reads version 1"),
        (#"{"intervalpro_recording":0}"#, 1, "unsupported recording version (this program reads version 1)"),
        (#"{"intervalpro_recording":"1"}"#, 1, "unsupported recording version (this program reads version 1)"),
        (#"{"intervalpro_recording":1,"devices":{}}"#, 1, #""devices" must be an array"#),
        (#"{"intervalpro_recording":1,"devices":[{"id":"a"},{"name":"b"}]}"#, 1, #"devices[1] needs an "id" string"#),
        (#"{"intervalpro_recording":1,"devices":[{"id":""}]}"#, 1, #"devices[0] needs an "id" string"#),
        (#"{"intervalpro_recording":1,"devices":[{"id":"a","cadence_unit":3}]}"#, 1,
         #"devices[0].cadence_unit must be "steps", "strides", "auto" or "none""#),
        ("", 1, "empty recording: no header line"),
        ("\n\n  \n", 1, "empty recording: no header line"),
    ] as [(String, Int, String)])
    func errors(text: String, line: Int, message: String) throws {
        let error = try #require(recordingError(text, file: "rides/run.jsonl"))
        #expect(error == RecordingError(file: "rides/run.jsonl", line: line, message: message))
        #expect(error.description == "rides/run.jsonl:\(line): \(message)")
    }

    /// The canonical line is read by a scanner of its own (RecordingLineScanner); every other
    /// shape of the same content goes through the JSON reader, and both must agree.
    @Test("the line IntervalPro writes and other shapes of it read the same", arguments: [
        #"{"t" : 12.25, "dev":"pod", "char":"2a53", "hex":"04a802ae"}"#,
        #"{"dev":"pod","t":12.25,"char":"2a53","hex":"04a802ae"}"#,
        #"{"t":1.225e1,"dev":"pod","char":"2a53","hex":"04a802ae"}"#,
        #"{"t":12.250000,"dev":"p\u006fd","char":"2a53","hex":"04A802AE"}"#,
        #"{"t":12.25,"dev":"pod","char":"2a53","hex":"0x04a802ae"}"#,
        #"{"t":12.25,"dev":"pod","char":"2a53","hex":"04:a8:02:ae","rssi":-60}"#,
    ])
    func canonicalAndOtherShapesAgree(other: String) throws {
        let canonical = #"{"t":12.250,"dev":"pod","char":"2a53","hex":"04a802ae"}"#
        let expected = RecordingEntry.notification(
            RawNotification(time: SessionTime(microseconds: 12_250_000), device: "pod", characteristicID: "2a53", bytes: [0x04, 0xA8, 0x02, 0xAE]))
        #expect(try parse(header + "\n" + canonical).entries == [expected])
        #expect(try parse(header + "\n" + other).entries == [expected])
    }

    /// Lines are found eight bytes at a time: the same ends as a byte-by-byte search, from every
    /// start, with newlines at every place in a word, bytes above 0x7F and 0x0B beside them.
    @Test func lineEndsAreWhereTheNewlinesAre() {
        var state: UInt64 = 7
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 200] {
            for _ in 0..<20 {
                let bytes: [UInt8] = (0..<length).map { _ in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return [0x0A, 0x0B, 0x09, 0x8A, 0xFF, 0x00, 0x41][Int(state >> 61) % 7]
                }
                bytes.withUnsafeBufferPointer { buffer in
                    for start in 0...length {
                        let expected = bytes[start...].firstIndex(of: 0x0A) ?? length
                        #expect(RecordingParser.lineEnd(in: buffer, from: start) == expected)
                    }
                }
            }
        }
    }

    /// The scanner reads each characteristic once and reuses what it read: lines that take
    /// turns, in every form a recording may write, read as each line alone does.
    @Test func characteristicsReadOnceReadAsEachLineAlone() throws {
        let characteristics = ["2a53", "2A37", "0x2a19", "00002a38-0000-1000-8000-00805f9b34fb", "ffff", "2a54"]
        var lines: [String] = []
        var expected: [RecordingEntry] = []
        for index in 0..<30 {
            let characteristic = characteristics[index * 7 % characteristics.count]
            let device = index % 4 == 0 ? "2a53" : "pod-\(index % 3)"
            lines.append(#"{"t":"# + "\(index)" + #","dev":""# + device + #"","char":""# + characteristic + #"","hex":"00"}"#)
            expected.append(.notification(RawNotification(
                time: .seconds(Double(index)), device: device, characteristicID: characteristic, bytes: [0])))
        }
        let entries = try parse(header + "\n" + lines.joined(separator: "\n")).entries
        #expect(entries == expected)
        #expect(entries.compactMap { if case .notification(let n) = $0 { n.characteristic } else { nil } }.count == 25)
    }

    /// The scanner reads a time's digits itself; it must give the Double that strtod (the JSON
    /// reader's conversion) gives for every decimal, the long ones too.
    @Test func canonicalTimesAreTheDoublesStrtodGives() throws {
        var generator = SystemRandomNumberGenerator()
        var times = ["0", "0.0", "0.001", "12.250", "9999999.999999", "0.1234567890123", "1.0000000000000001",
                     "123456789012.345678", "5.00000000000000000001", "0.30000000000000004"]
        for _ in 0..<5_000 {
            let whole = UInt64.random(in: 0...9_999_999, using: &generator)
            let digits = Int.random(in: 1...12, using: &generator)
            let fraction = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            times.append("\(whole).\(fraction)")
        }
        var scanner = RecordingLineScanner()
        for t in times {
            let line = #"{"t":"# + t + #","dev":"pod","char":"2a53","hex":"00"}"#
            let notification = scanner.notification(ArraySlice(line.utf8))
            let scanned = try #require(notification, "t = \(t)")
            #expect(scanned.seconds == Double(t), "t = \(t)")
        }
    }

    @Test func canonicalLinesStillRefuseWhatTheFormatRefuses() {
        #expect(recordingError(header + "\n" + #"{"t":10000000.5,"dev":"pod","char":"2a53","hex":"00"}"#)?.message
            == #""t" must be a number of seconds from 0 to 10000000 (115 days)"#)
        #expect(recordingError(header + "\n" + #"{"t":01.5,"dev":"pod","char":"2a53","hex":"00"}"#) != nil)
        #expect(recordingError(header + "\n" + #"{"t":1,"dev":"pod","char":"2a53","hex":"00"} x"#) != nil)
    }

    @Test func equalTimesAreAllowed() throws {
        let text = header + "\n" + #"{"t":1,"dev":"pod","event":"a"}"# + "\n" + #"{"t":1.0,"dev":"pod","event":"b"}"#
        #expect(try parse(text).entries.count == 2)
    }
}

@Suite("Recording writer")
struct RecordingWriterTests {
    @Test("seconds keep at least three decimals and every microsecond", arguments: [
        (Int64(0), "0.000"), (1_500_000, "1.500"), (1_230_000, "1.230"), (1_234_500, "1.2345"), (1_234_567, "1.234567"),
        (10, "0.00001"), (1, "0.000001"), (120, "0.00012"), (100_000, "0.100"), (999_999, "0.999999"), (60_000_000, "60.000"), (3_600_000_001, "3600.000001"),
    ])
    func seconds(microseconds: Int64, text: String) {
        #expect(RecordingLine.seconds(SessionTime(microseconds: microseconds)) == text)
    }

    @Test func lines() {
        let h = RecordingHeader(
            startedAt: "2024-05-01T07:00:00Z",
            devices: [RecordedDevice(id: "AA:BB", name: "Stryd", cadenceUnit: .steps), RecordedDevice(id: "CC")])
        #expect(
            RecordingLine.header(h)
                == #"{"intervalpro_recording":1,"started_at":"2024-05-01T07:00:00Z","devices":[{"id":"AA:BB","name":"Stryd","cadence_unit":"steps"},{"id":"CC"}]}"#
        )
        #expect(RecordingLine.header(RecordingHeader(startedAt: nil, devices: [])) == #"{"intervalpro_recording":1,"devices":[]}"#)
        let n = RawNotification(time: .seconds(1.5), device: "pod", characteristic: .rscMeasurement, bytes: [0x04, 0x00, 0x03, 0x5A])
        #expect(RecordingLine.entry(.notification(n)) == #"{"t":1.500,"dev":"pod","char":"2a53","hex":"0400035a"}"#)
        #expect(
            RecordingLine.entry(.event(time: SessionTime(microseconds: 12_000_001), device: "p\"d", name: "connected"))
                == #"{"t":12.000001,"dev":"p\"d","event":"connected"}"#)
    }

    @Test func roundTrip() throws {
        var generator = SeededGenerator(seed: 42)
        let h = RecordingHeader(
            startedAt: "2024-05-01T07:00:00Z",
            devices: [RecordedDevice(id: "pod", name: "Foot Pod", cadenceUnit: .strides), RecordedDevice(id: "strap", cadenceUnit: .auto)])
        var entries: [RecordingEntry] = []
        var micros: Int64 = 0
        for i in 0..<500 {
            micros += Int64.random(in: 0...2_500_000, using: &generator)
            let time = SessionTime(microseconds: micros)
            switch i % 5 {
            case 0: entries.append(.event(time: time, device: "pod", name: i == 0 ? "connected" : "tick \(i)"))
            case 1, 2:
                let m = RSCMeasurement(speedRaw: UInt16.random(in: 0...2000, using: &generator), cadence: UInt8.random(in: 0...255, using: &generator),
                                       totalDistanceRaw: i % 2 == 0 ? UInt32(i * 37) : nil, running: i % 3 == 0)
                entries.append(.notification(RawNotification(time: time, device: "pod", characteristic: .rscMeasurement, bytes: m.encoded())))
            case 3:
                let m = HeartRateMeasurement(heartRate: UInt16.random(in: 40...300, using: &generator), sensorContact: .detected, rrIntervals: [800, 812])
                entries.append(.notification(RawNotification(time: time, device: "strap", characteristic: .heartRateMeasurement, bytes: m.encoded())))
            default:
                entries.append(.notification(RawNotification(time: time, device: "strap", characteristicID: "2a5b", bytes: [0xDE, 0xAD])))
            }
        }
        // Awkward times that must survive text exactly.
        for extra: Int64 in [1, 7, 999_999, 1_000_001, 123_456_789] {
            micros += extra
            entries.append(.event(time: SessionTime(microseconds: micros), device: "pod", name: "t\(extra)"))
        }
        let text = ([RecordingLine.header(h)] + entries.map(RecordingLine.entry)).joined(separator: "\n") + "\n"
        let parsed = try parse(text)
        #expect(parsed.header == h)
        #expect(parsed.entries.count == entries.count)
        #expect(parsed.entries == entries)
    }

    @Test func everyMicrosecondInASecondSurvives() throws {
        // Exhaustive over one second's worth of fractions at a large offset, where doubles are coarsest.
        var parser = RecordingParser(file: "x")
        _ = try parser.parse(line: ArraySlice(RecordingLine.header(RecordingHeader(startedAt: nil, devices: [])).utf8))
        let base: Int64 = 9_999_000_000_000  // 9 999 000 s, just under the 1e7 s limit
        for fraction in stride(from: Int64(0), to: 1_000_000, by: 997) {
            let time = SessionTime(microseconds: base + fraction)
            let line = RecordingLine.entry(.event(time: time, device: "d", name: "e"))
            let entry = try parser.parse(line: ArraySlice(line.utf8))
            #expect(entry?.time == time, "\(line)")
        }
    }
}

@Suite struct RecordingTimeLimitTests {
    @Test func aTimeThatRoundsTo1e7SecondsIsWrittenAndReadAgain() throws {
        let text = "{\"intervalpro_recording\": 1}\n{\"t\": 9999999.9999995, \"dev\": \"pod\", \"event\": \"connected\"}\n"
        let first = try RecordingParser.read(Array(text.utf8), file: "edge.jsonl")
        #expect(first.entries.first?.time == .seconds(10_000_000))
        let written = RecordingLine.header(first.header) + "\n" + first.entries.map(RecordingLine.entry).joined(separator: "\n")
        let again = try RecordingParser.read(Array(written.utf8), file: "written.jsonl")
        #expect(again.entries == first.entries)
        #expect(throws: RecordingError.self) {
            try RecordingParser.read(Array("{\"intervalpro_recording\": 1}\n{\"t\": 10000000.5, \"dev\": \"p\", \"event\": \"x\"}".utf8), file: "f")
        }
    }

    @Test("the header's cadence units by device: only devices that declare one, the first where an id repeats")
    func cadenceUnitsByDevice() {
        let header = RecordingHeader(startedAt: nil, devices: [
            RecordedDevice(id: "A", cadenceUnit: .strides), RecordedDevice(id: "B"),
            RecordedDevice(id: "A", cadenceUnit: .steps), RecordedDevice(id: "C", cadenceUnit: .auto),
        ])
        #expect(header.cadenceUnits == ["A": .strides, "C": .auto])
        #expect(header.devices.cadenceUnits == header.cadenceUnits)
    }

    /// Notices said "00:00:5E:00:53:02 disconnected", read out in hex by a screen reader.
    @Test("a notice names a device by its name, its address added only where another has that name")
    func deviceDisplayNames() {
        let devices = [
            RecordedDevice(id: "C8:3A:35:11:22:33", name: "Polar H10"), RecordedDevice(id: "C8:3A:35:11:22:34", name: "Stryd"),
            RecordedDevice(id: "C8:3A:35:11:22:35", name: "Stryd"), RecordedDevice(id: "ant:12345", name: " "),
        ]
        #expect(devices.displayName(of: "C8:3A:35:11:22:33") == "Polar H10")
        #expect(devices.displayName(of: "C8:3A:35:11:22:35") == "Stryd (C8:3A:35:11:22:35)")
        #expect(devices.displayName(of: "ant:12345") == "ant:12345")
        #expect(devices.displayName(of: "AA:BB:CC:DD:EE:FF") == "AA:BB:CC:DD:EE:FF")
    }
}

/// The simulated runner's sensors are at RFC 7042's documentation addresses, which no real
/// device has: a recording of them only is the simulator's wherever it is replayed.
@Test("a recording's devices are the simulator's only when every one is at a documentation address")
func simulatorDevicesAreToldByTheirAddresses() {
    let simulator = [RecordedDevice(id: "00:00:5E:00:53:01"), RecordedDevice(id: "00:00:5e:00:53:02")]
    #expect(simulator.areAllSimulators)
    #expect(!(simulator + [RecordedDevice(id: "D0:5F:B8:4C:21:01")]).areAllSimulators, "a real strap beside them")
    #expect(![RecordedDevice]().areAllSimulators, "no device at all")
    #expect(!RecordedDevice(id: "00:00:5E:00:53:0").isSimulator, "not a whole address")
    #expect(!RecordedDevice(id: "watch").isSimulator)
    #expect(!RecordedDevice(id: "00:00:5E:00:54:01").isSimulator, "past the documentation range")
}
