import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import Testing

/// One object in BlueZ's tree: its path and, per interface, its properties.
struct BlueZObject {
    var path: String
    var interfaces: [(name: String, properties: [(String, DBusValue)])]

    /// `a{sa{sv}}`, the shape of InterfacesAdded and of one snapshot entry.
    var interfacesValue: DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "a{sv}",
            interfaces.map { .init(.string($0.name), .stringVariantMap($0.properties)) })
    }
}

/// Builders for the objects bluetoothd exports, with the paths it gives them.
enum Fixture {
    static let hrmPro = "C8:3A:35:11:22:33"
    static let forerunner = "F0:11:22:33:44:55"
    static let unknownSensor = "AA:BB:CC:DD:EE:01"
    static let headphones = "11:22:33:44:55:66"

    static func adapterPath(_ name: String = "hci0") -> String { "/org/bluez/" + name }

    static func devicePath(_ address: String, adapter: String = "hci0") -> String {
        adapterPath(adapter) + "/dev_" + String(address.map { $0 == ":" ? "_" : $0 })
    }

    /// GetManagedObjects' reply: `a{oa{sa{sv}}}`.
    static func snapshot(_ objects: [BlueZObject]) -> DBusValue {
        .dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            objects.map { .init(.objectPath($0.path), $0.interfacesValue) })
    }

    static func adapter(_ name: String = "hci0", powered: Bool = true) -> BlueZObject {
        BlueZObject(
            path: adapterPath(name),
            interfaces: [
                (
                    BlueZ.Interface.adapter,
                    [
                        ("Address", .string("00:1A:7D:DA:71:13")), ("Powered", .boolean(powered)),
                        ("Discovering", .boolean(false)),
                    ]
                )
            ])
    }

    static func device(
        _ address: String, name: String?, rssi: Int16 = -60, services: [UInt16], connected: Bool = false,
        resolved: Bool = false, adapter: String = "hci0"
    ) -> BlueZObject {
        var properties: [(String, DBusValue)] = [
            ("Address", .string(address)), ("Adapter", .objectPath(adapterPath(adapter))),
            ("RSSI", .int16(rssi)), ("UUIDs", .stringArray(services.map(BlueZ.uuid))),
            ("Connected", .boolean(connected)), ("ServicesResolved", .boolean(resolved)),
        ]
        if let name { properties.append(("Name", .string(name))) }
        return BlueZObject(
            path: devicePath(address, adapter: adapter), interfaces: [(BlueZ.Interface.device, properties)])
    }

    static func hex4(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A GATT characteristic under a device, at bluetoothd's handle-numbered path.
    /// - Parameter acquirable: exports `NotifyAcquired` (false), as BlueZ 5.47 and later do
    ///   for characteristics that AcquireNotify can serve.
    static func characteristic(
        _ uuid: UInt16, of address: String, service: Int, handle: Int, acquirable: Bool = false
    ) -> BlueZObject {
        let servicePath = devicePath(address) + "/service" + hex4(service)
        let notifies = uuid == 0x2A37 || uuid == 0x2A53
        var properties: [(String, DBusValue)] = [
            ("UUID", .string(BlueZ.uuid(uuid))), ("Service", .objectPath(servicePath)),
            ("Flags", .stringArray(notifies ? ["notify"] : ["read"])), ("Notifying", .boolean(false)),
        ]
        if acquirable, notifies { properties.append(("NotifyAcquired", .boolean(false))) }
        return BlueZObject(
            path: servicePath + "/char" + hex4(handle), interfaces: [(BlueZ.Interface.gattCharacteristic, properties)])
    }

    /// The characteristics an HRM-Pro-like device exports once its services are resolved.
    enum Char {
        static let heartRateMeasurement = characteristic(0x2A37, of: hrmPro, service: 0x0c, handle: 0x0d)
        static let bodySensorLocation = characteristic(0x2A38, of: hrmPro, service: 0x0c, handle: 0x10)
        static let rscMeasurement = characteristic(0x2A53, of: hrmPro, service: 0x12, handle: 0x13)
        static let rscFeature = characteristic(0x2A54, of: hrmPro, service: 0x12, handle: 0x16)
        static let batteryLevel = characteristic(0x2A19, of: hrmPro, service: 0x18, handle: 0x19)
        static let all = [heartRateMeasurement, bodySensorLocation, rscMeasurement, rscFeature, batteryLevel]
    }
}

/// Drives a machine the way BlueZClient does, remembering which calls are unanswered so a
/// test can answer them by what they are.
struct Rig {
    typealias Machine = SensorLinkMachine
    var machine: Machine
    /// Calls the machine made that the test has not answered yet, oldest first.
    private(set) var outstanding: [(id: Machine.CallID, call: BlueZCall)] = []
    /// Every action so far.
    private(set) var log: [Machine.Action] = []

    init(_ configuration: Machine.Configuration = .init()) {
        machine = Machine(configuration: configuration)
    }

    @discardableResult
    mutating func handle(_ event: Machine.Event, at seconds: Double) -> [Machine.Action] {
        let actions = machine.handle(event, now: .seconds(seconds))
        for case .call(let id, let call) in actions { outstanding.append((id, call)) }
        log += actions
        return actions
    }

    @discardableResult
    mutating func tick(at seconds: Double) -> [Machine.Action] { handle(.tick, at: seconds) }

    /// Answers the oldest unanswered call equal to `call`.
    @discardableResult
    mutating func reply(
        to call: BlueZCall, _ result: Result<[DBusValue], DBusCallError> = .success([]), at seconds: Double,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [Machine.Action] {
        guard let index = outstanding.firstIndex(where: { $0.call == call }) else {
            Issue.record("the machine never asked for \(call)", sourceLocation: sourceLocation)
            return []
        }
        let id = outstanding.remove(at: index).id
        return handle(.reply(id, result), at: seconds)
    }

    @discardableResult
    mutating func fail(
        _ call: BlueZCall, _ name: DBusErrorName, _ message: String, at seconds: Double,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [Machine.Action] {
        reply(to: call, .failure(DBusCallError(name, message)), at: seconds, sourceLocation: sourceLocation)
    }

    @discardableResult
    mutating func added(_ object: BlueZObject, at seconds: Double) -> [Machine.Action] {
        handle(.tree(.interfacesAdded(path: object.path, interfaces: object.interfacesValue)), at: seconds)
    }

    @discardableResult
    mutating func removed(_ path: String, _ interfaces: [String], at seconds: Double) -> [Machine.Action] {
        handle(.tree(.interfacesRemoved(path: path, interfaces: interfaces)), at: seconds)
    }

    @discardableResult
    mutating func changed(
        _ path: String, _ interface: String, _ properties: [String: DBusValue], at seconds: Double
    ) -> [Machine.Action] {
        handle(
            .tree(.propertiesChanged(path: path, interface: interface, changed: properties, invalidated: [])),
            at: seconds)
    }

    @discardableResult
    mutating func deviceChanged(_ address: String, _ properties: [String: DBusValue], at seconds: Double) -> [Machine
        .Action]
    {
        changed(Fixture.devicePath(address), BlueZ.Interface.device, properties, at: seconds)
    }

    /// start → NameHasOwner true → GetManagedObjects with `objects`; answers the filter and
    /// StartDiscovery if they were asked for. Returns the actions of the snapshot's reply.
    @discardableResult
    mutating func bringUp(_ objects: [BlueZObject], at seconds: Double = 0) -> [Machine.Action] {
        handle(.start, at: seconds)
        reply(to: .nameHasOwner, .success([.boolean(true)]), at: seconds)
        let actions = reply(to: .getManagedObjects, .success([Fixture.snapshot(objects)]), at: seconds)
        let adapter = Fixture.adapterPath(machine.configuration.adapter ?? "hci0")
        if actions.calls.contains(.startDiscovery(adapter: adapter)) {
            reply(to: .setDiscoveryFilter(adapter: adapter), at: seconds)
            reply(to: .startDiscovery(adapter: adapter), at: seconds)
        }
        return actions
    }

    /// The device connects at `seconds` (Connected, then Connect's reply) and its services
    /// resolve half a second later.
    mutating func connectAndResolve(_ address: String, at seconds: Double) {
        deviceChanged(address, ["Connected": .boolean(true)], at: seconds)
        reply(to: .connect(device: Fixture.devicePath(address)), at: seconds)
        deviceChanged(address, ["ServicesResolved": .boolean(true)], at: seconds + 0.5)
    }

    /// Answers every unanswered call with success (a one-byte value for reads).
    @discardableResult
    mutating func answerEverything(at seconds: Double) -> [Machine.Action] {
        var actions: [Machine.Action] = []
        while let (_, call) = outstanding.first {
            if case .readValue = call {
                actions += reply(to: call, .success([.bytes([0x01])]), at: seconds)
            } else {
                actions += reply(to: call, at: seconds)
            }
        }
        return actions
    }

    /// Whether a call is still unanswered.
    func isOutstanding(_ call: BlueZCall) -> Bool { outstanding.contains { $0.call == call } }
}

extension Array where Element == SensorLinkMachine.Action {
    var calls: [BlueZCall] { compactMap { if case .call(_, let call) = $0 { call } else { nil } } }
    var statuses: [SensorLinkMachine.Status] { compactMap { if case .status(let status) = $0 { status } else { nil } } }
    /// "ADDRESS event", in order.
    var deviceEvents: [String] {
        compactMap { if case .deviceEvent(let device, let name) = $0 { device + " " + name } else { nil } }
    }
    var values: [SensorLinkMachine.Action] { filter { if case .value = $0 { true } else { false } } }

    var connects: [BlueZCall] { calls.filter { if case .connect = $0 { true } else { false } } }
    var startNotifies: [BlueZCall] { calls.filter { if case .startNotify = $0 { true } else { false } } }
    /// The characteristics StartNotify was called on, sorted: the machine subscribes a
    /// device's roles in no particular order.
    var notifiedPaths: [String] {
        calls.compactMap { if case .startNotify(let path) = $0 { path } else { nil } }.sorted()
    }
    var reads: [BlueZCall] { calls.filter { if case .readValue = $0 { true } else { false } } }
}
