import IntervalProCore
import Testing

@testable import IntervalProFormats

@Suite("RR intervals as text")
struct RRIntervalTextTests {
    func read(_ text: String) throws(ImportError) -> [Double] {
        try RRIntervalText.read(Array(text.utf8), file: "rr.txt")
    }

    func refusal(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("one a line (Elite HRV, Kubios), many a line (Welltory), in ms or in seconds")
    func listsOfNumbers() throws {
        #expect(try read("812\n790\n\n805.5\n") == [812, 790, 805.5])
        #expect(try read("812 790  805\n") == [812, 790, 805])
        #expect(try read("812,790,805") == [812, 790, 805])
        // Seconds, as Kubios exports them: no heart beats 10 ms apart.
        #expect(try read("0.812\n0.790\n1.25\n") == [812, 790, 1250])
    }

    @Test("a table whose header names the column: Polar Sensor Logger's, HRV Logger's")
    func tablesWithAHeader() throws {
        let polar = "Phone timestamp;RR-interval [ms]\r\n2026-06-01T06:01:00.125;1051\r\n2026-06-01T06:01:01.176;1057\r\n"
        #expect(try read(polar) == [1051, 1057])
        // As HRV Logger writes it: a space after each comma, a time zone in the date, no last newline.
        let hrvLogger = "date, rr, since start\n2026-06-01 06:01:00 +0000, 1051, 0\n2026-06-01 06:01:01 +0000, 1057, 1076"
        #expect(try read(hrvLogger) == [1051, 1057])
        // A decimal comma where semicolons separate the fields; a row without a value is passed over.
        #expect(try read("time;IBI (s);\n0;0,812;\n1;;\n2;0,790;\n") == [812, 790])
        // A header quoted, as many CSV writers write one: it was "not RR intervals".
        #expect(try read("\"timestamp\",\"rr\"\n\"0\",\"1126\"\n\"1\",\"1135\"\n") == [1126, 1135])
    }

    /// A column's name quoted because it holds a space was split at the space and the file
    /// refused: "not a recording, … nor RR intervals as text".
    @Test("a quoted column name with a space or a comma in it is one name")
    func quotedNamesWithSeparators() throws {
        #expect(try read("\"RR-interval [ms]\"\n720\n707\n") == [720, 707])
        #expect(RRIntervalText.recognises(Array("\"RR-interval [ms]\"\n720\n".utf8)))
        #expect(try read("\"Phone timestamp\";\"RR-interval [ms]\"\n2026-06-01T06:01:00.125;1051\n") == [1051])
        #expect(try read("\"time, s\",\"RR interval, ms\"\n0,1126\n1.1,1135\n") == [1126, 1135])
        #expect(try read("date, \"rr (ms)\"\n2026-06-01 06:01:00, 1051\n") == [1051])
    }

    /// One interval a line with a decimal comma (a European locale's Kubios or spreadsheet
    /// export) was refused: "every line holds 2 numbers and no header names them".
    @Test("one interval a line with a decimal comma, in seconds or milliseconds; two intervals a line stay two")
    func decimalCommaOneALine() throws {
        #expect(try read("1,126\n1,135\n0,998\n") == [1126, 1135, 998])
        #expect(try read("812,5\n790,25\n") == [812.5, 790.25])
        #expect(RRIntervalText.recognises(Array("1,126\n".utf8)))
        #expect(try read("812,790") == [812, 790])
    }

    @Test("a byte order mark, CR LF, comments and blank lines are passed over")
    func whatWindowsAndAppsAdd() throws {
        #expect(try read("\u{FEFF}# exported 2026-06-01\r\n812\r\n\r\n790\r\n") == [812, 790])
        #expect(RRIntervalText.recognises(Array("\u{FEFF}812\r\n".utf8)))
        // A note after a value: it was "'#' is not an RR interval".
        #expect(try read("812 # deep breath\n790\t# 2nd\n805 806 # two\n") == [812, 790, 805, 806])
        #expect(RRIntervalText.recognises(Array("812 # first\n".utf8)))
        // A header's `#` is part of a name.
        #expect(try read("Beat #;RR\n1;812\n2;790\n") == [812, 790])
    }

    /// Notepad's "Unicode" and Excel's "Unicode text" save UTF-16 with a byte order mark: such
    /// a file was taken for "binary data".
    @Test("UTF-16 text with its byte order mark, either order, is recognised and read")
    func utf16() throws {
        let text = "# exported 2026-06-01\r\nRR\r\n812\r\n790\r\n"
        let littleEndian: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for bytes in [littleEndian, bigEndian] {
            #expect(ActivityImport.encoding(of: bytes) == .rrIntervalText)
            #expect(try RRIntervalText.read(bytes, file: "rr.txt") == [812, 790])
        }
        // Without its mark, UTF-16 is not taken for text.
        #expect(ActivityImport.encoding(of: Array(littleEndian.dropFirst(2))) == .other)
    }

    /// A 0 refused the whole file, where 1 ms was left out as no heartbeat: read, and left out
    /// as every interval under 300 ms is.
    @Test("an interval of 0 is read, to be left out as intervals under 300 ms are")
    func zeroIsAnIntervalLeftOut() throws {
        #expect(try read("812\n790\n0\n") == [812, 790, 0])
        #expect(try read("0.812\n0\n0.790\n") == [812, 0, 790])
    }

    @Test("refusals name the file, the line and what is wrong")
    func refusals() {
        #expect(refusal("812\n79x\n") == "rr.txt:2: '79x' is not an RR interval (a number of milliseconds or seconds)")
        #expect(refusal("812\n-5\n") == "rr.txt:2: '-5' is not an RR interval (a number of milliseconds or seconds)")
        // Double reads hexadecimal: "0x3ed" was 1005 ms, "0x1p10" 1024.
        #expect(refusal("812\n0x3ed\n") == "rr.txt:2: '0x3ed' is not an RR interval (a number of milliseconds or seconds)")
        #expect(refusal("812\n0x1p10\n") == "rr.txt:2: '0x1p10' is not an RR interval (a number of milliseconds or seconds)")
        #expect(RRIntervalText.number("8.12e-01") == 0.812, "numpy's savetxt writes exponents")
        // A line of damage is quoted by its first 40 characters, not whole.
        #expect(refusal("812\n" + String(repeating: "x", count: 100_000) + "\n")
            == "rr.txt:2: '\(String(repeating: "x", count: 40))…' is not an RR interval (a number of milliseconds or seconds)")
        #expect(refusal("date;HR [bpm]\n1;60\n") == "rr.txt:1: a header without a column of RR intervals (date, HR [bpm]): name that column RR")
        #expect(
            refusal("0 812\n812 790\n")
                == "rr.txt:1: every line holds 2 numbers and no header names them: which holds the RR intervals? Name its column RR in a first line")
        #expect(refusal("# nothing\n\n") == "rr.txt: the file is empty: no RR intervals in it")
        #expect(refusal("RR\n") == "rr.txt: no RR intervals in the file")
        // Heart rates, and numbers that are neither: said so, not measured as 55 ms beats.
        #expect(
            refusal("55\n56\n54\n")
                == "rr.txt: its numbers (55 in the middle) are neither milliseconds nor seconds between beats: heart rates in beats per minute? Readiness needs the RR intervals (an app's RR or IBI export)")
        #expect(refusal("12\n15\n") == "rr.txt: its numbers (15 in the middle) are neither milliseconds nor seconds between beats")
    }

    /// Read as beats lost, such a value put every beat after it past what a recording holds:
    /// the morning was "0:43 of heart-rate values", the line not named.
    @Test("an interval that puts the beats after it past the 115 days a recording holds is refused at its line")
    func intervalsPastWhatARecordingHolds() throws {
        #expect(
            refusal("812\n790\n1e308\n805\n")
                == "rr.txt:3: '1e308' puts the beats after it past the 115 days a recording holds: not an RR interval (a number of milliseconds or seconds)")
        // The same in seconds, and with a decimal comma: the total counts in milliseconds.
        #expect(refusal("0,812\n0,790\n10000000,5\n")?.hasPrefix("rr.txt:3: '10000000,5' puts the beats after it past") == true)
        // Up to the last millisecond of the 115 days, the beats are placed.
        #expect(try read("812\n\(9_999_999_188)\n") == [812, 9_999_999_188])
        #expect(refusal("812\n\(9_999_999_189)\n")?.hasPrefix("rr.txt:2:") == true)
    }

    /// An interval over the 64 s a Heart Rate Measurement can carry refused the whole morning,
    /// where one of 10 s was beats lost, as the docs say of every interval over 2 s.
    @Test("a pause of over a minute is beats lost, as a shorter one is: the beats go on at their time")
    func longPausesAreBeatsLost() throws {
        #expect(try read("812\n70000\n812\n") == [812, 70000, 812])
        let recording = RRIntervalText.recording([812, 70000, 812])
        let beats = recording.entries.compactMap { entry -> (Double, [UInt16])? in
            guard case .notification(let raw) = entry, let rate = try? HeartRateMeasurement.parse(raw.bytes) else { return nil }
            return (raw.time.seconds, Array(rate.rrIntervals))
        }.filter { !$0.1.isEmpty }
        #expect(beats.map(\.1) == [[831], [UInt16.max], [831]])
        #expect(abs((beats.last?.0 ?? 0) - 71.624) < 0.001, "the beat after the pause at its own time")
    }

    /// Held as a watch's point is, the beat before a gap of 10 s was sent again each second:
    /// a strap that kept sending, where none was timing beats.
    @Test("nothing is sent within a gap longer than a heartbeat, up to the 25 s a watch's point is held")
    func gapsAreSilent() {
        for gap in [2_100.0, 10_000, 24_000] {
            let times = RRIntervalText.recording([812, 812, gap, 812]).entries.map(\.time.seconds)
            #expect(!times.contains { $0 > 1.625 && $0 < 1.624 + gap / 1000 }, "gap \(gap): \(times)")
            #expect(times.count == 5)
        }
    }

    @Test("only text that starts with numbers or an RR header is taken for RR intervals")
    func recognises() {
        #expect(RRIntervalText.recognises(Array("812\n".utf8)))
        #expect(RRIntervalText.recognises(Array("Phone timestamp;RR-interval [ms]\n".utf8)))
        #expect(!RRIntervalText.recognises(Array("date,hr\n1,60\n".utf8)))
        #expect(!RRIntervalText.recognises(Array("hello\n".utf8)))
        #expect(!RRIntervalText.recognises([]))
        #expect(ActivityImport.encoding(of: Array("812\n790\n".utf8)) == .rrIntervalText)
        #expect(ActivityImport.encoding(of: Array("{\"intervalpro_recording\":1}\n".utf8)) == .recording)
        // Neither: a file of another kind, said by how it begins.
        #expect(ActivityImport.encoding(of: Array("hello\n".utf8)) == .other)
        // An HTML page begins with "<" but is no TCX or GPX.
        #expect(ActivityImport.encoding(of: Array("\u{FEFF}\n <!DOCTYPE html>\n<html>".utf8)) == .other)
        #expect(ActivityImport.encoding(of: Array("<HTML><body></body></HTML>".utf8)) == .other)
        #expect(ActivityImport.encoding(of: Array("<?xml version=\"1.0\"?><gpx/>".utf8)) == .markup)
        #expect(ActivityImport.encoding(of: []) == .recording)
    }

    @Test("a file of another kind is said by how it begins: its first line, or binary data")
    func openingOfAnotherKindOfFile() {
        let polarHR = "Phone timestamp;sensor timestamp [ns];HR [bpm];HRV [ms];Breathing interval [rpm];\n2026-06-01T06:01:00;1;60;;\n"
        #expect(ActivityImport.opening(Array(polarHR.utf8)) == "it begins \"Phone timestamp;sensor timestamp [ns];HR…\"")
        #expect(ActivityImport.opening(Array("\u{FEFF}  Date,Name\r\n".utf8)) == "it begins \"Date,Name\"")
        #expect(ActivityImport.opening([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46]) == "binary data")
        // Cut at 200 bytes inside a character: still text.
        #expect(ActivityImport.opening(Array((String(repeating: "a", count: 199) + "é").utf8)) == "it begins \"\(String(repeating: "a", count: 40))…\"")
    }

    @Test("a value at the first beat, then each beat a Heart Rate Measurement at the time it ended, in 1/1024 s, with its rate")
    func asAStrapWouldSendThem() throws {
        let recording = RRIntervalText.recording([1000, 800, 1250.5])
        let sent = try recording.entries.map { entry in
            guard case .notification(let notification) = entry, notification.characteristic == .heartRateMeasurement else {
                throw ImportError(file: "", message: "not a Heart Rate Measurement: \(entry)")
            }
            return (notification.time, try HeartRateMeasurement.parse(notification.bytes))
        }
        #expect(sent.map(\.0) == [.zero, SessionTime(microseconds: 1_000_000), SessionTime(microseconds: 1_800_000), SessionTime(microseconds: 3_050_500)])
        #expect(sent.map(\.1.rrIntervals) == [[], [1024], [819], [1281]])
        #expect(sent.map(\.1.heartRate) == [60, 60, 75, 48])
        #expect(recording.header.devices == [RRIntervalText.device])
        #expect(recording.header.startedAt == nil, "the text does not say when")
    }

    @Test("a table's column of times says when its beats were taken: Polar Sensor Logger's, HRV Logger's; numbers alone do not")
    func timeWrittenInATable() {
        #expect(RRIntervalText.timeWritten(Array("Phone timestamp;RR-interval [ms]\r\n2026-11-20T06:30:01.243;1120\r\n".utf8)) == "2026-11-20T06:30:01.243")
        #expect(RRIntervalText.timeWritten(Array("date,rr,since start\n2026-11-20 06:30:01,1120,1120\n".utf8)) == "2026-11-20 06:30:01")
        // HRV Logger's own, its zone after a space: it was undated, and filed under the day it was read.
        #expect(RRIntervalText.timeWritten(Array("date, rr, since start\n2026-11-22 06:30:00 +0900, 991, 0".utf8)) == "2026-11-22 06:30:00+09:00")
        #expect(RRIntervalText.timeWritten(Array("date,rr\n2026-11-22 06:30:00 -05:00,991\n".utf8)) == "2026-11-22 06:30:00-05:00")
        #expect(RRIntervalText.timeWritten(Array("812\n790\n".utf8)) == nil)
        #expect(RRIntervalText.timeWritten(Array("RR\n812\n".utf8)) == nil)
        #expect(RRIntervalText.recording([812], startedAt: "2026-11-20 06:30:01").header.startedAt == "2026-11-20 06:30:01")
    }

    @Test("the local time in an app's file name: Elite HRV's and Polar Sensor Logger's; none in other names")
    func timeInName() {
        let elite = RRIntervalText.NamedTime(year: 2026, month: 11, day: 25, hour: 6, minute: 30, second: 5)
        #expect(RRIntervalText.time(inName: "Elite HRV/2026-11-25 06-30-05.txt") == elite)
        #expect(RRIntervalText.time(inName: "export.zip (readings/2026-11-25_06:30:05.txt)") == elite)
        #expect(RRIntervalText.time(inName: "2026-11-25T06.30.05.csv") == elite)
        #expect(RRIntervalText.time(inName: "Polar_H10_A1B2C3D4_20261125_063005_RR.txt") == elite)
        #expect(elite.date == "2026-11-25")
        // The file's own name wins over its folder's.
        #expect(RRIntervalText.time(inName: "2025-01-01 00-00-00/2026-11-25 06-30-05.txt") == elite)
        for name in [
            "morning.txt", "2026-11-25.txt", "2026-02-30 06-30-05.txt", "2026-11-25 25-30-05.txt", "2026-11-25 06-30:05.txt",
            "RR_1234567890_123456.txt", "20261125063005.txt",
        ] {
            #expect(RRIntervalText.time(inName: name) == nil, "\(name)")
        }
        #expect(elite.text == "2026-11-25 06:30:05")
    }

    /// "2026-02-30 06-30-00.txt" was said to hold no date, which sent the reader looking for one.
    @Test("a name written with a date or time that does not exist is told from a name without one")
    func impossibleTimeInName() {
        #expect(RRIntervalText.impossibleTime(inName: "2026-02-30 06-30-05.txt")?.text == "2026-02-30 06:30:05")
        #expect(RRIntervalText.impossibleTime(inName: "Polar_H10_A1B2C3D4_20261125_253005_RR.txt")?.text == "2026-11-25 25:30:05")
        // A real one anywhere in the name is the name's time: nothing impossible to say.
        #expect(RRIntervalText.impossibleTime(inName: "2026-02-30 06-30-05/2026-11-25 06-30-05.txt") == nil)
        #expect(RRIntervalText.impossibleTime(inName: "morning.txt") == nil)
        #expect(RRIntervalText.impossibleTime(inName: "2026-11-25 06-30-05.txt") == nil)
    }
}
