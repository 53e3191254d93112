import IntervalProCore
import IntervalProDBus

// A chosen device: connecting, subscribing to its measurements once its services resolve,
// giving up a role it does not offer, and the values read once.
extension SensorLinkMachine {
    mutating func connect(link i: Int, into actions: inout [Action]) {
        links[i].connecting()
        report(.connecting(device: links[i].address, attempt: links[i].failures + 1), into: &actions)
        call(.connect(device: links[i].path), as: .connect(device: links[i].path), into: &actions)
    }

    /// Subscribes once BlueZ has exported the measurement characteristics, which can be a
    /// moment after ServicesResolved turns true. A role whose service the resolved device
    /// does not have is given up on this device, not retried.
    mutating func subscribeIfResolved(link i: Int, since: SessionTime, now: SessionTime, into actions: inout [Action]) {
        guard let device = tree.device(at: links[i].path), device.connected else { return }
        if device.servicesResolved {
            // Once resolved, UUIDs lists the services the device really has.
            let missing = links[i].roles.filter { !device.serviceUUIDs.contains($0.service) }
            if !missing.isEmpty, give(up: missing, link: i, into: &actions) { return }
        }
        let link = links[i]
        let characteristics = tree.characteristics(of: link.path)
        let measurements = Role.allCases.filter(link.roles.contains).compactMap { role in
            characteristics.first { $0.uuid == role.measurement }
        }
        guard device.servicesResolved, measurements.count == link.roles.count else {
            if now - since >= configuration.resolveTimeout {
                // Resolved with some measurements but never the others: keep what is there.
                if device.servicesResolved, !measurements.isEmpty {
                    let missing = link.roles.filter { role in !measurements.contains { $0.uuid == role.measurement } }
                    _ = give(up: missing, link: i, into: &actions)
                    subscribeIfResolved(link: i, since: since, now: now, into: &actions)
                    return
                }
                // Never exported anything we need: start over on this device.
                call(.disconnect(device: link.path), as: .disconnect(device: link.path), into: &actions)
                actions.append(.deviceEvent(device: link.address, name: "disconnected"))
                connectFailed(
                    link: i, DBusCallError(.bluezFailed, "services never resolved"), now: now, into: &actions)
            }
            return
        }
        for characteristic in measurements where link.notifying[characteristic.path] == nil {
            // Asked already (a socket hung up while the other one's AcquireNotify is in flight).
            guard !pending.values.contains(.acquireNotify(device: link.path, characteristic: characteristic.path)),
                !pending.values.contains(.startNotify(device: link.path, characteristic: characteristic.path))
            else { continue }
            subscriptions[characteristic.path] = (link.address, characteristic.uuid)
            let acquire =
                switch configuration.notify {
                case .auto: characteristic.notifyAcquired != nil
                case .acquire: true
                case .start: false
                }
            if acquire {
                call(
                    .acquireNotify(characteristic: characteristic.path),
                    as: .acquireNotify(device: link.path, characteristic: characteristic.path), into: &actions)
            } else {
                call(
                    .startNotify(characteristic: characteristic.path),
                    as: .startNotify(device: link.path, characteristic: characteristic.path), into: &actions)
            }
        }
        readStaticValues(link: i, into: &actions)
        links[i].subscribed()
        report(.subscribed(device: link.address), into: &actions)
    }

    /// Takes `roles` away from a link whose device does not offer them, so that another
    /// device is chosen for them. A link left with no role is disconnected (and removed by
    /// `advance`); returns true then.
    mutating func give(up roles: Set<Role>, link i: Int, into actions: inout [Action]) -> Bool {
        for role in Role.allCases where roles.contains(role) {
            lacking[role, default: []].insert(links[i].address)
            links[i].roles.remove(role)
            rolesFreed = true
            report(.roleNotOffered(role: role, device: links[i].address), into: &actions)
        }
        guard links[i].roles.isEmpty else { return false }
        let path = links[i].path
        call(.disconnect(device: path), as: .disconnect(device: path), into: &actions)
        if links[i].isConnected { actions.append(.deviceEvent(device: links[i].address, name: "disconnected")) }
        return true
    }

    /// Reads the values that do not change during a session (sensor location, RSC
    /// features, battery) once per connection, as their objects appear.
    mutating func readStaticValues(link i: Int, into actions: inout [Action]) {
        for characteristic in tree.characteristics(of: links[i].path)
        where Self.readOnce.contains(characteristic.uuid) && links[i].markRead(characteristic.path) {
            call(
                .readValue(characteristic: characteristic.path),
                as: .read(device: links[i].path, uuid: characteristic.uuid), into: &actions)
        }
    }

    static let readOnce: Set<UInt16> = [0x2A38, 0x2A54, 0x2A19]
}
