import IntervalProCore
#if canImport(Glibc)
import Glibc
#endif

/// USB devices as sysfs lists them, with the node libusb opens (`/dev/bus/usb/BBB/DDD`).
public enum USBDeviceNodes {
    /// ANT USB2 sticks (Dynastream 0fcf:1008 ANTUSB2, 0fcf:1009 ANTUSB-m) on the buses, by their
    /// device nodes, in bus order.
    public static func antSticks(sysfs: String = "/sys/bus/usb/devices") -> [String] {
        guard let directory = opendir(sysfs) else { return [] }
        defer { closedir(directory) }
        var found: [(Int, Int)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            func attribute(_ file: String) -> String? {
                (try? FileIO.readAll("\(sysfs)/\(name)/\(file)")).map { String(decoding: $0, as: UTF8.self).trimmingWhitespace }
            }
            guard attribute("idVendor") == "0fcf", ["1008", "1009"].contains(attribute("idProduct")),
                let bus = attribute("busnum").flatMap({ Int($0) }), let device = attribute("devnum").flatMap({ Int($0) })
            else { continue }
            found.append((bus, device))
        }
        func three(_ value: Int) -> String { String(repeating: "0", count: max(0, 3 - String(value).count)) + String(value) }
        return found.sorted { $0 < $1 }.map { "/dev/bus/usb/\(three($0.0))/\(three($0.1))" }
    }
}
