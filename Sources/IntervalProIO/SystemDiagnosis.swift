public import IntervalProCore
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// What the system (not bluetoothd) says: radio switches, group membership, sound devices.
public enum SystemDiagnosis {
    public static func run(sysfs: String = "/sys", dev: String = "/dev") -> [Diagnosis] {
        rfkill(sysfs: sysfs) + [bluetoothGroup(), sound(dev: dev), antStick(sysfs: sysfs, dev: dev)]
    }

    /// An ANT USB stick for ANT+ sensors: its USB device node (what libusb opens) or the serial
    /// device the kernel made of an older stick, and whether this account may open it. Having
    /// none is fine: only ANT+ sensors need one.
    static func antStick(sysfs: String, dev: String) -> Diagnosis {
        let usb = USBDeviceNodes.antSticks(sysfs: sysfs + "/bus/usb/devices")
        let serial = SerialPort.antSticks(sysfs: sysfs + "/class/tty")
        guard let stick = (usb + serial).first.map({ dev + "/" + $0.dropFirst("/dev/".count) }) else {
            return Diagnosis(check: "ant stick", ok: true, detail: "none plugged in (only ANT+ sensors need one)")
        }
        guard access(stick, R_OK | W_OK) == 0 else {
            return Diagnosis(
                check: "ant stick", ok: false, detail: "\(stick) is not readable and writable by this account",
                fix: "sudo cp udev/70-intervalpro-ant.rules /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger")
        }
        return Diagnosis(check: "ant stick", ok: true, detail: "\(stick), readable and writable")
    }

    /// /sys/class/rfkill/*: a soft or hard block keeps the adapter off whatever BlueZ does.
    static func rfkill(sysfs: String) -> [Diagnosis] {
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
                findings.append(Diagnosis(check: label, ok: false, detail: "soft-blocked", fix: "rfkill unblock bluetooth"))
            } else {
                findings.append(Diagnosis(check: label, ok: true, detail: "not blocked"))
            }
        }
        return findings
    }

    /// Membership of the `bluetooth` group, which BlueZ's D-Bus policy on Debian requires
    /// of accounts without a local seat (a Raspberry Pi over ssh).
    static func bluetoothGroup() -> Diagnosis {
        guard let group = getgrnam("bluetooth") else {
            return Diagnosis(check: "bluetooth group", ok: true, detail: "no such group here; the seat decides")
        }
        let gid = group.pointee.gr_gid
        var groups = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(groups.count), &groups)
        let member = getuid() == 0 || getegid() == gid || (count > 0 && groups.prefix(Int(count)).contains(gid))
        return member
            ? Diagnosis(check: "bluetooth group", ok: true, detail: getuid() == 0 ? "running as root" : "member")
            : Diagnosis(
                check: "bluetooth group", ok: false, detail: "this account is not in it",
                fix: "sudo usermod -aG bluetooth $USER, then log in again")
    }

    /// A sound card for the metronome (ALSA's /dev/snd).
    static func sound(dev: String) -> Diagnosis {
        guard let directory = opendir(dev + "/snd") else {
            return Diagnosis(check: "sound", ok: false, detail: "no \(dev)/snd: no sound card", fix: "the metronome stays silent; sessions still run")
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
