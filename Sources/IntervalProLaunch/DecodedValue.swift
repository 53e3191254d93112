public import IntervalProCore

/// What `decode` makes of a raw value: a GATT characteristic's or an ANT+ data page's, as
/// JSON and as "heart rate bpm: 72"-style lines made from the same JSON, so both agree.
public struct DecodedValue: Sendable {
    /// The ANT+ profiles read, by the name given for the characteristic.
    private static let antProfiles = ["ant-hr", "ant-sdm"]

    public var title: String
    public var json: JSONValue

    /// Whether `name` is a characteristic (2a37, a 128-bit UUID, ...) or an ANT+ profile read here.
    public static func knows(_ name: String) -> Bool {
        GATTCharacteristic(identifier: name) != nil || antProfiles.contains(name.lowercased())
    }

    /// Throws (invalid data) for a value the characteristic or page cannot hold.
    public init(_ name: String, bytes: [UInt8]) throws {
        let lowered = name.lowercased()
        if Self.antProfiles.contains(lowered) {
            let heartRate = lowered == "ant-hr"
            do {
                json = heartRate ? try ANTPlusHeartRatePage.parse(bytes).json : try ANTPlusStrideSpeedPage.parse(bytes).json
            } catch {
                throw LaunchError(
                    "an ANT+ data page is 8 bytes, not \(bytes.count) (value \(Hex.encode(bytes)))", kind: .invalidData)
            }
            title = heartRate ? "ANT+ heart rate page" : "ANT+ stride-based speed and distance page"
        } else {
            guard let characteristic = GATTCharacteristic(identifier: name) else {
                throw LaunchError("unknown characteristic '\(name)'", kind: .usage)
            }
            do {
                json = try SensorReading.decode(characteristic, bytes).json
            } catch {
                throw LaunchError("\(error) (value \(Hex.encode(bytes)))", kind: .invalidData)
            }
            title = characteristic.description
        }
    }

    /// The fields one per line, keys with spaces: "heart rate bpm: 72".
    public var lines: [String] {
        guard case .object(let fields) = json else { return [json.serialized()] }
        return fields.map { key, value in
            let text: String =
                switch value {
                case .string(let s): s
                case .array(let items): items.map { $0.serialized() }.joined(separator: ", ")
                default: value.serialized()
                }
            return "\(String(key.map { $0 == "_" ? " " : $0 })): \(text)"
        }
    }
}
