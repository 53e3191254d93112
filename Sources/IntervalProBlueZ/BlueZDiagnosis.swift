public import IntervalProCore
public import IntervalProDBus

/// What the system bus and bluetoothd say about using Bluetooth from this account.
public enum BlueZDiagnosis {
    public static func run(connect: () throws -> DBusConnection) -> [Diagnosis] {
        let connection: DBusConnection
        do {
            connection = try connect()
        } catch {
            return [
                Diagnosis(
                    check: "system bus", ok: false, detail: "cannot connect: \(error)",
                    fix: "start D-Bus (sudo systemctl start dbus), or set DBUS_SYSTEM_BUS_ADDRESS")
            ]
        }
        var findings = [Diagnosis(check: "system bus", ok: true, detail: "connected as \(connection.uniqueName)")]

        let owned: Bool
        do {
            owned = try connection.call(try BlueZCall.nameHasOwner.message(), timeoutMilliseconds: 5_000)
                .arguments().first?.bool ?? false
        } catch {
            owned = false
        }
        guard owned else {
            findings.append(
                Diagnosis(
                    check: "bluetoothd", ok: false, detail: "org.bluez is not on the system bus",
                    fix: "sudo apt-get install bluez && sudo systemctl enable --now bluetooth"))
            return findings
        }
        findings.append(Diagnosis(check: "bluetoothd", ok: true, detail: "org.bluez is running"))

        var tree = BlueZObjectTree()
        do {
            let reply = try connection.call(try BlueZCall.getManagedObjects.message(), timeoutMilliseconds: 5_000)
            if let snapshot = try reply.arguments().first { tree.apply(.snapshot(snapshot)) }
            findings.append(Diagnosis(check: "permission", ok: true, detail: "this account may talk to bluetoothd"))
        } catch let failure where failure.name == .accessDenied || failure.name == .bluezNotAuthorized {
            findings.append(
                Diagnosis(
                    check: "permission", ok: false, detail: "bluetoothd refused: \(failure)",
                    fix: "sudo usermod -aG bluetooth $USER, then log in again (see udev/README.md)"))
            return findings
        } catch {
            findings.append(Diagnosis(check: "permission", ok: false, detail: "GetManagedObjects failed: \(error)"))
            return findings
        }

        let adapters = tree.adapters
        if adapters.isEmpty {
            findings.append(
                Diagnosis(
                    check: "adapter", ok: false, detail: "no Bluetooth adapter",
                    fix: "plug in a Bluetooth LE dongle, or check `rfkill list` and dmesg"))
        }
        // A session takes the first powered adapter: another one off (a dongle's built-in
        // twin) is no problem, and doctor failed (69) a machine whose sessions worked.
        let used = adapters.first(where: \.powered)
        for adapter in adapters {
            let check = "adapter \(adapter.name)"
            let finding =
                if adapter.powered {
                    Diagnosis(check: check, ok: true, detail: "powered, address \(adapter.address ?? "?")")
                } else if let used {
                    Diagnosis(check: check, ok: true, detail: "powered off; not needed: sessions use \(used.name)")
                } else if adapter.blocked {
                    Diagnosis(check: check, ok: false, detail: "blocked by rfkill", fix: "rfkill unblock bluetooth, then bluetoothctl power on")
                } else {
                    Diagnosis(check: check, ok: false, detail: "powered off", fix: "bluetoothctl power on")
                }
            findings.append(finding)
        }
        findings += notificationPaths(tree)
        return findings
    }

    /// Which path each measurement of a connected sensor would take under `--notify auto`;
    /// with none connected, the rule.
    static func notificationPaths(_ tree: BlueZObjectTree) -> [Diagnosis] {
        let measurements: Set<UInt16> = [0x2A37, 0x2A53]
        let lines = tree.adapters.flatMap { tree.devices(on: $0.path) }.compactMap { device -> String? in
            let paths = tree.characteristics(of: device.path).filter { measurements.contains($0.uuid) }.map {
                "\(BluetoothUUID.shortText($0.uuid)) through "
                    + ($0.notifyAcquired == nil ? "StartNotify (AcquireNotify not offered)" : "AcquireNotify")
            }
            return paths.isEmpty ? nil : "\(device.name ?? device.address) (\(device.address)): " + paths.joined(separator: ", ")
        }
        guard !lines.isEmpty else {
            return [
                Diagnosis(
                    check: "notifications", ok: true,
                    detail: "AcquireNotify where a sensor offers it (one socket read per value), else StartNotify; "
                        + "--notify start to use signals only")
            ]
        }
        return lines.map { Diagnosis(check: "notifications", ok: true, detail: $0) }
    }
}
