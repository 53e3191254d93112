import IntervalProCore
import IntervalProLaunch
import Testing

/// `decode`'s reading of a raw value: the JSON and the lines made from it agree.
@Suite struct DecodedValueTests {
    @Test func anRSCMeasurementReadsAsLinesOfItsJSON() throws {
        let value = try DecodedValue("2a53", bytes: [0x04, 0xA8, 0x02, 0xAE])
        #expect(value.title.contains("2A53") || value.title.contains("RSC"), "\(value.title)")
        #expect(value.lines.contains { $0.hasPrefix("cadence") }, "\(value.lines)")
        #expect(value.lines.allSatisfy { !$0.contains("_") })
        #expect(value.json.serialized().contains("cadence"))
    }

    @Test func anANTPageOfTheWrongLengthIsInvalidData() {
        #expect(DecodedValue.knows("ANT-SDM"))
        #expect(!DecodedValue.knows("2a99"))
        do {
            _ = try DecodedValue("ant-sdm", bytes: [1, 2, 3])
            Issue.record("a 3-byte page was read")
        } catch let error as LaunchError {
            #expect(error.kind == .invalidData)
            #expect(error.message.contains("8 bytes, not 3"))
        } catch {
            Issue.record("\(error)")
        }
    }
}
