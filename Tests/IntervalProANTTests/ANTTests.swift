import IntervalProANT
import IntervalProCore
import Testing

/// A made-up network key: the tests need eight bytes, not the ANT+ one.
let testKey: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]

@Suite("ANT serial messages")
struct ANTMessageTests {
    @Test("framing: sync, length, id, payload, XOR checksum")
    func framing() {
        // The reset command as every ANT document shows it: A4 01 4A 00 EF.
        #expect(ANTMessage(.resetSystem, [0]).framed == [0xA4, 0x01, 0x4A, 0x00, 0xEF])
        #expect(ANTMessage(.openChannel, [0]).framed == [0xA4, 0x01, 0x4B, 0x00, 0xEE])
    }

    @Test("the deframer splits a stream cut anywhere, and skips noise and damaged messages")
    func deframing() {
        let a = ANTMessage(.startup, [0x20])
        let b = ANTMessage(.broadcastData, [0, 4, 0, 0, 0, 0x10, 0x04, 7, 72])
        var damaged = ANTMessage(.channelEvent, [0, 1, 2]).framed
        damaged[damaged.count - 1] ^= 0xFF
        let stream = [0x00, 0x13] + a.framed + damaged + b.framed
        // Every cut of the stream into two reads gives the same two messages.
        for cut in 0...stream.count {
            var deframer = ANTDeframer()
            let messages = deframer.append(stream[..<cut]) + deframer.append(stream[cut...])
            #expect(messages == [a, b], "cut at \(cut)")
            #expect(deframer.skippedBytes == 2 + damaged.count, "cut at \(cut)")
        }
    }
}

/// A stick that answers every command, as the ANT Message Protocol says it does.
struct ScriptedStick {
    var machine: ANTStickMachine
    var sent: [ANTMessage] = []
    var pages: [(Int, ANTDeviceID?, [UInt8])] = []
    var states: [(Int, ANTStickMachine.ChannelState)] = []
    var failures: [String] = []
    var now = SessionTime.zero

    init(channels: [ANTChannelPlan], refuseLibConfig: Bool = false, scanning: Bool = false) {
        machine = scanning ? ANTStickMachine(scanningWith: testKey) : ANTStickMachine(networkKey: testKey, channels: channels)
        take(machine.handle(.start, now: now))
        // The stick answers each command until the last channel is open.
        while let last = sent.last, answer(to: last, refuseLibConfig: refuseLibConfig) {}
    }

    /// Answers `message` if it waits for an answer; false when nothing more is awaited.
    mutating func answer(to message: ANTMessage, refuseLibConfig: Bool) -> Bool {
        let count = sent.count
        switch message.id {
        case .resetSystem: deliver(ANTMessage(.startup, [0x20]))
        case .libConfig: deliver(ANTMessage(.channelEvent, [0, message.id.rawValue, refuseLibConfig ? 0x28 : 0]))
        default: deliver(ANTMessage(.channelEvent, [message.payload[0], message.id.rawValue, 0]))
        }
        return sent.count > count
    }

    mutating func deliver(_ message: ANTMessage) {
        take(machine.handle(.received(message), now: now))
    }

    mutating func take(_ actions: [ANTStickMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let message): sent.append(message)
            case .page(let channel, let device, let bytes): pages.append((channel, device, bytes))
            case .channelState(let channel, let state): states.append((channel, state))
            case .failed(let reason), .refused(let reason): failures.append(reason)
            }
        }
    }
}

@Suite("the ANT stick state machine")
struct ANTStickMachineTests {
    @Test("reset, extended data, the key, then each channel assigned, identified, timed, tuned and opened")
    func configuration() {
        let stick = ScriptedStick(channels: [.heartRate(), .strideSpeed(deviceNumber: 4321)])
        #expect(stick.sent.map(\.id) == [
            .resetSystem, .libConfig, .networkKey,
            .assignChannel, .channelID, .channelPeriod, .radioFrequency, .searchTimeout, .openChannel,
            .assignChannel, .channelID, .channelPeriod, .radioFrequency, .searchTimeout, .openChannel,
        ])
        #expect(stick.sent[2].payload == [0] + testKey)
        // Heart rate: any device of type 120, 8070/32768 s (4.06 Hz), 2457 MHz.
        #expect(stick.sent[4].payload == [0, 0, 0, 120, 0])
        #expect(stick.sent[5].payload == [0, 0x86, 0x1F])
        #expect(stick.sent[6].payload == [0, 57])
        // The foot pod asked for by number: 4321 = 0x10E1.
        #expect(stick.sent[10].payload == [1, 0xE1, 0x10, 124, 0])
        #expect(stick.sent[11].payload == [1, 0xC6, 0x1F])
        #expect(stick.machine.states == [.searching, .searching])
        #expect(stick.machine.nextDeadline == nil)
        #expect(stick.failures.isEmpty)
    }

    @Test("data with the sender's id: the channel tracks it; a lost device searches again; a closed channel reopens")
    func trackingAndSearchingAgain() {
        var stick = ScriptedStick(channels: [.heartRate()])
        let opened = stick.sent.count
        let page: [UInt8] = [0x04, 0, 0, 0, 0x00, 0x04, 1, 72]
        stick.deliver(ANTMessage(.broadcastData, [0] + page + [0x80, 0x39, 0x30, 120, 1]))
        let strap = ANTDeviceID(number: 12345, type: 120, transmissionType: 1)
        #expect(stick.machine.states == [.tracking(strap)])
        #expect(stick.pages.count == 1 && stick.pages[0].1 == strap && stick.pages[0].2 == page)

        stick.deliver(ANTMessage(.channelEvent, [0, 1, 0x08]))  // lost: searching again
        #expect(stick.machine.states == [.searching])
        stick.deliver(ANTMessage(.channelEvent, [0, 1, 0x01]))  // the search timed out
        stick.deliver(ANTMessage(.channelEvent, [0, 1, 0x07]))  // and the channel closed
        // Opened again for the strap it paired with, not any strap (it was the wildcard again).
        #expect(stick.sent.count == opened + 1)
        #expect(stick.sent.last == ANTMessage(.channelID, [0, 0x39, 0x30, 120, 1]))
        #expect(stick.machine.channels == [ANTChannelPlan(deviceType: 120, deviceNumber: 12345, transmissionType: 1, period: 8070)])
        stick.deliver(ANTMessage(.channelEvent, [0, ANTMessageID.channelID.rawValue, 0]))
        #expect(stick.sent.last == ANTMessage(.openChannel, [0]))
        stick.deliver(ANTMessage(.channelEvent, [0, ANTMessageID.openChannel.rawValue, 0]))
        stick.deliver(ANTMessage(.broadcastData, [0] + page + [0x80, 0x39, 0x30, 120, 1]))
        #expect(stick.machine.states == [.tracking(strap)])
        #expect(stick.failures.isEmpty)
    }

    @Test("a stick without extended data is asked for the channel id once a device is heard; the pages before are kept")
    func askingForTheChannelID() {
        var stick = ScriptedStick(channels: [.strideSpeed()], refuseLibConfig: true)
        #expect(!stick.machine.extendedData)
        #expect(stick.machine.states == [.searching])
        let pages: [[UInt8]] = (0..<3).map { [0x02, 0, 0, 85 + $0, 0x83, 0x20, 0, 0x01] }
        stick.deliver(ANTMessage(.broadcastData, [0] + pages[0]))
        stick.deliver(ANTMessage(.broadcastData, [0] + pages[1]))
        #expect(stick.sent.filter { $0.id == .request } == [ANTMessage(.request, [0, 0x51])])
        // Held until the device is named (given without a name, they were dropped).
        #expect(stick.pages.isEmpty)
        stick.deliver(ANTMessage(.channelID, [0, 0xD2, 0x04, 124, 5]))
        stick.deliver(ANTMessage(.broadcastData, [0] + pages[2]))
        let pod = ANTDeviceID(number: 1234, type: 124, transmissionType: 5)
        #expect(stick.pages.map(\.1) == [pod, pod, pod])
        #expect(stick.pages.map(\.2) == pages)
        #expect(stick.states.last.map { $0.1 } == .tracking(pod))

        // A channel that loses its device before it is named drops what it held.
        var lost = ScriptedStick(channels: [.strideSpeed()], refuseLibConfig: true)
        lost.deliver(ANTMessage(.broadcastData, [0] + pages[0]))
        lost.deliver(ANTMessage(.channelEvent, [0, 1, 0x08]))  // EVENT_RX_FAIL_GO_TO_SEARCH
        lost.deliver(ANTMessage(.channelID, [0, 0x2E, 0x16, 124, 5]))
        #expect(lost.pages.isEmpty)
    }

    @Test("no answer in time, or a refusal, fails once with the command named")
    func failures() {
        var machine = ANTStickMachine(networkKey: testKey, channels: [.heartRate()])
        #expect(machine.handle(.start, now: .zero) == [.send(ANTMessage(.resetSystem, [0]))])
        #expect(machine.nextDeadline == .seconds(2))
        #expect(machine.handle(.tick, now: .seconds(1)).isEmpty)
        #expect(machine.handle(.tick, now: .seconds(2)) == [.failed("the ANT stick did not answer 'reset system' in time")])
        #expect(machine.handle(.tick, now: .seconds(3)).isEmpty)

        var refused = ScriptedStick(channels: [])
        refused.machine = ANTStickMachine(networkKey: testKey, channels: [.heartRate()])
        refused.take(refused.machine.handle(.start, now: .zero))
        refused.deliver(ANTMessage(.startup, [0]))
        refused.deliver(ANTMessage(.channelEvent, [0, ANTMessageID.libConfig.rawValue, 0]))
        refused.deliver(ANTMessage(.channelEvent, [0, ANTMessageID.networkKey.rawValue, 0x29]))
        #expect(refused.failures == ["the ANT stick refused 'network key' (code 0x29)"])
    }
}

@Suite("ANT+ heart rate and foot pod pages")
struct ANTPlusPageTests {
    @Test("heart-rate pages: beat time, count, rate, and what pages 1-4 add")
    func heartRatePages() throws {
        let page4 = try ANTPlusHeartRatePage.parse([0x84, 0xFF, 0x00, 0x10, 0x00, 0x14, 9, 61])
        #expect(page4.page == 4 && page4.beatTime == 0x1400 && page4.beatCount == 9 && page4.heartRate == 61)
        #expect(page4.detail == .previousBeat(time: 0x1000))
        #expect(try ANTPlusHeartRatePage.parse([1, 0x10, 0, 0, 0, 0, 0, 60]).detail == .operatingTime(seconds: 32))
        #expect(try ANTPlusHeartRatePage.parse([2, 1, 0x34, 0x12, 0, 0, 0, 60]).detail == .manufacturer(id: 1, serialUpper: 0x1234))
        #expect(throws: ANTPlusHeartRatePage.ParseError.wrongLength(7)) { try ANTPlusHeartRatePage.parse([0, 0, 0, 0, 0, 0, 0]) }
    }

    @Test("RR intervals from beat times: each new beat, across the 64 s rollover, bridged by page 4, never made up")
    func beatTracker() throws {
        func page(_ number: UInt8, time: UInt16, count: UInt8, previous: UInt16 = 0) throws -> ANTPlusHeartRatePage {
            try ANTPlusHeartRatePage.parse([number, 0, UInt8(previous & 0xFF), UInt8(previous >> 8), UInt8(time & 0xFF), UInt8(time >> 8), count, 60])
        }
        var tracker = ANTPlusBeatTracker()
        #expect(tracker.add(try page(0, time: 64_000, count: 255)).isEmpty)  // the first: no beat before it
        // The same beat again, the page toggle bit changed: a current strap, whose pages count.
        #expect(tracker.add(try page(0x80, time: 64_000, count: 255)).isEmpty)
        // The beat time rolls over at 65,536/1024 s: 999 after 64,000 is 2,535 later (2.48 s).
        #expect(tracker.add(try page(0, time: 999, count: 0)) == [2_535])
        #expect(!tracker.beatsLostBefore)
        // Two beats at once without page 4: nothing made up.
        #expect(tracker.add(try page(0, time: 3_000, count: 2)).isEmpty)
        // Two beats at once with page 4: the last interval, from its previous beat time; the
        // beat before it went by unseen, so it does not follow the last interval given.
        #expect(tracker.add(try page(4, time: 5_000, count: 4, previous: 4_000)) == [1_000])
        #expect(tracker.beatsLostBefore)
        #expect(tracker.add(try page(0, time: 6_000, count: 5)) == [1_000])
        #expect(!tracker.beatsLostBefore)
        // An interval no heart beats (a 5 s gap) is left out, and the next does not follow.
        #expect(tracker.add(try page(0, time: 11_120, count: 6)).isEmpty)
        #expect(tracker.add(try page(0, time: 12_120, count: 7)) == [1_000])
        #expect(tracker.beatsLostBefore)
    }

    /// A legacy strap never toggles byte 0's top bit and fills bytes 0-3 as it likes: one
    /// whose byte 0 read as page 4 had its bytes 2-3 taken for the previous beat's time, and
    /// nearly every interval was left out as implausible (2 beats in 70 s for some 98).
    @Test("a legacy strap that never toggles its page bit: intervals from its beat times, bytes 0-3 not read as a page")
    func legacyStrap() throws {
        var tracker = ANTPlusBeatTracker()
        var intervals: [UInt16] = []
        var time: UInt16 = 1_000
        for count in UInt8(0)..<12 {
            time &+= 700 + UInt16(count) * 10
            intervals += tracker.add(try ANTPlusHeartRatePage.parse([0x04, 0x12, 0x34, 0x56, UInt8(time & 0xFF), UInt8(time >> 8), count, 85]))
        }
        #expect(intervals == (1..<12).map { 700 + UInt16($0) * 10 })
        // Its constant byte 0 read as page 2 names no maker in a scan.
        var scan = ANTPlusScan()
        let strap = ANTDeviceID(number: 54321, type: 120, transmissionType: 1)
        for _ in 0..<8 { scan.heard(strap, page: [0x02, 95, 0x34, 0x12, 0, 4, 1, 61]) }
        #expect(scan.sightings.first?.manufacturer == nil)
    }

    @Test("foot pod pages: cadence in strides per minute doubled to steps, speed, distance, status, common pages")
    func strideSpeedPages() throws {
        // Page 2: 85 + 8/16 strides/min, 3 + 32/256 m/s, at the laces, battery good, moving.
        let cadence = try ANTPlusStrideSpeedPage.parse([0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11])
        guard case .cadence(let strides, let speed, let status, let calories) = cadence else {
            Issue.record("expected page 2, got \(cadence)")
            return
        }
        #expect(strides == 85.5 && speed == 3.125 && calories == nil)
        #expect(cadence.stepsPerMinute == 171)
        #expect(status.location == 0 && status.battery == 1 && !status.inactive)
        #expect(
            try ANTPlusStrideSpeedPage.parse([0x81, 100, 12, 200, 0x43, 0x80, 37, 0])
                == .distance(time: 12.5, distance: 200.25, speed: 3.5, strides: 37))
        #expect(
            try ANTPlusStrideSpeedPage.parse([80, 0xFF, 0xFF, 2, 1, 0, 0x39, 0x05])
                == .common(.manufacturer(hardwareRevision: 2, manufacturerID: 1, model: 0x0539)))
        #expect(
            try ANTPlusStrideSpeedPage.parse([81, 0xFF, 0xFF, 7, 0x78, 0x56, 0x34, 0x12])
                == .common(.product(softwareRevision: 7, serialNumber: 0x1234_5678)))
        // Page 3, page 2 with calories (byte 6) that some pods send instead: it was left unread,
        // and such a pod gave no cadence, speed or distance.
        let page3 = try ANTPlusStrideSpeedPage.parse([3, 0xFF, 0xFF, 85, 0x53, 0x00, 42, 0x11])
        #expect(page3.stepsPerMinute == 170.625)
        guard case .cadence(_, let speed3, _, let calories3) = page3 else {
            Issue.record("page 3 read as \(page3)")
            return
        }
        #expect(speed3 == 3 && calories3 == 42)
        // `decode ant-sdm` showed page 3 as page 2, without its calories.
        #expect(page3.json.serialized().hasPrefix(#"{"page":3,"#) && page3.json.serialized().hasSuffix(#","calories_kcal":42}"#))
        #expect(cadence.json.serialized().hasPrefix(#"{"page":2,"#) && !cadence.json.serialized().contains("calories"))
        #expect(try ANTPlusStrideSpeedPage.parse([16, 0, 0, 0, 0, 0, 0, 0]) == .other(16))
    }
}

@Suite("scanning for ANT+ devices")
struct ANTScanTests {
    @Test("channel 0 opens in continuous scanning mode; every device heard is reported with its id, none tracked")
    func scanningMode() {
        var stick = ScriptedStick(channels: [], scanning: true)
        #expect(stick.sent.map(\.id) == [.resetSystem, .libConfig, .networkKey, .assignChannel, .channelID, .radioFrequency, .openRxScanMode])
        #expect(stick.sent[4].payload == [0, 0, 0, 0, 0], "a wildcard channel id: any device, any type")
        #expect(stick.failures.isEmpty)
        let pod: [UInt8] = [0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11]
        let strap: [UInt8] = [0x00, 0, 0, 0, 0x00, 0x04, 1, 61]
        stick.deliver(ANTMessage(.broadcastData, [0] + pod + [0x80, 0xE1, 0x10, 124, 5]))
        stick.deliver(ANTMessage(.broadcastData, [0] + strap + [0x80, 0x39, 0x30, 120, 1]))
        stick.deliver(ANTMessage(.broadcastData, [0] + pod))  // no channel id: nobody to name
        #expect(stick.pages.map(\.1) == [
            ANTDeviceID(number: 4321, type: 124, transmissionType: 5), ANTDeviceID(number: 12345, type: 120, transmissionType: 1),
        ])
        #expect(stick.states.isEmpty)
    }

    @Test("a stick without scanning mode says so")
    func refused() {
        var machine = ANTStickMachine(scanningWith: testKey)
        _ = machine.handle(.start, now: .zero)
        _ = machine.handle(.received(ANTMessage(.startup, [0x20])), now: .zero)
        for id in [ANTMessageID.libConfig, .networkKey, .assignChannel, .channelID, .radioFrequency] {
            _ = machine.handle(.received(ANTMessage(.channelEvent, [0, id.rawValue, 0])), now: .zero)
        }
        let actions = machine.handle(.received(ANTMessage(.channelEvent, [0, ANTMessageID.openRxScanMode.rawValue, 0x28])), now: .zero)
        #expect(actions == [.refused("this ANT stick cannot scan (it has no continuous scanning mode)")])
    }

    /// After a reset in place, the pages the stick sent before it were read as the new set-up's:
    /// a channel still being configured "received" a device, and the stick was said to answer.
    @Test("a page on a channel not yet open, or before the scan's channel is, is left alone")
    func pagesBeforeTheChannelsOpen() {
        let page = ANTMessage(.broadcastData, [0, 0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11, 0x80, 0xE1, 0x10, 124, 5])
        var machine = ANTStickMachine(networkKey: testKey, channels: [.strideSpeed()])
        _ = machine.handle(.start, now: .zero)
        #expect(machine.handle(.received(page), now: .zero).isEmpty)
        var scanner = ANTStickMachine(scanningWith: testKey)
        _ = scanner.handle(.start, now: .zero)
        _ = scanner.handle(.received(ANTMessage(.startup, [0x20])), now: .zero)
        #expect(scanner.handle(.received(page), now: .zero).isEmpty)
    }

    @Test("sightings: one per device, its profile, and who made it from page 80 or a strap's page 2")
    func sightings() {
        var scan = ANTPlusScan()
        let pod = ANTDeviceID(number: 4321, type: 124, transmissionType: 5)
        let strap = ANTDeviceID(number: 12345, type: 120, transmissionType: 1)
        let power = ANTDeviceID(number: 7, type: 11, transmissionType: 5)
        scan.heard(pod, page: [0x02, 0xFF, 0xFF, 85, 0x83, 0x20, 0xFF, 0x11])
        // The strap's page 2 is believed once its page toggle bit is seen to change.
        scan.heard(strap, page: [0x02, 95, 0x34, 0x12, 0, 4, 1, 61])
        scan.heard(strap, page: [0x82, 95, 0x34, 0x12, 0, 4, 1, 61])
        scan.heard(pod, page: [0x50, 0xFF, 0xFF, 1, 1, 0, 0x0B, 0])
        scan.heard(power, page: [0x10, 0, 0, 0, 0, 0, 0, 0])
        #expect(scan.sightings.map(\.device) == [pod, strap, power])
        #expect(scan.sightings.map(\.messages) == [2, 2, 1])
        #expect(scan.sightings.map(\.manufacturer) == ["Garmin", "Stryd", nil])
        #expect(scan.sightings[0].model == 11)
        #expect(scan.sightings.map(\.kind) == ["ANT+ foot pod", "ANT+ heart rate", "ANT+ device type 11"])
    }
}
