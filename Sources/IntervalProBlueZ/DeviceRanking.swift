extension SensorLinkMachine {
    /// Name patterns of running watches and sensors, for ranking when nothing was named.
    static let knownNames = [
        "forerunner", "fenix", "garmin", "hrm", "venu", "instinct", "epix", "enduro", "vivoactive", "stryd",
        "polar", "wahoo", "tickr", "runpod", "coros", "suunto", "zwift",
    ]

    static func ranking(_ a: BlueZObjectTree.Device, _ b: BlueZObjectTree.Device) -> Bool {
        func known(_ device: BlueZObjectTree.Device) -> Bool {
            guard let name = device.name?.lowercased() else { return false }
            return knownNames.contains { name.contains($0) }
        }
        if known(a) != known(b) { return known(a) }
        if (a.rssi ?? -127) != (b.rssi ?? -127) { return (a.rssi ?? -127) > (b.rssi ?? -127) }
        return a.address < b.address
    }
}
