import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import Testing

/// The link state machine with plain values: BlueZ's tree, replies and time are handed in,
/// and every test looks at the calls, values, device events and statuses that come out.
@Suite struct SensorLinkMachineTests {
    typealias Machine = SensorLinkMachine
    let hci0 = Fixture.adapterPath()
    let hrmProPath = Fixture.devicePath(Fixture.hrmPro)
    let heartRatePath = Fixture.Char.heartRateMeasurement.path
    let rscPath = Fixture.Char.rscMeasurement.path

    static let bothServices: [UInt16] = [BlueZ.heartRateService, BlueZ.runningSpeedAndCadenceService]

    var hrmProDevice: BlueZObject {
        Fixture.device(Fixture.hrmPro, name: "HRM-Pro Plus:123456", services: Self.bothServices)
    }

    /// Both roles named to the HRM-Pro, which is known to BlueZ from the start.
    var bothNamed: Machine.Configuration {
        .init(heartRate: DeviceChoice(Fixture.hrmPro), cadence: DeviceChoice(Fixture.hrmPro))
    }

    /// The HRM-Pro connected, resolved and subscribed by t = 2 s, every call answered.
    func subscribedRig() -> Rig {
        var rig = Rig(bothNamed)
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 1)
        rig.reply(to: .connect(device: hrmProPath), at: 1)
        rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 1.5)
        for characteristic in Fixture.Char.all { rig.added(characteristic, at: 1.6) }
        rig.answerEverything(at: 2)
        return rig
    }

    // MARK: 1. Bring-up

    @Test("waiting for bluetoothd is only a verdict once the bus has answered that it has no owner")
    func askingIsNotMissing() {
        var rig = Rig()
        rig.handle(.start, at: 0)
        #expect(rig.machine.lastReportedAdapterStatus == .waitingForBluez)
        #expect(rig.machine.isAskingForBluez, "no answer yet: a slow machine, not a missing bluetoothd")
        #expect(rig.log.statuses.isEmpty)
        let answered = rig.reply(to: .nameHasOwner, .success([.boolean(false)]), at: 4)
        #expect(answered.statuses == [.waitingForBluez], "said once the bus has answered that it has no owner")
        #expect(rig.machine.lastReportedAdapterStatus == .waitingForBluez)
        #expect(!rig.machine.isAskingForBluez)
    }

    @Test("bluetoothd that owns its name but has not yet sent its tree is still being asked")
    func treeNotYetSent() {
        var rig = Rig()
        rig.handle(.start, at: 0)
        rig.reply(to: .nameHasOwner, .success([.boolean(true)]), at: 0.1)
        // A loaded machine: GetManagedObjects unanswered seconds later (a scan's 3 s check).
        #expect(rig.machine.lastReportedAdapterStatus == .waitingForBluez)
        #expect(rig.machine.isAskingForBluez)
        let snapshot = rig.reply(to: .getManagedObjects, .success([Fixture.snapshot([Fixture.adapter()])]), at: 5)
        #expect(!rig.machine.isAskingForBluez)
        #expect(snapshot.statuses == [.scanning(roles: Set(SensorLinkMachine.Role.allCases))])
    }

    /// Not in the bluetooth group (Debian's policy): the tree was refused, and `run`, `scan`
    /// and `readiness` said "no Bluetooth adapter", sending the runner to look at hardware.
    @Test("bluetoothd refusing its tree to this user is said as that, not as no adapter")
    func refusedIsNotNoAdapter() {
        var rig = Rig()
        rig.handle(.start, at: 0)
        rig.reply(to: .nameHasOwner, .success([.boolean(true)]), at: 0.1)
        let refused = rig.fail(.getManagedObjects, .accessDenied, "Rejected send message, 2 matched rules", at: 0.2)
        guard case .notPermitted(let why)? = refused.statuses.first else {
            Issue.record("said \(refused.statuses)")
            return
        }
        #expect(why.contains("AccessDenied"))
        #expect(rig.tick(at: 5).statuses.isEmpty, "said once")
        #expect(rig.machine.adapterProblem?.contains("sudo usermod -aG bluetooth") == true, "\(rig.machine.adapterProblem ?? "")")
    }

    @Test("start asks whether org.bluez has an owner, then for the tree, then filters and starts discovery")
    func bringUp() throws {
        var rig = Rig()
        let started = rig.handle(.start, at: 0)
        #expect(started.statuses.isEmpty, "nothing to say before the bus answers")
        #expect(started.calls == [.nameHasOwner])

        let owned = rig.reply(to: .nameHasOwner, .success([.boolean(true)]), at: 0.1)
        #expect(owned.calls == [.getManagedObjects])

        let snapshot = rig.reply(to: .getManagedObjects, .success([Fixture.snapshot([Fixture.adapter()])]), at: 0.2)
        #expect(snapshot.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
        #expect(snapshot.statuses == [.scanning(roles: Set(SensorLinkMachine.Role.allCases))])
        #expect(rig.machine.adapterPath == hci0)
        #expect(rig.machine.lastReportedAdapterStatus == nil)

        let message = try BlueZCall.setDiscoveryFilter(adapter: hci0).message()
        #expect(message.destination == "org.bluez")
        #expect(message.path == hci0)
        #expect(message.interface == "org.bluez.Adapter1")
        #expect(message.member == "SetDiscoveryFilter")
        let arguments = try message.arguments()
        #expect(arguments.count == 1)
        let filter = try #require(arguments.first?.properties)
        #expect(
            filter["UUIDs"]?.stringList == [
                "0000180d-0000-1000-8000-00805f9b34fb", "00001814-0000-1000-8000-00805f9b34fb",
            ])
        #expect(filter["UUIDs"]?.stringList == [BlueZ.uuid(0x180D), BlueZ.uuid(0x1814)])
        #expect(filter["Transport"] == .string("le"))
        #expect(filter["DuplicateData"] == .boolean(false))
        #expect(filter.count == 3)
    }

    @Test("without bluetoothd it waits, and asks for the tree once org.bluez gets an owner")
    func waitsForBluez() {
        var rig = Rig()
        rig.handle(.start, at: 0)
        let absent = rig.reply(to: .nameHasOwner, .success([.boolean(false)]), at: 0.1)
        #expect(absent.calls.isEmpty)
        #expect(rig.tick(at: 5).calls.isEmpty)
        #expect(rig.machine.lastReportedAdapterStatus == .waitingForBluez)

        let appeared = rig.handle(.bluezPresent(true), at: 6)
        #expect(appeared.calls == [.getManagedObjects])
        let snapshot = rig.reply(to: .getManagedObjects, .success([Fixture.snapshot([Fixture.adapter()])]), at: 6.1)
        #expect(snapshot.calls == [.setDiscoveryFilter(adapter: hci0), .startDiscovery(adapter: hci0)])
    }

    // MARK: 2. Choosing automatically

    @Test("auto choice waits the settle time after the first candidate, then prefers a known name to a stronger signal")
    func autoChoiceSettlesAndRanks() {
        var rig = Rig()
        rig.bringUp([Fixture.adapter()])

        let headphones = rig.added(
            Fixture.device(Fixture.headphones, name: "WH-1000XM4", rssi: -30, services: [0x110B, 0x180F]), at: 1)
        #expect(headphones.connects.isEmpty)
        #expect(rig.machine.candidates.isEmpty, "audio and battery only: not a fitness sensor")
        // The headphones do not start the settle time.
        #expect(rig.tick(at: 9).connects.isEmpty)

        let unknown = rig.added(
            Fixture.device(Fixture.unknownSensor, name: "SENSOR-7", rssi: -40, services: Self.bothServices), at: 10)
        #expect(unknown.connects.isEmpty)
        #expect(unknown.statuses.isEmpty)
        #expect(rig.tick(at: 11).connects.isEmpty)
        rig.added(
            Fixture.device(Fixture.forerunner, name: "Forerunner 265", rssi: -85, services: Self.bothServices), at: 11.5
        )
        #expect(rig.tick(at: 11.999).connects.isEmpty, "settle time runs from the first candidate (t = 10)")

        let settled = rig.tick(at: 12)
        #expect(settled.connects == [.connect(device: Fixture.devicePath(Fixture.forerunner))])
        #expect(
            settled.statuses == [
                .chose(role: .heartRate, device: Fixture.forerunner, name: "Forerunner 265"),
                .chose(role: .cadence, device: Fixture.forerunner, name: "Forerunner 265"),
                .connecting(device: Fixture.forerunner, attempt: 1),
            ])
        #expect(rig.machine.candidates.map(\.address) == [Fixture.forerunner, Fixture.unknownSensor])
        #expect(rig.machine.chosenDevices.map(\.address) == [Fixture.forerunner])
        #expect(rig.machine.chosenDevices.first?.roles == [.heartRate, .cadence])

        // The choice is made once.
        #expect(rig.tick(at: 20).connects.isEmpty)
        #expect(rig.log.connects.count == 1)
    }

    @Test("between unknown names the stronger signal wins")
    func autoChoiceByRSSI() {
        var rig = Rig()
        rig.bringUp([Fixture.adapter()])
        rig.added(
            Fixture.device(Fixture.unknownSensor, name: "SENSOR-7", rssi: -80, services: Self.bothServices), at: 1)
        rig.added(Fixture.device(Fixture.forerunner, name: "SENSOR-9", rssi: -50, services: Self.bothServices), at: 1.5)
        #expect(rig.tick(at: 3).connects == [.connect(device: Fixture.devicePath(Fixture.forerunner))])
    }

    /// An HR-only strap (the HRM-Pro's address) found at 1 s and a footpod (the Forerunner's)
    /// at 1.2 s; nothing chosen yet.
    func strapAndFootpodFound() -> Rig {
        var rig = Rig()
        rig.bringUp([Fixture.adapter()])
        rig.added(
            Fixture.device(Fixture.hrmPro, name: "HRM-Dual", rssi: -50, services: [BlueZ.heartRateService]), at: 1)
        rig.added(Fixture.device(Fixture.forerunner, name: "Stryd", rssi: -70, services: [0x1814]), at: 1.2)
        return rig
    }

    @Test("a strap and a footpod each take the role they offer")
    func autoChoiceSplitsRoles() {
        var rig = strapAndFootpodFound()
        // One connection is made at a time: the footpod's once the strap's link is up.
        #expect(rig.tick(at: 3).connects == [.connect(device: hrmProPath)])
        let strapUp = rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 3.5)
        #expect(strapUp.connects == [.connect(device: Fixture.devicePath(Fixture.forerunner))])
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        #expect(roles == [Fixture.hrmPro: [.heartRate], Fixture.forerunner: [.cadence]])
    }

    @Test("a second device is on its way up while it waits its turn or connects, not while it waits to retry")
    func secondDeviceOnItsWayUp() {
        var rig = strapAndFootpodFound()
        rig.tick(at: 3)
        #expect(rig.machine.isBringingUpChosenDevice, "the strap connects, the footpod waits its turn")
        let footpodPath = Fixture.devicePath(Fixture.forerunner)
        rig.connectAndResolve(Fixture.hrmPro, at: 3.3)
        rig.fail(.connect(device: footpodPath), .bluezFailed, "le-connection-abort-by-local", at: 3.9)
        // The footpod's retry is due at 4.9 s; the strap subscribes before.
        #expect(rig.machine.isBringingUpChosenDevice, "the strap is resolving its services")
        rig.added(Fixture.Char.heartRateMeasurement, at: 4.35)
        rig.answerEverything(at: 4.4)
        #expect(rig.machine.subscribedDevices.map(\.address) == [Fixture.hrmPro])
        #expect(!rig.machine.isBringingUpChosenDevice, "the footpod only waits for its retry")
        #expect(rig.tick(at: 4.9).connects == [.connect(device: footpodPath)])
        #expect(rig.machine.isBringingUpChosenDevice, "the footpod is connecting again")
    }

    @Test("a second device whose link drops before it subscribes is still on its way up while it waits to retry")
    func secondDeviceDroppedOnItsWayUp() {
        var rig = strapAndFootpodFound()
        rig.tick(at: 3)
        rig.connectAndResolve(Fixture.hrmPro, at: 3.3)
        rig.added(Fixture.Char.heartRateMeasurement, at: 4.35)
        rig.answerEverything(at: 4.4)
        #expect(rig.machine.subscribedDevices.map(\.address) == [Fixture.hrmPro])
        rig.deviceChanged(Fixture.forerunner, ["Connected": .boolean(true)], at: 4.5)
        #expect(rig.machine.isBringingUpChosenDevice, "the footpod resolves its services")
        rig.deviceChanged(Fixture.forerunner, ["Connected": .boolean(false)], at: 4.8)
        #expect(rig.machine.subscribedDevices.map(\.address) == [Fixture.hrmPro])
        #expect(rig.machine.isBringingUpChosenDevice, "the footpod dropped on its way up and will retry")
    }

    @Test("a device queued behind another's connection connects when that one fails too")
    func queuedBehindAFailure() {
        var rig = strapAndFootpodFound()
        #expect(rig.tick(at: 3).connects == [.connect(device: hrmProPath)])
        let failed = rig.fail(.connect(device: hrmProPath), .bluezFailed, "Page Timeout", at: 8)
        #expect(failed.connects == [.connect(device: Fixture.devicePath(Fixture.forerunner))])
        // The strap's retry (1 s later) waits in turn behind the footpod's connection.
        #expect(rig.tick(at: 9).connects.isEmpty)
        let footpodUp = rig.deviceChanged(Fixture.forerunner, ["Connected": .boolean(true)], at: 9.5)
        #expect(footpodUp.connects == [.connect(device: hrmProPath)])
    }

    @Test("a device with only non-fitness services is never a candidate")
    func nonFitnessNeverChosen() {
        var rig = Rig()
        rig.bringUp([Fixture.adapter()])
        rig.added(Fixture.device(Fixture.headphones, name: "Polar Loop", rssi: -20, services: [0x110B, 0x180F]), at: 1)
        for second in 2...60 { rig.tick(at: Double(second)) }
        #expect(rig.log.connects.isEmpty)
        #expect(rig.machine.candidates.isEmpty)
        #expect(rig.machine.chosenDevices.isEmpty)
        #expect(rig.machine.isSearching)
    }

    // MARK: 3. Choosing by name or address

    @Test("a named device is connected as soon as it appears, without the settle time")
    func namedChoiceConnectsAtOnce() {
        var rig = Rig(.init(heartRate: DeviceChoice(Fixture.hrmPro.lowercased())))
        rig.bringUp([Fixture.adapter()])
        rig.added(
            Fixture.device(Fixture.unknownSensor, name: "SENSOR-7", rssi: -30, services: Self.bothServices), at: 4)
        let appeared = rig.added(hrmProDevice, at: 4.2)
        #expect(appeared.connects == [.connect(device: hrmProPath)])
        #expect(
            appeared.statuses == [
                .chose(role: .heartRate, device: Fixture.hrmPro, name: "HRM-Pro Plus:123456"),
                .connecting(device: Fixture.hrmPro, attempt: 1),
            ])
    }

    @Test("a device named by its name, in any case, already in the tree is connected from the snapshot")
    func namedByNameFromSnapshot() {
        var rig = Rig(.init(heartRate: DeviceChoice("hrm-pro plus:123456")))
        let snapshot = rig.bringUp([Fixture.adapter(), hrmProDevice])
        #expect(snapshot.connects == [.connect(device: hrmProPath)])
    }

    /// Named heart rate, cadence chosen automatically from the same device after it had
    /// already subscribed (the connection was quicker than the settle time).
    @Test("a role added later to a device already subscribed is subscribed too")
    func laterRoleOnSubscribedDevice() {
        var rig = Rig(.init(heartRate: DeviceChoice(Fixture.hrmPro)))
        rig.bringUp([Fixture.adapter()])
        rig.added(hrmProDevice, at: 5)
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 5.3)
        rig.reply(to: .connect(device: hrmProPath), at: 5.4)
        rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 5.5)
        for characteristic in Fixture.Char.all { rig.added(characteristic, at: 5.6) }
        #expect(rig.log.startNotifies == [.startNotify(characteristic: heartRatePath)])
        rig.answerEverything(at: 5.7)

        // Settle time since the first candidate (t = 5): cadence goes to the same device.
        let settled = rig.tick(at: 7)
        #expect(settled.statuses.contains(.chose(role: .cadence, device: Fixture.hrmPro, name: "HRM-Pro Plus:123456")))
        #expect(rig.machine.chosenDevices.first?.roles == [.heartRate, .cadence])
        #expect(rig.log.startNotifies.contains(.startNotify(characteristic: rscPath)))
        
        rig.answerEverything(at: 7.1)
        // So a cadence notification is dropped.
        let cadence = rig.changed(
            rscPath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0, 0x90, 0x02, 0xA8])], at: 8)
        #expect(
            cadence == [.value(device: Fixture.hrmPro, characteristic: 0x2A53, bytes: [0, 0x90, 0x02, 0xA8])])
        
    }

    // MARK: 4. Subscribing

    @Test(
        "subscribes only once ServicesResolved is true and both measurement characteristics exist, then reads static values once"
    )
    func subscribesWhenResolved() {
        var rig = Rig(bothNamed)
        let snapshot = rig.bringUp([Fixture.adapter(), hrmProDevice])
        #expect(snapshot.connects == [.connect(device: hrmProPath)])

        let connected = rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 1)
        #expect(connected.deviceEvents == ["\(Fixture.hrmPro) connected"])
        let replied = rig.reply(to: .connect(device: hrmProPath), at: 1.1)
        #expect(replied.deviceEvents.isEmpty, "connected is reported once")
        #expect(replied.startNotifies.isEmpty)

        // A characteristic before ServicesResolved: not yet.
        #expect(rig.added(Fixture.Char.heartRateMeasurement, at: 1.2).startNotifies.isEmpty)
        // Resolved, but 2A53 not exported yet: not yet.
        #expect(rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 1.3).startNotifies.isEmpty)
        #expect(rig.added(Fixture.Char.bodySensorLocation, at: 1.4).calls.isEmpty)
        #expect(rig.tick(at: 1.5).calls.isEmpty)

        let complete = rig.added(Fixture.Char.rscMeasurement, at: 1.6)
        #expect(complete.notifiedPaths == [heartRatePath, rscPath])
        #expect(complete.reads == [.readValue(characteristic: Fixture.Char.bodySensorLocation.path)])
        #expect(complete.calls.count == 3)
        #expect(complete.statuses == [.subscribed(device: Fixture.hrmPro)])

        // Static values are read as their objects appear.
        #expect(
            rig.added(Fixture.Char.rscFeature, at: 1.7).calls == [
                .readValue(characteristic: Fixture.Char.rscFeature.path)
            ])
        #expect(
            rig.added(Fixture.Char.batteryLevel, at: 1.8).calls == [
                .readValue(characteristic: Fixture.Char.batteryLevel.path)
            ])

        let read = rig.reply(
            to: .readValue(characteristic: Fixture.Char.bodySensorLocation.path), .success([.bytes([0x01])]), at: 1.9)
        #expect(read == [.value(device: Fixture.hrmPro, characteristic: 0x2A38, bytes: [0x01])])
        let battery = rig.reply(
            to: .readValue(characteristic: Fixture.Char.batteryLevel.path), .success([.bytes([0x55])]), at: 1.9)
        #expect(battery == [.value(device: Fixture.hrmPro, characteristic: 0x2A19, bytes: [0x55])])
        rig.answerEverything(at: 2)

        // Nothing more is subscribed or read, whatever else happens.
        rig.tick(at: 3)
        rig.deviceChanged(Fixture.hrmPro, ["RSSI": .int16(-70)], at: 4)
        rig.added(Fixture.Char.heartRateMeasurement, at: 5)
        rig.tick(at: 30)
        #expect(rig.log.notifiedPaths == [heartRatePath, rscPath])
        #expect(rig.log.reads.count == 3)
        #expect(Set(rig.log.reads.map { "\($0)" }).count == 3)

        // Values: from a subscribed characteristic, as they are; from another one, nothing.
        let heartRate = rig.changed(
            heartRatePath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0x16, 0x8C, 0x9A, 0x01])], at: 31)
        #expect(heartRate == [.value(device: Fixture.hrmPro, characteristic: 0x2A37, bytes: [0x16, 0x8C, 0x9A, 0x01])])
        let cadence = rig.changed(
            rscPath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0x00, 0x90, 0x02, 0xAA])], at: 31.1)
        #expect(cadence == [.value(device: Fixture.hrmPro, characteristic: 0x2A53, bytes: [0x00, 0x90, 0x02, 0xAA])])
        let unsubscribed = rig.changed(
            Fixture.Char.bodySensorLocation.path, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0x02])],
            at: 31.2)
        #expect(unsubscribed.isEmpty)
    }

    @Test("a StartNotify that fails drops that subscription's values")
    func failedStartNotify() {
        var rig = Rig(.init(heartRate: DeviceChoice(Fixture.hrmPro), cadence: DeviceChoice(Fixture.hrmPro)))
        rig.bringUp([Fixture.adapter(), hrmProDevice])
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 1)
        rig.reply(to: .connect(device: hrmProPath), at: 1)
        rig.deviceChanged(Fixture.hrmPro, ["ServicesResolved": .boolean(true)], at: 1.5)
        rig.added(Fixture.Char.heartRateMeasurement, at: 1.6)
        rig.added(Fixture.Char.rscMeasurement, at: 1.6)
        let refused = rig.fail(.startNotify(characteristic: rscPath), .bluezNotPermitted, "Notify not permitted", at: 1.7)
        // Said: the run was "no signal" to its end without a word of why.
        #expect(
            refused.statuses == [
                .notifyRefused(device: Fixture.hrmPro, characteristic: 0x2A53, error: "Notify not permitted (org.bluez.Error.NotPermitted)")
            ])
        let value = rig.changed(rscPath, BlueZ.Interface.gattCharacteristic, ["Value": .bytes([0, 1, 2, 3])], at: 2)
        #expect(value.isEmpty)
    }

    /// The page kept "…: 2a53 through AcquireNotify" under its buttons for the rest of a
    /// session after a reconnection: the path is news to a runner only when it was refused.
    @Test("a characteristic's notify path is a runner's news only when AcquireNotify was refused")
    func notifyPathIsNewsOnlyWhenRefused() {
        let device = Fixture.hrmPro
        #expect(!Machine.Status.notifying(device: device, characteristic: 0x2A53, path: .acquired, refused: nil).isNews)
        #expect(!Machine.Status.notifying(device: device, characteristic: 0x2A37, path: .signals, refused: nil).isNews)
        #expect(Machine.Status.notifying(device: device, characteristic: 0x2A37, path: .signals, refused: "Notify acquired").isNews)
        #expect(Machine.Status.lost(device: device).isNews && Machine.Status.subscribed(device: device).isNews)
    }
}
