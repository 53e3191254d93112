public import IntervalProANT
public import IntervalProCore
public import IntervalProEventLoop
public import IntervalProRuntime
#if canImport(Glibc)
import Glibc
#endif

/// An ANT stick on a file descriptor, driven on an event loop: its serial messages are read
/// when the descriptor is readable (never polled on a timer), deframed and handed to
/// `ANTStickMachine`; what the machine says to send is written back, each data page reaches the
/// live feed as a notification of its device ("ant:NUMBER", "ant-hr" or "ant-sdm"), and what
/// the runner should know (a device found, lost, the stick failing) as a notice.
///
/// The descriptor is the stick's serial device (Linux's `usb_serial_simple` driver makes an
/// ANTUSB2 stick `/dev/ttyUSBn`) or, in tests, one end of a socketpair a fake stick serves.
/// The link owns it and closes it. A stick pulled out (the descriptor ends) is looked for again
/// once a second through `reopen`, and set up afresh when it is back, without the session
/// stopping. Everything runs on the loop's thread: `start` and `stop` hop onto it.
public final class ANTStickLink: @unchecked Sendable {
    public let loop: EventLoop
    private var descriptor: Int32
    private let reopen: (@Sendable () -> Int32?)?
    private let networkKey: [UInt8]
    private let channels: [ANTChannelPlan]
    private let name: String
    private let feed: LiveFeed
    private let arrivals: LoopCondition
    private let clock: @Sendable () -> Duration
    // Loop-thread state.
    private var machine: ANTStickMachine
    private var deframer = ANTDeframer()
    private var watch: EventLoop.WatchID?
    private var timer: EventLoop.TimerID?
    /// The devices heard, in the order first heard.
    public private(set) var devices: [ANTDeviceID] = []

    /// - Parameters:
    ///   - name: the stick as the user named it (its path), for notices.
    ///   - reopen: opens the stick again after it was pulled out; nil when it is there yet.
    ///   - clock: monotonic time (injected), for the machine's deadlines.
    public init(
        loop: EventLoop, descriptor: Int32, name: String, networkKey: [UInt8], channels: [ANTChannelPlan], feed: LiveFeed,
        arrivals: LoopCondition, clock: @escaping @Sendable () -> Duration, reopen: (@Sendable () -> Int32?)? = nil
    ) {
        self.loop = loop
        self.descriptor = descriptor
        self.reopen = reopen
        self.networkKey = networkKey
        self.channels = channels
        self.name = name
        self.feed = feed
        self.arrivals = arrivals
        self.clock = clock
        machine = ANTStickMachine(networkKey: networkKey, channels: channels)
    }

    private var now: SessionTime { SessionTime(microseconds: Int64(clock() / .microseconds(1))) }

    /// Resets the stick and opens its channels (on the loop).
    public func start() {
        loop.execute { [self] in
            watch = loop.watch(descriptor, [.readable]) { [self] events in readable(events) }
            perform(machine.handle(.start, now: now))
        }
    }

    /// Stops reading the stick and closes it.
    public func stop() {
        loop.execute { [self] in
            halt()
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
            stopped = true
        }
    }

    private var stopped = false

    private func halt() {
        if let watch { loop.unwatch(watch) }
        if let timer { loop.cancel(timer) }
        watch = nil
        timer = nil
    }

    private func readable(_ events: EventLoop.Events) {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else {
            if count == 0 || (errno != EAGAIN && errno != EINTR) { gone() }
            return
        }
        for message in deframer.append(buffer[..<count]) {
            perform(machine.handle(.received(message), now: now))
        }
    }

    private func perform(_ actions: [ANTStickMachine.Action]) {
        var fed = false
        for action in actions {
            switch action {
            case .send(let message):
                let bytes = message.framed
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written != bytes.count { notice("\(name): cannot write to the ANT stick (\(String(cString: strerror(errno))))") }
            case .page(_, let device, let bytes):
                guard let device else { continue }
                if !devices.contains(device) { devices.append(device) }
                feed.push { time in
                    device.notification(bytes, at: time).map(RecordingEntry.notification)
                        ?? .event(time: time, device: device.description, name: "unknown page")
                }
                fed = true
            case .channelState(let channel, let state):
                switch state {
                case .configuring: break
                case .searching: notice("\(name): channel \(channel) searching")
                case .tracking(let device): notice("\(device): receiving (ANT+ device type \(device.type))")
                }
            case .failed(let reason):
                halt()
                notice("\(name): \(reason)")
            }
        }
        if fed { arrivals.raise() }
        reschedule()
    }

    /// The stick was pulled out: close it and, when it can be opened again, look for it once a
    /// second; back, it is reset and its channels opened as at the start.
    private func gone() {
        halt()
        close(descriptor)
        descriptor = -1
        guard let reopen else { return notice("\(name): the ANT stick is gone") }
        notice("\(name): the ANT stick is gone; waiting for it to come back")
        func retry() {
            _ = loop.schedule(after: .seconds(1)) { [self] in
                guard !stopped else { return }
                guard let opened = reopen() else { return retry() }
                descriptor = opened
                deframer = ANTDeframer()
                machine = ANTStickMachine(networkKey: networkKey, channels: channels)
                notice("\(name): the ANT stick is back")
                watch = loop.watch(descriptor, [.readable]) { [self] events in readable(events) }
                perform(machine.handle(.start, now: now))
            }
        }
        retry()
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

    private func notice(_ text: String) {
        feed.notice(text)
        arrivals.raise()
    }
}
