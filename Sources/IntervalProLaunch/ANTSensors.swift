public import IntervalProANT
import IntervalProANTLink
public import IntervalProBlueZ
public import IntervalProCore
public import IntervalProEventLoop
import IntervalProIO
import IntervalProUSB
public import IntervalProRuntime
#if canImport(Glibc)
import Glibc
import Logging
#endif

/// ANT+ sensors through a stick, for one session: the stick's serial device opened raw, an
/// event loop of its own, a channel per role asked for (`ant:NUMBER`, 0 for any), and the
/// live feed its pages reach. A session runs on the same loop (`run`), as on BlueZ's.
public final class ANTSensors: @unchecked Sendable {
    public let loop: EventLoop
    public let feed: LiveFeed
    public let arrivals: LoopCondition
    public let path: String
    private let link: ANTStickLink
    /// The roles' plans, in channel order.
    public let plans: [ANTChannelPlan]
    /// False when the loop is Bluetooth's, shared: its owner shuts it down.
    private let ownsLoop: Bool

    /// Why the stick cannot be used: the session falls back (or exits 69) with this said.
    public struct UnavailableError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Whether ANT+ is worth trying: a stick was named, or one is plugged in (a USB2 stick's
    /// device node, or the serial device the kernel made of an older one).
    public static func stickWanted(_ named: String?) -> Bool {
        named != nil || !USBDeviceNodes.antSticks().isEmpty || !SerialPort.antSticks().isEmpty
    }

    /// A choice on the command line, `ant:NUMBER`: the device number (0: any); nil for
    /// anything else (a Bluetooth device).
    public static func deviceNumber(_ choice: String?) -> UInt16?? {
        guard let choice, choice.lowercased().hasPrefix(RecordedDevice.antPrefix) else { return nil }
        return .some(UInt16(choice.dropFirst(4)))
    }

    /// Opens the stick: `path` names a serial one (`/dev/ttyUSBn`) or a USB device node
    /// (`/dev/bus/usb/BBB/DDD`); nil takes the first ANT USB stick through libusb, else the first
    /// serial device the kernel made of one. With `sharing`, its pages reach the Bluetooth
    /// sensors' feed, on their loop: heart rate from a watch and cadence from an ANT+ foot pod in
    /// one session.
    public convenience init(path: String?, heartRate: UInt16?, cadence: UInt16?, sharing bluetooth: LiveSensors? = nil)
        throws(UnavailableError)
    {
        var plans: [ANTChannelPlan] = []
        if let cadence { plans.append(.strideSpeed(deviceNumber: cadence)) }
        if let heartRate { plans.append(.heartRate(deviceNumber: heartRate)) }
        try self.init(path: path, plans: plans, scanning: false, sharing: bluetooth)
    }

    private init(path: String?, plans: [ANTChannelPlan], scanning: Bool, sharing bluetooth: LiveSensors?) throws(UnavailableError) {
        let (port, name, reopen) = try Self.openStick(path)
        if let bluetooth {
            loop = bluetooth.loop
        } else {
            do {
                loop = try EventLoop(name: "intervalpro-ant")
            } catch {
                port.close()
                throw UnavailableError(description: "\(error)")
            }
        }
        ownsLoop = bluetooth == nil
        self.path = name
        self.plans = plans
        let clock = ContinuousClock()
        let origin = clock.now
        let now: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        feed = bluetooth?.feed ?? LiveFeed(clock: now)
        arrivals = bluetooth?.arrivals ?? LoopCondition(loop: loop)
        link = ANTStickLink(
            loop: loop, port: port, name: name, networkKey: Self.networkKey(), channels: plans, feed: feed,
            arrivals: arrivals, clock: now, reopen: reopen, scanning: scanning)
    }

    /// Every ANT+ device the stick hears in `duration` (continuous scanning mode), with who
    /// made it when it said so; and what went wrong with the stick meanwhile, if anything.
    /// `heard` is told what was heard so far about once a second: the page's scan listed the
    /// stick's devices only when it ended.
    public static func scan(
        path: String?, duration: Duration, heard: @Sendable ([ANTPlusSighting]) -> Void = { _ in }
    ) async throws(UnavailableError) -> (sightings: [ANTPlusSighting], problems: [String]) {
        let sensors = try ANTSensors(path: path, plans: [], scanning: true, sharing: nil)
        sensors.link.start()
        let clock = ContinuousClock()
        let end = clock.now + duration
        while clock.now < end {
            do { try await Task.sleep(for: min(.seconds(1), clock.now.duration(to: end))) } catch { break }
            heard(await sensors.loop.submit { [link = sensors.link] in link.scan.sightings })
        }
        let sightings = await sensors.loop.submit { [link = sensors.link] in link.scan.sightings }
        sensors.stop()
        return (sightings, sensors.feed.takeNotices().filter { !$0.contains("searching") })
    }

    /// The stick's port, its name for the runner, and how to open it again after it was pulled out.
    private static func openStick(_ path: String?) throws(UnavailableError)
        -> (any ANTStickPort, String, @Sendable () -> (any ANTStickPort)?)
    {
        let permission = " (the udev rule in udev/ gives access; see docs/live-sensors.md)"
        // A path that is no terminal (`/dev/null`) read as a stick pulled out and put back twice
        // a second, said each time, for the whole search.
        @Sendable func terminal(_ path: String) throws(FileError) -> Int32? {
            let descriptor = try SerialPort.openRaw(path)
            guard SerialPort.isTerminal(descriptor) else {
                close(descriptor)
                return nil
            }
            return descriptor
        }
        func serial(_ path: String) throws(UnavailableError) -> (any ANTStickPort, String, @Sendable () -> (any ANTStickPort)?) {
            let opened: Int32?
            do {
                opened = try terminal(path)
            } catch {
                throw UnavailableError(description: "\(error)" + (error.isPermissionDenied ? permission : ""))
            }
            guard let opened else {
                throw UnavailableError(description: "ANT stick \(path): not a serial device (a stick's is /dev/ttyUSBn or /dev/ttyACMn)")
            }
            return (SerialStickPort(descriptor: opened), path, { (try? terminal(path)).flatMap { $0 }.map(SerialStickPort.init) })
        }
        // Plugged in again, a USB stick has a new address: any stick will do.
        let anyUSBStick: @Sendable () -> (any ANTStickPort)? = { try? USBStickPort() }
        if let path, !path.hasPrefix("/dev/bus/usb/") { return try serial(path) }
        do {
            let port = try USBStickPort(node: path)
            return (port, path ?? port.address.node, anyUSBStick)
        } catch {
            if error.isPermissionDenied || error.isBusy || path != nil {
                throw UnavailableError(description: "ANT stick \(path ?? ""): \(error)" + (error.isPermissionDenied ? permission : ""))
            }
            // No USB2 stick (or no libusb): a serial one the kernel made, such as the first ANTUSB.
            guard let serialPath = SerialPort.antSticks().first else {
                throw UnavailableError(
                    description: "no ANT stick found (plug in an ANTUSB2 or ANTUSB-m; --ant-stick PATH names a serial one)"
                        + (error.code == 0 ? "; \(error)" : ""))
            }
            return try serial(serialPath)
        }
    }

    deinit {
        // The link closes the stick (`stop`).
        if ownsLoop { loop.shutdown() }
    }

    /// The key in the configuration folder, else the ANT+ network's.
    static func networkKey() -> [UInt8] {
        guard let folder = UserFolders.configuration, let text = try? FileIO.readAll(folder + "/ant-network-key"),
            let key = Hex.decode(String(decoding: text, as: UTF8.self).trimmingWhitespace), key.count == 8
        else { return ANTPlusNetwork.key }
        return key
    }

    /// Starts the stick and waits until a device is heard on every channel, or `timeout`;
    /// returns the devices heard as a recording lists them (a foot pod's cadence in steps).
    /// A channel for a device of `widening`'s types (remembered, not named) that hears nothing
    /// in its first 5 s opens again for any device of its type: the remembered one is only preferred.
    /// `stopped` (Ctrl-C) ends the wait early.
    public func connect(
        timeout: Duration, quiet: Bool = false, widening: Set<UInt8> = [], until stopped: () -> Bool = { false }
    ) async -> [RecordedDevice] {
        link.start()
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var widenAt: ContinuousClock.Instant? = widening.isEmpty ? nil : clock.now + .seconds(5)
        var heard: [ANTDeviceID] = []
        while clock.now < deadline, !stopped() {
            heard = await loop.submit { [link] in link.devices }
            if heard.count >= plans.count { break }
            if let at = widenAt, clock.now >= at {
                widenAt = nil
                let silent = plans.filter { plan in widening.contains(plan.deviceType) && !heard.contains { $0.type == plan.deviceType } }
                if !silent.isEmpty {
                    if !quiet {
                        for plan in silent {
                            logger.notice(
                                "the remembered ANT+ device ant:\(plan.deviceNumber) is not heard; taking any of its kind")
                        }
                    }
                    link.replan(plans.map { plan in
                        var plan = plan
                        if silent.contains(plan) { plan.deviceNumber = 0 }
                        return plan
                    })
                }
            }
            await arrivals.wait(timeout: .milliseconds(250))
            // Notices only: the pages that arrive meanwhile are the session's first.
            for notice in feed.takeNotices() where !quiet { logger.notice("\(notice)") }
        }
        return heard.map { device in
            let pod = device.type == ANTPlusStrideSpeedPage.deviceType
            return RecordedDevice(
                id: device.description, name: pod ? "ANT+ foot pod" : "ANT+ heart rate", cadenceUnit: pod ? .steps : nil)
        }
    }

    /// Why the stick failed, when it was never set up (nil once it was, or when it did not fail).
    public func failureBeforeSetUp() async -> String? {
        await loop.submit { [link] in link.wasSetUp ? nil : link.failure }
    }

    /// Runs `body` on the stick's loop.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(loop) { try await body() }
    }

    /// Wakes whoever waits on `arrivals` when `descriptor` is readable (keys, Ctrl-C).
    public func wakeOnInput(_ descriptor: Int32, drain: (@Sendable () -> Void)? = nil) {
        arrivals.raise(whenReadable: descriptor, drain: drain)
    }

    public func stop() { link.stop() }
}
