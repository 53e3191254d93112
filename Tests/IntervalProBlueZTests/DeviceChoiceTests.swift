import IntervalProBlueZ
import IntervalProCore
import IntervalProDBus
import Testing

/// Choosing devices by what they offer: a remembered device is a preference, the service a
/// device offers outranks its name, and a device that resolves without a role's service
/// keeps its other role while another device takes that one.
@Suite struct DeviceChoiceTests {
    let hrmProPath = Fixture.devicePath(Fixture.hrmPro)
    let watchPath = Fixture.devicePath(Fixture.forerunner)
    let footpodPath = Fixture.devicePath(Fixture.unknownSensor)
    let heartRatePath = Fixture.Char.heartRateMeasurement.path

    var remembersHRMPro: SensorLinkMachine.Configuration {
        .init(
            heartRate: DeviceChoice(Fixture.hrmPro, remembered: true),
            cadence: DeviceChoice(Fixture.hrmPro, remembered: true))
    }
    var watch: BlueZObject {
        Fixture.device(Fixture.forerunner, name: "Forerunner 265", rssi: -70, services: [BlueZ.heartRateService])
    }
    var footpod: BlueZObject {
        Fixture.device(Fixture.unknownSensor, name: "Stryd", rssi: -75, services: [BlueZ.runningSpeedAndCadenceService])
    }
    /// An HRM-Dual-like strap: heart rate only, but named like a Garmin HRM.
    var heartRateOnlyStrap: BlueZObject {
        Fixture.device(Fixture.hrmPro, name: "HRM-Pro Plus:123456", rssi: -40, services: [BlueZ.heartRateService])
    }

    @Test("a remembered device that stays away is replaced by the best ones in range after 5 s")
    func rememberedAbsent() {
        var rig = Rig(remembersHRMPro)
        rig.bringUp([Fixture.adapter()])
        rig.added(watch, at: 1)
        rig.added(footpod, at: 1.2)
        #expect(rig.tick(at: 5.9).connects.isEmpty, "the remembered device has 5 s to appear")
        let replaced = rig.tick(at: 6)
        // Both chosen; one connection at a time, the footpod's once the watch's is up.
        #expect(Set(rig.machine.chosenDevices.map(\.address)) == [Fixture.forerunner, Fixture.unknownSensor])
        #expect(replaced.connects == [.connect(device: watchPath)])
        #expect(
            rig.deviceChanged(Fixture.forerunner, ["Connected": .boolean(true)], at: 6.5).connects == [
                .connect(device: footpodPath)
            ])
        #expect(
            replaced.statuses.contains(
                .choseInstead(role: .heartRate, device: Fixture.forerunner, name: "Forerunner 265", remembered: Fixture.hrmPro, why: .notInRange)))
        #expect(
            replaced.statuses.contains(
                .choseInstead(role: .cadence, device: Fixture.unknownSensor, name: "Stryd", remembered: Fixture.hrmPro, why: .notInRange)))
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        #expect(roles == [Fixture.forerunner: [.heartRate], Fixture.unknownSensor: [.cadence]])
    }

    @Test("a remembered device that appears in time is still taken")
    func rememberedInTime() {
        var rig = Rig(remembersHRMPro)
        rig.bringUp([Fixture.adapter()])
        rig.added(watch, at: 1)
        let appeared = rig.added(
            Fixture.device(Fixture.hrmPro, name: "HRM-Pro Plus:123456", services: SensorLinkMachineTests.bothServices),
            at: 4)
        #expect(appeared.connects == [.connect(device: hrmProPath)])
        rig.tick(at: 10)
        #expect(rig.log.connects == [.connect(device: hrmProPath)])
    }

    /// Paired, the remembered strap is in BlueZ's tree at home too: its connects failed and were
    /// retried for ever, the watch in range never taken, and `run` simulated a runner.
    @Test("a remembered device in the tree that does not answer gives its role to one in range after two failed connects")
    func rememberedUnanswering() {
        var rig = Rig(remembersHRMPro)
        let pairedAtHome = Fixture.device(Fixture.hrmPro, name: "HRM-Pro Plus:123456", services: SensorLinkMachineTests.bothServices)
        rig.bringUp([Fixture.adapter(), pairedAtHome, watch])
        #expect(rig.log.connects == [.connect(device: hrmProPath)], "remembered and in the tree: tried first")
        let first = rig.fail(.connect(device: hrmProPath), .bluezFailed, "le-connection-abort-by-local", at: 1)
        #expect(first.connects.isEmpty, "one failure is a busy radio as often as an absent strap")
        #expect(rig.tick(at: 2).connects == [.connect(device: hrmProPath)])
        let second = rig.fail(.connect(device: hrmProPath), .bluezFailed, "le-connection-abort-by-local", at: 3)
        #expect(second.connects == [.connect(device: watchPath)])
        #expect(
            second.statuses.contains(
                .choseInstead(role: .heartRate, device: Fixture.forerunner, name: "Forerunner 265", remembered: Fixture.hrmPro, why: .notAnswering)))
        // No other device offers cadence: the remembered one keeps that role and its retries.
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        #expect(roles == [Fixture.hrmPro: [.cadence], Fixture.forerunner: [.heartRate]])
    }

    @Test("a device named on the command line is required: never replaced")
    func namedIsRequired() {
        var rig = Rig(.init(heartRate: DeviceChoice(Fixture.hrmPro), cadence: DeviceChoice(Fixture.hrmPro)))
        rig.bringUp([Fixture.adapter()])
        rig.added(watch, at: 1)
        rig.added(footpod, at: 1.2)
        for second in 2...30 { rig.tick(at: Double(second)) }
        #expect(rig.log.connects.isEmpty)
    }

    /// `--hr Forerunner`, as the watch's face reads, waited for a device named "Forerunner"
    /// beside a "Forerunner 265" broadcasting heart rate, and ran without heart rate.
    @Test("a name given as its first words takes the device offering the role whose name begins so; a whole name first")
    func namedByFirstWords() {
        var rig = Rig(.init(heartRate: DeviceChoice("forerunner"), cadence: DeviceChoice("Stryd")))
        rig.bringUp([Fixture.adapter()])
        rig.added(
            Fixture.device(Fixture.hrmPro, name: "Forerunner Companion", rssi: -40, services: [BlueZ.runningSpeedAndCadenceService]),
            at: 0.5)
        rig.added(watch, at: 1)
        rig.added(
            Fixture.device(Fixture.unknownSensor, name: "Stryd Next", rssi: -40, services: [BlueZ.runningSpeedAndCadenceService]),
            at: 1.1)
        let exact = Fixture.device("C8:3E:99:01:02:03", name: "STRYD", rssi: -90, services: [BlueZ.runningSpeedAndCadenceService])
        rig.added(exact, at: 1.2)
        #expect(rig.tick(at: 2).connects.isEmpty, "the words given wait for discovery to settle, as a choice not named does")
        rig.tick(at: 2.5)
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        // The companion offers no heart rate; "Stryd" is a whole name, which "Stryd Next" only begins with.
        #expect(roles == [Fixture.forerunner: [.heartRate], "C8:3E:99:01:02:03": [.cadence]])

        // Whole words only: "Forerun" is not the start of a word of "Forerunner 265"; "hrm" is of "HRM-Pro".
        for (typed, chosen) in [("Forerun", false), ("hrm", true)] {
            var other = Rig(.init(heartRate: DeviceChoice(typed)))
            other.bringUp([Fixture.adapter()])
            other.added(typed == "hrm" ? heartRateOnlyStrap : watch, at: 1)
            for second in 2...10 { other.tick(at: Double(second)) }
            #expect(other.log.connects.isEmpty != chosen, "\(typed)")
        }
    }

    @Test("for cadence the RSC service outranks a known name; the name only breaks ties")
    func serviceOutranksName() {
        var rig = Rig()
        rig.bringUp([Fixture.adapter()])
        rig.added(heartRateOnlyStrap, at: 1)
        rig.added(
            Fixture.device(Fixture.unknownSensor, name: "FP-1", rssi: -90, services: [BlueZ.runningSpeedAndCadenceService]),
            at: 1.1)
        rig.tick(at: 3)
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        #expect(roles == [Fixture.hrmPro: [.heartRate], Fixture.unknownSensor: [.cadence]])
    }

    /// A watch broadcasting heart rate and RSC (its cadence its wrist's, or 0) beside a Stryd:
    /// the stronger signal took cadence from the footpod, and a run scored at cadence 0.
    @Test("for cadence a footpod outranks a watch that also sends heart rate, whatever their signal")
    func aFootpodOutranksAWatchForCadence() {
        var rig = Rig()
        rig.bringUp([Fixture.adapter()])
        rig.added(
            Fixture.device(Fixture.forerunner, name: "Forerunner 965", rssi: -50, services: [BlueZ.heartRateService, BlueZ.runningSpeedAndCadenceService]),
            at: 1)
        rig.added(
            Fixture.device(Fixture.unknownSensor, name: "Stryd", rssi: -80, services: [BlueZ.runningSpeedAndCadenceService]), at: 1.1)
        rig.tick(at: 3)
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        #expect(roles == [Fixture.forerunner: [.heartRate], Fixture.unknownSensor: [.cadence]])
    }

    @Test("a device that resolves without RSC keeps heart rate; the footpod takes cadence; no link is dropped")
    func resolvedWithoutRole() {
        var rig = Rig(remembersHRMPro)
        rig.bringUp([Fixture.adapter(), heartRateOnlyStrap, footpod])
        #expect(rig.log.connects == [.connect(device: hrmProPath)], "the remembered strap is there: it is taken")
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 1)
        rig.reply(to: .connect(device: hrmProPath), at: 1)
        // Resolved: UUIDs now lists what the strap really has (no 0x1814).
        let resolved = rig.deviceChanged(
            Fixture.hrmPro,
            [
                "ServicesResolved": .boolean(true),
                "UUIDs": .stringArray([0x1800, 0x1801, BlueZ.heartRateService].map(BlueZ.uuid)),
            ], at: 1.5)
        #expect(resolved.statuses.contains(.roleNotOffered(role: .cadence, device: Fixture.hrmPro)))
        #expect(resolved.connects == [.connect(device: footpodPath)], "cadence goes to the footpod at once")
        #expect(
            resolved.statuses.contains(
                .choseInstead(role: .cadence, device: Fixture.unknownSensor, name: "Stryd", remembered: Fixture.hrmPro, why: .offersNoRole)))
        #expect(rig.machine.lacking == [.cadence: [Fixture.hrmPro]])
        rig.added(Fixture.Char.heartRateMeasurement, at: 1.6)
        #expect(rig.log.startNotifies == [.startNotify(characteristic: heartRatePath)])
        for second in 2...40 { rig.tick(at: Double(second)) }
        #expect(!rig.log.calls.contains(.disconnect(device: hrmProPath)), "the heart-rate link stays up")
        #expect(!rig.log.statuses.contains { if case .connectFailed = $0 { true } else { false } })
        let roles = Dictionary(uniqueKeysWithValues: rig.machine.chosenDevices.map { ($0.address, $0.roles) })
        #expect(roles == [Fixture.hrmPro: [.heartRate], Fixture.unknownSensor: [.cadence]])
    }

    @Test("a device chosen only for a role it lacks is let go, and another takes the role")
    func resolvedWithNothingWanted() {
        var rig = Rig(.init(cadence: DeviceChoice(Fixture.hrmPro, remembered: true)))
        rig.bringUp([Fixture.adapter(), heartRateOnlyStrap, footpod])
        rig.deviceChanged(Fixture.hrmPro, ["Connected": .boolean(true)], at: 1)
        rig.reply(to: .connect(device: hrmProPath), at: 1)
        let resolved = rig.deviceChanged(
            Fixture.hrmPro,
            ["ServicesResolved": .boolean(true), "UUIDs": .stringArray([BlueZ.heartRateService].map(BlueZ.uuid))],
            at: 1.5)
        #expect(resolved.calls.contains(.disconnect(device: hrmProPath)))
        #expect(resolved.deviceEvents == [Fixture.hrmPro + " disconnected"])
        #expect(resolved.connects.contains(.connect(device: footpodPath)))
        #expect(rig.machine.chosenDevices.first { $0.address == Fixture.unknownSensor }?.roles == [.cadence])
    }

    @Test("resolved with the service listed but its measurement never exported: the other role goes on")
    func measurementNeverExported() {
        var rig = Rig(.init(heartRate: DeviceChoice(Fixture.hrmPro), cadence: DeviceChoice(Fixture.hrmPro)))
        rig.bringUp([
            Fixture.adapter(),
            Fixture.device(Fixture.hrmPro, name: "HRM-Pro Plus:123456", services: SensorLinkMachineTests.bothServices),
        ])
        rig.connectAndResolve(Fixture.hrmPro, at: 1)
        rig.added(Fixture.Char.heartRateMeasurement, at: 1.6)
        #expect(rig.log.startNotifies.isEmpty, "waits for both measurements")
        let timedOut = rig.tick(at: 16.5)
        #expect(timedOut.statuses.contains(.roleNotOffered(role: .cadence, device: Fixture.hrmPro)))
        #expect(timedOut.startNotifies == [.startNotify(characteristic: heartRatePath)])
        #expect(!timedOut.calls.contains(.disconnect(device: hrmProPath)))
    }
}
