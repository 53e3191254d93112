import IntervalProBlueZ
import IntervalProDBus
import Testing

/// The local copy of BlueZ's tree, fed the signals bluetoothd sends.
@Suite struct BlueZObjectTreeTests {
    let path = Fixture.devicePath(Fixture.forerunner)

    func changed(_ properties: BlueZObjectTree.Properties, invalidated: [String] = []) -> BlueZObjectTree.Change {
        .propertiesChanged(path: path, interface: BlueZ.Interface.device, changed: properties, invalidated: invalidated)
    }

    func treeWithWatch(rssi: Int16) -> BlueZObjectTree {
        var tree = BlueZObjectTree()
        tree.apply(.snapshot(Fixture.snapshot([Fixture.adapter()])))
        let watch = Fixture.device(Fixture.forerunner, name: "Forerunner 265", rssi: rssi, services: [0x180D])
        tree.apply(.interfacesAdded(path: watch.path, interfaces: watch.interfacesValue))
        return tree
    }

    @Test("a device keeps its last signal when discovery stops and BlueZ invalidates RSSI")
    func signalOutlivesDiscovery() {
        var tree = treeWithWatch(rssi: -58)
        tree.apply(changed(["RSSI": .int16(-64)]))
        #expect(tree.device(at: path)?.rssi == -64)
        // discovery_cleanup() in bluetoothd's adapter.c, on every stop or filter restart.
        tree.apply(changed([:], invalidated: ["RSSI"]))
        #expect(tree.device(at: path)?.rssi == -64)
        #expect(tree.objects[path]?[BlueZ.Interface.device]?["RSSI"] == nil)
        tree.apply(changed(["RSSI": .int16(-71)]))
        #expect(tree.device(at: path)?.rssi == -71)
    }

    @Test("a device that goes away and comes back has no signal until it advertises again")
    func signalForgottenWithTheDevice() {
        var tree = treeWithWatch(rssi: -58)
        tree.apply(.interfacesRemoved(path: path, interfaces: [BlueZ.Interface.device]))
        #expect(tree.device(at: path) == nil)
        var silent = Fixture.device(Fixture.forerunner, name: "Forerunner 265", services: [0x180D])
        silent.interfaces[0].properties.removeAll { $0.0 == "RSSI" }
        tree.apply(.interfacesAdded(path: silent.path, interfaces: silent.interfacesValue))
        #expect(tree.device(at: path)?.rssi == nil)

        var restarted = treeWithWatch(rssi: -58)
        restarted.apply(.cleared)
        restarted.apply(.snapshot(Fixture.snapshot([Fixture.adapter(), silent])))
        #expect(restarted.device(at: path)?.rssi == nil)
    }
}
