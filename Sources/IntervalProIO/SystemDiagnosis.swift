public import IntervalProCore
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// What the system (not bluetoothd) says: radio switches, group membership, sound devices.
public enum SystemDiagnosis {
    public static func run(sysfs: String = "/sys", dev: String = "/dev") -> [Diagnosis] {
        rfkill(sysfs: sysfs, dev: dev) + [bluetoothGroup(), sound(dev: dev), antStick(sysfs: sysfs, dev: dev)]
    }

    /// Whether `finding` is a radio's soft block, which `rfkill unblock` lifts.
    public static func isSoftBlock(_ finding: Diagnosis) -> Bool {
        finding.check.hasPrefix("rfkill ") && !finding.ok && finding.detail == softBlocked
    }

    /// Whether this account may write /dev/rfkill, which `rfkill unblock` does: root, the seat's
    /// user, or the `bluetooth` group where IntervalPro's udev rule is installed.
    public static func mayUnblock(dev: String = "/dev") -> Bool {
        access(dev + "/rfkill", W_OK) == 0
    }

    /// An ANT USB stick for ANT+ sensors: its USB device node (what libusb opens) or the serial
    /// device the kernel made of an older stick, and whether this account may open it. Having
    /// none is fine: only ANT+ sensors need one.
    ///
    /// The fix depends on what is missing: the udev rule where none is installed (a build from
    /// source), else membership of `plugdev`, which the rule gives access to: the seat's user
    /// has it without, an ssh login or a user service has no seat. Installed users were told to
    /// copy the rule from a checkout they did not have.
    static func antStick(sysfs: String, dev: String, udevRules: [String] = installedANTRules) -> Diagnosis {
        let usb = USBDeviceNodes.antSticks(sysfs: sysfs + "/bus/usb/devices")
        let serial = SerialPort.antSticks(sysfs: sysfs + "/class/tty")
        guard let stick = (usb + serial).first.map({ dev + "/" + $0.dropFirst("/dev/".count) }) else {
            return Diagnosis(check: "ant stick", ok: true, detail: "none plugged in (only ANT+ sensors need one)")
        }
        guard access(stick, R_OK | W_OK) == 0 else {
            let fix =
                if !udevRules.contains(where: { access($0, F_OK) == 0 }) {
                    "sudo cp udev/70-intervalpro-ant.rules /etc/udev/rules.d/ (from IntervalPro's source) && sudo udevadm control --reload && sudo udevadm trigger"
                } else if !isMember(of: "plugdev") {
                    "sudo usermod -aG plugdev $USER, then log in again (the udev rule gives the plugdev group the stick)"
                } else {
                    "unplug the stick and plug it in again (the udev rule applies when it is plugged in)"
                }
            return Diagnosis(check: "ant stick", ok: false, detail: "\(stick) is not readable and writable by this account", fix: fix)
        }
        return Diagnosis(check: "ant stick", ok: true, detail: "\(stick), readable and writable")
    }

    /// Where `make install` and the package put the ANT stick's udev rule, and where an
    /// administrator copies it.
    static let installedANTRules = ["/usr/lib/udev/rules.d", "/lib/udev/rules.d", "/usr/local/lib/udev/rules.d", "/etc/udev/rules.d"]
        .map { $0 + "/70-intervalpro-ant.rules" }

    /// Whether this account is in group `name` (root counts as every group's).
    static func isMember(of name: String) -> Bool {
        guard let group = getgrnam(name) else { return false }
        let gid = group.pointee.gr_gid
        var groups = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(groups.count), &groups)
        return getuid() == 0 || getegid() == gid || (count > 0 && groups.prefix(Int(count)).contains(gid))
    }

    /// The Bluetooth adapters the kernel sees (/sys/class/bluetooth/hci*), whatever bluetoothd
    /// says: none, and installing or starting bluetoothd finds no sensor.
    public static func kernelAdapters(sysfs: String = "/sys") -> [String] {
        guard let directory = opendir(sysfs + "/class/bluetooth") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // hci0, not hci0:256 (a connection's entry).
            if name.hasPrefix("hci"), !name.contains(":") { names.append(name) }
        }
        return names.sorted()
    }

    /// /sys/class/rfkill/*: a soft or hard block keeps the adapter off whatever BlueZ does.
    static func rfkill(sysfs: String, dev: String) -> [Diagnosis] {
        let folder = sysfs + "/class/rfkill"
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var findings: [Diagnosis] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("rfkill") else { continue }
            let base = folder + "/" + name
            guard text(base + "/type") == "bluetooth" else { continue }
            let soft = text(base + "/soft") == "1"
            let hard = text(base + "/hard") == "1"
            let label = "rfkill \(text(base + "/name") ?? name)"
            if hard {
                findings.append(Diagnosis(check: label, ok: false, detail: "hard-blocked", fix: "switch the radio on (a key or switch on the laptop)"))
            } else if soft {
                // Without write access to /dev/rfkill (a Pi over ssh, a user service: no seat),
                // `rfkill unblock` is refused.
                let fix =
                    mayUnblock(dev: dev)
                    ? "rfkill unblock bluetooth"
                    : "sudo rfkill unblock bluetooth (IntervalPro's udev rule lets the bluetooth group unblock it without sudo)"
                findings.append(Diagnosis(check: label, ok: false, detail: softBlocked, fix: fix))
            } else {
                findings.append(Diagnosis(check: label, ok: true, detail: "not blocked"))
            }
        }
        return findings
    }

    static let softBlocked = "soft-blocked"

    /// Membership of the `bluetooth` group, which BlueZ's D-Bus policy on Debian requires
    /// of accounts without a local seat (a Raspberry Pi over ssh).
    static func bluetoothGroup() -> Diagnosis {
        guard getgrnam("bluetooth") != nil else {
            return Diagnosis(check: "bluetooth group", ok: true, detail: "no such group here; the seat decides")
        }
        return isMember(of: "bluetooth")
            ? Diagnosis(check: "bluetooth group", ok: true, detail: getuid() == 0 ? "running as root" : "member")
            : Diagnosis(
                check: "bluetooth group", ok: false, detail: "this account is not in it",
                fix: "sudo usermod -aG bluetooth $USER, then log in again")
    }

    /// A sound card for the metronome (ALSA's /dev/snd).
    static func sound(dev: String) -> Diagnosis {
        guard let directory = opendir(dev + "/snd") else {
            return Diagnosis(check: "sound", ok: false, detail: "no \(dev)/snd: no sound card", fix: "plug in a USB speaker or sound card, or on a Pi turn the headphone jack on (dtparam=audio=on in /boot/firmware/config.txt); without one the metronome is silent, and sessions still run")
        }
        closedir(directory)
        let writable = access(dev + "/snd", R_OK | X_OK) == 0
        return writable
            ? Diagnosis(check: "sound", ok: true, detail: "\(dev)/snd is present")
            : Diagnosis(check: "sound", ok: false, detail: "\(dev)/snd is not accessible", fix: "sudo usermod -aG audio $USER")
    }

    private static func text(_ path: String) -> String? {
        guard let bytes = try? FileIO.readAll(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\n ")
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self)
        while let last = scalars.last, set.contains(last) { scalars.removeLast() }
        while let first = scalars.first, set.contains(first) { scalars.removeFirst() }
        return String(scalars)
    }
}
