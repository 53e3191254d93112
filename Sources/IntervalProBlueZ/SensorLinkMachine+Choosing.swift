import IntervalProCore

// Moving forward: the adapter, discovery, and the device chosen for each role.
extension SensorLinkMachine {
    /// Takes every step the current state allows: choose an adapter, discover, choose
    /// devices, connect, subscribe, retry. Called after every event.
    mutating func advance(now: SessionTime, into actions: inout [Action]) {
        guard bluezPresent, !pending.values.contains(.managedObjects) else { return }
        guard chooseAdapter(into: &actions), let adapterPath else { return }

        // A role given up on a device that lacks it is chosen again at once (this ends:
        // every round adds to `lacking`).
        repeat {
            rolesFreed = false
            passOverUnanswering()
            chooseDevices(now: now, into: &actions)
            if !configuration.scanOnly {
                var i = 0
                while i < links.count {
                    advanceLink(i, adapterPath: adapterPath, now: now, into: &actions)
                    if links[i].roles.isEmpty { links.remove(at: i) } else { i += 1 }
                }
            }
        } while rolesFreed

        let searching =
            openRoles.isEmpty ? false : firstCandidateAt.map { now - $0 < configuration.openRoleSearch } ?? true
        isSearching = searching
        let needDiscovery = configuration.scanOnly || searching || links.contains { $0.phase == .absent }
        if needDiscovery, !discovering, !pending.values.contains(.startDiscovery) {
            report(.scanning(roles: configuration.roles), into: &actions)
            call(.setDiscoveryFilter(adapter: adapterPath), as: .filter, into: &actions)
            call(.startDiscovery(adapter: adapterPath), as: .startDiscovery, into: &actions)
        } else if !needDiscovery, discovering, !links.isEmpty, links.allSatisfy({ $0.phase == .subscribed }) {
            // Discovery costs radio time and slows notifications: stop once every link is up.
            discovering = false
            call(.stopDiscovery(adapter: adapterPath), as: .stopDiscovery, into: &actions)
        }
    }

    mutating func advanceLink(_ i: Int, adapterPath: String, now: SessionTime, into actions: inout [Action]) {
        switch links[i].phase {
        case .absent, .queued:
            // Known already, or found again (after a restart, or discovery brought it back)?
            guard let device = tree.devices(on: adapterPath).first(where: { $0.address == links[i].address }),
                links[i].canUse(device.path)
            else { return }
            links[i].found(at: device.path)
            if device.connected {
                links[i].connected(at: now)
                subscribeIfResolved(link: i, since: now, now: now, into: &actions)
            } else {
                connectInTurn(link: i, into: &actions)
            }
        case .retrying(let at) where now >= at:
            connectInTurn(link: i, into: &actions)
        case .resolving(let since) where now >= since:
            subscribeIfResolved(link: i, since: since, now: now, into: &actions)
        case .subscribed:
            readStaticValues(link: i, into: &actions)
        case .retrying, .connecting, .resolving:
            break
        }
    }

    /// Connects, or queues the link while another is connecting: one LE connection is made
    /// at a time. Two Connect calls at once were where the real-stack test first met
    /// bluetoothd 5.66 connecting a device without signalling it ("Device … is already
    /// connected" in its log), which `replied` now takes in its stride.
    mutating func connectInTurn(link i: Int, into actions: inout [Action]) {
        if links.indices.contains(where: { $0 != i && links[$0].phase == .connecting }) {
            links[i].queued()
        } else {
            connect(link: i, into: &actions)
        }
    }

    /// Failed connects after which a remembered device that never came up gives its roles to
    /// another device offering them.
    static var failuresBeforePassingOver: Int { 2 }

    /// A remembered device stays in BlueZ's tree once paired, in range or not, so it counted
    /// as there: away at home (or held by a watch), its connects failed and retried for ever
    /// while a strap in range was never taken, and `run` fell back to a simulated runner.
    /// Remembered is a preference: after `failuresBeforePassingOver` failed connects, with
    /// another device offering the role, that device is chosen instead.
    mutating func passOverUnanswering() {
        for i in links.indices {
            guard case .retrying = links[i].phase, links[i].failures >= Self.failuresBeforePassingOver,
                !links[i].everSubscribed
            else { continue }
            for role in links[i].roles where configuration.choice(for: role)?.isRemembered == true {
                let excluded = notToChoose(for: role).union([links[i].address])
                guard candidates.contains(where: { $0.serviceUUIDs.contains(role.service) && !excluded.contains($0.address) })
                else { continue }
                passedOver[role, default: []].insert(links[i].address)
                links[i].roles.remove(role)
                rolesFreed = true
            }
        }
        // A link left with no role is not connected (it was retrying): it goes.
        links.removeAll { $0.roles.isEmpty }
    }

    /// The devices not to choose for `role`: those that lack it, and those passed over for it.
    func notToChoose(for role: Role) -> Set<String> { (lacking[role] ?? []).union(passedOver[role] ?? []) }

    /// Roles asked for that no device has been chosen for yet.
    var openRoles: [Role] {
        Role.allCases.filter { role in configuration.roles.contains(role) && !links.contains { $0.roles.contains(role) } }
    }

    mutating func chooseAdapter(into actions: inout [Action]) -> Bool {
        let adapters = tree.adapters
        let chosen: BlueZObjectTree.Adapter? =
            if let name = configuration.adapter { adapters.first { $0.name == name } }
            else { adapters.first(where: \.powered) ?? adapters.first }
        lastReportedAdapterStatus = nil
        if let refusal, adapters.isEmpty {
            lastReportedAdapterStatus = .notPermitted(refusal)
            adapterPath = nil
            report(.notPermitted(refusal), into: &actions)
            return false
        }
        guard let chosen else {
            lastReportedAdapterStatus = .noAdapter(requested: configuration.adapter)
            adapterPath = nil
            report(.noAdapter(requested: configuration.adapter), into: &actions)
            return false
        }
        guard chosen.powered else {
            let status: Status = chosen.blocked ? .adapterBlocked(chosen.name) : .adapterOff(chosen.name)
            lastReportedAdapterStatus = status
            adapterPath = nil
            discovering = false
            report(status, into: &actions)
            return false
        }
        if adapterPath != chosen.path {
            adapterPath = chosen.path
            discovering = chosen.discovering
        }
        return true
    }

    /// Chooses a device for each role still open: the one the user named (or, once discovery has
    /// had `settleTime`, the best offering the role whose name begins with the words named); the
    /// remembered one, or, once it has stayed away `rememberedWait` while others offer the role,
    /// the best of those; else, once discovery has had `settleTime` since the first candidate,
    /// the best-ranked device offering the role's service.
    mutating func chooseDevices(now: SessionTime, into actions: inout [Action]) {
        guard !configuration.scanOnly else { return }
        let open = openRoles
        guard !open.isEmpty else { return }
        let candidates = self.candidates
        if firstCandidateAt == nil, !candidates.isEmpty { firstCandidateAt = now }
        let waited = firstCandidateAt.map { now - $0 } ?? .zero
        for role in open {
            let lackingRole = notToChoose(for: role)
            let offering = candidates.filter { $0.serviceUUIDs.contains(role.service) && !lackingRole.contains($0.address) }
            // For cadence a footpod (running speed and cadence alone) before a device that is a
            // heart-rate sensor too (a watch broadcasting, whose cadence may be its wrist's, or
            // 0): a Forerunner's stronger signal took the role from a Stryd beside it.
            let best = role == .cadence ? offering.first { !$0.serviceUUIDs.contains(Role.heartRate.service) } ?? offering.first : offering.first
            var replaced: DeviceChoice?
            let device: BlueZObjectTree.Device?
            if let choice = configuration.choice(for: role) {
                // Its whole name or address, at once; else, once discovery has settled as for a
                // device not named, the best of those offering the role whose name begins with
                // the words given (a "Stryd" seen a moment after a "Stryd Next" is still taken).
                let wanted =
                    tree.devices(on: adapterPath ?? "").first { choice.matches($0) && !lackingRole.contains($0.address) }
                    ?? (waited >= configuration.settleTime ? offering.first(where: choice.matchesFirstWords(of:)) : nil)
                if let wanted {
                    device = wanted
                } else if choice.isRemembered, let best,
                    waited >= configuration.rememberedWait || lackingRole.contains(where: choice.matches(address:))
                {
                    device = best
                    replaced = choice
                } else {
                    device = nil
                }
            } else {
                device = waited >= configuration.settleTime && firstCandidateAt != nil ? best : nil
            }
            guard let device else { continue }
            if let i = links.firstIndex(where: { $0.address == device.address }) {
                links[i].roles.insert(role)
                // Already up for its other role: subscribe to this role's measurement too.
                links[i].resubscribe(at: now)
            } else {
                links.append(Link(path: device.path, address: device.address, name: device.name, roles: [role]))
            }
            if let replaced {
                let why: Replacement =
                    if lacking[role]?.contains(where: replaced.matches(address:)) == true {
                        .offersNoRole
                    } else if passedOver[role]?.contains(where: replaced.matches(address:)) == true {
                        .notAnswering
                    } else {
                        .notInRange
                    }
                report(
                    .choseInstead(role: role, device: device.address, name: device.name, remembered: replaced.text, why: why),
                    into: &actions)
            } else {
                report(.chose(role: role, device: device.address, name: device.name), into: &actions)
            }
        }
    }
}
