import ArgumentParser
import IntervalProANT
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct DecodeCommand: AsyncParsableCommand {
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

    /// The ANT+ profiles `decode` reads, by the name given for CHAR.
    static let antProfiles = ["ant-hr", "ant-sdm"]

    @Argument(help: "The characteristic: 2a37, 2a53, 2a54, 2a38, 2a19 or a 128-bit UUID; or ant-hr, ant-sdm.")
    var characteristic: String

    @Argument(help: "The value in hex, in one or several pieces.")
    var hex: [String]

    @Flag(help: "Print JSON (keys carry units; absent fields are left out).")
    var json = false

    func validate() throws {
        guard GATTCharacteristic(identifier: characteristic) != nil || Self.antProfiles.contains(characteristic.lowercased()) else {
            throw ValidationError("unknown characteristic '\(characteristic)': use 2a37, 2a53, 2a54, 2a38 or 2a19, or ant-hr or ant-sdm")
        }
        guard Hex.decode(hex.joined()) != nil else {
            throw ValidationError("'\(hex.joined(separator: " "))' is not hex: give pairs of digits like 04a802ae")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let bytes = Hex.decode(hex.joined())!
            if Self.antProfiles.contains(characteristic.lowercased()) { return try decodeANT(bytes) }
            let characteristic = GATTCharacteristic(identifier: characteristic)!
            let reading: SensorReading
            do {
                reading = try SensorReading.decode(characteristic, bytes)
            } catch {
                throw LaunchError("\(error) (value \(Hex.encode(bytes)))", kind: .invalidData)
            }
            if json {
                print(reading.json.serialized())
            } else {
                print(characteristic)
                for line in Self.describe(reading.json) { print("  " + line) }
            }
        }
    }

    /// An ANT+ heart-rate or foot-pod data page.
    private func decodeANT(_ bytes: [UInt8]) throws {
        let heartRate = characteristic.lowercased() == "ant-hr"
        let value: JSONValue
        do {
            value = heartRate ? try ANTPlusHeartRatePage.parse(bytes).json : try ANTPlusStrideSpeedPage.parse(bytes).json
        } catch {
            throw LaunchError(
                "an ANT+ data page is 8 bytes, not \(bytes.count) (value \(Hex.encode(bytes)))", kind: .invalidData)
        }
        if json {
            print(value.serialized())
        } else {
            print(heartRate ? "ANT+ heart rate page" : "ANT+ stride-based speed and distance page")
            for line in Self.describe(value) { print("  " + line) }
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
