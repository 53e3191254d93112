import CLibUSB
#if canImport(Glibc)
import Glibc
#endif

/// A libusb call that failed: which, and libusb's error (`LIBUSB_ERROR_*`).
public struct USBError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    /// libusb's code; 0 when the library itself could not be opened.
    public var code: Int32

    /// No permission on the device node (`/dev/bus/usb/BBB/DDD`): the udev rule is missing.
    public var isPermissionDenied: Bool { code == LIBUSB_ERROR_ACCESS.rawValue }
    /// The device was unplugged.
    public var isGone: Bool { code == LIBUSB_ERROR_NO_DEVICE.rawValue }
    /// Another program has claimed the device.
    public var isBusy: Bool { code == LIBUSB_ERROR_BUSY.rawValue }

    /// No such device: none on the buses is what was looked for.
    public static func notFound(_ operation: String) -> USBError {
        USBError(operation: operation, code: LIBUSB_ERROR_NO_DEVICE.rawValue)
    }

    public var description: String {
        guard code != 0 else { return "libusb-1.0 is not installed (Debian: apt install libusb-1.0-0)" }
        switch code {
        case LIBUSB_ERROR_ACCESS.rawValue: return "\(operation): permission denied"
        case LIBUSB_ERROR_NO_DEVICE.rawValue: return "\(operation): no such device"
        case LIBUSB_ERROR_BUSY.rawValue: return "\(operation): in use by another program"
        default: return "\(operation): " + (LibUSB.api.map { String(cString: $0.error_name!(code)!) } ?? "error \(code)")
        }
    }
}

/// libusb-1.0, opened at run time (see CLibUSB/shim.h), and its errors mapped in one place.
enum LibUSB {
    static let api: intervalpro_libusb? = {
        var api = intervalpro_libusb()
        return intervalpro_libusb_open(&api) == 0 ? api : nil
    }()

    static func loaded(_ operation: String) throws(USBError) -> intervalpro_libusb {
        guard let api else { throw USBError(operation: operation, code: 0) }
        return api
    }

    /// libusb's negative return codes as errors.
    @discardableResult
    static func check(_ result: Int32, _ operation: String) throws(USBError) -> Int32 {
        guard result >= 0 else { throw USBError(operation: operation, code: result) }
        return result
    }
}

/// Where a device sits on the bus, and what it says it is.
public struct USBDeviceAddress: Hashable, Sendable, CustomStringConvertible {
    public var bus: UInt8
    public var address: UInt8
    public var vendor: UInt16
    public var product: UInt16

    /// Its device node, as udev makes it.
    public var node: String {
        func three(_ value: UInt8) -> String { String(repeating: "0", count: 3 - String(value).count) + String(value) }
        return "/dev/bus/usb/\(three(bus))/\(three(address))"
    }

    public var description: String {
        func hex(_ value: UInt16) -> String { String(repeating: "0", count: 4 - String(value, radix: 16).count) + String(value, radix: 16) }
        return "USB \(hex(vendor)):\(hex(product)) on bus \(bus) address \(address)"
    }
}

/// A libusb context: its own view of the buses and its own event descriptors. Its devices are
/// listed as they are when the context starts; a fresh context sees a device plugged in since,
/// even where no udev daemon announces it. Closed on deinit, after its devices.
public final class USBContext {
    let raw: OpaquePointer
    let api: intervalpro_libusb

    public init() throws(USBError) {
        api = try LibUSB.loaded("libusb_init")
        var context: OpaquePointer?
        try LibUSB.check(api.initialize!(&context), "libusb_init")
        guard let context else { throw USBError(operation: "libusb_init", code: LIBUSB_ERROR_OTHER.rawValue) }
        raw = context
    }

    deinit { api.exit!(raw) }

    /// The devices whose vendor and product ids `matching` accepts, in bus order.
    public func devices(matching: (_ vendor: UInt16, _ product: UInt16) -> Bool) -> [USBDeviceAddress] {
        withDevices { list in
            list.compactMap { device in
                let address = describe(device)
                return address.flatMap { matching($0.vendor, $0.product) ? $0 : nil }
            }
        }.sorted { ($0.bus, $0.address) < ($1.bus, $1.address) }
    }

    /// Opens the device at `address` for bulk transfers on its first interface, detaching a
    /// kernel driver bound to it (and attaching it again when closed).
    public func open(_ address: USBDeviceAddress) throws(USBError) -> USBBulkDevice {
        let opened: Result<USBBulkDevice, USBError> = withDevices { list in
            guard let device = list.first(where: { describe($0) == address }) else {
                return .failure(USBError(operation: "libusb_open", code: LIBUSB_ERROR_NO_DEVICE.rawValue))
            }
            do throws(USBError) {
                return .success(try USBBulkDevice(context: self, device: device))
            } catch {
                return .failure(error)
            }
        }
        return try opened.get()
    }

    /// The descriptors to wait on (with `poll(2)` events); when one is ready, `handleEvents`.
    /// They change when a device is opened or closed.
    public var pollDescriptors: [(descriptor: Int32, events: Int16)] {
        guard let list = api.get_pollfds!(raw) else { return [] }
        defer { api.free_pollfds!(list) }
        var found: [(Int32, Int16)] = []
        var index = 0
        while let entry = list[index] {
            found.append((entry.pointee.fd, entry.pointee.events))
            index += 1
        }
        return found
    }

    /// Completes what is ready without waiting: transfer callbacks run here, on this thread.
    public func handleEvents() {
        var immediately = timeval(tv_sec: 0, tv_usec: 0)
        _ = api.handle_events_timeout_completed!(raw, &immediately, nil)
    }

    /// Waits up to `milliseconds` for events (used only while closing a device).
    func handleEvents(milliseconds: Int) {
        var wait = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        _ = api.handle_events_timeout_completed!(raw, &wait, nil)
    }

    private func withDevices<T>(_ body: ([OpaquePointer]) -> T) -> T {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = api.get_device_list!(raw, &list)
        guard count > 0, let list else { return body([]) }
        defer { api.free_device_list!(list, 1) }
        return body((0..<count).compactMap { list[$0] })
    }

    private func describe(_ device: OpaquePointer) -> USBDeviceAddress? {
        var descriptor = libusb_device_descriptor()
        guard api.get_device_descriptor!(device, &descriptor) == 0 else { return nil }
        return USBDeviceAddress(
            bus: api.get_bus_number!(device), address: api.get_device_address!(device), vendor: descriptor.idVendor,
            product: descriptor.idProduct)
    }
}

/// An opened device's first interface, claimed, with its bulk IN and OUT endpoints: bytes in
/// arrive through a transfer kept always submitted (completed in `USBContext.handleEvents`,
/// on the loop that waits on the context's descriptors), bytes out go as one transfer each.
/// Nothing blocks and nothing polls. `close()` before letting go of it.
public final class USBBulkDevice {
    public let context: USBContext
    private let handle: OpaquePointer
    private let input: UInt8
    private let output: UInt8
    private var reading: UnsafeMutablePointer<libusb_transfer>?
    private var received: [UInt8] = []
    /// The device was unplugged, or a transfer failed for good: it is of no more use.
    public private(set) var failure: USBError?
    private var closed = false
    static let readSize: Int32 = 512

    fileprivate init(context: USBContext, device: OpaquePointer) throws(USBError) {
        self.context = context
        let api = context.api
        var handle: OpaquePointer?
        try LibUSB.check(api.open!(device, &handle), "libusb_open")
        guard let handle else { throw USBError(operation: "libusb_open", code: LIBUSB_ERROR_OTHER.rawValue) }
        var endpoints: (input: UInt8, output: UInt8)?
        var config: UnsafeMutablePointer<libusb_config_descriptor>?
        if api.get_active_config_descriptor!(device, &config) == 0, let config {
            endpoints = Self.bulkEndpoints(config.pointee)
            api.free_config_descriptor!(config)
        }
        guard let endpoints else {
            api.close!(handle)
            throw USBError(operation: "finding the bulk endpoints", code: LIBUSB_ERROR_NOT_FOUND.rawValue)
        }
        // The serial driver some kernels bind to ANT sticks is detached for as long as it is ours.
        _ = api.set_auto_detach_kernel_driver!(handle, 1)
        do {
            try LibUSB.check(api.claim_interface!(handle, 0), "libusb_claim_interface")
        } catch {
            api.close!(handle)
            throw error
        }
        self.handle = handle
        input = endpoints.input
        output = endpoints.output
    }

    /// The first bulk IN and OUT endpoints of the first interface's first setting.
    private static func bulkEndpoints(_ config: libusb_config_descriptor) -> (input: UInt8, output: UInt8)? {
        guard config.bNumInterfaces > 0, let interface = config.interface, interface.pointee.num_altsetting > 0,
            let setting = interface.pointee.altsetting
        else { return nil }
        var input: UInt8?
        var output: UInt8?
        for index in 0..<Int(setting.pointee.bNumEndpoints) {
            let endpoint = setting.pointee.endpoint[index]
            guard endpoint.bmAttributes & 0x03 == UInt8(LIBUSB_TRANSFER_TYPE_BULK.rawValue) else { continue }
            if endpoint.bEndpointAddress & 0x80 != 0 {
                input = input ?? endpoint.bEndpointAddress
            } else {
                output = output ?? endpoint.bEndpointAddress
            }
        }
        guard let input, let output else { return nil }
        return (input, output)
    }

    /// Submits the reading transfer; what arrives is collected for `takeReceived`.
    public func startReading() throws(USBError) {
        guard reading == nil, !closed else { return }
        let api = context.api
        guard let transfer = api.alloc_transfer!(0) else {
            throw USBError(operation: "libusb_alloc_transfer", code: LIBUSB_ERROR_NO_MEM.rawValue)
        }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Int(Self.readSize))
        libusb_fill_bulk_transfer(
            transfer, handle, input, buffer, Self.readSize, usbReadCompleted, Unmanaged.passUnretained(self).toOpaque(), 0)
        do {
            try LibUSB.check(api.submit_transfer!(transfer), "libusb_submit_transfer")
        } catch {
            buffer.deallocate()
            api.free_transfer!(transfer)
            throw error
        }
        reading = transfer
    }

    /// The bytes that arrived since the last call.
    public func takeReceived() -> [UInt8] {
        defer { received = [] }
        return received
    }

    /// Sends `bytes` as one bulk transfer, without waiting for it.
    public func write(_ bytes: [UInt8]) throws(USBError) {
        guard failure == nil, !closed else { throw failure ?? USBError(operation: "writing", code: LIBUSB_ERROR_NO_DEVICE.rawValue) }
        let api = context.api
        guard let transfer = api.alloc_transfer!(0), let buffer = malloc(bytes.count)?.assumingMemoryBound(to: UInt8.self) else {
            throw USBError(operation: "libusb_alloc_transfer", code: LIBUSB_ERROR_NO_MEM.rawValue)
        }
        bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: bytes.count) }
        libusb_fill_bulk_transfer(
            transfer, handle, output, buffer, Int32(bytes.count), usbWriteCompleted, Unmanaged.passUnretained(self).toOpaque(),
            1000)
        // libusb frees the buffer (with free) and the transfer once the callback returned.
        transfer.pointee.flags = UInt8(LIBUSB_TRANSFER_FREE_BUFFER.rawValue | LIBUSB_TRANSFER_FREE_TRANSFER.rawValue)
        let result = api.submit_transfer!(transfer)
        if result < 0 {
            api.free_transfer!(transfer)  // frees the buffer too (the flag)
            try LibUSB.check(result, "libusb_submit_transfer")
        }
    }

    /// Cancels the reading transfer, waits briefly for libusb to hand it back, gives the
    /// interface back (re-attaching the kernel's driver) and closes the device.
    public func close() {
        guard !closed else { return }
        closed = true
        let api = context.api
        if let reading {
            _ = api.cancel_transfer!(reading)
            for _ in 0..<20 where self.reading != nil { context.handleEvents(milliseconds: 50) }
        }
        _ = api.release_interface!(handle, 0)
        api.close!(handle)
    }

    deinit { close() }

    fileprivate func readCompleted(_ transfer: UnsafeMutablePointer<libusb_transfer>) {
        let status = transfer.pointee.status
        if status == LIBUSB_TRANSFER_COMPLETED {
            received.append(contentsOf: UnsafeBufferPointer(start: transfer.pointee.buffer, count: Int(transfer.pointee.actual_length)))
            if !closed, context.api.submit_transfer!(transfer) == 0 { return }
        }
        if status == LIBUSB_TRANSFER_NO_DEVICE || (status != LIBUSB_TRANSFER_CANCELLED && failure == nil) {
            failure = USBError(operation: "reading", code: LIBUSB_ERROR_NO_DEVICE.rawValue)
        }
        transfer.pointee.buffer.deallocate()
        context.api.free_transfer!(transfer)
        reading = nil
    }

    fileprivate func writeCompleted(_ transfer: UnsafeMutablePointer<libusb_transfer>) {
        let status = transfer.pointee.status
        if status == LIBUSB_TRANSFER_NO_DEVICE {
            failure = USBError(operation: "writing", code: LIBUSB_ERROR_NO_DEVICE.rawValue)
        } else if status != LIBUSB_TRANSFER_COMPLETED, status != LIBUSB_TRANSFER_CANCELLED, failure == nil {
            failure = USBError(operation: "writing", code: LIBUSB_ERROR_IO.rawValue)
        }
    }
}

// Transfer callbacks: C function pointers that find their device again through user_data.
private func usbReadCompleted(_ transfer: UnsafeMutablePointer<libusb_transfer>?) {
    guard let transfer, let owner = transfer.pointee.user_data else { return }
    Unmanaged<USBBulkDevice>.fromOpaque(owner).takeUnretainedValue().readCompleted(transfer)
}

private func usbWriteCompleted(_ transfer: UnsafeMutablePointer<libusb_transfer>?) {
    guard let transfer, let owner = transfer.pointee.user_data else { return }
    Unmanaged<USBBulkDevice>.fromOpaque(owner).takeUnretainedValue().writeCompleted(transfer)
}
