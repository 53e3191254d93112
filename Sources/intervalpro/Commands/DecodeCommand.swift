import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print what a raw GATT value means.",
        discussion: """
            CHAR is 2a37 (Heart Rate Measurement), 2a53 (RSC Measurement), 2a54 (RSC Feature), \
            2a38 (Body Sensor Location) or 2a19 (Battery Level), or the full 128-bit UUID. \
            HEX is the value, e.g. `intervalpro decode 2a53 04a802ae` or `... 04 a8 02 ae`.
            """
    )

    @Argument(help: "The characteristic: 2a37, 2a53, 2a54, 2a38, 2a19 or a 128-bit UUID.")
    var characteristic: String

    @Argument(help: "The value in hex, in one or several pieces.")
    var hex: [String]

    @Flag(help: "Print JSON (keys carry units; absent fields are left out).")
    var json = false

    func validate() throws {
        guard GATTCharacteristic(identifier: characteristic) != nil else {
            throw ValidationError("unknown characteristic '\(characteristic)': use 2a37, 2a53, 2a54, 2a38 or 2a19")
        }
        guard Hex.decode(hex.joined()) != nil else {
            throw ValidationError("'\(hex.joined(separator: " "))' is not hex: give pairs of digits like 04a802ae")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let characteristic = GATTCharacteristic(identifier: characteristic)!
            let bytes = Hex.decode(hex.joined())!
            let reading: SensorReading
            do {
                reading = try SensorReading.decode(characteristic, bytes)
            } catch {
                throw Failure("\(error) (value \(Hex.encode(bytes)))", status: .dataError)
            }
            if json {
                print(reading.json.serialized())
            } else {
                print(characteristic)
                for line in Self.describe(reading.json) { print("  " + line) }
            }
        }
    }

    /// "heart_rate_bpm: 72"-style lines from the JSON form, so both outputs agree.
    static func describe(_ value: JSONValue) -> [String] {
        guard case .object(let fields) = value else { return [value.serialized()] }
        return fields.map { key, value in
            let text: String =
                switch value {
                case .string(let s): s
                case .array(let items): items.map { $0.serialized() }.joined(separator: ", ")
                default: value.serialized()
                }
            return "\(key.replacingUnderscores): \(text)"
        }
    }
}

extension String {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
