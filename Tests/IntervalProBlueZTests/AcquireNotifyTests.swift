import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import Testing

/// AcquireNotify in the link machine: which path each measurement takes, the fallback to
/// StartNotify, the sockets released on every way out, and acquiring again after a hang-up.
@Suite struct AcquireNotifyTests {
    typealias Machine = SensorLinkMachine
    let hrmProPath = Fixture.devicePath(Fixture.hrmPro)
    let heartRate = Fixture.characteristic(0x2A37, of: Fixture.hrmPro, service: 0x0c, handle: 0x0d, acquirable: true)
    let rsc = Fixture.characteristic(0x2A53, of: Fixture.hrmPro, service: 0x12, handle: 0x13, acquirable: true)

    /// The HRM-Pro named for both roles, connected and resolved by t = 1.5 s, its
    /// measurements exported at 1.6 s with or without NotifyAcquired.
    /// Both measurements acquired (sockets 7 and 8), everything answered, at 1.8 s.
    func acquiredRig() -> Rig {
        var (rig, _) = resolvedRig()
        rig.reply(to: .acquireNotify(characteristic: heartRate.path), acquired(7), at: 1.7)
        rig.reply(to: .acquireNotify(characteristic: rsc.path), acquired(8), at: 1.7)
        rig.answerEverything(at: 1.8)
        return rig
    }

    func resolvedRig(_ notify: Machine.NotifyMethod = .auto, acquirable: Bool = true) -> (Rig, [Machine.Action]) {
        var configuration = Machine.Configuration(
            heartRate: DeviceChoice(Fixture.hrmPro), cadence: DeviceChoice(Fixture.hrmPro))
        configuration.notify = notify
        var rig = Rig(configuration)
        rig.bringUp([
            Fixture.adapter(),
            Fixture.device(Fixture.hrmPro, name: "HRM-Pro Plus:123456", services: SensorLinkMachineTests.bothServices),
        ])
        rig.connectAndResolve(Fixture.hrmPro, at: 1)
        rig.added(acquirable ? heartRate : Fixture.Char.heartRateMeasurement, at: 1.6)
        let actions = rig.added(acquirable ? rsc : Fixture.Char.rscMeasurement, at: 1.6)
        return (rig, actions)
    }

    func acquired(_ descriptor: Int32) -> Result<[DBusValue], DBusCallError> {
        .success([.unixFD(descriptor), .uint16(247)])
    }

    @Test("a characteristic that offers it is acquired: the driver is told to listen on the socket")
    func acquires() {
        var (rig, subscribing) = resolvedRig()
        #expect(
            subscribing.calls.filter { if case .acquireNotify = $0 { true } else { false } }
                == [.acquireNotify(characteristic: heartRate.path), .acquireNotify(characteristic: rsc.path)])
        #expect(subscribing.startNotifies.isEmpty)
        let listening = rig.reply(to: .acquireNotify(characteristic: heartRate.path), acquired(7), at: 1.7)
        #expect(
            listening.contains(
                .listen(characteristic: heartRate.path, descriptor: 7, mtu: 247, device: Fixture.hrmPro, uuid: 0x2A37)))
        #expect(
            listening.statuses == [.notifying(device: Fixture.hrmPro, characteristic: 0x2A37, path: .acquired, refused: nil)])
        rig.reply(to: .acquireNotify(characteristic: rsc.path), acquired(8), at: 1.7)
        // Values come through the socket now: a stray signal is not reported twice.
        let signal = rig.changed(heartRate.path, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0, 80])], at: 2)
        #expect(signal.values.isEmpty)
    }

    @Test("no NotifyAcquired property (an older bluetoothd): StartNotify, as before")
    func withoutPropertyStarts() {
        let (_, subscribing) = resolvedRig(acquirable: false)
        #expect(subscribing.notifiedPaths == [Fixture.Char.heartRateMeasurement.path, Fixture.Char.rscMeasurement.path])
        #expect(!subscribing.calls.contains { if case .acquireNotify = $0 { true } else { false } })
    }

    @Test("AcquireNotify refused: StartNotify instead, and the status says why")
    func refusedFallsBack() {
        var (rig, _) = resolvedRig()
        let refused = rig.fail(
            .acquireNotify(characteristic: heartRate.path), .bluezNotPermitted, "Notify acquired", at: 1.7)
        #expect(refused.startNotifies == [.startNotify(characteristic: heartRate.path)])
        let started = rig.reply(to: .startNotify(characteristic: heartRate.path), at: 1.8)
        #expect(
            started.statuses == [
                .notifying(
                    device: Fixture.hrmPro, characteristic: 0x2A37, path: .signals,
                    refused: "Notify acquired (org.bluez.Error.NotPermitted)")
            ])
        #expect(
            rig.changed(heartRate.path, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0, 81])], at: 2)
                == [.value(device: Fixture.hrmPro, characteristic: 0x2A37, bytes: [0, 81])])
    }

    @Test("--notify start never acquires; --notify acquire never falls back")
    func methodsChosen() {
        let (_, started) = resolvedRig(.start)
        #expect(started.notifiedPaths == [heartRate.path, rsc.path])
        var (strict, _) = resolvedRig(.acquire)
        let refused = strict.fail(.acquireNotify(characteristic: rsc.path), .bluezNotSupported, "Not supported", at: 1.7)
        #expect(refused.startNotifies.isEmpty)
        #expect(
            refused.statuses == [
                .notifying(
                    device: Fixture.hrmPro, characteristic: 0x2A53, path: .acquired,
                    refused: "Not supported (org.bluez.Error.NotSupported)")
            ])
    }

    @Test("a socket hung up with the link still up is acquired again; a dropout and a stop release the sockets")
    func socketsOnEveryWayOut() {
        var rig = acquiredRig()

        // A second after it hung up, the link still up (by design: acquired at once, it was
        // asked of a device whose link was dropping, and said "receiving").
        let hungUp = rig.handle(.socketClosed(characteristic: heartRate.path), at: 5)
        #expect(!hungUp.calls.contains { if case .acquireNotify = $0 { true } else { false } })
        #expect(rig.machine.nextDeadline(after: .seconds(5)) == .seconds(6))
        let again = rig.tick(at: 6)
        #expect(again.calls.filter { if case .acquireNotify = $0 { true } else { false } }
            == [.acquireNotify(characteristic: heartRate.path)], "only the one that hung up")
        rig.reply(to: .acquireNotify(characteristic: heartRate.path), acquired(9), at: 6.1)

        let dropped = rig.deviceChanged(
            Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 10)
        #expect(
            dropped.filter { if case .release = $0 { true } else { false } }
                == [.release(characteristic: heartRate.path), .release(characteristic: rsc.path)])
        // Reconnected and acquired again, then stopped: released, no StopNotify for them.
        rig.tick(at: 11)
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 11.5)
        rig.reply(to: .connect(device: hrmProPath), at: 11.6)
        rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 12)
        rig.reply(to: .acquireNotify(characteristic: heartRate.path), acquired(10), at: 12.1)
        rig.reply(to: .acquireNotify(characteristic: rsc.path), acquired(11), at: 12.1)
        let stopping = rig.handle(.stop, at: 20)
        #expect(
            stopping.filter { if case .release = $0 { true } else { false } }
                == [.release(characteristic: heartRate.path), .release(characteristic: rsc.path)])
        #expect(!stopping.calls.contains { if case .stopNotify = $0 { true } else { false } })
        #expect(stopping.calls.contains(.disconnect(device: hrmProPath)))
    }

    /// The socket's hang-up came before BlueZ said the link dropped: the device was asked for
    /// a socket again at once, and said to be "receiving" as its signal was lost.
    @Test("a socket hung up as its link drops is not acquired again, nor said to be receiving")
    func aHangUpAsTheLinkDrops() {
        var rig = acquiredRig()
        var after = rig.handle(.socketClosed(characteristic: heartRate.path), at: 5)
        after += rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 5.001)
        after += rig.tick(at: 6)
        #expect(!after.calls.contains { if case .acquireNotify = $0 { true } else { false } }, "\(after)")
        #expect(!after.statuses.contains { if case .subscribed = $0 { true } else { false } }, "\(after)")
    }

    @Test("an AcquireNotify answered after the link dropped is not taken (its descriptor is the driver's to close)")
    func lateReplyIgnored() {
        var (rig, _) = resolvedRig()
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 2)
        let late = rig.reply(to: .acquireNotify(characteristic: heartRate.path), acquired(7), at: 2.1)
        #expect(!late.contains { if case .listen = $0 { true } else { false } })
    }

    @Test("the next deadline: a retry, a resolve timeout, the settle time; none once subscribed")
    func nextDeadline() {
        var (rig, _) = resolvedRig()
        #expect(rig.machine.nextDeadline(after: .seconds(1.7)) == nil, "subscribing: only events move it")
        rig.answerEverything(at: 1.8)
        #expect(rig.machine.nextDeadline(after: .seconds(2)) == nil)
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 10)
        #expect(rig.machine.nextDeadline(after: .seconds(10)) == .seconds(11), "the first retry, 1 s on")
        rig.tick(at: 11)
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 11.5)
        rig.reply(to: .connect(device: hrmProPath), at: 11.6)
        #expect(rig.machine.nextDeadline(after: .seconds(11.6)) == .seconds(26.5), "the resolve timeout, from Connected")

        var open = Rig()
        open.bringUp([Fixture.adapter()])
        #expect(open.machine.nextDeadline(after: .seconds(0.5)) == nil, "no candidate yet: nothing to time")
        open.added(Fixture.device(Fixture.forerunner, name: "Forerunner 265", services: [BlueZ.heartRateService]), at: 1)
        #expect(open.machine.nextDeadline(after: .seconds(1)) == .seconds(3), "the settle time")
    }
}
