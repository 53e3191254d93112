#if canImport(Glibc)
import Glibc
#endif
import IntervalProDBus
import IntervalProTestSupport
import Testing

/// The D-Bus layer against a real dbus-daemon started for each test.
@Suite struct DBusConnectionTests {
    let bus: PrivateBus

    init() throws { bus = try PrivateBus() }

    @Test func registersWithTheBusAndGetsAUniqueName() throws {
        let connection = try DBusConnection.bus(address: bus.address)
        #expect(connection.uniqueName.hasPrefix(":1."))
        #expect(connection.isConnected)
    }

    @Test func callsTheBusAndReadsAnArrayOfStrings() throws {
        let connection = try DBusConnection.bus(address: bus.address)
        let call = try DBusMessage(
            methodCallTo: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames")
        let reply = try connection.call(call)
        let names = try reply.arguments().first?.stringList ?? []
        #expect(names.contains("org.freedesktop.DBus"))
        #expect(names.contains(connection.uniqueName))
    }

    @Test func errorRepliesBecomeTypedFailures() throws {
        let connection = try DBusConnection.bus(address: bus.address)
        let call = try DBusMessage(
            methodCallTo: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string("org.bluez")])
        let failure = #expect(throws: DBusCallError.self) { try connection.call(call) }
        #expect(failure?.name == .nameHasNoOwner)
        #expect(failure?.name.meansServiceMissing == true)
    }

    @Test func aCallToAMissingServiceFailsAsServiceUnknown() throws {
        let connection = try DBusConnection.bus(address: bus.address)
        let call = try DBusMessage(
            methodCallTo: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
            member: "GetManagedObjects")
        let failure = #expect(throws: DBusCallError.self) { try connection.call(call, timeoutMilliseconds: 2_000) }
        #expect(failure?.name == .serviceUnknown)
    }

    /// A bus that accepts and never answers (a hung dbus-daemon): libdbus waited for it for
    /// ever, and `run`, `doctor` and `scan` with it, deaf to Ctrl-C.
    @Test func aBusThatNeverAnswersIsGivenUpOn() throws {
        let path = "/tmp/intervalpro-mute-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (i, byte) in path.utf8.enumerated() { bytes[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        defer {
            close(listener)
            unlink(path)
        }
        let failure = #expect(throws: DBusCallError.self) { _ = try DBusConnection.bus(address: "unix:path=\(path)") }
        #expect(failure?.name == .noServer && failure?.name.meansBusUnavailable == true)
        #expect(failure?.message.contains("does not answer (waited 5 s)") == true, "\(failure.map(String.init(describing:)) ?? "")")
        // Nothing of it is left holding up another bus (libdbus's Hello held a lock of the
        // whole process while it waited).
        #expect(try DBusConnection.bus(address: bus.address).isConnected)
    }

    @Test func malformedNamesAreRefusedBeforeLibdbusSeesThem() {
        #expect(throws: DBusCallError.self) {
            _ = try DBusMessage(methodCallTo: "org.bluez", path: "not/a/path", interface: "a.b", member: "C")
        }
        #expect(throws: DBusCallError.self) {
            _ = try DBusMessage(methodCallTo: "org.bluez", path: "/", interface: "a.b", member: "C", arguments: [.objectPath("bad path")])
        }
    }

    /// Every type BlueZ uses goes out and comes back unchanged through a peer that echoes.
    @Test func everyBlueZTypeRoundTripsThroughAPeer() throws {
        let server = try DBusConnection.bus(address: bus.address)
        #expect(try server.requestName("org.intervalpro.Echo"))
        let client = try DBusConnection.bus(address: bus.address)

        let values: [DBusValue] = [
            .string("Forerunner 265"), .objectPath("/org/bluez/hci0/dev_F0_F1_F2_F3_F4_F5"), .boolean(true),
            .byte(0x5A), .int16(-58), .uint16(0x2A37), .int32(-2), .uint32(7), .uint64(1 << 40), .double(3.25),
            .bytes([0x16, 0xA8, 0x01, 0x04]), .bytes([]), .stringArray(["0000180d-0000-1000-8000-00805f9b34fb"]),
            .stringVariantMap([("UUIDs", .stringArray(["180d"])), ("RSSI", .int16(-60)), ("Value", .bytes([1, 2]))]),
            .dictionary(
                keySignature: "o", valueSignature: "a{sa{sv}}",
                [
                    .init(
                        .objectPath("/org/bluez/hci0"),
                        .dictionary(
                            keySignature: "s", valueSignature: "a{sv}",
                            [.init(.string("org.bluez.Adapter1"), .stringVariantMap([("Powered", .boolean(true))]))]))
                ]),
            .variant(.variant(.string("nested"))), .structure([.string("a"), .uint32(1)]),
        ]
        let call = try DBusMessage(
            methodCallTo: "org.intervalpro.Echo", path: "/echo", interface: "org.intervalpro.Echo", member: "Echo",
            arguments: values)
        let serial = try client.send(call)
        client.flush()

        var received: DBusMessage?
        try waitFor(timeout: 10, "the echo call") {
            server.readWrite(timeoutMilliseconds: 20)
            while let message = server.popMessage() { if message.member == "Echo" { received = message } }
            return received != nil
        }
        let request = try #require(received)
        #expect(try request.arguments() == values)
        #expect(request.signature == values.map(\.signature).joined())
        try server.send(try DBusMessage(replyTo: request, arguments: try request.arguments()))
        server.flush()

        var reply: DBusMessage?
        try waitFor(timeout: 10, "the echo reply") {
            client.readWrite(timeoutMilliseconds: 20)
            while let message = client.popMessage() { if message.replySerial == serial { reply = message } }
            return reply != nil
        }
        #expect(try reply?.arguments() == values)
    }

    @Test func errorRepliesFromAPeerKeepTheirNameAndMessage() throws {
        let server = try DBusConnection.bus(address: bus.address)
        _ = try server.requestName("org.intervalpro.Fails")
        let client = try DBusConnection.bus(address: bus.address)
        let call = try DBusMessage(
            methodCallTo: "org.intervalpro.Fails", path: "/dev", interface: "org.bluez.Device1", member: "Connect")
        let serial = try client.send(call)
        try waitFor(timeout: 10, "the call") {
            server.readWrite(timeoutMilliseconds: 20)
            guard let message = server.popMessage(), message.member == "Connect" else { return false }
            try server.send(
                try DBusMessage(
                    errorReplyTo: message,
                    DBusCallError(DBusErrorName(rawValue: "org.bluez.Error.Failed"), "le-connection-abort-by-local")))
            server.flush()
            return true
        }
        var failure: DBusCallError?
        try waitFor(timeout: 10, "the error reply") {
            client.readWrite(timeoutMilliseconds: 20)
            if let message = client.popMessage(), message.replySerial == serial { failure = message.failure }
            return failure != nil
        }
        #expect(failure == DBusCallError(DBusErrorName(rawValue: "org.bluez.Error.Failed"), "le-connection-abort-by-local"))
    }

    @Test func matchRulesDeliverSignalsAndFilterOthers() throws {
        let emitter = try DBusConnection.bus(address: bus.address)
        _ = try emitter.requestName("org.intervalpro.Signals")
        let listener = try DBusConnection.bus(address: bus.address)
        try listener.addMatch(
            "type='signal',sender='org.intervalpro.Signals',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        #expect(throws: DBusCallError.self) { try listener.addMatch("type='nonsense") }

        try emitter.send(try DBusMessage(signalFrom: "/other", interface: "org.intervalpro.Other", member: "Ignored"))
        let changed: [DBusValue] = [
            .string("org.bluez.GattCharacteristic1"), .stringVariantMap([("Value", .bytes([0x06, 0x8A]))]),
            .stringArray([]),
        ]
        try emitter.send(
            try DBusMessage(
                signalFrom: "/org/bluez/hci0/dev_X/service000c/char000d", interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged", arguments: changed))
        emitter.flush()

        var signals: [DBusMessage] = []
        try waitFor(timeout: 10, "the signal") {
            listener.readWrite(timeoutMilliseconds: 20)
            while let message = listener.popMessage() { if message.type == .signal { signals.append(message) } }
            return signals.contains { $0.member == "PropertiesChanged" }
        }
        #expect(!signals.contains { $0.member == "Ignored" })
        let signal = try #require(signals.first { $0.member == "PropertiesChanged" })
        #expect(signal.path == "/org/bluez/hci0/dev_X/service000c/char000d")
        #expect(try signal.arguments()[1].properties?["Value"]?.byteArray == [0x06, 0x8A])
    }
}
