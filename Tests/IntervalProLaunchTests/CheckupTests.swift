import Foundation
import IntervalProAudio
import IntervalProCore
import IntervalProIO
import Testing

@testable import IntervalProLaunch

@Suite("doctor's findings")
struct CheckupTests {
    static let notInGroup = Diagnosis(check: "bluetooth group", ok: false, detail: "this account is not in it", fix: "sudo usermod ...")

    /// Debian 12's policy lets every account talk to bluetoothd: doctor failed (69) an account
    /// whose `scan` worked, for not being in a group it did not need.
    @Test func theGroupIsNoProblemWhereBluetoothdAnswers() {
        let answered = Checkup.groupAsAsked([Self.notInGroup], bluetoothdAnswers: true)
        #expect(answered.first?.ok == true)
        #expect(!answered.contains(where: Checkup.blocks))
        let refused = Checkup.groupAsAsked([Self.notInGroup], bluetoothdAnswers: false)
        #expect(refused.first?.ok == false && refused.contains(where: Checkup.blocks))
        // A soft-blocked radio this account may not unblock: the group may (the udev rule), and
        // "not needed" beside "rfkill unblock bluetooth" sent a runner over ssh to a refusal.
        let blocked = Checkup.groupAsAsked([Self.notInGroup], bluetoothdAnswers: true, unblockingNeedsIt: true)
        #expect(blocked.first?.ok == false && blocked.first?.fix == Self.notInGroup.fix, "\(blocked)")
        #expect(blocked.first?.detail.contains("only the group may unblock it without sudo") == true)
    }

    /// The soft block's fix is `rfkill unblock` where this account may write /dev/rfkill, with
    /// sudo where it may not.
    @Test func aSoftBlockIsLiftedWithSudoWhereThisAccountMayNot() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rfkill-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let radio = root + "/sys/class/rfkill/rfkill0"
        try FileManager.default.createDirectory(atPath: radio, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        for (name, text) in [("type", "bluetooth\n"), ("soft", "1\n"), ("hard", "0\n"), ("name", "hci0\n")] {
            try text.write(toFile: radio + "/" + name, atomically: true, encoding: .utf8)
        }
        let system = SystemDiagnosis.run(sysfs: root + "/sys", dev: root + "/dev")
        // No sound card: what to do about it ("the metronome stays silent" was its fix).
        #expect(system.first { $0.check == "sound" }?.fix?.hasPrefix("plug in a USB speaker or sound card, or on a Pi") == true, "\(system)")
        let absent = system.filter(SystemDiagnosis.isSoftBlock)
        #expect(absent.map(\.fix) == ["sudo rfkill unblock bluetooth (IntervalPro's udev rule lets the bluetooth group unblock it without sudo)"])
        try "".write(toFile: root + "/dev/rfkill", atomically: true, encoding: .utf8)
        let writable = SystemDiagnosis.run(sysfs: root + "/sys", dev: root + "/dev").filter(SystemDiagnosis.isSoftBlock)
        #expect(writable.map(\.fix) == ["rfkill unblock bluetooth"] && writable.map(\.check) == ["rfkill hci0"])
    }

    /// A machine without Bluetooth: "start D-Bus" or "install bluez" alone, the checks over the
    /// bus left out without a word, and nothing of the adapter the kernel does not have.
    @Test func withoutBluetoothdTheKernelsAdaptersAreSaid() {
        let noBus = [Diagnosis(check: "system bus", ok: false, detail: "cannot connect: refused", fix: "start D-Bus")]
        let bare = Checkup.withoutBluetoothd(noBus, kernelAdapters: [])
        #expect(bare.map(\.check) == ["system bus", "adapter"])
        #expect(bare[0].detail.hasSuffix("(bluetoothd, the permission and the adapter are asked over it: not checked)"), "\(bare)")
        #expect(bare[1].detail == "the kernel sees no Bluetooth adapter (/sys/class/bluetooth has none)")
        #expect(bare.allSatisfy(Checkup.blocks))
        #expect(Checkup.withoutBluetoothd(noBus, kernelAdapters: ["hci0"]).map(\.check) == ["system bus"])
        let noDaemon = [
            Diagnosis(check: "system bus", ok: true, detail: "connected"),
            Diagnosis(check: "bluetoothd", ok: false, detail: "org.bluez is not on the system bus", fix: "sudo apt-get install bluez"),
        ]
        #expect(Checkup.withoutBluetoothd(noDaemon, kernelAdapters: []).map(\.check) == ["system bus", "bluetoothd", "adapter"])
        #expect(Checkup.withoutBluetoothd(noDaemon, kernelAdapters: []).first?.detail == "connected")
        let running = noDaemon.map { Diagnosis(check: $0.check, ok: true, detail: $0.detail) }
        #expect(Checkup.withoutBluetoothd(running, kernelAdapters: []) == running, "bluetoothd answers: its own adapter check says")
    }

    /// A Pi without a real-time clock says 1970 until the network sets it: its sessions were
    /// dated so, and `doctor` said nothing.
    @Test func aClockNotYetSetIsSaidAndAdvisory() {
        let unset = Checkup.clockFinding(now: 300)
        #expect(unset.check == "clock" && !unset.ok && unset.detail.contains("it is not set"), "\(unset)")
        #expect(unset.fix?.contains("timedatectl") == true)
        #expect(!Checkup.blocks(unset), "a session still runs")
        #expect(Checkup.clockFinding(now: 1_796_000_000).ok)
    }

    /// TZ=Foo/Bar (a typo, a zone this system lacks) is read as UTC in silence: dates, today's
    /// run and readiness days were UTC's.
    @Test func aTimeZoneNotHereIsSaidAndAdvisory() throws {
        let zoneinfo = FileManager.default.temporaryDirectory.appendingPathComponent("zoneinfo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: zoneinfo) }
        try FileManager.default.createDirectory(atPath: zoneinfo + "/Europe", withIntermediateDirectories: true)
        try Data("TZif".utf8).write(to: URL(fileURLWithPath: zoneinfo + "/Europe/Berlin"))
        let typo = try #require(Checkup.timeZoneFinding(tz: "Europe/Berln", zoneinfo: zoneinfo))
        #expect(typo.check == "time zone" && !typo.ok && typo.detail.contains("TZ=Europe/Berln"), "\(typo)")
        #expect(!Checkup.blocks(typo))
        #expect(Checkup.timeZoneFinding(tz: "", zoneinfo: zoneinfo) != nil)
        #expect(Checkup.timeZoneFinding(tz: "Europe/Berlin", zoneinfo: zoneinfo) == nil)
        #expect(Checkup.timeZoneFinding(tz: ":Europe/Berlin", zoneinfo: zoneinfo) == nil)
        #expect(Checkup.timeZoneFinding(tz: "CET-1CEST,M3.5.0,M10.5.0/3", zoneinfo: zoneinfo) == nil)
        #expect(Checkup.timeZoneFinding(tz: nil, zoneinfo: zoneinfo) == nil)
    }

    /// A store restored with `cp -r` is the umask's 0644: readable by every account.
    @Test func aStoreOthersMayReadIsSaidAndAdvisory() throws {
        let open = try #require(Checkup.storeFinding(path: "/home/r/.local/share/intervalpro/intervalpro.sqlite", mode: 0o644))
        #expect(open.check == "store" && !open.ok && open.detail.contains("mode 644"), "\(open)")
        #expect(open.fix == "chmod 600 /home/r/.local/share/intervalpro/intervalpro.sqlite")
        #expect(!Checkup.blocks(open))
        #expect(Checkup.storeFinding(path: "x", mode: 0o600) == nil)
        #expect(Checkup.storeFinding(path: "x", mode: nil) == nil)
    }

    /// Without espeak-ng a session runs with clicks only: `doctor` said nothing of the voice.
    @Test func theVoiceIsCheckedAndAdvisory() {
        let missing = SpeechError(operation: "load", status: .notInstalled)
        let none = Checkup.voiceFinding([(.en, missing), (.es, missing)])
        #expect(none.check == "voice" && !none.ok)
        #expect(none.detail.contains("libespeak-ng.so.1 could not be opened"), "\(none.detail)")
        #expect((none.fix ?? "").contains("apt install libespeak-ng1"))
        #expect(!Checkup.blocks(none), "clicks still play: advisory")
        let spanish = Checkup.voiceFinding([(.en, nil), (.es, SpeechError(operation: "select voice 'es'", status: .notFound))])
        #expect(!spanish.ok && spanish.detail.hasSuffix("(es)") && (spanish.fix ?? "").contains("espeak-ng-data"), "\(spanish)")
        #expect(Checkup.voiceFinding([(.en, nil), (.es, nil)]) == Diagnosis(check: "voice", ok: true, detail: "espeak-ng speaks the cues (en, es)"))
    }

    /// This machine has espeak-ng (the CI installs it): both languages speak.
    @Test func espeakSpeaksBothLanguagesHere() {
        for language in CueLanguage.allCases {
            let problem = Checkup.speechProblem(language).map { "\($0)" }
            #expect(problem == nil, "\(language): \(problem ?? "")")
        }
    }
}
