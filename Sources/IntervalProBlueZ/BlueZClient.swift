public import IntervalProCore
public import IntervalProDBus
public import IntervalProEventLoop
import Synchronization
internal import CLinux

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
///
/// With `coalescing` above zero (a recording, which no engine waits on), the first value
/// opens a window of that length and one wake-up at its end reads everything the acquired
/// sockets hold, each value with the kernel's arrival stamp: two wake-ups a window instead
/// of one a value, and the same times. Everything else for the recording that comes during
/// the window (values read over the bus, device events, what a socket held when it was
/// released) waits with its arrival time too, and all of it goes out at the window's end
/// in time order: the kernel's stamps and the bus's arrivals merge into one ordered stream.
public final class BlueZClient: @unchecked Sendable {
    /// An action for the outside; with a coalescing window, for a value or device event,
    /// when it arrived (on the client's clock), else nil (now).
    public typealias Output = (SensorLinkMachine.Action, _ receivedAt: SessionTime?) -> Void
    public typealias Connect = @Sendable () throws -> DBusConnection
    /// Takes one line of the `-v` log.
    public typealias Trace = @Sendable (String) -> Void

    public let loop: EventLoop
    private let configuration: SensorLinkMachine.Configuration
    private let connectToBus: Connect
    private let now: @Sendable () -> SessionTime
    private let coalescing: Duration
    private let trace: Trace?
    private let failureBox = Mutex<DBusCallError?>(nil)

    // Confined to the loop's thread.
    private var output: Output = { _, _ in }
    private var drainTimer: EventLoop.TimerID?
    /// The open window's values and device events, each with when it arrived.
    private var held: [(time: SessionTime, action: SensorLinkMachine.Action)] = []
    /// When the last held action that went out arrived: none after it is stamped earlier.
    private var lastHeldTime: SessionTime?
    private var connection: DBusConnection?
    public private(set) var machine: SensorLinkMachine
    private var busWatch: EventLoop.WatchID?
    private var calls: [UInt32: (id: SensorLinkMachine.CallID, call: BlueZCall, deadline: SessionTime)] = [:]
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
    ///   - trace: with `-v`, takes a line for every call, reply, signal and socket change
    ///     (not for values).
    public init(
        configuration: SensorLinkMachine.Configuration, loop: EventLoop,
        connect: @escaping Connect = { try DBusConnection.system() }, coalescing: Duration = .zero,
        trace: Trace? = nil, now: @escaping @Sendable () -> SessionTime
    ) {
        self.configuration = configuration
        self.coalescing = coalescing
        self.trace = trace
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
    public var failure: DBusCallError? { failureBox.withLock { $0 } }

    // MARK: On the loop's thread

    private func attach() {
        guard let fd = connection?.fileDescriptor else {
            end(DBusCallError(.disconnected, "the system bus connection has no socket"))
            return
        }
        busWatch = loop.watch(fd, .readable) { [self] _ in busReady() }
        deliver(.start)
        // addMatch may have read signals already: they wait in libdbus's queue, not the socket.
        drainMessages()
    }

    private func busReady() {
        guard let connection, connection.readWrite(timeoutMilliseconds: 0), connection.isConnected else {
            end(DBusCallError(.disconnected, "the system bus connection closed"))
            return
        }
        drainMessages()
    }

    private func drainMessages() {
        guard let connection else { return }
        while !finished, let message = connection.popMessage() {
            if message.replySerial != 0, let call = calls.removeValue(forKey: message.replySerial) {
                let result = Self.result(of: message)
                if let trace { trace(Self.logLine(call.call, result)) }
                deliver(.reply(call.id, result))
            } else if message.type == .signal, let event = Self.event(from: message) {
                if let trace, let line = Self.logLine(event) { trace(line) }
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
                do throws(DBusCallError) {
                    guard let connection else { throw DBusCallError(.disconnected, "no bus connection") }
                    let serial = try connection.send(try call.message())
                    calls[serial] = (id, call, time + Self.callTimeout)
                    trace?("→ \(call.logText)")
                } catch {
                    // The machine hears of the failure like any other reply.
                    trace?(Self.logLine(call, .failure(error)))
                    deliver(.reply(id, .failure(error)))
                }
            case .listen(let characteristic, let descriptor, let mtu, let device, let uuid):
                listened.insert(descriptor)
                listen(characteristic, descriptor: descriptor, mtu: mtu, device: device, uuid: uuid)
            case .release(let characteristic):
                guard let socket = sockets.removeValue(forKey: characteristic) else { break }
                trace?("closing the acquired socket of \(characteristic)")
                // What it holds arrived before the release: it still counts.
                take(drain(socket))
                socket.close(on: loop)
            case .value, .deviceEvent:
                if coalescing == .zero { output(action, nil) } else { hold(action, at: time) }
            case .status, .stopped:
                output(action, nil)
            }
        }
        // A descriptor in a reply the machine did not take (it came after a stop) is closed.
        for descriptor in descriptors where !listened.contains(descriptor) { Glibc.close(descriptor) }
    }

    private func listen(_ characteristic: String, descriptor: Int32, mtu: Int, device: String, uuid: UInt16) {
        trace?("reading \(BluetoothUUID.shortText(uuid)) of \(device) from socket \(descriptor) (MTU \(mtu))")
        sockets.removeValue(forKey: characteristic)?.close(on: loop)
        let socket = AcquiredSocket(descriptor: descriptor, mtu: mtu, device: device, uuid: uuid, path: characteristic)
        socket.watch = loop.watch(descriptor, drainTimer == nil ? .readable : []) { [self, socket] events in
            socketReady(socket, events)
        }
        sockets[characteristic] = socket
        // What bluetoothd sent before the kernel was asked to stamp arrivals is stamped as
        // it is read: read it now.
        take(drain(socket))
    }

    private func socketReady(_ socket: AcquiredSocket, _ events: EventLoop.Events) {
        guard sockets[socket.path] === socket else { return }
        if events.contains(.hangUp) || events.contains(.error) {
            // What it holds still counts; then it is gone.
            take(drain(socket))
            socketClosed(socket)
        } else if coalescing == .zero {
            switch socket.receive() {
            case .value(let bytes, _): output(.value(device: socket.device, characteristic: socket.uuid, bytes: bytes), nil)
            case .nothing: break
            case .closed: socketClosed(socket)
            }
        } else {
            // The first value of a window: read them all at its end.
            openWindow()
        }
    }

    /// Values read from a socket: with a window, held until its end; without, out now.
    private func take(_ values: [(time: SessionTime, action: SensorLinkMachine.Action)]) {
        guard coalescing != .zero else {
            for value in values { output(value.action, nil) }
            return
        }
        for value in values { hold(value.action, at: value.time) }
    }

    private func hold(_ action: SensorLinkMachine.Action, at time: SessionTime) {
        held.append((time, action))
        openWindow()
    }

    /// Stops listening to the sockets until the window's end (hang-ups still wake).
    private func openWindow() {
        guard drainTimer == nil, !finished else { return }
        for socket in sockets.values { if let watch = socket.watch { loop.update(watch, []) } }
        drainTimer = loop.schedule(after: coalescing) { [self] in windowEnded() }
    }

    /// Reads what the acquired sockets hold now, without waiting for the window's end
    /// (before a recording stops). On the loop's thread.
    public func readWaitingValues() {
        guard let drainTimer else { return }
        loop.cancel(drainTimer)
        windowEnded()
    }

    private func windowEnded() {
        drainTimer = nil
        let open = Array(sockets.values)
        for socket in open { held += drain(socket) }
        putOutHeld()
        for socket in open where !socket.isClosed { if let watch = socket.watch { loop.update(watch, .readable) } }
        // Closing one tells the machine, which may open the next window.
        for socket in open where socket.isClosed { socketClosed(socket) }
    }

    /// The window's values and events, in the order they arrived across sockets and bus.
    private func putOutHeld() {
        let ordered = held.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        held.removeAll(keepingCapacity: true)
        for (_, entry) in ordered {
            // The two clocks behind the stamps are read a moment apart at each drain.
            let time = max(entry.time, lastHeldTime ?? entry.time)
            lastHeldTime = time
            output(entry.action, time)
        }
    }

    /// Everything a socket holds, each value with its arrival time on the client's clock.
    private func drain(_ socket: AcquiredSocket) -> [(time: SessionTime, action: SensorLinkMachine.Action)] {
        let (clockNow, realNow) = (now(), intervalpro_realtime_ns())
        var values: [(time: SessionTime, action: SensorLinkMachine.Action)] = []
        socket.receiveAll { bytes, stamp in
            let age = stamp > 0 ? max(0, (realNow - stamp) / 1000) : 0
            values.append(
                (SessionTime(microseconds: clockNow.microseconds - age),
                 .value(device: socket.device, characteristic: socket.uuid, bytes: bytes)))
        }
        return values
    }

    /// Hung up (the link dropped, bluetoothd let go) or failed: close it, tell the machine.
    private func socketClosed(_ socket: AcquiredSocket) {
        guard sockets[socket.path] === socket else { return }
        trace?("the acquired socket of \(socket.path) hung up")
        sockets.removeValue(forKey: socket.path)?.close(on: loop)
        deliver(.socketClosed(characteristic: socket.path))
        afterEvents()
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
            let failure = DBusCallError(.noReply, "no reply from bluetoothd")
            trace?(Self.logLine(call.call, .failure(failure)))
            deliver(.reply(call.id, .failure(failure)))
        }
        deliver(.tick)
        afterEvents()
    }

    /// The client is done: sockets closed, the bus flushed and let go, waiters resumed.
    private func end(_ failure: DBusCallError?) {
        guard !finished else { return }
        finished = true
        if let failure { failureBox.withLock { $0 = failure } }
        // What the window and the sockets still hold goes out before the end.
        if let drainTimer { loop.cancel(drainTimer) }
        drainTimer = nil
        for socket in sockets.values { take(drain(socket)) }
        putOutHeld()
        for socket in sockets.values { socket.close(on: loop) }
        sockets = [:]
        if let busWatch { loop.unwatch(busWatch) }
        busWatch = nil
        if let timer { loop.cancel(timer.id) }
        timer = nil
        connection?.flush()
        connection = nil
        output(.stopped, nil)
        for waiter in stopWaiters { waiter.resume() }
        stopWaiters = []
    }

    private static func result(of message: DBusMessage) -> Result<[DBusValue], DBusCallError> {
        if let failure = message.failure { return .failure(failure) }
        return Result { () throws(DBusCallError) in try message.arguments() }
    }

    private static func logLine(_ call: BlueZCall, _ result: Result<[DBusValue], DBusCallError>) -> String {
        switch result {
        case .success: "← \(call.logText): done"
        case .failure(let failure): "← \(call.logText): \(failure)"
        }
    }

    /// A signal for the log; nil for a value (one per notification: not logged).
    private static func logLine(_ event: SensorLinkMachine.Event) -> String? {
        switch event {
        case .bluezPresent(let present): present ? "org.bluez has an owner" : "org.bluez lost its owner"
        case .tree(.interfacesAdded(let path, _)): "InterfacesAdded \(path)"
        case .tree(.interfacesRemoved(let path, let interfaces)):
            "InterfacesRemoved \(path) \(interfaces.joined(separator: " "))"
        case .tree(.propertiesChanged(let path, _, let changed, let invalidated)):
            changed.keys.sorted() == ["Value"] && invalidated.isEmpty
                ? nil
                : "PropertiesChanged \(path) \((changed.sorted { $0.key < $1.key }.map { "\($0.key)=\(logText($0.value))" } + invalidated).joined(separator: " "))"
        default: nil
        }
    }

    /// A property's value for the log: booleans, numbers and strings as they are.
    private static func logText(_ value: DBusValue) -> String {
        if let bool = value.bool { return String(bool) }
        if let integer = value.integer { return String(integer) }
        if let string = value.string { return string }
        return "…"
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

/// One AcquireNotify socket: SOCK_SEQPACKET, one notification per packet, each stamped by
/// the kernel on arrival. Owns its descriptor until `close`.
final class AcquiredSocket {
    let descriptor: Int32
    let device: String
    let uuid: UInt16
    /// The characteristic's object path.
    let path: String
    var watch: EventLoop.WatchID?
    /// Read to its end and found hung up (closed by the client next).
    var isClosed = false
    private var buffer: [UInt8]
    /// Slots for a batch read, allocated on the first one.
    private var batch: [UInt8] = []
    private var released = false

    init(descriptor: Int32, mtu: Int, device: String, uuid: UInt16, path: String) {
        self.descriptor = descriptor
        self.device = device
        self.uuid = uuid
        self.path = path
        buffer = [UInt8](repeating: 0, count: mtu)
        _ = intervalpro_enable_receive_timestamps(descriptor)
    }

    enum Received {
        /// A value and its arrival (CLOCK_REALTIME ns; 0 when unknown).
        case value([UInt8], realtimeNanoseconds: Int64)
        case nothing
        /// Hung up or failed.
        case closed
    }

    /// One packet: one value.
    func receive() -> Received {
        var stamp: Int64 = 0
        let count = buffer.withUnsafeMutableBytes { intervalpro_receive_timestamped(descriptor, $0.baseAddress, $0.count, &stamp) }
        if count > 0 { return .value(Array(buffer[0..<count]), realtimeNanoseconds: stamp) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .nothing }
        return .closed
    }

    /// Everything queued, many packets per recvmmsg(2), each with its arrival stamp
    /// (CLOCK_REALTIME ns); sets `isClosed` at the end of the stream.
    func receiveAll(_ body: ([UInt8], Int64) -> Void) {
        let slots = 64
        if batch.count != slots * buffer.count { batch = [UInt8](repeating: 0, count: slots * buffer.count) }
        var lengths = [Int32](repeating: 0, count: slots)
        var stamps = [Int64](repeating: 0, count: slots)
        while true {
            let slot = buffer.count
            let received = batch.withUnsafeMutableBufferPointer { bytes in
                intervalpro_receive_many(descriptor, bytes.baseAddress, slot, Int32(slots), &lengths, &stamps)
            }
            if received < 0 {
                if errno != EAGAIN, errno != EINTR { isClosed = true }
                return
            }
            for i in 0..<Int(received) {
                guard lengths[i] > 0 else {
                    isClosed = true
                    return
                }
                body(Array(batch[i * slot..<i * slot + Int(lengths[i])]), stamps[i])
            }
            // A short batch emptied the queue: no second call to be told so.
            if received < slots { return }
        }
    }

    func close(on loop: EventLoop) {
        guard !released else { return }
        released = true
        if let watch { loop.unwatch(watch) }
        Glibc.close(descriptor)
    }

    deinit { if !released { Glibc.close(descriptor) } }
}
