public import IntervalProCore
import IntervalProDBus
public import IntervalProEventLoop
public import IntervalProRuntime
import Synchronization

/// Live sensors for one session or recording: runs the BlueZ client on an event loop of its
/// own, waits for the chosen devices to be subscribed, then feeds every value into a
/// `LiveFeed` as a timestamped raw notification, the same record a replay reads.
///
/// A session on these sensors runs on the same loop (`run`): a value and the engine's
/// answer to it take one wake-up of one thread.
public final class LiveSensors: Sendable {
    public let feed: LiveFeed
    public let loop: EventLoop
    /// Raised on the loop whenever the feed has something new, or a key or signal arrived.
    public let arrivals: LoopCondition
    /// Raised on the loop whenever the link state changed (not for values).
    private let changed: LoopCondition
    private let client: BlueZClient
    private let status: @Sendable (SensorLinkMachine.Status, _ line: String?) -> Void
    /// The names the chosen devices advertised, by address: the lines after name them so (a
    /// screen reader read "C8:3A:35:11:22:33: signal lost, reconnecting" out in hex).
    private let deviceNames = DeviceNames()

    /// - Parameters:
    ///   - clock: monotonic time (injected): stamps values and drives the client's timers.
    ///   - status: called on the loop's thread with what the user should know until the
    ///     session begins, and the line that says it (nil for progress alone); after that it
    ///     reaches the session as a notice.
    ///   - coalescing: for a recording, the window in which acquired values are read
    ///     together (see `BlueZClient`); zero for a session, which takes each at once.
    ///   - trace: takes the `-v` log (see `BlueZClient`).
    public init(
        configuration: SensorLinkMachine.Configuration, connect: @escaping BlueZClient.Connect,
        coalescing: Duration = .zero, trace: BlueZClient.Trace? = nil, clock: @escaping @Sendable () -> Duration,
        status: @escaping @Sendable (SensorLinkMachine.Status, _ line: String?) -> Void
    ) throws(EventLoopError) {
        let loop = try EventLoop(name: "intervalpro-live")
        self.loop = loop
        feed = LiveFeed(clock: clock)
        arrivals = LoopCondition(loop: loop)
        changed = LoopCondition(loop: loop)
        self.status = status
        client = BlueZClient(
            configuration: configuration, loop: loop, connect: connect, coalescing: coalescing, trace: trace,
            now: { SessionTime(microseconds: Int64(clock() / .microseconds(1))) })
    }

    deinit { loop.shutdown() }

    /// What waiting for sensors ended with.
    public enum Readiness: Sendable, Equatable {
        /// Every chosen device is subscribed (or, at the deadline, those that are).
        case ready([RecordedDevice])
        case noAdapter(String)
        case noSensor
        /// The user stopped it (`Interrupt`); `stop()` then disconnects what was connecting.
        case interrupted
    }

    /// Ctrl-C while connecting: `descriptor` turns readable when it comes (`drain` empties it),
    /// and `raised` says whether it came. Killed by it instead, the process left a sensor it was
    /// connecting connected to the computer, out of reach of the runner's watch or phone.
    public struct Interrupt: Sendable {
        public var descriptor: Int32
        public var drain: @Sendable () -> Void
        public var raised: @Sendable () -> Bool

        public init(descriptor: Int32, drain: @escaping @Sendable () -> Void, raised: @escaping @Sendable () -> Bool) {
            self.descriptor = descriptor
            self.drain = drain
            self.raised = raised
        }
    }

    /// Starts the client; what it reports reaches the feed (values, device events) and
    /// `status`. Throws when the system bus cannot be reached.
    private func startClient() throws {
        let (feed, arrivals, changed, status, deviceNames) = (self.feed, self.arrivals, self.changed, self.status, self.deviceNames)
        try client.start { action, receivedAt in
            // A recording's values and events come with when they arrived; a session's, now.
            func push(_ entry: (SessionTime) -> RecordingEntry) {
                if let receivedAt { feed.push(stampedAt: .microseconds(receivedAt.microseconds), entry) } else { feed.push(entry) }
            }
            switch action {
            case .value(let device, let characteristic, let bytes):
                let entry = { (time: SessionTime) -> RecordingEntry in
                    .notification(
                        GATTCharacteristic(rawValue: characteristic).map {
                            RawNotification(time: time, device: device, characteristic: $0, bytes: bytes)
                        }
                            ?? RawNotification(
                                time: time, device: device, characteristicID: BluetoothUUID.shortText(characteristic),
                                bytes: bytes))
                }
                push(entry)
                arrivals.raise()
            case .deviceEvent(let device, let name):
                push { time in .event(time: time, device: device, name: name) }
                arrivals.raise()
                changed.raise()
            case .status(let value):
                deviceNames.remember(value)
                let line = value.message(naming: deviceNames.name(of:))
                // Once the session or recording has begun, its screen or log says it; which
                // D-Bus call carries a characteristic after a reconnection is said where the
                // connection's lines go (stderr, the journal): the page kept "…: 2a53 through
                // AcquireNotify" under its buttons to the end, as the runner's news.
                if !feed.hasBegun || !value.isNews {
                    status(value, line)
                } else if let text = line {
                    feed.notice(text)
                    arrivals.raise()
                }
                changed.raise()
            case .stopped:
                changed.raise()
                arrivals.raise()
            case .call, .listen, .release:
                break
            }
        }
    }

    /// Connects and waits until the chosen devices are subscribed, at most `timeout`, or until
    /// `interrupt` is raised. Throws when the system bus cannot be reached.
    public func connect(timeout: Duration, interrupt: Interrupt? = nil) async throws -> Readiness {
        try startClient()
        if let interrupt { changed.raise(whenReadable: interrupt.descriptor, drain: interrupt.drain) }
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + timeout
        // Once one device is up, a second one still connecting or resolving is waited for
        // (a slow link is not a missing one); one that is not gets a moment to start.
        let secondDeviceGrace = Duration.seconds(5)
        var firstReadyAt: ContinuousClock.Instant?
        while true {
            let client = self.client
            let machine = await loop.submit { client.machine }
            if let failure = client.failure { throw failure }
            if interrupt?.raised() ?? false { return .interrupted }
            let now = clock.now
            let subscribed = machine.subscribedDevices
            if !subscribed.isEmpty, firstReadyAt == nil { firstReadyAt = now }
            let allUp = !subscribed.isEmpty && subscribed.count == machine.chosenDevices.count && !machine.isSearching
            let graceOver =
                !machine.isBringingUpChosenDevice && (firstReadyAt.map { now - $0 >= secondDeviceGrace } ?? false)
            // At the deadline, what is up is what there is: a session goes on with it.
            if allUp || graceOver || (now >= deadline && !subscribed.isEmpty) {
                return .ready(
                    subscribed.map { device in
                        RecordedDevice(
                            id: device.address, name: device.name,
                            cadenceUnit: device.roles.contains(.cadence) ? .auto : nil)
                    })
            }
            // bluetoothd not running at all: no point waiting out the whole timeout.
            let bluezCheck = started + .seconds(3)
            let bluezMissing =
                machine.lastReportedAdapterStatus == .waitingForBluez && !machine.isAskingForBluez && now >= bluezCheck
            // Refused by bluetoothd's policy: no wait changes that either.
            let refused = if case .notPermitted? = machine.lastReportedAdapterStatus { true } else { false }
            // No adapter, or one off or blocked, after the same moment: what brings one (a dongle,
            // `bluetoothctl power on`, `rfkill unblock`) is the runner's to do, and a run waited
            // out the whole scan for it (20 s) before its fallback.
            let adapterMissing = Self.isAdapterMissing(machine.lastReportedAdapterStatus) && now >= bluezCheck
            if now >= deadline || bluezMissing || refused || adapterMissing {
                if let reason = machine.adapterProblem { return .noAdapter(reason) }
                return .noSensor
            }
            // Wait for the next change, or the next instant at which the answer changes by time.
            var wakeAt = deadline
            if let firstReadyAt { wakeAt = min(wakeAt, firstReadyAt + secondDeviceGrace) }
            if machine.lastReportedAdapterStatus == .waitingForBluez || Self.isAdapterMissing(machine.lastReportedAdapterStatus),
                now < bluezCheck
            {
                wakeAt = min(wakeAt, bluezCheck)
            }
            await changed.wait(timeout: max(.zero, now.duration(to: wakeAt)))
        }
    }

    /// No adapter to scan with: none, or one off or blocked.
    static func isAdapterMissing(_ status: SensorLinkMachine.Status?) -> Bool {
        switch status {
        case .noAdapter?, .adapterOff?, .adapterBlocked?: true
        default: false
        }
    }

    /// Starts the client for looking only (scan); `machine()` shows what it found.
    public func startScan() throws { try startClient() }

    /// Waits until the link state changes or `timeout` passes.
    public func waitForChange(timeout: Duration) async { await changed.wait(timeout: timeout) }

    /// The machine's state now: devices found, choices, adapter (not for the hot path).
    public func machine() async -> SensorLinkMachine {
        let client = self.client
        return await loop.submit { client.machine }
    }

    /// Puts into the feed what a coalescing window still holds (before a recording stops).
    public func readWaitingValues() async {
        let client = self.client
        await loop.submit { client.readWaitingValues() }
    }

    /// Unsubscribes, disconnects and stops the client.
    public func stop() async { await client.stop() }

    /// Wakes whoever waits on `arrivals` when `descriptor` is readable: the terminal (keys),
    /// the interrupt pipe. `drain` empties it (the keys are left for their reader).
    public func wakeOnInput(_ descriptor: Int32, drain: (@Sendable () -> Void)? = nil) {
        arrivals.raise(whenReadable: descriptor, drain: drain)
    }

    /// Runs `body` (a session, a recording) on the loop's thread, so that what wakes it and
    /// what it does take one thread's wake-up.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(loop) { try await body() }
    }
}

/// The session source for live sensors: what the feed has, when it has it.
public struct LiveSource: SessionSource {
    public let feed: LiveFeed
    public let arrivals: LoopCondition
    public let devices: [RecordedDevice]

    public init(sensors: LiveSensors, devices: [RecordedDevice]) {
        self.init(feed: sensors.feed, arrivals: sensors.arrivals, devices: devices)
    }

    /// Any feed raised on `arrivals`: an ANT stick's as well as BlueZ's.
    public init(feed: LiveFeed, arrivals: LoopCondition, devices: [RecordedDevice]) {
        self.feed = feed
        self.arrivals = arrivals
        self.devices = devices
    }

    public var kind: SessionSourceKind { .live }
    public var isLive: Bool { true }
    public mutating func next() async throws -> RecordingEntry? { nil }
    public mutating func wait(timeout: Duration?) async -> LivePoll {
        await arrivals.wait(timeout: timeout)
        return feed.poll()
    }
}

extension SensorLinkMachine {
    /// Devices whose measurements are subscribed.
    public var subscribedDevices: [(address: String, name: String?, roles: Set<Role>)] {
        links.filter { $0.phase == .subscribed }.map { ($0.address, $0.name, $0.roles) }
    }

    /// A chosen device is on its way up: waiting its turn to connect, connecting, connected
    /// and resolving its services, or waiting to retry after its link dropped on the way up
    /// (a device that has never connected only waits for its retry).
    public var isBringingUpChosenDevice: Bool {
        links.contains { link in
            switch link.phase {
            case .queued, .connecting, .resolving: true
            case .retrying: link.droppedBeforeSubscribing
            case .absent, .subscribed: false
            }
        }
    }

    /// Why no adapter can be used, if that is the trouble.
    public var adapterProblem: String? {
        if case .noAdapter(let requested)? = lastReportedAdapterStatus {
            return requested.map { "no Bluetooth adapter named \($0)" } ?? "no Bluetooth adapter found"
        }
        if case .adapterOff(let name)? = lastReportedAdapterStatus {
            return "the Bluetooth adapter \(name) is powered off (bluetoothctl power on; rfkill unblock bluetooth)"
        }
        if case .adapterBlocked(let name)? = lastReportedAdapterStatus {
            return "the Bluetooth adapter \(name) is blocked by rfkill (rfkill unblock bluetooth)"
        }
        if case .waitingForBluez? = lastReportedAdapterStatus { return "bluetoothd is not running (org.bluez is not on the system bus)" }
        if case .notPermitted(let refusal)? = lastReportedAdapterStatus { return Self.notPermitted(refusal) }
        return nil
    }

    public var adapterName: String? { adapterPath.map { String($0.split(separator: "/").last ?? "") } }

    /// What `doctor` says of it too: the fix is the group, not the hardware.
    static func notPermitted(_ refusal: String) -> String {
        "bluetoothd refuses this user (\(refusal)): sudo usermod -aG bluetooth $USER, then log in again"
    }
}

extension SensorLinkMachine.Replacement {
    func text(for role: SensorLinkMachine.Role) -> String {
        switch self {
        case .notInRange: "is not in range"
        case .offersNoRole: "offers no \(role.rawValue)"
        case .notAnswering: "does not answer"
        }
    }
}

/// The devices chosen so far, with the names they advertised, as the statuses that choose them
/// say: a line names them as the session's notices do (`[RecordedDevice].displayName(of:)`).
private final class DeviceNames: Sendable {
    private let devices = Mutex<[RecordedDevice]>([])

    func remember(_ status: SensorLinkMachine.Status) {
        switch status {
        case .chose(_, let device, let name?), .choseInstead(_, let device, let name?, _, _):
            guard !name.trimmingWhitespace.isEmpty else { return }
            devices.withLock { devices in
                devices.removeAll { $0.id == device }
                devices.append(RecordedDevice(id: device, name: name))
            }
        default: break
        }
    }

    /// Its name, else its address; the address added where two chosen devices share a name.
    func name(of device: String) -> String { devices.withLock { $0.displayName(of: device) } }
}

extension SensorLinkMachine.Status {
    /// Whether a runner mid-session is told it: the path a characteristic's values take is
    /// news only when AcquireNotify was refused.
    public var isNews: Bool {
        if case .notifying(_, _, _, let refused) = self { return refused != nil }
        return true
    }

    /// The status as a line for the user; nil for the ones that are only progress.
    public var message: String? { message(naming: { $0 }) }

    /// The line, each device in it named by `name`, given its address (the name it advertised,
    /// where known: a screen reader read the address out in hex).
    public func message(naming name: (String) -> String) -> String? {
        switch self {
        case .waitingForBluez: "waiting for bluetoothd"
        case .noAdapter(let requested): requested.map { "no Bluetooth adapter named \($0)" } ?? "no Bluetooth adapter"
        case .adapterOff(let name): "Bluetooth adapter \(name) is powered off"
        case .adapterBlocked(let name): "Bluetooth adapter \(name) is blocked by rfkill"
        case .notPermitted(let refusal): SensorLinkMachine.notPermitted(refusal)
        // A readiness measurement asks for the strap alone, and said it looked for running sensors.
        case .scanning(let roles) where roles == [.heartRate]: "scanning for a heart-rate sensor"
        case .scanning(let roles) where roles == [.cadence]: "scanning for a running sensor (cadence)"
        case .scanning: "scanning for heart-rate and running sensors"
        case .chose(let role, let device, let name): "\(role.rawValue): \(name.map { "\($0) " } ?? "")(\(device))"
        case .choseInstead(let role, let device, let name, let remembered, let why):
            "\(role.rawValue): \(name.map { "\($0) " } ?? "")(\(device)); the remembered \(remembered) "
                + why.text(for: role)
        // Not "looking for another": a device named for the role is never replaced; the line
        // that names the one taken instead says so when there is one.
        case .roleNotOffered(let role, let device): "\(name(device)) offers no \(role.rawValue)"
        case .connecting(let device, let attempt): attempt == 1 ? "connecting to \(name(device))" : "connecting to \(name(device)) (attempt \(attempt))"
        case .connectFailed(let device, let error, let retryIn):
            "\(name(device)): connect failed: \(error); retrying in \(Int(retryIn.seconds)) s"
        case .subscribed(let device): "\(name(device)): receiving"
        case .notifying(let device, let characteristic, let path, let refused):
            "\(name(device)): \(BluetoothUUID.shortText(characteristic)) through \(path.rawValue)"
                + (refused.map { path == .acquired ? " refused: \($0)" : " (AcquireNotify refused: \($0))" } ?? "")
        case .notifyRefused(let device, let characteristic, let error):
            "\(name(device)) will not send its \(BluetoothUUID.shortText(characteristic)) measurements (\(error)): "
                + "switch the sensor off and on, or remove it in the phone or watch that holds it"
        case .lost(let device): "\(name(device)): signal lost, reconnecting"
        case .bluezRestarted: "bluetoothd went away; reconnecting when it is back"
        }
    }
}

