import IntervalProCore
import IntervalProDBus

// What BlueZ says: bluetoothd coming and going, object-tree changes (values among them),
// answers to our calls and hung-up sockets.
extension SensorLinkMachine {
    mutating func bluezPresent(_ present: Bool, now: SessionTime, into actions: inout [Action]) {
        guard present != bluezPresent else { return }
        bluezPresent = present
        if present {
            call(.getManagedObjects, as: .managedObjects, into: &actions)
        } else {
            // bluetoothd is gone: its objects and our subscriptions with it. Keep the
            // choices and find the same devices again when it comes back.
            tree.apply(.cleared)
            adapterPath = nil
            discovering = false
            subscriptions = [:]
            pending = pending.filter { $0.value == .nameHasOwner }
            for i in links.indices {
                if links[i].isConnected { actions.append(.deviceEvent(device: links[i].address, name: "disconnected")) }
                for path in links[i].bluezGone() { actions.append(.release(characteristic: path)) }
            }
            lastReportedAdapterStatus = .waitingForBluez
            report(.bluezRestarted, into: &actions)
        }
    }

    enum Applied { case valueOnly, structure }

    mutating func apply(_ change: BlueZObjectTree.Change, now: SessionTime, into actions: inout [Action])
        -> Applied
    {
        // Values are the hot path: one per notification. Report them and skip the tree.
        if case .propertiesChanged(let path, BlueZ.Interface.gattCharacteristic, let changed, let invalidated) = change,
            let value = changed["Value"]?.byteArray
        {
            if let (device, uuid) = subscriptions[path] {
                actions.append(.value(device: device, characteristic: uuid, bytes: value))
            }
            if changed.count == 1, invalidated.isEmpty { return .valueOnly }
        }
        tree.apply(change)
        if case .interfacesRemoved(let path, let interfaces) = change, interfaces.contains(BlueZ.Interface.gattCharacteristic) {
            subscriptions[path] = nil
        }
        // Once stopping, the tree is only kept current: links report nothing more.
        if !stopping { reconcileLinks(now: now, into: &actions) }
        return .structure
    }

    /// Brings each link in line with what the tree now says about its device.
    mutating func reconcileLinks(now: SessionTime, into actions: inout [Action]) {
        for i in links.indices {
            let device = tree.device(at: links[i].path)
            let connectedNow = device?.connected ?? false
            if links[i].isConnected, !connectedNow {
                lose(link: i, now: now, into: &actions)
            } else if connectedNow, links[i].phase == .connecting {
                links[i].connected(at: now)
                actions.append(.deviceEvent(device: links[i].address, name: "connected"))
            }
            if device == nil { links[i].objectRemoved() }
        }
    }

    /// A chosen device dropped: say so, forget its subscriptions, retry soon.
    mutating func lose(link i: Int, now: SessionTime, into actions: inout [Action]) {
        // An acquired socket ends with the link; bluetoothd hangs it up, closing it is ours.
        for path in links[i].lost(retryAt: now + configuration.retryDelays[0]) {
            actions.append(.release(characteristic: path))
        }
        // A subscription still unanswered belongs to the old link: its answer is not waited
        // for (an acquired descriptor in it is closed by the driver).
        let path = links[i].path
        pending = pending.filter { _, what in
            switch what {
            case .startNotify(path, _), .acquireNotify(path, _): false
            default: true
            }
        }
        // The subscriptions stay: on reconnecting, bluetoothd re-enables notifications by
        // itself and delivers values before ServicesResolved, ahead of our StartNotify.
        actions.append(.deviceEvent(device: links[i].address, name: "disconnected"))
        report(.lost(device: links[i].address), into: &actions)
    }

    mutating func replied(
        _ what: Pending, _ result: Result<[DBusValue], DBusCallError>, now: SessionTime, into actions: inout [Action]
    ) {
        switch (what, result) {
        case (.nameHasOwner, .success(let values)):
            let present = values.first?.bool ?? false
            // Said once the bus has answered that bluetoothd is not there: said at start, it
            // was printed on every run, bluetoothd up or not.
            if !present { report(.waitingForBluez, into: &actions) }
            bluezPresent(present, now: now, into: &actions)
        case (.nameHasOwner, .failure):
            report(.waitingForBluez, into: &actions)
        case (.managedObjects, .success(let values)):
            if let snapshot = values.first { tree.apply(.snapshot(snapshot)) }
            reconcileLinks(now: now, into: &actions)
        case (.managedObjects, .failure(let failure)) where failure.name == .accessDenied || failure.name == .bluezNotAuthorized:
            // The error's name: its message quotes the whole policy rule, three lines of it.
            refusal = failure.name.rawValue
            reconcileLinks(now: now, into: &actions)
        case (.managedObjects, .failure):
            // Probably raced with bluetoothd stopping; NameOwnerChanged will tell.
            break
        case (.startDiscovery, .success):
            discovering = true
        case (.startDiscovery, .failure(let failure)):
            // InProgress means another client is already discovering: good enough.
            discovering = failure.name == .bluezInProgress
        case (.filter, _), (.stopDiscovery, _), (.stopNotify, _), (.disconnect, _):
            break
        case (.connect(let path), .success):
            // The answer says the device is connected, signalled or not: bluetoothd 5.66's ATT
            // callback can mark it connected and answer first, and the kernel's connection
            // event after it then finds it connected already ("Device … is already
            // connected") and never signals Connected (src/device.c). Signals after this
            // answer come after it on the bus, so a real loss still reads as one.
            tree.apply(
                .propertiesChanged(
                    path: path, interface: BlueZ.Interface.device, changed: ["Connected": .boolean(true)],
                    invalidated: []))
            guard let i = links.firstIndex(where: { $0.path == path }), links[i].phase == .connecting else { break }
            links[i].connected(at: now)
            actions.append(.deviceEvent(device: links[i].address, name: "connected"))
        case (.connect(let path), .failure(let failure)):
            guard let i = links.firstIndex(where: { $0.path == path }) else { break }
            connectFailed(link: i, failure, now: now, into: &actions)
        case (.startNotify(let device, let characteristic), .success):
            if let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1 {
                links[i].notifyStarted(characteristic, uuid: uuid)
                report(
                    .notifying(
                        device: links[i].address, characteristic: uuid, path: .signals,
                        refused: links[i].refusedAcquire[characteristic]), into: &actions)
            }
        case (.startNotify(let device, let characteristic), .failure(let failure)):
            // bluetoothd kept our notify session across a reconnect: we are subscribed.
            if failure.name == .bluezInProgress || failure.message.contains("Already notifying"),
                let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1
            {
                links[i].notifyStarted(characteristic, uuid: uuid)
            } else {
                if let link = links.first(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1 {
                    report(.notifyRefused(device: link.address, characteristic: uuid, error: failure.description), into: &actions)
                }
                subscriptions[characteristic] = nil
            }
        case (.acquireNotify(let device, let characteristic), .success(let values)):
            guard let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1,
                let descriptor = values.first?.fileDescriptor
            else { break }
            // BlueZ's MTU counts the 3-byte ATT header; a value is at most MTU - 3 bytes, but
            // a larger buffer costs nothing and never truncates.
            let mtu = Int(values.dropFirst().first?.integer ?? 512)
            links[i].acquired(characteristic, uuid: uuid)
            // Values now come through the socket, not as signals.
            subscriptions[characteristic] = nil
            actions.append(
                .listen(characteristic: characteristic, descriptor: descriptor, mtu: max(mtu, 23), device: links[i].address, uuid: uuid))
            report(.notifying(device: links[i].address, characteristic: uuid, path: .acquired, refused: nil), into: &actions)
        case (.acquireNotify(let device, let characteristic), .failure(let failure)):
            // Another client holds it (InProgress), or this BlueZ will not (NotSupported,
            // NotPermitted): signals instead, unless AcquireNotify was asked for alone.
            guard let i = links.firstIndex(where: { $0.path == device }), let uuid = subscriptions[characteristic]?.1
            else { break }
            if configuration.notify == .acquire {
                subscriptions[characteristic] = nil
                report(
                    .notifying(device: links[i].address, characteristic: uuid, path: .acquired, refused: failure.description),
                    into: &actions)
                break
            }
            links[i].acquireRefused(characteristic, reason: failure.description)
            call(
                .startNotify(characteristic: characteristic),
                as: .startNotify(device: device, characteristic: characteristic), into: &actions)
        case (.read(let device, let uuid), .success(let values)):
            if let bytes = values.first?.byteArray, let link = links.first(where: { $0.path == device }) {
                actions.append(.value(device: link.address, characteristic: uuid, bytes: bytes))
            }
        case (.read, .failure):
            break
        }
    }

    mutating func connectFailed(link i: Int, _ failure: DBusCallError, now: SessionTime, into actions: inout [Action]) {
        if failure.name == .unknownObject || failure.name == .bluezDoesNotExist
            || failure.message.contains(BlueZFailureMessage.deviceRemoved)
        {
            // The object is gone (discovery stopped and BlueZ dropped it): find it again.
            links[i].objectGone(lingering: tree.device(at: links[i].path) != nil)
            return
        }
        let delay = links[i].connectFailed(now: now, delays: configuration.retryDelays)
        report(.connectFailed(device: links[i].address, error: failure.description, retryIn: delay), into: &actions)
    }

    /// An acquired socket hung up. With the device still connected (bluetoothd dropped our
    /// notify session, or the link blinked) acquire again; a lost link reconnects first.
    mutating func socketClosed(_ path: String, now: SessionTime) {
        guard let i = links.firstIndex(where: { $0.acquired.contains(path) }) else { return }
        links[i].socketClosed(path, linkUp: tree.device(at: links[i].path)?.connected ?? false, now: now)
    }
}
