import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import Testing

/// The link state machine recovering: connect failures, dropouts, bluetoothd restarts,
/// adapters switched off and on; then stopping, and scanning only.
extension SensorLinkMachineTests {
    // MARK: 5. Connect failures

    @Test("a local connection abort is retried after 1 s, 2 s, 4 s, 8 s, then every 8 s, never sooner")
    func retriesWithBackoff() {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        var failedAt = 10.0
        var attempt = 1
        for delay in [1.0, 2, 4, 8, 8] {
            let failed = rig.fail(
                .connect(device: hrmProPath), .bluezFailed, BlueZFailureMessage.connectionAbortedLocally, at: failedAt)
            #expect(failed.connects.isEmpty)
            #expect(
                failed.statuses == [
                    .connectFailed(
                        device: Fixture.hrmPro, error: "le-connection-abort-by-local (org.bluez.Error.Failed)",
                        retryIn: .seconds(delay))
                ])
            #expect(rig.tick(at: failedAt + delay - 0.01).connects.isEmpty, "retry \(attempt) came early")
            let retried = rig.tick(at: failedAt + delay)
            attempt += 1
            #expect(retried.connects == [.connect(device: hrmProPath)], "after \(delay) s")
            #expect(retried.statuses == [.connecting(device: Fixture.hrmPro, attempt: attempt)])
            failedAt += delay + 0.2
        }
        #expect(rig.log.connects.count == 6)
    }

    @Test("after UnknownObject for a device BlueZ removed, it waits for the device to reappear")
    func unknownObjectWaitsForDevice() {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        let removed = rig.removed(hrmProPath, [BlueZ.Interface.device], at: 5)
        #expect(removed.connects.isEmpty)
        // Gone: discovery looks for it again.
        #expect(removed.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
        rig.reply(to: .setDiscoveryFilter(adapter: hci0), at: 5)
        rig.reply(to: .startDiscovery(adapter: hci0), at: 5)

        let failed = rig.fail(
            .connect(device: hrmProPath), .unknownObject, "Method \"Connect\" doesn't exist", at: 5.1)
        #expect(failed.calls.isEmpty)
        #expect(failed.statuses.isEmpty, "not a failed attempt to retry")
        #expect(rig.tick(at: 20).calls.isEmpty)

        let back = rig.added(hrmProDevice, at: 21)
        #expect(back.connects == [.connect(device: hrmProPath)])
        #expect(back.statuses == [.connecting(device: Fixture.hrmPro, attempt: 1)])
    }

    /// "Device removed" can be answered before bluetoothd's InterfacesRemoved for the same
    /// device goes out, so for a moment the tree still lists the device.
    @Test("a Connect failing with Device removed waits for the device to reappear, even before InterfacesRemoved")
    func deviceRemovedWithStaleTree() {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        let failed = rig.fail(.connect(device: hrmProPath), .bluezFailed, BlueZFailureMessage.deviceRemoved, at: 5)
        // Not a failed attempt to retry: the device has to be found again, so discovery restarts.
        #expect(failed.statuses == [.scanning(roles: Set(SensorLinkMachine.Role.allCases))])
        #expect(failed.connects.isEmpty)
        
        rig.removed(hrmProPath, [BlueZ.Interface.device], at: 5.1)
        // The extra Connect, if any, is answered the way BlueZ would once the object is gone.
        if rig.isOutstanding(.connect(device: hrmProPath)) {
            let unknown = rig.fail(.connect(device: hrmProPath), .unknownObject, "no such object", at: 5.2)
            #expect(unknown.connects.isEmpty)
        }
        #expect(rig.tick(at: 8).connects.isEmpty)
        #expect(rig.added(hrmProDevice, at: 9).connects == [.connect(device: hrmProPath)])
    }

    /// (One measurement exported but not the other keeps the device for that one:
    /// DeviceChoiceTests.)
    @Test(
        "a device that connects but never exports its measurements is disconnected after the resolve timeout and retried"
    )
    func resolveTimeout() {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 1)
        rig.reply(to: .connect(device: hrmProPath), at: 1.1)
        rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 2)
        rig.added(Fixture.Char.batteryLevel, at: 2.1)
        #expect(rig.tick(at: 15.99).calls.isEmpty)

        let timedOut = rig.tick(at: 16)
        #expect(timedOut.calls == [.disconnect(device: hrmProPath)])
        #expect(
            timedOut.statuses == [
                .connectFailed(
                    device: Fixture.hrmPro, error: "services never resolved (org.bluez.Error.Failed)",
                    retryIn: .seconds(1))
            ])
        rig.reply(to: .disconnect(device: hrmProPath), at: 16.1)
        rig.deviceChanged(
            Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 16.2)
        #expect(rig.log.deviceEvents == ["\(Fixture.hrmPro) connected", "\(Fixture.hrmPro) disconnected"])
        
        #expect(rig.tick(at: 16.99).connects.isEmpty)
        let retried = rig.tick(at: 17)
        #expect(retried.connects == [.connect(device: hrmProPath)])
        #expect(retried.statuses == [.connecting(device: Fixture.hrmPro, attempt: 2)])
    }

    // MARK: 6. Dropouts

    @Test("a dropout is reported, retried after 1 s, and the device is subscribed again on reconnect")
    func dropoutReconnects() {
        var rig = subscribedRig()
        #expect(rig.log.startNotifies.count == 2)

        let dropped = rig.deviceChanged(
            Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 30)
        #expect(dropped.deviceEvents == ["\(Fixture.hrmPro) disconnected"])
        #expect(dropped.statuses == [.lost(device: Fixture.hrmPro)])
        #expect(dropped.connects.isEmpty)
        // bluetoothd delivers values on a reconnecting link before we subscribe again
        // (it re-enables notifications itself): they are real readings, and kept.
        #expect(
            rig.changed(heartRatePath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0x00, 0x50])], at: 30.2)
                == [.value(device: Fixture.hrmPro, characteristic: 0x2A37, bytes: [0x00, 0x50])])
        #expect(rig.tick(at: 30.99).connects.isEmpty)

        let retried = rig.tick(at: 31)
        #expect(retried.connects == [.connect(device: hrmProPath)])
        #expect(retried.statuses == [.connecting(device: Fixture.hrmPro, attempt: 1)])

        let reconnected = rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 31.5)
        #expect(reconnected.deviceEvents == ["\(Fixture.hrmPro) connected"])
        #expect(reconnected.startNotifies.isEmpty, "not resolved yet")
        rig.reply(to: .connect(device: hrmProPath), at: 31.6)
        let resolved = rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 32)
        #expect(resolved.notifiedPaths == [heartRatePath, rscPath])
        #expect(resolved.reads.count == 3, "static values are read again on the new connection")
        #expect(resolved.statuses == [.subscribed(device: Fixture.hrmPro)])
        rig.answerEverything(at: 32.1)
        #expect(
            rig.changed(heartRatePath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0x00, 0x51])], at: 33)
                == [.value(device: Fixture.hrmPro, characteristic: 0x2A37, bytes: [0x00, 0x51])])
    }

    @Test("StartNotify refused as already notifying after a reconnect still counts as subscribed")
    func alreadyNotifyingAfterReconnect() {
        var rig = subscribedRig()
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 30)
        rig.tick(at: 31)
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 31.5)
        rig.reply(to: .connect(device: hrmProPath), at: 31.6)
        let resolved = rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 32)
        #expect(resolved.notifiedPaths == [heartRatePath, rscPath])
        rig.fail(.startNotify(characteristic: heartRatePath), .bluezInProgress, "Already notifying", at: 32.1)
        #expect(
            rig.changed(heartRatePath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0x00, 0x52])], at: 33)
                == [.value(device: Fixture.hrmPro, characteristic: 0x2A37, bytes: [0x00, 0x52])])
        // And the next dropout and reconnect subscribe again as usual.
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 40)
        rig.tick(at: 41)
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 41.5)
        rig.reply(to: .connect(device: hrmProPath), at: 41.6)
        #expect(
            rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 42).notifiedPaths
                == [heartRatePath, rscPath])
    }

    /// bluetoothd 5.66 (src/device.c) can answer Connect without ever signalling Connected:
    /// its ATT callback marks the device connected and replies, and the kernel's connection
    /// event that comes after finds it connected already ("Device … is already connected")
    /// and returns before the signal. The answer is what the machine goes by.
    @Test("a Connect answered without a Connected signal counts as connected: no loss, subscribed once resolved")
    func connectAnsweredWithoutConnectedSignal() {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        let answered = rig.reply(to: .connect(device: hrmProPath), at: 1)
        #expect(answered.deviceEvents == ["\(Fixture.hrmPro) connected"])
        let resolved = rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 1.5)
        #expect(resolved.statuses.isEmpty, "not lost: the tree's Connected is only stale")
        var subscribing: [Machine.Action] = []
        for characteristic in Fixture.Char.all { subscribing += rig.added(characteristic, at: 1.6) }
        #expect(subscribing.statuses == [.subscribed(device: Fixture.hrmPro)])
        #expect(rig.log.deviceEvents == ["\(Fixture.hrmPro) connected"])
        #expect(rig.log.connects.count == 1)
    }

    /// A reconnect over a link the kernel kept (bluetoothd dropped a stale connection handle):
    /// bluetoothd's ATT callback marks the device connected again without a signal, and its
    /// services resolve as usual.
    @Test("a reconnect that bluetoothd never signals subscribes the device again, and stays up")
    func reconnectWithoutConnectedSignal() {
        var rig = subscribedRig()
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], at: 30)
        #expect(rig.tick(at: 31).connects == [.connect(device: hrmProPath)])
        let answered = rig.reply(to: .connect(device: hrmProPath), at: 31.1)
        #expect(answered.deviceEvents == ["\(Fixture.hrmPro) connected"])
        let resolved = rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 31.5)
        #expect(resolved.statuses == [.subscribed(device: Fixture.hrmPro)])
        #expect(resolved.notifiedPaths == [heartRatePath, rscPath])
        #expect(rig.tick(at: 60).connects.isEmpty, "up, not waiting to retry")
        #expect(rig.log.deviceEvents == ["\(Fixture.hrmPro) connected", "\(Fixture.hrmPro) disconnected", "\(Fixture.hrmPro) connected"])
    }

    // MARK: 7. bluetoothd restarts

    @Test("a bluetoothd restart reports the disconnect, reloads the tree and reconnects the same device")
    func bluetoothdRestart() {
        var rig = subscribedRig()
        let gone = rig.handle(.bluezPresent(false), at: 40)
        #expect(gone.deviceEvents == ["\(Fixture.hrmPro) disconnected"])
        #expect(gone.statuses == [.bluezRestarted])
        #expect(gone.calls.isEmpty)
        #expect(rig.tick(at: 42).calls.isEmpty)
        #expect(rig.machine.lastReportedAdapterStatus == .waitingForBluez)

        let back = rig.handle(.bluezPresent(true), at: 45)
        #expect(back.calls == [.getManagedObjects])
        let snapshot = rig.reply(
            to: .getManagedObjects, .success([Fixture.snapshot([Fixture.adapter(), hrmProDevice])]), at: 45.2)
        #expect(snapshot.connects == [.connect(device: hrmProPath)])
        #expect(rig.machine.chosenDevices.map(\.address) == [Fixture.hrmPro], "the choice survives the restart")

        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 46)
        rig.reply(to: .connect(device: hrmProPath), at: 46)
        rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 46.5)
        rig.added(Fixture.Char.heartRateMeasurement, at: 46.6)
        let subscribed = rig.added(Fixture.Char.rscMeasurement, at: 46.6)
        #expect(subscribed.notifiedPaths == [heartRatePath, rscPath])
    }

    @Test("after a restart without the device in the new tree, discovery finds it again")
    func bluetoothdRestartDeviceMissing() {
        var rig = subscribedRig()
        rig.handle(.bluezPresent(false), at: 40)
        rig.handle(.bluezPresent(true), at: 45)
        let snapshot = rig.reply(to: .getManagedObjects, .success([Fixture.snapshot([Fixture.adapter()])]), at: 45.2)
        #expect(snapshot.connects.isEmpty)
        #expect(snapshot.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
        #expect(rig.added(hrmProDevice, at: 48).connects == [.connect(device: hrmProPath)])
    }

    // MARK: 8. Adapters

    @Test("a powered-off adapter is reported and not used until it is powered on")
    func adapterOff() {
        var rig = Rig()
        let snapshot = rig.bringUp([Fixture.adapter(powered: false)])
        #expect(snapshot.statuses == [.adapterOff("hci0")])
        #expect(snapshot.calls.isEmpty)
        #expect(rig.machine.lastReportedAdapterStatus == .adapterOff("hci0"))
        #expect(rig.tick(at: 5).isEmpty, "the status is not repeated")

        let powered = rig.changed(hci0, BlueZ.Interface.adapter, ["Powered": .boolean(true)], at: 6)
        #expect(powered.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
        #expect(powered.statuses == [.scanning(roles: Set(SensorLinkMachine.Role.allCases))])
        #expect(rig.machine.lastReportedAdapterStatus == nil)
    }

    @Test("an adapter switched off mid-session stops reconnecting until it is back")
    func adapterOffMidSession() {
        var rig = subscribedRig()
        let off = rig.changed(hci0, BlueZ.Interface.adapter, ["Powered": .boolean(false)], at: 50)
        #expect(off.statuses == [.adapterOff("hci0")])
        let dropped = rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(false)], at: 50.1)
        #expect(dropped.deviceEvents == ["\(Fixture.hrmPro) disconnected"])
        #expect(rig.tick(at: 55).connects.isEmpty)

        let on = rig.changed(hci0, BlueZ.Interface.adapter, ["Powered": .boolean(true)], at: 60)
        #expect(on.connects == [.connect(device: hrmProPath)])
    }

    @Test("no adapter at all is reported, and one that appears later is used")
    func noAdapter() {
        var rig = Rig()
        let snapshot = rig.bringUp([])
        #expect(snapshot.statuses == [.noAdapter(requested: nil)])
        #expect(snapshot.calls.isEmpty)
        #expect(rig.machine.lastReportedAdapterStatus == .noAdapter(requested: nil))
        let plugged = rig.added(Fixture.adapter(), at: 3)
        #expect(plugged.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
    }

    @Test("a requested adapter that is not there is reported by name, and another one is not used instead")
    func requestedAdapterMissing() {
        var config = Machine.Configuration(adapter: "hci1")
        config.settleTime = .seconds(2)
        var rig = Rig(config)
        let snapshot = rig.bringUp([Fixture.adapter("hci0")])
        #expect(snapshot.statuses == [.noAdapter(requested: "hci1")])
        #expect(snapshot.calls.isEmpty)
        let plugged = rig.added(Fixture.adapter("hci1"), at: 2)
        #expect(
            plugged.calls == [
                .setDiscoveryFilter(adapter: Fixture.adapterPath("hci1")),
                .startDiscovery(adapter: Fixture.adapterPath("hci1")),
            ])
    }

    // MARK: 9. Stopping

    @Test("stop unsubscribes each characteristic, disconnects, and reports stopped once the replies are in")
    func stopCleansUp() {
        var rig = subscribedRig()
        let stop = rig.handle(.stop, at: 60)
        #expect(
            stop.calls == [
                .stopNotify(characteristic: heartRatePath), .stopNotify(characteristic: rscPath),
                .disconnect(device: hrmProPath),
            ])
        #expect(!stop.contains(.stopped))
        #expect(!rig.machine.isStopped)
        #expect(!rig.reply(to: .stopNotify(characteristic: heartRatePath), at: 60.1).contains(.stopped))
        #expect(!rig.reply(to: .stopNotify(characteristic: rscPath), at: 60.2).contains(.stopped))
        let last = rig.reply(to: .disconnect(device: hrmProPath), at: 60.3)
        #expect(last == [.stopped])
        #expect(rig.machine.isStopped)
        #expect(rig.log.filter { $0 == .stopped }.count == 1)
        #expect(rig.log.connects.count == 1, "nothing reconnects while stopping")
    }

    @Test("stop while discovering stops discovery; with nothing to undo it reports stopped at once")
    func stopWhileDiscoveringOrIdle() {
        var discovering = Rig()
        discovering.bringUp([Fixture.adapter()])
        let stop = discovering.handle(.stop, at: 5)
        #expect(stop.calls == [.stopDiscovery(adapter: hci0)])
        #expect(!stop.contains(.stopped))
        #expect(discovering.reply(to: .stopDiscovery(adapter: hci0), at: 5.1) == [.stopped])

        var idle = Rig()
        idle.bringUp([Fixture.adapter(powered: false)])
        #expect(idle.handle(.stop, at: 5) == [.stopped])

        var noBluez = Rig()
        noBluez.handle(.start, at: 0)
        #expect(noBluez.handle(.stop, at: 1) == [.stopped])
    }

    @Test("stop while a Connect is in flight still disconnects the device")
    func stopDuringConnect() {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        #expect(rig.isOutstanding(.connect(device: hrmProPath)))
        let stop = rig.handle(.stop, at: 5)
        // BlueZ answers the Connect after all: the device is connected to this computer.
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 5.2)
        rig.reply(to: .connect(device: hrmProPath), at: 5.3)
        #expect(!stop.contains(.stopped), "stopped before the Connect was answered")
        #expect(rig.log.calls.contains(.disconnect(device: hrmProPath)))
        
        let stoppedAt = rig.log.firstIndex(of: .stopped) ?? rig.log.endIndex
        #expect(Array(rig.log[stoppedAt...]).deviceEvents.isEmpty, "a device event after stopped")
        
    }

    // MARK: 10. Scanning only

    @Test("scan-only discovers and lists candidates but never connects")
    func scanOnly() {
        var config = Machine.Configuration()
        config.scanOnly = true
        var rig = Rig(config)
        let snapshot = rig.bringUp([Fixture.adapter()])
        #expect(snapshot.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
        rig.added(hrmProDevice, at: 1)
        rig.added(
            Fixture.device(Fixture.forerunner, name: "Forerunner 265", rssi: -70, services: Self.bothServices), at: 1.5)
        rig.added(Fixture.device(Fixture.headphones, name: "WH-1000XM4", services: [0x110B]), at: 2)
        for second in 3...30 { rig.tick(at: Double(second)) }
        #expect(rig.log.connects.isEmpty)
        #expect(rig.machine.chosenDevices.isEmpty)
        // Both names are known ones: the stronger signal (-60 against -70) comes first.
        #expect(rig.machine.candidates.map(\.address) == [Fixture.hrmPro, Fixture.forerunner])
        #expect(rig.log.statuses == [.scanning(roles: Set(SensorLinkMachine.Role.allCases))], "bluetoothd there: no word of waiting for it")
        #expect(!rig.log.calls.contains(.stopDiscovery(adapter: hci0)), "discovery goes on until stop")
    }
}
