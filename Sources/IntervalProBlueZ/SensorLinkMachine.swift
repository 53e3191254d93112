public import IntervalProCore
public import IntervalProDBus

/// The connection state machine for a session's sensors: adapter, discovery, choosing the
/// heart-rate and cadence devices, connecting with retries, subscribing, and coming back
/// after dropouts, a bluetoothd restart or the adapter switched off and on.
///
/// It does no I/O: a driver feeds it what BlueZ said and performs the calls it returns.
public struct SensorLinkMachine: Sendable {
    public struct Configuration: Sendable {
        /// "hci0"; nil takes the first powered adapter.
        public var adapter: String?
        public var heartRate: DeviceChoice?
        public var cadence: DeviceChoice?
        /// Only look: discover and list, never connect (`scan`).
        public var scanOnly = false
        /// After the first candidate appears, how long discovery goes on so better-ranked
        /// devices can show up before the choice is made.
        public var settleTime = SessionTime.seconds(2)
        /// How long to wait for the characteristic objects after connecting.
        public var resolveTimeout = SessionTime.seconds(15)
        /// How long discovery goes on for a role no device offers (an HR strap alone has
        /// no cadence), after the first candidate appeared.
        public var openRoleSearch = SessionTime.seconds(20)
        /// How long a remembered device may stay away while others offer its role before
        /// the best of those is taken instead.
        public var rememberedWait = SessionTime.seconds(5)
        public var retryDelays: [SessionTime] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8)]
        public var notify = NotifyMethod.auto

        public init(adapter: String? = nil, heartRate: DeviceChoice? = nil, cadence: DeviceChoice? = nil) {
            self.adapter = adapter
            self.heartRate = heartRate
            self.cadence = cadence
        }

        func choice(for role: Role) -> DeviceChoice? { role == .heartRate ? heartRate : cadence }
    }

    public typealias CallID = Int

    /// How measurements are subscribed (`--notify`).
    public enum NotifyMethod: String, Sendable, CaseIterable {
        /// AcquireNotify where the characteristic offers it (`NotifyAcquired`), StartNotify
        /// where it does not or where AcquireNotify is refused.
        case auto
        /// AcquireNotify only.
        case acquire
        /// StartNotify only: values as PropertiesChanged signals.
        case start
    }

    /// The path a characteristic's values take.
    public enum NotifyPath: String, Sendable {
        case acquired = "AcquireNotify"
        case signals = "StartNotify"
    }

    public enum Event: Sendable {
        case start
        /// org.bluez got an owner (bluetoothd started) or lost it (stopped).
        case bluezPresent(Bool)
        case tree(BlueZObjectTree.Change)
        case reply(CallID, Result<[DBusValue], DBusFailure>)
        /// Time passed (timers: settle, retries, resolve timeouts).
        case tick
        /// Unsubscribe and disconnect, then report `.stopped`.
        case stop
        /// An acquired notification socket hung up or failed; the driver has closed it.
        case socketClosed(characteristic: String)
    }

    public enum Role: String, Sendable, CaseIterable {
        case heartRate = "heart rate"
        case cadence
        var service: UInt16 { self == .heartRate ? BlueZ.heartRateService : BlueZ.runningSpeedAndCadenceService }
        var measurement: UInt16 { self == .heartRate ? 0x2A37 : 0x2A53 }
    }

    /// What the user should know; the driver decides how to show it.
    public enum Status: Equatable, Sendable {
        case waitingForBluez
        case noAdapter(requested: String?)
        case adapterOff(String)
        case adapterBlocked(String)
        case scanning
        case chose(role: Role, device: String, name: String?)
        /// The remembered device did not appear: `device` was taken in its place.
        case choseInstead(role: Role, device: String, name: String?, remembered: String)
        /// The device's services resolved without the role's service: it keeps its other
        /// roles and another device is looked for.
        case roleNotOffered(role: Role, device: String)
        case connecting(device: String, attempt: Int)
        case connectFailed(device: String, error: String, retryIn: SessionTime)
        case subscribed(device: String)
        /// Which path a measurement's values take; `refused` says why AcquireNotify was not used.
        case notifying(device: String, characteristic: UInt16, path: NotifyPath, refused: String?)
        case lost(device: String)
        case bluezRestarted
    }

    public enum Action: Equatable, Sendable {
        case call(CallID, BlueZCall)
        /// A value from a device: a notification, or a value read once after connecting.
        case value(device: String, characteristic: UInt16, bytes: [UInt8])
        /// For the recording: "connected", "disconnected".
        case deviceEvent(device: String, name: String)
        case status(Status)
        /// Read values from this acquired socket (its `mtu` bounds a value) and report them
        /// as the device's; the driver owns the descriptor from now on.
        case listen(characteristic: String, descriptor: Int32, mtu: Int, device: String, uuid: UInt16)
        /// Close the acquired socket of this characteristic (it unsubscribes).
        case release(characteristic: String)
        /// Everything is unsubscribed and disconnected (after `.stop`).
        case stopped
    }

    private enum Pending: Equatable {
        case nameHasOwner, managedObjects, filter, startDiscovery, stopDiscovery
        case connect(device: String)
        case disconnect(device: String)
        case startNotify(device: String, characteristic: String)
        case acquireNotify(device: String, characteristic: String)
        case stopNotify(characteristic: String)
        case read(device: String, uuid: UInt16)
    }

    public let configuration: Configuration
    public private(set) var tree = BlueZObjectTree()
    public private(set) var adapterPath: String?
    private(set) var links: [Link] = []
    private var pending: [CallID: Pending] = [:]
    private var nextCallID = 1
    private var bluezPresent = false
    private var discovering = false
    private var firstCandidateAt: SessionTime?
    private var stopping = false
    private var reportedStopped = false
    private var lastStatus: Status?
    /// Why there is no usable adapter (nil once one is usable).
    public private(set) var lastReportedAdapterStatus: Status? = .waitingForBluez
    /// Discovery is still looking for a device for some role.
    public private(set) var isSearching = true
    /// Characteristic path → (device address, UUID) for the values we asked for.
    private var subscriptions: [String: (String, UInt16)] = [:]
    /// Per role, the devices whose resolved services turned out not to offer it.
    public private(set) var lacking: [Role: Set<String>] = [:]
    private var rolesFreed = false

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Devices seen so far that advertise a fitness service, best first.
    public var candidates: [BlueZObjectTree.Device] {
        guard let adapterPath else { return [] }
        return tree.devices(on: adapterPath).filter(\.isFitnessSensor).sorted(by: Self.ranking)
    }

    /// The chosen devices and their roles.
    public var chosenDevices: [(address: String, name: String?, roles: Set<Role>)] {
        links.map { ($0.address, $0.name, $0.roles) }
    }

    public var isStopped: Bool { stopping && pending.isEmpty }

    // MARK: Handling events

    public mutating func handle(_ event: Event, now: SessionTime) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .start:
            report(.waitingForBluez, into: &actions)
            call(.nameHasOwner, as: .nameHasOwner, into: &actions)
        case .bluezPresent(let present):
            bluezPresent(present, now: now, into: &actions)
        case .tree(let change):
            // A notification changes nothing but a value: nothing else can move on.
            if apply(change, now: now, into: &actions) == .valueOnly { return actions }
        case .reply(let id, let result):
            guard let what = pending.removeValue(forKey: id) else { break }
            replied(what, result, now: now, into: &actions)
        case .tick:
            // Time alone moves things only while a timer runs: a retry, a resolve timeout,
            // the settle time or the search for an open role.
            guard stopping || hasRunningTimer else { return actions }
        case .stop:
            beginStop(into: &actions)
        case .socketClosed(let path):
            socketClosed(path, now: now)
        }
        if !stopping { advance(now: now, into: &actions) }
        if stopping, pending.isEmpty, !reportedStopped {
            reportedStopped = true
            actions.append(.stopped)
        }
        return actions
    }

    private mutating func bluezPresent(_ present: Bool, now: SessionTime, into actions: inout [Action]) {
        guard present != bluezPresent else { return }
        bluezPresent = present
        if present {
            call(.getManagedObjects, as: .managedObjects, into: &actions)
        } else {
            // bluetoothd is gone: its objects and our subscriptions with it. Keep the
            // choices and find the same devices again when it comes back.
            tree.apply(.cleared)
            adapterPath = nil
            discovering = false
            subscriptions = [:]
            pending = pending.filter { $0.value == .nameHasOwner }
            for i in links.indices {
                if links[i].isConnected { actions.append(.deviceEvent(device: links[i].address, name: "disconnected")) }
                for path in links[i].bluezGone() { actions.append(.release(characteristic: path)) }
            }
            lastReportedAdapterStatus = .waitingForBluez
            report(.bluezRestarted, into: &actions)
        }
    }

    private enum Applied { case valueOnly, structure }

    private mutating func apply(_ change: BlueZObjectTree.Change, now: SessionTime, into actions: inout [Action])
        -> Applied
    {
        // Values are the hot path: one per notification. Report them and skip the tree.
        if case .propertiesChanged(let path, BlueZ.Interface.gattCharacteristic, let changed, let invalidated) = change,
            let value = changed["Value"]?.byteArray
        {
            if let (device, uuid) = subscriptions[path] {
                actions.append(.value(device: device, characteristic: uuid, bytes: value))
            }
            if changed.count == 1, invalidated.isEmpty { return .valueOnly }
        }
        tree.apply(change)
        if case .interfacesRemoved(let path, let interfaces) = change, interfaces.contains(BlueZ.Interface.gattCharacteristic) {
            subscriptions[path] = nil
        }
        // Once stopping, the tree is only kept current: links report nothing more.
        if !stopping { reconcileLinks(now: now, into: &actions) }
        return .structure
    }

    private var hasRunningTimer: Bool {
        links.contains { link in
            switch link.phase {
            case .retrying, .resolving: true
            case .absent, .connecting, .subscribed: false
            }
        } || (!configuration.scanOnly && !openRoles.isEmpty && isSearching)
    }

    /// Brings each link in line with what the tree now says about its device.
    private mutating func reconcileLinks(now: SessionTime, into actions: inout [Action]) {
        for i in links.indices {
            let device = tree.device(at: links[i].path)
            let connectedNow = device?.connected ?? false
            if links[i].isConnected, !connectedNow {
                lose(link: i, now: now, into: &actions)
            } else if connectedNow, links[i].phase == .connecting {
                links[i].connected(at: now)
                actions.append(.deviceEvent(device: links[i].address, name: "connected"))
            }
            if device == nil { links[i].objectRemoved() }
        }
    }

    /// A chosen device dropped: say so, forget its subscriptions, retry soon.
    private mutating func lose(link i: Int, now: SessionTime, into actions: inout [Action]) {
        // An acquired socket ends with the link; bluetoothd hangs it up, closing it is ours.
        for path in links[i].lost(retryAt: now + configuration.retryDelays[0]) {
            actions.append(.release(characteristic: path))
        }
        // A subscription still unanswered belongs to the old link: its answer is not waited
        // for (an acquired descriptor in it is closed by the driver).
        let path = links[i].path
        pending = pending.filter { _, what in
            switch what {
            case .startNotify(path, _), .acquireNotify(path, _): false
            default: true
            }
        }
        // The subscriptions stay: on reconnecting, bluetoothd re-enables notifications by
        // itself and delivers values before ServicesResolved, ahead of our StartNotify.
        actions.append(.deviceEvent(device: links[i].address, name: "disconnected"))
        report(.lost(device: links[i].address), into: &actions)
    }

    private mutating func replied(
        _ what: Pending, _ result: Result<[DBusValue], DBusFailure>, now: SessionTime, into actions: inout [Action]
    ) {
        switch (what, result) {
        case (.nameHasOwner, .success(let values)):
            bluezPresent(values.first?.bool ?? false, now: now, into: &actions)
        case (.nameHasOwner, .failure):
            break
        case (.managedObjects, .success(let values)):
            if let snapshot = values.first { tree.apply(.snapshot(snapshot)) }
            reconcileLinks(now: now, into: &actions)
        case (.managedObjects, .failure):
            // Probably raced with bluetoothd stopping; NameOwnerChanged will tell.
            break
        case (.startDiscovery, .success):
            discovering = true
        case (.startDiscovery, .failure(let failure)):
            // InProgress means another client is already discovering: good enough.
            discovering = failure.name == .bluezInProgress
        case (.filter, _), (.stopDiscovery, _), (.stopNotify, _), (.disconnect, _):
            break
        case (.connect(let path), .success):
            guard let i = links.firstIndex(where: { $0.path == path }), links[i].phase == .connecting else { break }
            links[i].connected(at: now)
            actions.append(.deviceEvent(device: links[i].address, name: "connected"))
        case (.connect(let path), .failure(let failure)):
            guard let i = links.firstIndex(where: { $0.path == path }) else { break }
            connectFailed(link: i, failure, now: now, into: &actions)
        case (.startNotify(let device, let characteristic), .success):
            if let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1 {
                links[i].notifyStarted(characteristic, uuid: uuid)
                report(
                    .notifying(
                        device: links[i].address, characteristic: uuid, path: .signals,
                        refused: links[i].refusedAcquire[characteristic]), into: &actions)
            }
        case (.startNotify(let device, let characteristic), .failure(let failure)):
            // bluetoothd kept our notify session across a reconnect: we are subscribed.
            if failure.name == .bluezInProgress || failure.message.contains("Already notifying"),
                let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1
            {
                links[i].notifyStarted(characteristic, uuid: uuid)
            } else {
                subscriptions[characteristic] = nil
            }
        case (.acquireNotify(let device, let characteristic), .success(let values)):
            guard let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1,
                let descriptor = values.first?.fileDescriptor
            else { break }
            // BlueZ's MTU counts the 3-byte ATT header; a value is at most MTU - 3 bytes, but
            // a larger buffer costs nothing and never truncates.
            let mtu = Int(values.dropFirst().first?.integer ?? 512)
            links[i].acquired(characteristic, uuid: uuid)
            // Values now come through the socket, not as signals.
            subscriptions[characteristic] = nil
            actions.append(
                .listen(characteristic: characteristic, descriptor: descriptor, mtu: max(mtu, 23), device: links[i].address, uuid: uuid))
            report(.notifying(device: links[i].address, characteristic: uuid, path: .acquired, refused: nil), into: &actions)
        case (.acquireNotify(let device, let characteristic), .failure(let failure)):
            // Another client holds it (InProgress), or this BlueZ will not (NotSupported,
            // NotPermitted): signals instead, unless AcquireNotify was asked for alone.
            guard let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1
            else { break }
            if configuration.notify == .acquire {
                subscriptions[characteristic] = nil
                report(
                    .notifying(device: links[i].address, characteristic: uuid, path: .acquired, refused: failure.description),
                    into: &actions)
                break
            }
            links[i].acquireRefused(characteristic, reason: failure.description)
            call(
                .startNotify(characteristic: characteristic),
                as: .startNotify(device: device, characteristic: characteristic), into: &actions)
        case (.read(let device, let uuid), .success(let values)):
            if let bytes = values.first?.byteArray, let link = links.first(where: { $0.path == device }) {
                actions.append(.value(device: link.address, characteristic: uuid, bytes: bytes))
            }
        case (.read, .failure):
            break
        }
    }

    private mutating func connectFailed(link i: Int, _ failure: DBusFailure, now: SessionTime, into actions: inout [Action]) {
        if failure.name == .unknownObject || failure.name == .bluezDoesNotExist
            || failure.message.contains(BlueZFailureMessage.deviceRemoved)
        {
            // The object is gone (discovery stopped and BlueZ dropped it): find it again.
            links[i].objectGone(lingering: tree.device(at: links[i].path) != nil)
            return
        }
        let delay = links[i].connectFailed(now: now, delays: configuration.retryDelays)
        report(.connectFailed(device: links[i].address, error: failure.description, retryIn: delay), into: &actions)
    }

    // MARK: Moving forward

    /// Takes every step the current state allows: choose an adapter, discover, choose
    /// devices, connect, subscribe, retry. Called after every event.
    private mutating func advance(now: SessionTime, into actions: inout [Action]) {
        guard bluezPresent, !pending.values.contains(.managedObjects) else { return }
        guard chooseAdapter(into: &actions), let adapterPath else { return }

        // A role given up on a device that lacks it is chosen again at once (this ends:
        // every round adds to `lacking`).
        repeat {
            rolesFreed = false
            chooseDevices(now: now, into: &actions)
            if !configuration.scanOnly {
                var i = 0
                while i < links.count {
                    advanceLink(i, adapterPath: adapterPath, now: now, into: &actions)
                    if links[i].roles.isEmpty { links.remove(at: i) } else { i += 1 }
                }
            }
        } while rolesFreed

        let searching =
            openRoles.isEmpty ? false : firstCandidateAt.map { now - $0 < configuration.openRoleSearch } ?? true
        isSearching = searching
        let needDiscovery = configuration.scanOnly || searching || links.contains { $0.phase == .absent }
        if needDiscovery, !discovering, !pending.values.contains(.startDiscovery) {
            report(.scanning, into: &actions)
            call(.setDiscoveryFilter(adapter: adapterPath), as: .filter, into: &actions)
            call(.startDiscovery(adapter: adapterPath), as: .startDiscovery, into: &actions)
        } else if !needDiscovery, discovering, !links.isEmpty, links.allSatisfy({ $0.phase == .subscribed }) {
            // Discovery costs radio time and slows notifications: stop once every link is up.
            discovering = false
            call(.stopDiscovery(adapter: adapterPath), as: .stopDiscovery, into: &actions)
        }
    }

    private mutating func advanceLink(_ i: Int, adapterPath: String, now: SessionTime, into actions: inout [Action]) {
        switch links[i].phase {
        case .absent:
            // Known already, or found again (after a restart, or discovery brought it back)?
            guard let device = tree.devices(on: adapterPath).first(where: { $0.address == links[i].address }),
                links[i].canUse(device.path)
            else { return }
            links[i].found(at: device.path)
            if device.connected {
                links[i].connected(at: now)
                subscribeIfResolved(link: i, since: now, now: now, into: &actions)
            } else {
                connect(link: i, into: &actions)
            }
        case .retrying(let at) where now >= at:
            connect(link: i, into: &actions)
        case .resolving(let since):
            subscribeIfResolved(link: i, since: since, now: now, into: &actions)
        case .subscribed:
            readStaticValues(link: i, into: &actions)
        case .retrying, .connecting:
            break
        }
    }

    /// Roles no device has been chosen for yet.
    private var openRoles: [Role] {
        Role.allCases.filter { role in !links.contains { $0.roles.contains(role) } }
    }

    private mutating func chooseAdapter(into actions: inout [Action]) -> Bool {
        let adapters = tree.adapters
        let chosen: BlueZObjectTree.Adapter? =
            if let name = configuration.adapter { adapters.first { $0.name == name } }
            else { adapters.first(where: \.powered) ?? adapters.first }
        lastReportedAdapterStatus = nil
        guard let chosen else {
            lastReportedAdapterStatus = .noAdapter(requested: configuration.adapter)
            adapterPath = nil
            report(.noAdapter(requested: configuration.adapter), into: &actions)
            return false
        }
        guard chosen.powered else {
            let status: Status = chosen.blocked ? .adapterBlocked(chosen.name) : .adapterOff(chosen.name)
            lastReportedAdapterStatus = status
            adapterPath = nil
            discovering = false
            report(status, into: &actions)
            return false
        }
        if adapterPath != chosen.path {
            adapterPath = chosen.path
            discovering = chosen.discovering
        }
        return true
    }

    /// Chooses a device for each role still open: the one the user named; the remembered one,
    /// or, once it has stayed away `rememberedWait` while others offer the role, the best of
    /// those; else, once discovery has had `settleTime` since the first candidate, the
    /// best-ranked device offering the role's service.
    private mutating func chooseDevices(now: SessionTime, into actions: inout [Action]) {
        guard !configuration.scanOnly else { return }
        let open = openRoles
        guard !open.isEmpty else { return }
        let candidates = self.candidates
        if firstCandidateAt == nil, !candidates.isEmpty { firstCandidateAt = now }
        let waited = firstCandidateAt.map { now - $0 } ?? .zero
        for role in open {
            let lackingRole = lacking[role] ?? []
            let best = candidates.first { $0.serviceUUIDs.contains(role.service) && !lackingRole.contains($0.address) }
            var replaced: DeviceChoice?
            let device: BlueZObjectTree.Device?
            if let choice = configuration.choice(for: role) {
                let wanted = tree.devices(on: adapterPath ?? "").first {
                    choice.matches($0) && !lackingRole.contains($0.address)
                }
                if let wanted {
                    device = wanted
                } else if choice.isRemembered, let best,
                    waited >= configuration.rememberedWait || lackingRole.contains(where: choice.matches(address:))
                {
                    device = best
                    replaced = choice
                } else {
                    device = nil
                }
            } else {
                device = waited >= configuration.settleTime && firstCandidateAt != nil ? best : nil
            }
            guard let device else { continue }
            if let i = links.firstIndex(where: { $0.address == device.address }) {
                links[i].roles.insert(role)
                // Already up for its other role: subscribe to this role's measurement too.
                links[i].resubscribe(at: now)
            } else {
                links.append(Link(path: device.path, address: device.address, name: device.name, roles: [role]))
            }
            if let replaced {
                report(
                    .choseInstead(role: role, device: device.address, name: device.name, remembered: replaced.text),
                    into: &actions)
            } else {
                report(.chose(role: role, device: device.address, name: device.name), into: &actions)
            }
        }
    }

    private mutating func connect(link i: Int, into actions: inout [Action]) {
        links[i].connecting()
        report(.connecting(device: links[i].address, attempt: links[i].failures + 1), into: &actions)
        call(.connect(device: links[i].path), as: .connect(device: links[i].path), into: &actions)
    }

    /// Subscribes once BlueZ has exported the measurement characteristics, which can be a
    /// moment after ServicesResolved turns true. A role whose service the resolved device
    /// does not have is given up on this device, not retried.
    private mutating func subscribeIfResolved(link i: Int, since: SessionTime, now: SessionTime, into actions: inout [Action]) {
        guard let device = tree.device(at: links[i].path), device.connected else { return }
        if device.servicesResolved {
            // Once resolved, UUIDs lists the services the device really has.
            let missing = links[i].roles.filter { !device.serviceUUIDs.contains($0.service) }
            if !missing.isEmpty, give(up: missing, link: i, into: &actions) { return }
        }
        let link = links[i]
        let characteristics = tree.characteristics(of: link.path)
        let measurements = Role.allCases.filter(link.roles.contains).compactMap { role in
            characteristics.first { $0.uuid == role.measurement }
        }
        guard device.servicesResolved, measurements.count == link.roles.count else {
            if now - since >= configuration.resolveTimeout {
                // Resolved with some measurements but never the others: keep what is there.
                if device.servicesResolved, !measurements.isEmpty {
                    let missing = link.roles.filter { role in !measurements.contains { $0.uuid == role.measurement } }
                    _ = give(up: missing, link: i, into: &actions)
                    subscribeIfResolved(link: i, since: since, now: now, into: &actions)
                    return
                }
                // Never exported anything we need: start over on this device.
                call(.disconnect(device: link.path), as: .disconnect(device: link.path), into: &actions)
                actions.append(.deviceEvent(device: link.address, name: "disconnected"))
                connectFailed(
                    link: i, DBusFailure(.bluezFailed, "services never resolved"), now: now, into: &actions)
            }
            return
        }
        for characteristic in measurements where link.notifying[characteristic.path] == nil {
            // Asked already (a socket hung up while the other one's AcquireNotify is in flight).
            guard !pending.values.contains(.acquireNotify(device: link.path, characteristic: characteristic.path)),
                !pending.values.contains(.startNotify(device: link.path, characteristic: characteristic.path))
            else { continue }
            subscriptions[characteristic.path] = (link.address, characteristic.uuid)
            let acquire =
                switch configuration.notify {
                case .auto: characteristic.notifyAcquired != nil
                case .acquire: true
                case .start: false
                }
            if acquire {
                call(
                    .acquireNotify(characteristic: characteristic.path),
                    as: .acquireNotify(device: link.path, characteristic: characteristic.path), into: &actions)
            } else {
                call(
                    .startNotify(characteristic: characteristic.path),
                    as: .startNotify(device: link.path, characteristic: characteristic.path), into: &actions)
            }
        }
        readStaticValues(link: i, into: &actions)
        links[i].subscribed()
        report(.subscribed(device: link.address), into: &actions)
    }

    /// Takes `roles` away from a link whose device does not offer them, so that another
    /// device is chosen for them. A link left with no role is disconnected (and removed by
    /// `advance`); returns true then.
    private mutating func give(up roles: Set<Role>, link i: Int, into actions: inout [Action]) -> Bool {
        for role in Role.allCases where roles.contains(role) {
            lacking[role, default: []].insert(links[i].address)
            links[i].roles.remove(role)
            rolesFreed = true
            report(.roleNotOffered(role: role, device: links[i].address), into: &actions)
        }
        guard links[i].roles.isEmpty else { return false }
        let path = links[i].path
        call(.disconnect(device: path), as: .disconnect(device: path), into: &actions)
        if links[i].isConnected { actions.append(.deviceEvent(device: links[i].address, name: "disconnected")) }
        return true
    }

    /// Reads the values that do not change during a session (sensor location, RSC
    /// features, battery) once per connection, as their objects appear.
    private mutating func readStaticValues(link i: Int, into actions: inout [Action]) {
        for characteristic in tree.characteristics(of: links[i].path)
        where Self.readOnce.contains(characteristic.uuid) && links[i].markRead(characteristic.path) {
            call(
                .readValue(characteristic: characteristic.path),
                as: .read(device: links[i].path, uuid: characteristic.uuid), into: &actions)
        }
    }

    static let readOnce: Set<UInt16> = [0x2A38, 0x2A54, 0x2A19]

    /// An acquired socket hung up. With the device still connected (bluetoothd dropped our
    /// notify session, or the link blinked) acquire again; a lost link reconnects first.
    private mutating func socketClosed(_ path: String, now: SessionTime) {
        guard let i = links.firstIndex(where: { $0.acquired.contains(path) }) else { return }
        links[i].socketClosed(path, linkUp: tree.device(at: links[i].path)?.connected ?? false, now: now)
    }

    /// The next instant at which time alone moves something (a retry, a resolve timeout,
    /// the settle time, the wait for a remembered device, the end of the search for an open
    /// role), after `now`; nil when only events can. The driver ticks the machine then.
    public func nextDeadline(after now: SessionTime) -> SessionTime? {
        guard !stopping else { return nil }
        var deadlines: [SessionTime] = []
        for link in links {
            switch link.phase {
            case .retrying(let at): deadlines.append(at)
            case .resolving(let since): deadlines.append(since + configuration.resolveTimeout)
            case .absent, .connecting, .subscribed: break
            }
        }
        if !configuration.scanOnly, !openRoles.isEmpty, let first = firstCandidateAt {
            deadlines += [configuration.settleTime, configuration.rememberedWait, configuration.openRoleSearch].map {
                first + $0
            }
        }
        return deadlines.filter { $0 > now }.min()
    }

    private mutating func beginStop(into actions: inout [Action]) {
        guard !stopping else { return }
        stopping = true
        pending = [:]
        guard bluezPresent else { return }
        // Closing an acquired socket is how its notifications stop.
        for i in links.indices {
            for path in links[i].releaseAcquired() { actions.append(.release(characteristic: path)) }
        }
        for link in links {
            for path in link.notifying.keys.sorted() {
                call(.stopNotify(characteristic: path), as: .stopNotify(characteristic: path), into: &actions)
            }
            // A Connect still in flight is cancelled by Disconnect; left alone it would keep
            // the link up after we exit.
            if link.isConnected || link.phase == .connecting {
                call(.disconnect(device: link.path), as: .disconnect(device: link.path), into: &actions)
            }
        }
        subscriptions = [:]
        if discovering, let adapterPath {
            discovering = false
            call(.stopDiscovery(adapter: adapterPath), as: .stopDiscovery, into: &actions)
        }
    }

    private mutating func call(_ call: BlueZCall, as what: Pending, into actions: inout [Action]) {
        let id = nextCallID
        nextCallID += 1
        pending[id] = what
        actions.append(.call(id, call))
    }

    private mutating func report(_ status: Status, into actions: inout [Action]) {
        guard status != lastStatus else { return }
        lastStatus = status
        actions.append(.status(status))
    }
}
