import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A serial device opened for raw bytes: an ANT stick's `/dev/ttyUSBn`.
public enum SerialPort {
    /// Opens `path` read-write, non-blocking, not as a controlling terminal, and puts a
    /// terminal in raw mode at 115,200 baud (what ANT sticks speak; a USB stick ignores the
    /// rate). Something that is no terminal (a socket, a FIFO) is used as it is.
    ///
    /// A terminal is held by one program at a time (`flock`, and `TIOCEXCL` for programs that
    /// take no lock): a `scan` beside a running session reset the stick, and the session's
    /// sensors were gone for good, in silence. Held, it is refused, said in use (`inUse`).
    public static func openRaw(_ path: String) throws(FileError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == EBUSY ? inUse : nil
            throw FileError(path: path, operation: .open, errno: .init(rawValue: errno), reason: reason)
        }
        var settings = termios()
        if isTerminal(descriptor) {
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let failure = errno
                close(descriptor)
                throw FileError(
                    path: path, operation: .open, errno: .init(rawValue: failure),
                    reason: failure == EWOULDBLOCK ? inUse : nil)
            }
            _ = ioctl(descriptor, UInt(TIOCEXCL))
        }
        if tcgetattr(descriptor, &settings) == 0 {
            cfmakeraw(&settings)
            cfsetispeed(&settings, speed_t(B115200))
            cfsetospeed(&settings, speed_t(B115200))
            tcsetattr(descriptor, TCSANOW, &settings)
            tcflush(descriptor, TCIOFLUSH)
        }
        return descriptor
    }

    /// What a stick another program holds is said to be.
    static let inUse = "in use by another program (another intervalpro command, a session running?): one at a time"

    /// Whether `descriptor` is a terminal, as every serial device is (`/dev/null` and files are not).
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// The serial devices of ANT USB sticks the kernel made (Dynastream's vendor id 0x0fcf),
    /// by their sysfs attributes: `/dev/ttyUSBn`, in name order.
    public static func antSticks(sysfs: String = "/sys/class/tty") -> [String] {
        guard let directory = opendir(sysfs) else { return [] }
        defer { closedir(directory) }
        var found: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("ttyUSB") || name.hasPrefix("ttyACM") else { continue }
            // The USB device is two levels up from the tty's port (usb-serial), one from an ACM interface.
            for up in ["device/../..", "device/.."] {
                let vendor = (try? FileIO.readAll("\(sysfs)/\(name)/\(up)/idVendor")).map { String(decoding: $0, as: UTF8.self) }
                if vendor?.hasPrefix("0fcf") == true {
                    found.append("/dev/" + name)
                    break
                }
            }
        }
        return found.sorted()
    }
}
