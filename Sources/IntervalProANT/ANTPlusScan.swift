public import IntervalProCore

/// An ANT+ device heard while scanning: who it is, what it is, who made it.
public struct ANTPlusSighting: Equatable, Sendable {
    public var device: ANTDeviceID
    /// Its profile, when it is one IntervalPro reads (heart rate, foot pod).
    public var profile: ANTPlusProfile?
    /// From common page 80, or a heart-rate monitor's page 2 (an 8-bit id there).
    public var manufacturerID: UInt16?
    public var model: UInt16?
    public var messages: Int

    /// "ANT+ foot pod", "ANT+ heart rate", else the device type's number.
    public var kind: String {
        switch profile {
        case .strideSpeed: "ANT+ foot pod"
        case .heartRate: "ANT+ heart rate"
        case nil: "ANT+ device type \(device.type)"
        }
    }

    public var manufacturer: String? { manufacturerID.map(ANTPlusManufacturer.name) }
}

/// What a scan heard, folded page by page: one sighting per device, in the order first heard.
public struct ANTPlusScan: Sendable {
    public private(set) var sightings: [ANTPlusSighting] = []
    /// Each heart-rate monitor's page toggle bit as first heard, and whether it has changed:
    /// a legacy strap's bytes 0-3 are no page (`ANTPlusBeatTracker`).
    private var toggles: [ANTDeviceID: (first: Bool, changed: Bool)] = [:]

    public init() {}

    public mutating func heard(_ device: ANTDeviceID, page bytes: [UInt8]) {
        let index: Int
        if let known = sightings.firstIndex(where: { $0.device == device }) {
            index = known
        } else {
            sightings.append(
                ANTPlusSighting(device: device, profile: ANTPlusProfile(deviceType: device.type), messages: 0))
            index = sightings.count - 1
        }
        sightings[index].messages += 1
        if case .manufacturer(_, let manufacturer, let model) = ANTPlusCommonPage(bytes) {
            sightings[index].manufacturerID = manufacturer
            sightings[index].model = model
        } else if device.type == ANTPlusHeartRatePage.deviceType, let page = try? ANTPlusHeartRatePage.parse(bytes) {
            var toggle = toggles[device] ?? (page.toggle, false)
            toggle.changed = toggle.changed || page.toggle != toggle.first
            toggles[device] = toggle
            if toggle.changed, sightings[index].manufacturerID == nil, case .manufacturer(let id, _) = page.detail {
                sightings[index].manufacturerID = UInt16(id)
            }
        }
    }
}

/// Manufacturer ids as the FIT profile's `manufacturer` type numbers them (ANT+ devices send
/// the same ids): the makers of running sensors; others by number.
public enum ANTPlusManufacturer {
    static let names: [UInt16: String] = [
        1: "Garmin", 13: "Dynastream", 15: "Dynastream", 23: "Suunto", 32: "Wahoo Fitness", 69: "Stages Cycling",
        70: "Sigma Sport", 89: "Tacx", 95: "Stryd", 255: "development",
    ]

    public static func name(_ id: UInt16) -> String { names[id] ?? "manufacturer \(id)" }
}
