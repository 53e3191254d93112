import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fake ANT stick behind a pseudo-terminal: `intervalpro` opens the terminal's path as it
/// opens `/dev/ttyUSB0`; this answers every command as the ANT Message Protocol says a stick
/// does and, while the channels are open, broadcasts a foot pod's page 2 (85.5 strides/min) on
/// channel 0 and a strap's page (a beat a second, 61 bpm) on channel 1, four times a second. A
/// reset closes them until they are opened again.
public final class PseudoTerminalStick: @unchecked Sendable {
    let master: Int32
    /// The terminal's path, what `--ant-stick` names.
    public let path: String
    private let stopped = NSLock()
    private var isStopped = false

    /// How many channels the session opens before the pages start (a scan opens one, in
    /// continuous scanning mode).
    let channels: Int
    /// Whether the strap sends: without it, only the foot pod is in range.
    let strap: Bool
    /// After how many pages the stick reports a serial error (0xAE) once, as a stick does when
    /// a frame was damaged on the line; nil: never.
    let serialErrorAfter: Int?
    /// A stick that takes every command and answers none.
    let mute: Bool

    public init(channels: Int = 2, strap: Bool = true, serialErrorAfter: Int? = nil, mute: Bool = false) throws {
        self.channels = channels
        self.strap = strap
        self.serialErrorAfter = serialErrorAfter
        self.mute = mute
        // posix_openpt, unlockpt and ptsname by hand: Glibc's module leaves them out. The ioctl
        // numbers are Linux's generic ones (asm-generic/ioctls.h).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw POSIXError(.ENODEV)
        }
        path = "/dev/pts/\(number)"
        Thread { [self] in serve() }.start()
    }

    public func stop() {
        stopped.withLock { isStopped = true }
    }

    private var running: Bool { stopped.withLock { !isStopped } }

    private func send(_ id: UInt8, _ payload: [UInt8]) {
        var bytes = [0xA4, UInt8(payload.count), id] + payload
        bytes.append(bytes.reduce(0, ^))
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    private func serve() {
        var buffer: [UInt8] = []
        var opened = 0
        var tick = 0
        var nextPage = Date()
        var serialErrorAt = serialErrorAfter
        while running {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let wait = opened < channels ? 100 : max(0, Int32(nextPage.timeIntervalSinceNow * 1000))
            if poll(&poller, 1, wait) > 0 {
                var chunk = [UInt8](repeating: 0, count: 256)
                let count = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer += chunk[..<count]
                } else {
                    // No one has the terminal open (before the command opens it, after it
                    // closes it): poll says so at once, and would spin a core.
                    usleep(20_000)
                }
            }
            // Whole messages: A4, length, id, payload, checksum.
            while buffer.count >= 4, buffer[0] == 0xA4, buffer.count >= Int(buffer[1]) + 4 {
                let length = Int(buffer[1])
                let id = buffer[2]
                let payload = Array(buffer[3..<(3 + length)])
                buffer.removeFirst(length + 4)
                if mute { continue }
                if id == 0x4A {
                    opened = 0
                    send(0x6F, [0x20])
                } else {
                    send(0x40, [payload.first ?? 0, id, 0])
                }
                // Open channel, or open in continuous scanning mode.
                if id == 0x4B || id == 0x5B { opened += 1 }
            }
            if let first = buffer.first, first != 0xA4 { buffer.removeFirst() }
            guard opened >= channels, Date() >= nextPage else { continue }
            nextPage = Date().addingTimeInterval(0.25)
            if let at = serialErrorAt, tick >= at {
                serialErrorAt = nil
                send(0xAE, [0x00])
                continue
            }
            let beats = tick / 4
            let time = UInt16(truncatingIfNeeded: beats * 1024)
            send(0x4E, [0, 0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11, 0x80, 0xE1, 0x10, 124, 5])
            if strap {
                send(0x4E, [1, 0x00, 0, 0, 0, UInt8(time & 0xFF), UInt8(time >> 8), UInt8(truncatingIfNeeded: beats), 61, 0x80, 0x39, 0x30, 120, 1])
            }
            tick += 1
        }
    }

    deinit { close(master) }
}
