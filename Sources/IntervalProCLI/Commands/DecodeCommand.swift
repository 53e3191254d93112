import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print what a raw GATT value means.",
        discussion: """
            CHAR is 2a37 (Heart Rate Measurement), 2a53 (RSC Measurement), 2a54 (RSC Feature), \
            2a38 (Body Sensor Location) or 2a19 (Battery Level), or the full 128-bit UUID; or an \
            ANT+ data page: ant-hr (heart rate, 8 bytes) or ant-sdm (foot pod, 8 bytes). \
            HEX is the value, e.g. `intervalpro decode 2a53 04a802ae` or `... 04 a8 02 ae`.
            """
    )

    @Argument(help: "The characteristic: 2a37, 2a53, 2a54, 2a38, 2a19 or a 128-bit UUID; or ant-hr, ant-sdm.")
    var characteristic: String

    @Argument(help: "The value in hex, in one or several pieces.")
    var hex: [String]

    @Flag(help: "Print JSON (keys carry units; absent fields are left out).")
    var json = false

    func validate() throws {
        guard DecodedValue.knows(characteristic) else {
            throw ValidationError("unknown characteristic '\(characteristic)': use 2a37, 2a53, 2a54, 2a38 or 2a19, or ant-hr or ant-sdm")
        }
        guard Hex.decode(hex.joined()) != nil else {
            throw ValidationError("'\(hex.joined(separator: " "))' is not hex: give pairs of digits like 04a802ae")
        }
    }

    func run() throws {
        try reportingFailures {
            let value = try DecodedValue(characteristic, bytes: Hex.decode(hex.joined())!)
            print(json ? value.json.serialized() : ([value.title] + value.lines.map { "  " + $0 }).joined(separator: "\n"))
        }
    }
}
