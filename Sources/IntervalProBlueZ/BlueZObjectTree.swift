import IntervalProCore
public import IntervalProDBus

/// A local copy of BlueZ's object tree (path → interface → properties), kept current from
/// GetManagedObjects and then the ObjectManager and PropertiesChanged signals.
public struct BlueZObjectTree: Equatable, Sendable {
    public typealias Properties = [String: DBusValue]
    public private(set) var objects: [String: [String: Properties]] = [:]
    /// The last RSSI each device reported. BlueZ invalidates `RSSI` whenever discovery stops or
    /// restarts (another client leaving changes the merged filter), so a device seen a moment
    /// ago would otherwise have no signal until its next advertisement.
    private var lastRSSI: [String: Int] = [:]

    public init() {}

    /// A change to the tree, as the signals and the snapshot describe it.
    public enum Change: Equatable, Sendable {
        /// GetManagedObjects' reply (a{oa{sa{sv}}}): replaces the whole tree.
        case snapshot(DBusValue)
        case interfacesAdded(path: String, interfaces: DBusValue)
        case interfacesRemoved(path: String, interfaces: [String])
        case propertiesChanged(path: String, interface: String, changed: Properties, invalidated: [String])
        /// bluetoothd went away: nothing it exported exists any more.
        case cleared
    }

    public mutating func apply(_ change: Change) {
        switch change {
        case .snapshot(let value):
            objects = [:]
            for (path, interfaces) in value.stringKeyedEntries ?? [] {
                objects[path] = Self.interfaces(interfaces)
                rememberRSSI(of: path)
            }
            lastRSSI = lastRSSI.filter { objects[$0.key]?[BlueZ.Interface.device] != nil }
        case .interfacesAdded(let path, let interfaces):
            objects[path, default: [:]].merge(Self.interfaces(interfaces)) { _, new in new }
            rememberRSSI(of: path)
        case .interfacesRemoved(let path, let removed):
            guard var interfaces = objects[path] else { return }
            for name in removed { interfaces[name] = nil }
            objects[path] = interfaces.isEmpty ? nil : interfaces
            if interfaces[BlueZ.Interface.device] == nil { lastRSSI[path] = nil }
        case .propertiesChanged(let path, let interface, let changed, let invalidated):
            // BlueZ sends PropertiesChanged only for objects it exported; one for an
            // interface we never saw is stale and ignored.
            guard objects[path]?[interface] != nil else { return }
            objects[path]![interface]!.merge(changed) { _, new in new }
            for name in invalidated { objects[path]![interface]![name] = nil }
            rememberRSSI(of: path)
        case .cleared:
            objects = [:]
            lastRSSI = [:]
        }
    }

    private mutating func rememberRSSI(of path: String) {
        if let rssi = objects[path]?[BlueZ.Interface.device]?["RSSI"]?.integer { lastRSSI[path] = Int(rssi) }
    }

    private static func interfaces(_ value: DBusValue) -> [String: Properties] {
        Dictionary(
            (value.stringKeyedEntries ?? []).map { ($0.0, $0.1.properties ?? [:]) },
            uniquingKeysWith: { _, last in last })
    }

    // MARK: Views

    public struct Adapter: Equatable, Sendable {
        public var path: String
        public var address: String?
        public var powered: Bool
        /// rfkill holds the radio off (PowerState "off-blocked"): powering on cannot work.
        public var blocked: Bool
        public var discovering: Bool
        /// "hci0"
        public var name: String { String(path.split(separator: "/").last ?? "") }
    }

    public struct Device: Equatable, Sendable {
        public var path: String
        public var adapterPath: String
        public var address: String
        public var name: String?
        /// The signal of the last advertisement seen, kept when BlueZ invalidates it.
        public var rssi: Int?
        public var serviceUUIDs: [UInt16]
        public var connected: Bool
        public var servicesResolved: Bool
        public var batteryPercent: Int?

        public var offersHeartRate: Bool { serviceUUIDs.contains(BlueZ.heartRateService) }
        public var offersCadence: Bool { serviceUUIDs.contains(BlueZ.runningSpeedAndCadenceService) }
        public var isFitnessSensor: Bool { offersHeartRate || offersCadence }
    }

    public struct Characteristic: Equatable, Sendable {
        public var path: String
        public var uuid: UInt16
        public var flags: [String]
        public var notifying: Bool
        /// BlueZ exports `NotifyAcquired` on characteristics that AcquireNotify can serve;
        /// true while some client holds it.
        public var notifyAcquired: Bool?
    }

    public var adapters: [Adapter] {
        objects.compactMap { path, interfaces in
            guard let adapter = interfaces[BlueZ.Interface.adapter] else { return nil }
            return Adapter(
                path: path, address: adapter["Address"]?.string, powered: adapter["Powered"]?.bool ?? false,
                blocked: adapter["PowerState"]?.string == "off-blocked",
                discovering: adapter["Discovering"]?.bool ?? false)
        }.sorted { $0.path < $1.path }
    }

    public func device(at path: String) -> Device? {
        guard let device = objects[path]?[BlueZ.Interface.device], let address = device["Address"]?.string else {
            return nil
        }
        return Device(
            path: path, adapterPath: device["Adapter"]?.string ?? parent(of: path),
            // A name comes over the air, from whoever is near: shown, never obeyed by a terminal.
            address: address.uppercased(), name: (device["Name"]?.string ?? device["Alias"]?.string)?.printable,
            rssi: device["RSSI"]?.integer.map { Int($0) } ?? lastRSSI[path],
            serviceUUIDs: (device["UUIDs"]?.stringList ?? []).compactMap(BlueZ.shortUUID),
            connected: device["Connected"]?.bool ?? false,
            servicesResolved: device["ServicesResolved"]?.bool ?? false,
            batteryPercent: objects[path]?[BlueZ.Interface.battery]?["Percentage"]?.integer.map { Int($0) })
    }

    public func devices(on adapterPath: String) -> [Device] {
        objects.keys.compactMap { device(at: $0) }.filter { $0.adapterPath == adapterPath }.sorted { $0.path < $1.path }
    }

    /// The GATT characteristics BlueZ exported for a device (children of its services).
    public func characteristics(of devicePath: String) -> [Characteristic] {
        objects.compactMap { path, interfaces in
            guard path.hasPrefix(devicePath + "/"), let characteristic = interfaces[BlueZ.Interface.gattCharacteristic],
                let uuid = characteristic["UUID"]?.string.flatMap(BlueZ.shortUUID)
            else { return nil }
            return Characteristic(
                path: path, uuid: uuid, flags: characteristic["Flags"]?.stringList ?? [],
                notifying: characteristic["Notifying"]?.bool ?? false,
                notifyAcquired: characteristic["NotifyAcquired"]?.bool)
        }.sorted { $0.path < $1.path }
    }

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
