import Foundation
import IntervalProCore
import Testing

@testable import IntervalProIO

@Suite("ANT sticks in sysfs, and the serial device opened raw")
struct SerialPortTests {
    /// A sysfs tree as the kernel lays one out for two USB serial adapters: an ANTUSB2
    /// (0fcf:1008) as ttyUSB0 and a CP210x (10c4) as ttyUSB1; their tty's `device` is the
    /// usb-serial port, whose grandparent is the USB device.
    func sysfs(in scratch: TemporaryDirectory) throws -> String {
        let files = FileManager.default
        for (tty, device, vendor) in [("ttyUSB0", "1-1", "0fcf"), ("ttyUSB1", "1-2", "10c4")] {
            let port = scratch.file("sys/devices/usb1/\(device)/\(device):1.0/\(tty)")
            try files.createDirectory(atPath: port, withIntermediateDirectories: true)
            try scratch.write("sys/devices/usb1/\(device)/idVendor", Array("\(vendor)\n".utf8))
            try files.createDirectory(atPath: scratch.file("sys/class/tty/\(tty)"), withIntermediateDirectories: true)
            try files.createSymbolicLink(atPath: scratch.file("sys/class/tty/\(tty)/device"), withDestinationPath: port)
        }
        try files.createDirectory(atPath: scratch.file("sys/class/tty/ttyS0"), withIntermediateDirectories: true)
        return scratch.file("sys")
    }

    @Test("the ANT stick is found by Dynastream's vendor id, on the bus and as a serial device; doctor names it, and says none is fine")
    func findingTheStick() throws {
        let scratch = try TemporaryDirectory()
        let sys = try sysfs(in: scratch)
        #expect(SerialPort.antSticks(sysfs: sys + "/class/tty") == ["/dev/ttyUSB0"])
        try FileManager.default.createDirectory(atPath: scratch.file("dev"), withIntermediateDirectories: true)
        try scratch.write("dev/ttyUSB0", [])
        let found = SystemDiagnosis.antStick(sysfs: sys, dev: scratch.file("dev"))
        #expect(found.ok && found.detail == scratch.file("dev/ttyUSB0") + ", readable and writable")
        // The stick on the USB bus (what libusb opens) comes first: a serial device is for older sticks.
        let usbDevice = scratch.file("sys/devices/usb1/1-1")
        for (file, value) in [("idProduct", "1008"), ("busnum", "1"), ("devnum", "12")] {
            try scratch.write("sys/devices/usb1/1-1/\(file)", Array("\(value)\n".utf8))
        }
        try FileManager.default.createDirectory(atPath: scratch.file("sys/bus/usb/devices"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("sys/bus/usb/devices/1-1"), withDestinationPath: usbDevice)
        #expect(USBDeviceNodes.antSticks(sysfs: sys + "/bus/usb/devices") == ["/dev/bus/usb/001/012"])
        let unreadable = SystemDiagnosis.antStick(sysfs: sys, dev: scratch.file("dev"), udevRules: [scratch.file("no-rule")])
        #expect(!unreadable.ok && unreadable.detail.hasPrefix(scratch.file("dev/bus/usb/001/012")))
        #expect(unreadable.fix?.hasPrefix("sudo cp udev/70-intervalpro-ant.rules") == true, "\(unreadable)")
        // Installed (make install, the package), the rule is there: copying it from a checkout
        // the runner does not have was the fix said. The tests run as root, in every group.
        try scratch.write("70-intervalpro-ant.rules", [])
        let installed = SystemDiagnosis.antStick(sysfs: sys, dev: scratch.file("dev"), udevRules: [scratch.file("70-intervalpro-ant.rules")])
        #expect(!installed.ok && installed.fix?.contains("udev/70-intervalpro-ant.rules") == false, "\(installed)")
        #expect(
            installed.fix?.contains(SystemDiagnosis.isMember(of: "plugdev") ? "plug it in again" : "usermod -aG plugdev") == true,
            "\(installed)")
        let none = SystemDiagnosis.antStick(sysfs: scratch.file("nothing"), dev: scratch.file("dev"))
        #expect(none.ok && none.detail.hasPrefix("none plugged in"))
    }

    @Test("a path that is no terminal opens as it is; a missing one says so")
    func openingRaw() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("fifo-stand-in", [])
        let descriptor = try SerialPort.openRaw(path)
        #expect(descriptor >= 0)
        close(descriptor)
        #expect(throws: FileError.self) { try SerialPort.openRaw(scratch.file("missing")) }
    }
}
