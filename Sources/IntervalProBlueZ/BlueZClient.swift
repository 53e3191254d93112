public import IntervalProCore
public import IntervalProDBus
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a `SensorLinkMachine` against the real bus on a thread of its own: reads messages,
/// turns them into events, and performs the calls the machine returns.
///
/// What the machine produces for the outside (values, device events, status) goes to
/// `output`, called on the client's thread.
public final class BlueZClient: Sendable {
    public typealias Output = @Sendable (SensorLinkMachine.Action, SessionTime) -> Void
    public typealias Connect = @Sendable () throws -> DBusConnection

    private let configuration: SensorLinkMachine.Configuration
    private let connectToBus: Connect
    private let now: @Sendable () -> SessionTime
    private let output: Output
    private let stopRequested = Atomic<Bool>(false)
    private let finished = Mutex<Finished>(Finished())
    /// A snapshot of the machine after every event, for callers that ask (scan, run's wait).
    private let snapshot = Mutex<SensorLinkMachine?>(nil)

    private struct Finished: ~Copyable {
        var done = false
        var error: DBusFailure?
    }

    /// How long a call may go unanswered before it counts as failed (BlueZ's Connect can
    /// take a while on a busy radio).
    public static let callTimeout = SessionTime.seconds(30)
    /// Stopping waits this long for StopNotify and Disconnect to be answered.
    public static let stopTimeout = SessionTime.seconds(3)

    /// - Parameters:
    ///   - now: the client's clock, in session time (injected so tests and sessions share it).
    public init(
        configuration: SensorLinkMachine.Configuration, connect: @escaping Connect = { try DBusConnection.system() },
        now: @escaping @Sendable () -> SessionTime, output: @escaping Output
    ) {
        self.configuration = configuration
        self.connectToBus = connect
        self.now = now
        self.output = output
    }

    /// Starts the client thread. Fails at once if the bus cannot be reached.
    public func start() throws {
        let connection = try connectToBus()
        for rule in BlueZ.matchRules { try connection.addMatch(rule) }
        let thread = Thread { [self] in loop(connection) }
        try thread.start()
    }

    /// Asks the client to unsubscribe, disconnect and end, and waits until it has.
    public func stop() async {
        stopRequested.store(true, ordering: .releasing)
        while !finished.withLock({ $0.done }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The bus error that ended the client early, if any.
    public var failure: DBusFailure? { finished.withLock { $0.error } }

    /// The machine's state as of the last event.
    public var state: SensorLinkMachine? { snapshot.withLock { $0 } }

    // MARK: The client thread

    private func loop(_ connection: DBusConnection) {
        var machine = SensorLinkMachine(configuration: configuration)
        var calls: [UInt32: (id: SensorLinkMachine.CallID, deadline: SessionTime)] = [:]
        var stopDeadline: SessionTime?
        var failure: DBusFailure?

        func deliver(_ event: SensorLinkMachine.Event) {
            let time = now()
            var changedState = false
            for action in machine.handle(event, now: time) {
                if case .call(let id, let call) = action {
                    do {
                        let serial = try connection.send(try call.message())
                        calls[serial] = (id, time + Self.callTimeout)
                    } catch let error as DBusFailure {
                        _ = machine.handle(.reply(id, .failure(error)), now: time)
                    } catch {}
                    changedState = true
                } else {
                    if case .value = action {} else { changedState = true }
                    output(action, time)
                }
            }
            // Publishing a copy costs a copy of the tree on the next change: only when
            // something other than a value happened.
            if changedState || !isValue(event) { snapshot.withLock { $0 = machine } }
        }

        func isValue(_ event: SensorLinkMachine.Event) -> Bool {
            if case .tree(.propertiesChanged(_, BlueZ.Interface.gattCharacteristic, let changed, _)) = event {
                return changed.count == 1 && changed["Value"] != nil
            }
            if case .tick = event { return true }
            return false
        }

        deliver(.start)
        while true {
            if stopDeadline == nil, stopRequested.load(ordering: .acquiring) {
                stopDeadline = now() + Self.stopTimeout
                deliver(.stop)
            }
            guard connection.readWrite(timeoutMilliseconds: 50), connection.isConnected else {
                failure = DBusFailure(.disconnected, "the system bus connection closed")
                break
            }
            while let message = connection.popMessage() {
                if let serialEntry = calls.removeValue(forKey: message.replySerial), message.replySerial != 0 {
                    let result: Result<[DBusValue], DBusFailure> =
                        if let failure = message.failure { .failure(failure) }
                        else { Result { try message.arguments() }.mapError { $0 as? DBusFailure ?? DBusFailure(.failed, "\($0)") } }
                    deliver(.reply(serialEntry.id, result))
                } else if message.type == .signal, let event = Self.event(from: message) {
                    deliver(event)
                }
            }
            let time = now()
            for (serial, call) in calls where call.deadline <= time {
                calls[serial] = nil
                deliver(.reply(call.id, .failure(DBusFailure(.noReply, "no reply from bluetoothd"))))
            }
            deliver(.tick)
            if let stopDeadline, machine.isStopped || now() >= stopDeadline { break }
        }
        connection.flush()
        finished.withLock {
            $0.error = failure
            $0.done = true
        }
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

/// A plain POSIX thread running one closure: the client's loop blocks in poll(2), which
/// must not happen on the cooperative thread pool.
final class Thread: @unchecked Sendable {
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() throws {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self)
        let result = pthread_create(&thread, nil, { context in
            let thread = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
            thread.body()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw DBusFailure(.failed, "could not start the Bluetooth thread (error \(result))")
        }
        pthread_detach(thread)
    }
}
