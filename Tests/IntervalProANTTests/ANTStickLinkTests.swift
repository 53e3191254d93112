import Foundation
import IntervalProANT
import IntervalProANTLink
import IntervalProCore
import IntervalProEventLoop
import IntervalProRuntime
import IntervalProUSB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A fake ANT stick on the other end of a socketpair: it answers each command as the ANT
/// Message Protocol says a stick does, and once every channel is open broadcasts `pages`
/// (channel, page, sender's id) with the extended channel id.
final class FakeStick: @unchecked Sendable {
    let descriptor: Int32
    let answers: Bool
    let pages: [(UInt8, [UInt8], ANTDeviceID)]
    /// Sent once the pages are.
    let after: [ANTMessage]
    private(set) var received: [ANTMessage] = []
    private var thread: Thread?

    init(descriptor: Int32, answers: Bool = true, pages: [(UInt8, [UInt8], ANTDeviceID)], after: [ANTMessage] = []) {
        self.descriptor = descriptor
        self.answers = answers
        self.pages = pages
        self.after = after
    }

    func start(channels: Int) {
        let thread = Thread { [self] in serve(channels: channels) }
        self.thread = thread
        thread.start()
    }

    private func send(_ message: ANTMessage) {
        let bytes = message.framed
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    private func serve(channels: Int) {
        var deframer = ANTDeframer()
        var opened = 0
        var buffer = [UInt8](repeating: 0, count: 256)
        while opened < channels {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            for message in deframer.append(buffer[..<count]) {
                received.append(message)
                guard answers else { continue }
                if message.id == .resetSystem {
                    send(ANTMessage(.startup, [0x20]))
                } else {
                    send(ANTMessage(.channelEvent, [message.payload[0], message.id.rawValue, 0]))
                }
                if message.id == .openChannel { opened += 1 }
            }
        }
        // A message at a time, split across writes the way USB packets may split them.
        for (channel, page, device) in pages {
            let framed = ANTMessage(
                .broadcastData,
                [channel] + page + [0x80, UInt8(device.number & 0xFF), UInt8(device.number >> 8), device.type, device.transmissionType]
            ).framed
            _ = framed.prefix(5).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            usleep(2_000)
            _ = framed.dropFirst(5).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
        for message in after { send(message) }
    }
}

@Suite("an ANT stick on a socketpair, on the real event loop")
struct ANTStickLinkTests {
    struct Rig {
        let loop: EventLoop
        let feed: LiveFeed
        let link: ANTStickLink
        let stick: FakeStick
        let descriptors: [Int32]

        init(answers: Bool = true, pages: [(UInt8, [UInt8], ANTDeviceID)], after: [ANTMessage] = []) throws {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw POSIXError(.EIO) }
            descriptors = pair
            loop = try EventLoop(name: "ant-test")
            let start = ContinuousClock.now
            let clock: @Sendable () -> Duration = { ContinuousClock.now - start }
            feed = LiveFeed(clock: clock)
            link = ANTStickLink(
                loop: loop, port: SerialStickPort(descriptor: pair[0]), name: "/dev/ttyUSB0", networkKey: [1, 2, 3, 4, 5, 6, 7, 8],
                channels: [.strideSpeed(), .heartRate()], feed: feed, arrivals: LoopCondition(loop: loop), clock: clock)
            stick = FakeStick(descriptor: pair[1], answers: answers, pages: pages, after: after)
            stick.start(channels: 2)
            link.start()
        }

        /// What the feed holds once `enough` says so, or after `seconds`.
        func collect(upTo seconds: Double, until enough: ([RecordingEntry], [String]) -> Bool) -> ([RecordingEntry], [String]) {
            var entries: [RecordingEntry] = []
            var notices: [String] = []
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !enough(entries, notices) {
                let poll = feed.poll()
                entries += poll.entries
                notices += poll.notices
                usleep(5_000)
            }
            return (entries, notices)
        }

        func close() {
            link.stop()
            loop.shutdown()
            Glibc.close(descriptors[1])  // the link closes its own end
        }
    }

    @Test("the stick is configured, and each page reaches the feed as its device's notification, byte for byte")
    func pagesReachTheFeed() throws {
        let pod = ANTDeviceID(number: 4321, type: 124, transmissionType: 5)
        let strap = ANTDeviceID(number: 12345, type: 120, transmissionType: 1)
        let podPage: [UInt8] = [0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11]
        let strapPage: [UInt8] = [0x04, 0, 0, 0x10, 0x00, 0x14, 9, 61]
        let rig = try Rig(pages: (0..<3).flatMap { _ in [(UInt8(0), podPage, pod), (UInt8(1), strapPage, strap)] })
        defer { rig.close() }
        let (entries, notices) = rig.collect(upTo: 10) { entries, _ in notifications(entries).count >= 6 }
        let received = notifications(entries)
        #expect(received.count == 6, "\(entries) \(notices)")
        #expect(received.filter { $0.device == "ant:4321" }.allSatisfy { $0.characteristicID == "ant-sdm" && $0.bytes == podPage })
        #expect(received.filter { $0.device == "ant:12345" }.allSatisfy { $0.characteristicID == "ant-hr" && $0.bytes == strapPage })
        #expect(notices.contains("ant:4321: receiving (ANT+ device type 124)"), "\(notices)")
        #expect(rig.stick.received.map(\.id).prefix(3) == [.resetSystem, .libConfig, .networkKey])
        #expect(rig.stick.received.filter { $0.id == .openChannel }.count == 2)
    }

    /// A strap that went quiet was said as "/dev/ttyUSB0: channel 1 searching" alone.
    @Test("a device lost is named: signal lost, searching")
    func lostDeviceIsNamed() throws {
        let strap = ANTDeviceID(number: 12345, type: 120, transmissionType: 1)
        let rig = try Rig(
            pages: [(1, [0x04, 0, 0, 0x10, 0x00, 0x14, 9, 61], strap)],
            after: [ANTMessage(.channelEvent, [1, 1, 0x08])])
        defer { rig.close() }
        let (_, notices) = rig.collect(upTo: 10) { _, notices in notices.contains { $0.contains("signal lost") } }
        #expect(notices.contains("ant:12345: signal lost, searching"), "\(notices)")
    }

    func notifications(_ entries: [RecordingEntry]) -> [RawNotification] {
        entries.compactMap { entry -> RawNotification? in
            if case .notification(let n) = entry { n } else { nil }
        }
    }

    func events(_ entries: [RecordingEntry]) -> [String] {
        entries.compactMap { entry -> String? in
            if case .event(_, let device, let name) = entry { "\(device) \(name)" } else { nil }
        }
    }

    /// A device lost and found again, or a stick pulled out, is in the recording as a Bluetooth
    /// sensor's dropout is: "connected" and "disconnected" events, which the summary counts.
    /// Before, the recording showed a gap in the pages alone.
    @Test("a device received, lost, and the stick gone are the recording's connected and disconnected")
    func devicesComingAndGoingAreRecorded() throws {
        let strap = ANTDeviceID(number: 12345, type: 120, transmissionType: 1)
        let pod = ANTDeviceID(number: 4321, type: 124, transmissionType: 5)
        let rig = try Rig(
            pages: [(1, [0x04, 0, 0, 0x10, 0x00, 0x14, 9, 61], strap), (0, [0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11], pod)],
            after: [ANTMessage(.channelEvent, [1, 1, 0x08])])
        defer { rig.close() }
        let (entries, _) = rig.collect(upTo: 10) { entries, _ in events(entries).count >= 3 }
        #expect(events(entries) == ["ant:12345 connected", "ant:4321 connected", "ant:12345 disconnected"], "\(entries)")
        // The stick pulled out: its end of the line closes.
        #expect(shutdown(rig.descriptors[1], Int32(SHUT_RDWR)) == 0)
        let (later, notices) = rig.collect(upTo: 10) { entries, _ in !events(entries).isEmpty }
        #expect(events(later) == ["ant:4321 disconnected"], "the strap was said lost already: \(later)")
        #expect(notices.contains("/dev/ttyUSB0: the ANT stick is gone"), "\(notices)")
    }

    /// Left failed, a stick that missed one answer was not read again for the rest of the session.
    @Test("a stick that does not answer its reset is said to, by name, once, and is reset again")
    func silentStick() throws {
        let rig = try Rig(answers: false, pages: [])
        let (_, notices) = rig.collect(upTo: 10) { _, notices in !notices.isEmpty }
        #expect(notices == ["/dev/ttyUSB0: the ANT stick did not answer 'reset system' in time; resetting the ANT stick"])
        let (_, later) = rig.collect(upTo: 4) { _, _ in false }
        #expect(later.isEmpty, "said once: \(later)")
        rig.close()
        // Read once the fake's thread has seen its end of the socketpair close.
        usleep(200_000)
        #expect(rig.stick.received.filter { $0.id == .resetSystem }.count >= 2)
    }
}

@Suite("an ANT stick through libusb")
struct USBStickPortTests {
    @Test("with no ANT stick on the buses, opening one says so")
    func noStick() {
        // This machine has no ANT stick; the real one is opened in the VM suite (make e2e).
        do {
            _ = try USBStickPort()
            Issue.record("an ANT stick was opened on a machine that has none")
        } catch {
            #expect(error.isGone, "\(error)")
            #expect(error.description == "finding an ANT USB stick: no such device")
        }
    }
}
