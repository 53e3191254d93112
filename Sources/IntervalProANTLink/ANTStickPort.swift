public import IntervalProUSB
#if canImport(Glibc)
import Glibc
#endif

/// How bytes reach an ANT stick and come back: through libusb (`USBStickPort`, USB2 sticks)
/// or a serial device (`SerialStickPort`: a `/dev/ttyUSBn` the kernel made, or in tests one
/// end of a socketpair a fake stick serves). The link waits on its descriptors and, when one
/// is ready, receives.
public protocol ANTStickPort: AnyObject {
    /// What to wait on, with `poll(2)` events; fixed while the port is open.
    var descriptors: [(descriptor: Int32, events: Int16)] { get }
    /// The bytes that are ready (none, possibly); nil when the stick is gone.
    func receive() -> [UInt8]?
    /// Sends `bytes`; the reason when they cannot be sent.
    func send(_ bytes: [UInt8]) -> String?
    func close()
}

/// A stick on a file descriptor, which the port owns.
public final class SerialStickPort: ANTStickPort {
    private var descriptor: Int32

    public init(descriptor: Int32) { self.descriptor = descriptor }

    public var descriptors: [(descriptor: Int32, events: Int16)] { [(descriptor, Int16(POLLIN))] }

    public func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return count == 0 || (errno != EAGAIN && errno != EINTR) ? nil : [] }
        return Array(buffer[..<count])
    }

    public func send(_ bytes: [UInt8]) -> String? {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return written == bytes.count ? nil : String(cString: strerror(errno))
    }

    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}

/// A USB ANT stick through libusb: its bulk endpoints, the kernel's serial driver detached
/// while it is ours. The port has a libusb context of its own, so a stick plugged in again is
/// found by opening a new port, with or without a udev daemon.
public final class USBStickPort: ANTStickPort {
    /// Dynastream's USB vendor id (Garmin's ANT sticks and their clones).
    public static let vendor: UInt16 = 0x0FCF
    /// The sticks read through libusb: ANTUSB2 (1008) and ANTUSB-m (1009), and the clones sold
    /// under the same ids. The first ANTUSB stick (1004) is a CP210x serial bridge: the kernel's
    /// cp210x driver makes it /dev/ttyUSBn, read through `SerialStickPort` (`--ant-stick PATH`).
    public static let products: Set<UInt16> = [0x1008, 0x1009]

    public let device: USBBulkDevice
    public let address: USBDeviceAddress
    public let descriptors: [(descriptor: Int32, events: Int16)]

    /// Opens the first ANT stick on the buses, or the one whose device node is `node`
    /// (`/dev/bus/usb/BBB/DDD`).
    public init(node: String? = nil) throws(USBError) {
        let context = try USBContext()
        let sticks = context.devices { vendor, product in vendor == Self.vendor && Self.products.contains(product) }
        guard let address = node.map({ node in sticks.first { $0.node == node } }) ?? sticks.first else {
            throw USBError.notFound("finding an ANT USB stick")
        }
        device = try context.open(address)
        try device.startReading()
        self.address = address
        descriptors = context.pollDescriptors
    }

    public func receive() -> [UInt8]? {
        device.context.handleEvents()
        let bytes = device.takeReceived()
        return device.failure == nil || !bytes.isEmpty ? bytes : nil
    }

    public func send(_ bytes: [UInt8]) -> String? {
        do {
            try device.write(bytes)
            return nil
        } catch {
            return error.description
        }
    }

    public func close() { device.close() }
}
