import IntervalProCore
import IntervalProFIT
@testable import IntervalProFormats
import Testing

/// What a watch whose battery died leaves: a file cut anywhere, a CRC never written, a data
/// size never filled in. Read up to the damage, with a warning; refused with --strict.
struct FITSalvageTests {
    /// An activity of `seconds` record messages, one a second, cadence 85 per foot.
    static func activity(seconds: Int) -> [UInt8] {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        for second in 0..<seconds {
            writer.write(
                FITMessage(20, [FITField(253, .uint32, .int(start + second)), FITField(3, .uint8, .int(140)), FITField(4, .uint8, .int(85))]))
        }
        return writer.fileBytes()
    }

    @Test func aFileCutAtAnyByteKeepsEveryWholeMessageBeforeTheCut() throws {
        let whole = Self.activity(seconds: 20)
        let intact = try FITFileReader.read(whole)
        #expect(intact.count == 21)
        for length in 14..<(whole.count - 2) {
            let cut = Array(whole.prefix(length))
            let salvage = try FITFileReader.readSalvaging(cut)
            #expect(salvage.damage?.message == "the header announces \(whole.count - 16) bytes of messages, but the file ends first (truncated?)")
            // Exactly the messages that end at or before the cut, each as the intact file has it:
            // a header byte and the fields, 1 byte for file_id's, 4 + 1 + 1 for a record's.
            let expected = intact.filter { record in record.offset + (record.global == 0 ? 2 : 7) <= length }
            #expect(salvage.records.map(\.offset) == expected.map(\.offset), "cut at \(length)")
            #expect(zip(salvage.records, expected).allSatisfy { $0.integer(253) == $1.integer(253) && $0.integer(4) == $1.integer(4) })
            #expect(salvage.readUpTo <= length)
            #expect(throws: FITReadError.self) { try FITFileReader.read(cut) }
        }
    }

    @Test func aDamagedActivityIsReadUpToTheDamageWithAWarning() throws {
        let whole = Self.activity(seconds: 120)
        let cut = Array(whole.prefix(whole.count / 2 + 3))
        let activity = try ActivityImport.readFIT(cut, file: "battery.fit")
        let records = activity.points
        #expect(records > 50 && records < 70)
        #expect(activity.warnings.count == 1)
        let warning = try #require(activity.warnings.first).description
        #expect(warning.hasPrefix("battery.fit: byte 4: the header announces"), "\(warning)")
        #expect(warning.hasSuffix("of \(cut.count) bytes, \(records) records, \(formatClock(Double(records - 1))) (`replay --strict` refuses the file)"), "\(warning)")
        #expect(throws: ImportError(file: "battery.fit", place: "byte 4", message: "the header announces \(whole.count - 16) bytes of messages, but the file ends first (truncated?)")) {
            try ActivityImport.readFIT(cut, file: "battery.fit", choice: ActivityChoice(strict: true))
        }
    }

    /// Cut in its CRC alone, a file was said to end before its messages did.
    @Test func aFileCutInItsCRCKeepsEveryMessageAndSaysSo() throws {
        let whole = Self.activity(seconds: 30)
        for cut in [1, 2] {
            let salvage = try FITFileReader.readSalvaging(Array(whole.dropLast(cut)))
            #expect(salvage.records.count == 31)
            #expect(salvage.damage?.message == "the file ends before its 2-byte CRC: its messages are all there, unchecked")
        }
    }

    @Test func aWrongCRCOrASizeNeverWrittenKeepsEveryMessage() throws {
        let whole = Self.activity(seconds: 30)
        var wrongCRC = whole
        wrongCRC[wrongCRC.count - 1] ^= 0xFF
        let salvage = try FITFileReader.readSalvaging(wrongCRC)
        #expect(salvage.records.count == 31 && salvage.damage?.message == "file CRC does not match: the file is damaged")

        var neverClosed = whole
        for byte in 4..<8 { neverClosed[byte] = 0 }
        neverClosed[12] = 0  // a header CRC of 0: not given
        neverClosed[13] = 0
        let unsized = try FITFileReader.readSalvaging(Array(neverClosed.dropLast(2)))
        #expect(unsized.records.count == 31 && unsized.damage?.message == "the header's data size is 0: the file was never closed")
        #expect(try ActivityImport.readFIT(Array(neverClosed.dropLast(2)), file: "open.fit").points == 30)
    }

    @Test func nothingUsableIsStillRefused() {
        let whole = Self.activity(seconds: 5)
        #expect(throws: ImportError.self) { try ActivityImport.readFIT(Array(whole.prefix(16)), file: "empty.fit") }
        #expect(throws: FITReadError.self) { try FITFileReader.readSalvaging(Array(whole.prefix(10))) }
    }
}

/// What the fuzzer found once damaged files reached the activity reader: values no watch
/// records must not trap the conversions to a notification's fields.
struct FITOutlandishValuesTests {
    @Test func hugeCadenceAndBeatsOfZeroReadWithoutTrapping() throws {
        // Local 0: record with a timestamp and an 8-byte cadence (base type uint64, 0x8F).
        var body: [UInt8] = [0x40, 0, 0, 20, 0, 2, 253, 4, 0x86, 4, 8, 0x8F]
        body += [0x00, 0, 0, 0, 0x40] + [UInt8](repeating: 0x7F, count: 8)
        // Local 1: an hrv message whose beat is 0 ms, after the record.
        body += [0x41, 0, 0, 78, 0, 1, 0, 2, 0x84] + [0x01, 0, 0]
        // Local 2: a record whose timestamp is 8 bytes (uint64) and more than any uint32.
        body += [0x42, 0, 0, 20, 0, 1, 253, 8, 0x8F] + [0x02] + [UInt8](repeating: 0x7F, count: 8)
        // Local 3: a session whose start_time is 8 bytes and more than any uint32.
        body += [0x43, 0, 0, 18, 0, 1, 2, 8, 0x8F] + [0x03] + [UInt8](repeating: 0x7F, count: 8)
        let activity = try ActivityImport.readFIT(FITTests.file(body), file: "odd.fit")
        #expect(activity.points == 1)
        // Its cadence goes through the rule a leg's cadence does (one foot's, unless steps).
        #expect(activity.warnings.map(\.message) == [
            "1 record message without a timestamp left out",
            "cadence 9.187201950435738e+18 in the middle: steps per minute already, so not doubled",
        ])
        guard case .notification(let first) = activity.recording.entries.first,
            case .rsc(let rsc) = try SensorReading.decode(.rscMeasurement, first.bytes)
        else {
            Issue.record("expected an RSC notification first")
            return
        }
        #expect(rsc.cadence == 255)
    }
}
