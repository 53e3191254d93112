public import IntervalProANT
import IntervalProCore
public import IntervalProEventLoop
public import IntervalProRuntime
#if canImport(Glibc)
import Glibc
#endif

/// An ANT stick through a port, driven on an event loop: its serial messages are read when the
/// port's descriptors are ready (never polled on a timer), deframed and handed to
/// `ANTStickMachine`; what the machine says to send is written back, each data page reaches the
/// live feed as a notification of its device ("ant:NUMBER", "ant-hr" or "ant-sdm"), and what
/// the runner should know (a device found, lost, the stick failing) as a notice.
///
/// The port is libusb's (`USBStickPort`) or a serial device's (`SerialStickPort`; in tests one
/// end of a socketpair a fake stick serves). The link owns it and closes it. A stick pulled out
/// (the port ends) is looked for again once a second through `reopen`, and set up afresh when
/// it is back, without the session stopping. Everything runs on the loop's thread: `start` and
/// `stop` hop onto it.
public final class ANTStickLink: @unchecked Sendable {
    public let loop: EventLoop
    private var port: (any ANTStickPort)?
    private let reopen: (@Sendable () -> (any ANTStickPort)?)?
    private let networkKey: [UInt8]
    private var channels: [ANTChannelPlan]
    private let scanning: Bool
    private let name: String
    private let feed: LiveFeed
    private let arrivals: LoopCondition
    private let clock: @Sendable () -> Duration
    // Loop-thread state.
    private var machine: ANTStickMachine
    private var deframer = ANTDeframer()
    private var watches: [EventLoop.WatchID] = []
    private var timer: EventLoop.TimerID?
    /// The devices heard, in the order first heard.
    public private(set) var devices: [ANTDeviceID] = []
    /// Scanning, what was heard (the feed is not fed).
    public private(set) var scan = ANTPlusScan()
    /// Why the stick failed, while it has not been set up again since (nil: it answers).
    public private(set) var failure: String?
    /// Whether the stick was ever set up: every channel open (a scan: a page heard).
    public private(set) var wasSetUp = false
    /// The device each channel receives, by channel.
    private var tracking: [Int: ANTDeviceID] = [:]
    /// The devices the recording says "connected" and not yet "disconnected", as it says of a
    /// Bluetooth sensor: a channel opened anew that receives the same device says nothing.
    private var present: Set<ANTDeviceID> = []
    /// The reset after a failure, a second on.
    private var resetTimer: EventLoop.TimerID?

    /// - Parameters:
    ///   - name: the stick as the runner knows it (its path, or its USB address), for notices.
    ///   - reopen: opens the stick again after it was pulled out; nil when it is there yet.
    ///   - clock: monotonic time (injected), for the machine's deadlines.
    ///   - scanning: no channels: every device in range is heard (continuous scanning mode).
    public init(
        loop: EventLoop, port: any ANTStickPort, name: String, networkKey: [UInt8], channels: [ANTChannelPlan],
        feed: LiveFeed, arrivals: LoopCondition, clock: @escaping @Sendable () -> Duration,
        reopen: (@Sendable () -> (any ANTStickPort)?)? = nil, scanning: Bool = false
    ) {
        self.loop = loop
        self.port = port
        self.reopen = reopen
        self.networkKey = networkKey
        self.channels = channels
        self.name = name
        self.feed = feed
        self.arrivals = arrivals
        self.clock = clock
        self.scanning = scanning
        machine = Self.machine(networkKey: networkKey, channels: channels, scanning: scanning)
    }

    private static func machine(networkKey: [UInt8], channels: [ANTChannelPlan], scanning: Bool) -> ANTStickMachine {
        scanning ? ANTStickMachine(scanningWith: networkKey) : ANTStickMachine(networkKey: networkKey, channels: channels)
    }

    private var now: SessionTime { SessionTime(microseconds: Int64(clock() / .microseconds(1))) }

    /// Resets the stick and opens its channels (on the loop).
    public func start() {
        loop.execute { [self] in
            watchPort()
            perform(machine.handle(.start, now: now))
        }
    }

    /// Sets the stick up afresh with other channels: a remembered device not heard gives way to
    /// any device of its type.
    public func replan(_ channels: [ANTChannelPlan]) {
        loop.execute { [self] in
            guard port != nil else { return }
            self.channels = channels
            machine = Self.machine(networkKey: networkKey, channels: channels, scanning: scanning)
            // The channels open anew: a device they received is not lost (widening said the
            // strap it kept receiving was "signal lost").
            tracking = [:]
            perform(machine.handle(.start, now: now))
        }
    }

    /// Stops reading the stick and closes it.
    public func stop() {
        loop.execute { [self] in
            if let resetTimer { loop.cancel(resetTimer) }
            resetTimer = nil
            halt()
            port?.close()
            port = nil
            stopped = true
        }
    }

    private var stopped = false

    private func halt() {
        for watch in watches { loop.unwatch(watch) }
        if let timer { loop.cancel(timer) }
        watches = []
        timer = nil
    }

    private func watchPort() {
        guard let port else { return }
        for watch in watches { loop.unwatch(watch) }
        watches = port.descriptors.map { descriptor, events in
            loop.watch(descriptor, EventLoop.Events(rawValue: events)) { [self] _ in ready() }
        }
    }

    private func ready() {
        guard let port else { return }
        guard let bytes = port.receive() else { return gone() }
        guard !bytes.isEmpty else { return }
        for message in deframer.append(bytes[...]) {
            perform(machine.handle(.received(message), now: now))
        }
    }

    private func perform(_ actions: [ANTStickMachine.Action]) {
        var fed = false
        for action in actions {
            switch action {
            case .send(let message):
                if let problem = port?.send(message.framed) { notice("\(name): cannot write to the ANT stick (\(problem))") }
            case .page(_, let device, let bytes):
                guard let device else { continue }
                if scanning {
                    // Pages come only once the scan's channel is open: the stick is set up.
                    setUp()
                    scan.heard(device, page: bytes)
                    continue
                }
                if !devices.contains(device) { devices.append(device) }
                feed.push { time in
                    device.notification(bytes, at: time).map(RecordingEntry.notification)
                        ?? .event(time: time, device: device.description, name: "unknown page")
                }
                fed = true
            case .channelState(let channel, let state):
                switch state {
                case .configuring: break
                case .searching:
                    if !machine.states.contains(.configuring) { setUp() }
                    // A device lost is said as Bluetooth's is: "channel 1 searching" was all a
                    // runner whose strap went quiet was told.
                    if let device = tracking.removeValue(forKey: channel) {
                        notice("\(device): signal lost, searching")
                        record(device, connected: false)
                    } else {
                        notice("\(name): channel \(channel) searching")
                    }
                case .tracking(let device):
                    if !machine.states.contains(.configuring) { setUp() }
                    tracking[channel] = device
                    notice("\(device): receiving (ANT+ device type \(device.type))")
                    record(device, connected: true)
                }
            case .failed(let reason):
                halt()
                // Not read until the stick is set up again.
                lostAll()
                // A stick that missed one answer (a frame lost on the line) is reset and set up
                // afresh, as one plugged in again is: it was left failed, and the devices still
                // in range went unread for the rest of the session. Said once, until it is set up.
                if failure == nil { notice("\(name): \(reason); resetting the ANT stick") }
                failure = reason
                resetTimer = loop.schedule(after: .seconds(1)) { [self] in
                    resetTimer = nil
                    guard !stopped, port != nil else { return }
                    drainInput()
                    setUpAfresh()
                }
            case .refused(let reason):
                // Refused, it would be refused again after a reset.
                halt()
                lostAll()
                notice("\(name): \(reason)")
                failure = reason
            }
        }
        if fed { arrivals.raise() }
        reschedule()
    }

    /// The stick was pulled out: close it and, when it can be opened again, look for it once a
    /// second; back, it is reset and its channels opened as at the start.
    private func gone() {
        halt()
        port?.close()
        port = nil
        lostAll()
        guard let reopen else { return notice("\(name): the ANT stick is gone") }
        notice("\(name): the ANT stick is gone; waiting for it to come back")
        func retry() {
            _ = loop.schedule(after: .seconds(1)) { [self] in
                guard !stopped else { return }
                guard let opened = reopen() else { return retry() }
                port = opened
                notice("\(name): the ANT stick is back")
                setUpAfresh()
            }
        }
        retry()
    }

    /// Resets the stick and opens the channels again, for the devices paired before (not any of
    /// their type).
    private func setUpAfresh() {
        deframer = ANTDeframer()
        tracking = [:]
        channels = machine.channels
        machine = Self.machine(networkKey: networkKey, channels: channels, scanning: scanning)
        watchPort()
        perform(machine.handle(.start, now: now))
    }

    /// Every channel is open (or the scan's): the stick answers. Said once after a failure.
    private func setUp() {
        wasSetUp = true
        guard failure != nil else { return }
        failure = nil
        notice("\(name): the ANT stick answers again")
    }

    /// Reads and leaves what the stick sent before its reset (its pages went on meanwhile),
    /// what is ready only and a bounded number of reads: the new set-up starts from its own
    /// answers. Polled first: a port's descriptor may block (a socketpair's, in tests).
    private func drainInput() {
        guard let port else { return }
        var ready = port.descriptors.map { pollfd(fd: $0.descriptor, events: $0.events, revents: 0) }
        for _ in 0..<64 {
            guard poll(&ready, nfds_t(ready.count), 0) > 0, let bytes = port.receive(), !bytes.isEmpty else { return }
        }
    }

    /// A timer at the machine's next deadline, so a missing answer is noticed.
    private func reschedule() {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard let deadline = machine.nextDeadline else { return }
        let delay = Duration.microseconds(max(0, (deadline - now).microseconds))
        timer = loop.schedule(after: delay) { [self] in
            timer = nil
            perform(machine.handle(.tick, now: now))
        }
    }

    /// A device's "connected" or "disconnected" for the recording, when it changes: a stick
    /// pulled out and put back showed in a recording as a gap in the pages alone, where a
    /// Bluetooth sensor's dropout is an event the summary counts.
    private func record(_ device: ANTDeviceID, connected: Bool) {
        guard !scanning, connected ? present.insert(device).inserted : present.remove(device) != nil else { return }
        feed.push { time in .event(time: time, device: device.description, name: connected ? "connected" : "disconnected") }
        arrivals.raise()
    }

    /// Every device received is lost with the stick.
    private func lostAll() {
        for device in present.sorted(by: { $0.description < $1.description }) { record(device, connected: false) }
    }

    private func notice(_ text: String) {
        feed.notice(text)
        arrivals.raise()
    }
}
