public import IntervalProCore
public import IntervalProDBus
public import IntervalProEventLoop
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a `SensorLinkMachine` against the real bus on an `EventLoop`: waits on the bus
/// socket, the acquired notification sockets and the machine's next deadline, turns what
/// arrives into events, and performs the calls and socket actions the machine returns.
///
/// What the machine produces for the outside (values, device events, status) goes to
/// `output`, called on the loop's thread. A value from an acquired socket is one recv(2)
/// and one call to `output`: no D-Bus message, no tree.
public final class BlueZClient: @unchecked Sendable {
    public typealias Output = (SensorLinkMachine.Action) -> Void
    public typealias Connect = @Sendable () throws -> DBusConnection

    public let loop: EventLoop
    private let configuration: SensorLinkMachine.Configuration
    private let connectToBus: Connect
    private let now: @Sendable () -> SessionTime
    private let failureBox = Mutex<DBusFailure?>(nil)

    // Confined to the loop's thread.
    private var output: Output = { _ in }
    private var connection: DBusConnection?
    public private(set) var machine: SensorLinkMachine
    private var busWatch: EventLoop.WatchID?
    private var calls: [UInt32: (id: SensorLinkMachine.CallID, deadline: SessionTime)] = [:]
    private var sockets: [String: AcquiredSocket] = [:]
    private var timer: (id: EventLoop.TimerID, at: SessionTime)?
    private var stopDeadline: SessionTime?
    private var finished = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    /// How long a call may go unanswered before it counts as failed (BlueZ's Connect can
    /// take a while on a busy radio).
    public static let callTimeout = SessionTime.seconds(30)
    /// Stopping waits this long for StopNotify and Disconnect to be answered.
    public static let stopTimeout = SessionTime.seconds(3)

    /// - Parameters:
    ///   - now: the client's clock, in session time (injected so tests and sessions share it).
    public init(
        configuration: SensorLinkMachine.Configuration, loop: EventLoop,
        connect: @escaping Connect = { try DBusConnection.system() }, now: @escaping @Sendable () -> SessionTime
    ) {
        self.configuration = configuration
        self.loop = loop
        self.connectToBus = connect
        self.now = now
        machine = SensorLinkMachine(configuration: configuration)
    }

    /// Connects to the bus (failing at once if it cannot be reached) and starts the machine
    /// on the loop; `output` is called there from then on.
    public func start(output: @escaping Output) throws {
        let connection = try connectToBus()
        for rule in BlueZ.matchRules { try connection.addMatch(rule) }
        // Handed to the loop's thread: `execute` orders these writes before the loop's reads.
        self.connection = connection
        self.output = output
        loop.execute { [self] in attach() }
    }

    /// Asks the machine to unsubscribe and disconnect, and returns once it has (or the stop
    /// timeout passed, or the bus went away). Every acquired socket is closed by then.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                if finished {
                    continuation.resume()
                    return
                }
                stopWaiters.append(continuation)
                if stopDeadline == nil {
                    stopDeadline = now() + Self.stopTimeout
                    deliver(.stop)
                    afterEvents()
                }
            }
        }
    }

    /// The bus error that ended the client early, if any.
    public var failure: DBusFailure? { failureBox.withLock { $0 } }

    // MARK: On the loop's thread

    private func attach() {
        guard let fd = connection?.fileDescriptor else {
            end(DBusFailure(.disconnected, "the system bus connection has no socket"))
            return
        }
        busWatch = loop.watch(fd, .readable) { [self] _ in busReady() }
        deliver(.start)
        // addMatch may have read signals already: they wait in libdbus's queue, not the socket.
        drainMessages()
    }

    private func busReady() {
        guard let connection, connection.readWrite(timeoutMilliseconds: 0), connection.isConnected else {
            end(DBusFailure(.disconnected, "the system bus connection closed"))
            return
        }
        drainMessages()
    }

    private func drainMessages() {
        guard let connection else { return }
        while !finished, let message = connection.popMessage() {
            if message.replySerial != 0, let call = calls.removeValue(forKey: message.replySerial) {
                deliver(.reply(call.id, Self.result(of: message)))
            } else if message.type == .signal, let event = Self.event(from: message) {
                deliver(event)
            }
        }
        afterEvents()
    }

    /// Feeds one event to the machine and performs what it returns.
    private func deliver(_ event: SensorLinkMachine.Event) {
        guard !finished else { return }
        let time = now()
        let descriptors = Self.descriptors(in: event)
        var listened: Set<Int32> = []
        for action in machine.handle(event, now: time) {
            switch action {
            case .call(let id, let call):
                do throws(DBusFailure) {
                    guard let connection else { throw DBusFailure(.disconnected, "no bus connection") }
                    let serial = try connection.send(try call.message())
                    calls[serial] = (id, time + Self.callTimeout)
                } catch {
                    // The machine hears of the failure like any other reply.
                    deliver(.reply(id, .failure(error)))
                }
            case .listen(let characteristic, let descriptor, let mtu, let device, let uuid):
                listened.insert(descriptor)
                listen(characteristic, descriptor: descriptor, mtu: mtu, device: device, uuid: uuid)
            case .release(let characteristic):
                sockets.removeValue(forKey: characteristic)?.close(on: loop)
            case .value, .deviceEvent, .status, .stopped:
                output(action)
            }
        }
        // A descriptor in a reply the machine did not take (it came after a stop) is closed.
        for descriptor in descriptors where !listened.contains(descriptor) { Glibc.close(descriptor) }
    }

    private func listen(_ characteristic: String, descriptor: Int32, mtu: Int, device: String, uuid: UInt16) {
        sockets.removeValue(forKey: characteristic)?.close(on: loop)
        let socket = AcquiredSocket(descriptor: descriptor, mtu: mtu, device: device, uuid: uuid)
        socket.watch = loop.watch(descriptor, .readable) { [self, socket] events in
            switch socket.receive(events) {
            case .value(let bytes):
                output(.value(device: socket.device, characteristic: socket.uuid, bytes: bytes))
            case .nothing:
                break
            case .closed:
                // Hung up (the link dropped, bluetoothd let go) or failed: close, tell the machine.
                guard sockets[characteristic] === socket else { return }
                sockets.removeValue(forKey: characteristic)?.close(on: loop)
                deliver(.socketClosed(characteristic: characteristic))
                afterEvents()
            }
        }
        sockets[characteristic] = socket
    }

    /// After a batch of events: write interest, call timeouts, the next timer, the end.
    private func afterEvents() {
        guard !finished, let connection else { return }
        if let busWatch { loop.update(busWatch, connection.hasMessagesToSend ? [.readable, .writable] : .readable) }
        let time = now()
        if let stopDeadline, machine.isStopped || time >= stopDeadline {
            end(nil)
            return
        }
        var next = machine.nextDeadline(after: time)
        for call in calls.values where next.map({ call.deadline < $0 }) ?? true { next = call.deadline }
        if let stopDeadline, next.map({ stopDeadline < $0 }) ?? true { next = stopDeadline }
        guard timer?.at != next else { return }
        if let timer { loop.cancel(timer.id) }
        timer = nil
        guard let next else { return }
        let delay = Duration.microseconds(max(0, (next - time).microseconds))
        timer = (loop.schedule(after: delay) { [self] in deadlineReached() }, next)
    }

    private func deadlineReached() {
        timer = nil
        let time = now()
        for (serial, call) in calls where call.deadline <= time {
            calls[serial] = nil
            deliver(.reply(call.id, .failure(DBusFailure(.noReply, "no reply from bluetoothd"))))
        }
        deliver(.tick)
        afterEvents()
    }

    /// The client is done: sockets closed, the bus flushed and let go, waiters resumed.
    private func end(_ failure: DBusFailure?) {
        guard !finished else { return }
        finished = true
        if let failure { failureBox.withLock { $0 = failure } }
        for socket in sockets.values { socket.close(on: loop) }
        sockets = [:]
        if let busWatch { loop.unwatch(busWatch) }
        busWatch = nil
        if let timer { loop.cancel(timer.id) }
        timer = nil
        connection?.flush()
        connection = nil
        output(.stopped)
        for waiter in stopWaiters { waiter.resume() }
        stopWaiters = []
    }

    private static func result(of message: DBusMessage) -> Result<[DBusValue], DBusFailure> {
        if let failure = message.failure { return .failure(failure) }
        return Result { () throws(DBusFailure) in try message.arguments() }
    }

    /// The descriptors a reply carries (AcquireNotify's), which someone must close.
    private static func descriptors(in event: SensorLinkMachine.Event) -> [Int32] {
        guard case .reply(_, .success(let values)) = event else { return [] }
        return values.compactMap(\.fileDescriptor)
    }

    /// The machine's event for a signal the match rules let through.
    static func event(from message: DBusMessage) -> SensorLinkMachine.Event? {
        guard let interface = message.interface, let member = message.member,
            let arguments = try? message.arguments()
        else { return nil }
        switch (interface, member) {
        case (BlueZ.Bus.interface, "NameOwnerChanged"):
            guard arguments.count == 3, arguments[0].string == BlueZ.service, let owner = arguments[2].string else {
                return nil
            }
            return .bluezPresent(!owner.isEmpty)
        case (BlueZ.Interface.objectManager, "InterfacesAdded"):
            guard arguments.count == 2, let path = arguments[0].string else { return nil }
            return .tree(.interfacesAdded(path: path, interfaces: arguments[1]))
        case (BlueZ.Interface.objectManager, "InterfacesRemoved"):
            guard arguments.count == 2, let path = arguments[0].string, let names = arguments[1].stringList else {
                return nil
            }
            return .tree(.interfacesRemoved(path: path, interfaces: names))
        case (BlueZ.Interface.properties, "PropertiesChanged"):
            guard let path = message.path, arguments.count >= 2, let changedInterface = arguments[0].string,
                let changed = arguments[1].properties
            else { return nil }
            let invalidated = arguments.count > 2 ? arguments[2].stringList ?? [] : []
            return .tree(.propertiesChanged(path: path, interface: changedInterface, changed: changed, invalidated: invalidated))
        default:
            return nil
        }
    }
}

/// One AcquireNotify socket: SOCK_SEQPACKET, one notification per packet. Owns its
/// descriptor until `close`.
final class AcquiredSocket {
    let descriptor: Int32
    let device: String
    let uuid: UInt16
    var watch: EventLoop.WatchID?
    private var buffer: [UInt8]
    private var closed = false

    init(descriptor: Int32, mtu: Int, device: String, uuid: UInt16) {
        self.descriptor = descriptor
        self.device = device
        self.uuid = uuid
        buffer = [UInt8](repeating: 0, count: mtu)
    }

    enum Received {
        case value([UInt8])
        case nothing
        /// Hung up or failed.
        case closed
    }

    /// One packet: one value.
    func receive(_ events: EventLoop.Events) -> Received {
        guard events.contains(.readable) else { return .closed }
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 { return .value(Array(buffer[0..<count])) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .nothing }
        return .closed
    }

    func close(on loop: EventLoop) {
        guard !closed else { return }
        closed = true
        if let watch { loop.unwatch(watch) }
        Glibc.close(descriptor)
    }

    deinit { if !closed { Glibc.close(descriptor) } }
}
