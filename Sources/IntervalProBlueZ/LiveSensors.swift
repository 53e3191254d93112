public import IntervalProCore
import IntervalProDBus
public import IntervalProRuntime

/// Live sensors for one session or recording: starts the BlueZ client, waits for the chosen
/// devices to be subscribed, then feeds every value into a `LiveFeed` as a timestamped raw
/// notification, the same record a replay reads.
public final class LiveSensors: Sendable {
    public let feed: LiveFeed
    private let client: BlueZClient

    /// - Parameters:
    ///   - clock: monotonic time (injected): stamps values and drives the client's timers.
    ///   - status: called on the client's thread with what the user should know; before the
    ///     session begins it is the only way to show progress.
    public init(
        configuration: SensorLinkMachine.Configuration, connect: @escaping BlueZClient.Connect,
        clock: @escaping @Sendable () -> Duration, status: @escaping @Sendable (SensorLinkMachine.Status) -> Void
    ) {
        let feed = LiveFeed(clock: clock)
        self.feed = feed
        client = BlueZClient(
            configuration: configuration, connect: connect,
            now: { SessionTime(microseconds: Int64(clock() / .microseconds(1))) },
            output: { action, _ in
                switch action {
                case .value(let device, let characteristic, let bytes):
                    feed.push { time in
                        .notification(
                            RawNotification(
                                time: time, device: device, characteristicID: Self.shortID(characteristic), bytes: bytes))
                    }
                case .deviceEvent(let device, let name):
                    feed.push { time in .event(time: time, device: device, name: name) }
                case .status(let value):
                    status(value)
                    if feed.hasBegun, let text = value.message { feed.notice(text) }
                case .call, .stopped:
                    break
                }
            })
    }

    /// What waiting for sensors ended with.
    public enum Readiness: Sendable, Equatable {
        /// Every chosen device is subscribed.
        case ready([RecordedDevice])
        case noAdapter(String)
        case noSensor
    }

    /// Connects and waits until the chosen devices are subscribed, at most `timeout`.
    /// Throws when the system bus cannot be reached.
    public func connect(timeout: Duration) async throws -> Readiness {
        try client.start()
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started + timeout
        // Once one device is up, give a second one a moment to finish connecting.
        var firstReadyAt: ContinuousClock.Instant?
        while true {
            try await Task.sleep(for: .milliseconds(50))
            let now = clock.now
            if let failure = client.failure { throw failure }
            guard let machine = client.state else { continue }
            let subscribed = machine.subscribedDevices
            if !subscribed.isEmpty, firstReadyAt == nil { firstReadyAt = now }
            let allUp = !subscribed.isEmpty && subscribed.count == machine.chosenDevices.count && !machine.isSearching
            // At the deadline, what is up is what there is: a session goes on with it.
            if allUp || (firstReadyAt.map { now - $0 > .seconds(5) } ?? false) || (now >= deadline && !subscribed.isEmpty) {
                return .ready(
                    subscribed.map { device in
                        RecordedDevice(
                            id: device.address, name: device.name,
                            cadenceUnit: device.roles.contains(.cadence) ? .auto : nil)
                    })
            }
            // bluetoothd not running at all: no point waiting out the whole timeout.
            let bluezMissing = machine.lastReportedAdapterStatus == .waitingForBluez && now - started > .seconds(3)
            if now >= deadline || bluezMissing {
                if let reason = machine.adapterProblem { return .noAdapter(reason) }
                return .noSensor
            }
        }
    }

    /// The devices found so far (for `scan`).
    public var candidates: [BlueZObjectTree.Device] { client.state?.candidates ?? [] }

    /// Starts the client for looking only (scan); `candidates` fills as devices appear.
    public func startScan() throws { try client.start() }

    public var adapterProblem: String? { client.state?.adapterProblem }

    public var adapterName: String? { client.state?.adapterName }

    /// Unsubscribes, disconnects and stops the client.
    public func stop() async { await client.stop() }

    static func shortID(_ uuid: UInt16) -> String {
        let hex = String(uuid, radix: 16)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }
}

/// The session source for live sensors: what the feed has, polled by the runner.
public struct LiveSource: SessionSource {
    public let feed: LiveFeed
    public let devices: [RecordedDevice]

    public init(feed: LiveFeed, devices: [RecordedDevice]) {
        self.feed = feed
        self.devices = devices
    }

    public var kind: SessionSourceKind { .live }
    public var isLive: Bool { true }
    public mutating func next() async throws -> RecordingEntry? { nil }
    public mutating func poll() -> LivePoll { feed.poll() }
}

extension SensorLinkMachine {
    /// Devices whose measurements are subscribed.
    public var subscribedDevices: [(address: String, name: String?, roles: Set<Role>)] {
        links.filter { $0.phase == .subscribed }.map { ($0.address, $0.name, $0.roles) }
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
        return nil
    }

    public var adapterName: String? { adapterPath.map { String($0.split(separator: "/").last ?? "") } }
}

extension SensorLinkMachine.Status {
    /// The status as a line for the user; nil for the ones that are only progress.
    public var message: String? {
        switch self {
        case .waitingForBluez: "waiting for bluetoothd"
        case .noAdapter(let requested): requested.map { "no Bluetooth adapter named \($0)" } ?? "no Bluetooth adapter"
        case .adapterOff(let name): "Bluetooth adapter \(name) is powered off"
        case .adapterBlocked(let name): "Bluetooth adapter \(name) is blocked by rfkill"
        case .scanning: "scanning for heart-rate and running sensors"
        case .chose(let role, let device, let name): "\(role.rawValue): \(name.map { "\($0) " } ?? "")(\(device))"
        case .choseInstead(let role, let device, let name, let remembered):
            "\(role.rawValue): \(name.map { "\($0) " } ?? "")(\(device)); the remembered \(remembered) is not in range"
        case .roleNotOffered(let role, let device): "\(device) offers no \(role.rawValue); looking for another \(role.rawValue) sensor"
        case .connecting(let device, let attempt): attempt == 1 ? "connecting to \(device)" : "connecting to \(device) (attempt \(attempt))"
        case .connectFailed(let device, let error, let retryIn):
            "\(device): connect failed: \(error); retrying in \(Int(retryIn.seconds)) s"
        case .subscribed(let device): "\(device): receiving"
        case .lost(let device): "\(device): signal lost, reconnecting"
        case .bluezRestarted: "bluetoothd went away; reconnecting when it is back"
        }
    }
}

extension LiveSensors {
    /// The devices chosen and the roles they play.
    public var chosen: [(address: String, name: String?, roles: Set<SensorLinkMachine.Role>)] {
        client.state?.chosenDevices ?? []
    }

    /// Per role, the devices found not to offer it.
    public var lacking: [SensorLinkMachine.Role: Set<String>] { client.state?.lacking ?? [:] }
}
