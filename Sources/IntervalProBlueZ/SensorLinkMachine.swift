public import IntervalProCore

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
        /// The roles to find devices for: both, unless another source (an ANT stick) serves one.
        public var roles: Set<Role> = Set(Role.allCases)

        public init(adapter: String? = nil, heartRate: DeviceChoice? = nil, cadence: DeviceChoice? = nil) {
            self.adapter = adapter
            self.heartRate = heartRate
            self.cadence = cadence
        }

        func choice(for role: Role) -> DeviceChoice? { role == .heartRate ? heartRate : cadence }
    }

    public typealias CallID = Int

    public let configuration: Configuration
    public internal(set) var tree = BlueZObjectTree()
    public internal(set) var adapterPath: String?
    var links: [Link] = []
    var pending: [CallID: Pending] = [:]
    var nextCallID = 1
    var bluezPresent = false
    var discovering = false
    var firstCandidateAt: SessionTime?
    var stopping = false
    var reportedStopped = false
    var lastStatus: Status?
    /// Why there is no usable adapter (nil once one is usable).
    public internal(set) var lastReportedAdapterStatus: Status? = .waitingForBluez
    /// Discovery is still looking for a device for some role.
    public internal(set) var isSearching = true
    /// Characteristic path → (device address, UUID) for the values we asked for.
    var subscriptions: [String: (String, UInt16)] = [:]
    /// Per role, the devices whose resolved services turned out not to offer it.
    public internal(set) var lacking: [Role: Set<String>] = [:]
    /// Per role, the remembered devices that did not answer while others offered the role.
    var passedOver: [Role: Set<String>] = [:]
    /// bluetoothd's refusal to list its objects to this user (not in the bluetooth group): the
    /// reason there is no adapter to use, which "no Bluetooth adapter" sent looking for hardware.
    var refusal: String?
    var rolesFreed = false

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

    /// Whether bluetoothd is there is still being asked (NameHasOwner, or its object tree once
    /// it answered that it is): "waiting for bluetoothd" then means no answer yet (a slow
    /// machine), not that it is missing.
    public var isAskingForBluez: Bool { pending.values.contains { $0 == .nameHasOwner || $0 == .managedObjects } }

    // MARK: Handling events

    public mutating func handle(_ event: Event, now: SessionTime) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .start:
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

    var hasRunningTimer: Bool {
        links.contains { link in
            switch link.phase {
            case .retrying, .resolving: true
            case .absent, .queued, .connecting, .subscribed: false
            }
        } || (!configuration.scanOnly && !openRoles.isEmpty && isSearching)
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
            case .resolving(let since): deadlines += [since, since + configuration.resolveTimeout]
            case .absent, .queued, .connecting, .subscribed: break
            }
        }
        if !configuration.scanOnly, !openRoles.isEmpty, let first = firstCandidateAt {
            deadlines += [configuration.settleTime, configuration.rememberedWait, configuration.openRoleSearch].map {
                first + $0
            }
        }
        return deadlines.filter { $0 > now }.min()
    }

    // MARK: Stopping

    mutating func beginStop(into actions: inout [Action]) {
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

    // MARK: What every step uses

    mutating func call(_ call: BlueZCall, as what: Pending, into actions: inout [Action]) {
        let id = nextCallID
        nextCallID += 1
        pending[id] = what
        actions.append(.call(id, call))
    }

    mutating func report(_ status: Status, into actions: inout [Action]) {
        guard status != lastStatus else { return }
        lastStatus = status
        actions.append(.status(status))
    }
}
