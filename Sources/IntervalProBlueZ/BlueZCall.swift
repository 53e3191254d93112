public import IntervalProDBus

/// A method call the machine wants made on BlueZ.
public enum BlueZCall: Hashable, Sendable {
    case getManagedObjects
    /// Whether org.bluez has an owner right now (answers the start-up race).
    case nameHasOwner
    case setDiscoveryFilter(adapter: String)
    case startDiscovery(adapter: String)
    case stopDiscovery(adapter: String)
    case connect(device: String)
    case disconnect(device: String)
    case startNotify(characteristic: String)
    /// Notifications through a socket of our own (one value per packet), not D-Bus signals.
    case acquireNotify(characteristic: String)
    case stopNotify(characteristic: String)
    case readValue(characteristic: String)

    /// The method and the object it is called on, for the log: "Connect /org/bluez/hci0/dev_…".
    public var logText: String {
        switch self {
        case .getManagedObjects: "GetManagedObjects \(BlueZ.rootPath)"
        case .nameHasOwner: "NameHasOwner \(BlueZ.service)"
        case .setDiscoveryFilter(let adapter): "SetDiscoveryFilter \(adapter)"
        case .startDiscovery(let adapter): "StartDiscovery \(adapter)"
        case .stopDiscovery(let adapter): "StopDiscovery \(adapter)"
        case .connect(let device): "Connect \(device)"
        case .disconnect(let device): "Disconnect \(device)"
        case .startNotify(let characteristic): "StartNotify \(characteristic)"
        case .acquireNotify(let characteristic): "AcquireNotify \(characteristic)"
        case .stopNotify(let characteristic): "StopNotify \(characteristic)"
        case .readValue(let characteristic): "ReadValue \(characteristic)"
        }
    }

    /// The D-Bus message for this call.
    public func message() throws(DBusCallError) -> DBusMessage {
        func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws(DBusCallError)
            -> DBusMessage
        {
            try DBusMessage(methodCallTo: BlueZ.service, path: path, interface: interface, member: member, arguments: arguments)
        }
        switch self {
        case .getManagedObjects: return try call(BlueZ.rootPath, BlueZ.Interface.objectManager, "GetManagedObjects")
        case .nameHasOwner:
            return try DBusMessage(
                methodCallTo: BlueZ.Bus.service, path: BlueZ.Bus.path, interface: BlueZ.Bus.interface,
                member: "NameHasOwner", arguments: [.string(BlueZ.service)])
        case .setDiscoveryFilter(let adapter):
            let uuids = [BlueZ.heartRateService, BlueZ.runningSpeedAndCadenceService].map(BlueZ.uuid)
            return try call(
                adapter, BlueZ.Interface.adapter, "SetDiscoveryFilter",
                [.stringVariantMap([
                    ("UUIDs", .stringArray(uuids)), ("Transport", .string("le")), ("DuplicateData", .boolean(false)),
                ])])
        case .startDiscovery(let adapter): return try call(adapter, BlueZ.Interface.adapter, "StartDiscovery")
        case .stopDiscovery(let adapter): return try call(adapter, BlueZ.Interface.adapter, "StopDiscovery")
        case .connect(let device): return try call(device, BlueZ.Interface.device, "Connect")
        case .disconnect(let device): return try call(device, BlueZ.Interface.device, "Disconnect")
        case .startNotify(let characteristic):
            return try call(characteristic, BlueZ.Interface.gattCharacteristic, "StartNotify")
        case .acquireNotify(let characteristic):
            return try call(
                characteristic, BlueZ.Interface.gattCharacteristic, "AcquireNotify",
                [.stringVariantMap([])])
        case .stopNotify(let characteristic):
            return try call(characteristic, BlueZ.Interface.gattCharacteristic, "StopNotify")
        case .readValue(let characteristic):
            return try call(
                characteristic, BlueZ.Interface.gattCharacteristic, "ReadValue",
                [.stringVariantMap([])])
        }
    }
}

/// Which device should play a role: an address or a name, as the user typed it, or the
/// device remembered from an earlier session.
///
/// A named device is required: the session waits for it. A remembered one is a preference:
/// when it has not appeared while other devices offer the role, the best of those is taken.
public struct DeviceChoice: Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var isRemembered: Bool
    public init(_ text: String, remembered: Bool = false) {
        self.text = text
        self.isRemembered = remembered
    }

    public func matches(_ device: BlueZObjectTree.Device) -> Bool {
        matches(address: device.address) || (device.name?.caseInsensitiveEquals(text) ?? false)
    }

    public func matches(address: String) -> Bool { address.caseInsensitiveEquals(text) }

    /// Whether a device's name begins with the words typed, in any case: "Forerunner" for a
    /// "Forerunner 265", "HRM" for an "HRM-Pro Plus:123456". Runners type what the watch shows
    /// on its face; the name it advertises has the model or a serial number after it. Never a
    /// remembered choice, which is a whole name or an address.
    public func matchesFirstWords(of device: BlueZObjectTree.Device) -> Bool {
        guard !isRemembered, let name = device.name?.lowercased() else { return false }
        let typed = text.lowercased()
        guard name.count > typed.count, name.hasPrefix(typed), let last = typed.last, last.isLetter || last.isNumber else {
            return false
        }
        return !(name.dropFirst(typed.count).first.map { $0.isLetter || $0.isNumber } ?? true)
    }

    public var description: String { text }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
