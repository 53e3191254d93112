public import IntervalProCore

/// Which ANT device a channel hears: its number, type and transmission type (the channel id).
public struct ANTDeviceID: Hashable, Sendable, CustomStringConvertible {
    public var number: UInt16
    public var type: UInt8
    public var transmissionType: UInt8

    public init(number: UInt16, type: UInt8, transmissionType: UInt8) {
        self.number = number
        self.type = type
        self.transmissionType = transmissionType
    }

    /// "ant:12345", as sensors are named on the command line and in recordings.
    public var description: String { RecordedDevice.antPrefix + "\(number)" }
}

/// A receiving channel to open: what it searches for, on what period and frequency.
public struct ANTChannelPlan: Equatable, Sendable {
    /// ANT+ device type: 120 heart rate, 124 stride-based speed and distance.
    public var deviceType: UInt8
    /// 0: any device of the type (a wildcard search).
    public var deviceNumber: UInt16
    /// 0: any.
    public var transmissionType: UInt8
    /// Message period in 1/32768 s (8070 for a heart-rate monitor, 8134 for a foot pod).
    public var period: UInt16
    /// RF channel: 2400 + this MHz (57 for ANT+).
    public var frequency: UInt8

    public init(deviceType: UInt8, deviceNumber: UInt16 = 0, transmissionType: UInt8 = 0, period: UInt16, frequency: UInt8 = 57) {
        self.deviceType = deviceType
        self.deviceNumber = deviceNumber
        self.transmissionType = transmissionType
        self.period = period
        self.frequency = frequency
    }

    /// An ANT+ heart-rate monitor (device profile: Heart Rate, 4 Hz).
    public static func heartRate(deviceNumber: UInt16 = 0) -> ANTChannelPlan {
        ANTChannelPlan(deviceType: 120, deviceNumber: deviceNumber, period: 8070)
    }

    /// An ANT+ foot pod (device profile: Stride Based Speed and Distance, 4 Hz).
    public static func strideSpeed(deviceNumber: UInt16 = 0) -> ANTChannelPlan {
        ANTChannelPlan(deviceType: 124, deviceNumber: deviceNumber, period: 8134)
    }
}

/// The ANT stick as an I/O-free state machine: it resets the stick, asks for the channel id
/// with every data message, sets the network key, opens one receiving channel per plan (or,
/// scanning, channel 0 in continuous scanning mode, which hears every device on the ANT+
/// frequency), and then reports each data page with the device that sent it. A channel that loses its device
/// searches again; one whose search times out is opened again, so a device that comes back is
/// heard again without anyone asking. The caller sends what `.send` says, delivers what the
/// stick answers, and ticks at `nextDeadline`: an answer that does not come in time fails.
public struct ANTStickMachine: Sendable {
    public enum Event: Equatable, Sendable {
        case start
        case received(ANTMessage)
        case tick
    }

    public enum ChannelState: Equatable, Sendable {
        case configuring
        case searching
        case tracking(ANTDeviceID)
    }

    public enum Action: Equatable, Sendable {
        case send(ANTMessage)
        /// Eight bytes of a data page from a channel's device (held until the stick names it).
        case page(channel: Int, device: ANTDeviceID?, bytes: [UInt8])
        case channelState(channel: Int, ChannelState)
        /// The stick did not answer, or its messages went out of step (a serial error): this
        /// machine is done; the link resets the stick with a new one.
        case failed(String)
        /// The stick refused a command: this machine is done, and a reset would be refused the
        /// same (a stick with no continuous scanning mode scans no better reset).
        case refused(String)
    }

    /// How long the stick has to answer a command; a reset takes longer.
    static let answerTime = SessionTime.seconds(1)
    static let resetTime = SessionTime.seconds(2)
    /// A search's length, in the 2.5 s units of the search-timeout message: 30 s, then the
    /// channel closes and is opened again.
    static let searchTimeoutUnits: UInt8 = 12

    /// The plans, each channel's wildcard replaced by the device it paired with: a channel
    /// opened again after its search timed out, or the stick set up again after it was pulled
    /// out, looks for that device, not any of its type (a neighbour's foot pod, on the next
    /// treadmill, was taken after a replug).
    public private(set) var channels: [ANTChannelPlan]
    /// Continuous scanning instead of channels: every device heard is reported, none tracked.
    public let scanning: Bool
    public private(set) var states: [ChannelState]
    public private(set) var nextDeadline: SessionTime?
    /// False when the stick refused to add the channel id to data messages: it is asked for
    /// once per device found instead.
    public private(set) var extendedData = true
    /// Without extended data, the pages a channel heard before the stick named its device (a
    /// few, at 4 Hz, while the request is answered): given with the device once it is named,
    /// not dropped. A channel that loses its device, or closes, drops them: whose they were is unknown.
    private var unnamedPages: [Int: [[UInt8]]] = [:]
    static let unnamedPagesKept = 16
    private let networkKey: [UInt8]
    private let networkNumber: UInt8
    private var queue: [ANTMessage] = []
    private var awaiting: ANTMessage?
    private var failed = false
    /// Scanning: whether the stick opened its channel in continuous scanning mode.
    private var scanOpen = false

    public init(networkKey: [UInt8], channels: [ANTChannelPlan], networkNumber: UInt8 = 0) {
        precondition(networkKey.count == 8, "an ANT network key is 8 bytes")
        precondition(channels.count <= 8, "ANT sticks have 8 channels")
        self.networkKey = networkKey
        self.networkNumber = networkNumber
        self.channels = channels
        scanning = false
        states = Array(repeating: .configuring, count: channels.count)
    }

    /// A machine that scans: every ANT+ device in range, with its channel id (`scan`).
    public init(scanningWith networkKey: [UInt8], networkNumber: UInt8 = 0) {
        precondition(networkKey.count == 8, "an ANT network key is 8 bytes")
        self.networkKey = networkKey
        self.networkNumber = networkNumber
        channels = []
        scanning = true
        states = []
    }

    public mutating func handle(_ event: Event, now: SessionTime) -> [Action] {
        guard !failed else { return [] }
        var actions: [Action] = []
        switch event {
        case .start:
            queue = [ANTMessage(.resetSystem, [0])]
            sendNext(now: now, into: &actions)
        case .tick:
            if let deadline = nextDeadline, now >= deadline, let awaiting {
                fail("the ANT stick did not answer '\(awaiting.id)' in time", into: &actions)
            }
        case .received(let message):
            receive(message, now: now, into: &actions)
        }
        return actions
    }

    private mutating func receive(_ message: ANTMessage, now: SessionTime, into actions: inout [Action]) {
        switch message.id {
        case .startup:
            guard awaiting?.id == .resetSystem else { return }
            awaiting = nil
            queue = configuration()
            sendNext(now: now, into: &actions)
        case .channelEvent:
            guard let event = ANTChannelEvent(message.payload) else { return }
            switch event {
            case .response(let channel, let id, let code):
                guard let awaiting, awaiting.id == id, awaiting.payload.first == channel || !Self.isChannelCommand(id) else { return }
                self.awaiting = nil
                if code != ANTChannelEvent.responseNoError {
                    if id == .libConfig {
                        extendedData = false  // older sticks: ask for each device's id instead
                    } else if id == .openRxScanMode {
                        return fail("this ANT stick cannot scan (it has no continuous scanning mode)", refused: true, into: &actions)
                    } else if id != .request {  // a refused request leaves the device unnamed
                        return fail("the ANT stick refused '\(id)' (code 0x\(String(code, radix: 16)))", refused: true, into: &actions)
                    }
                }
                if id == .openRxScanMode { scanOpen = true }
                if id == .openChannel, Int(channel) < states.count { setState(Int(channel), .searching, into: &actions) }
                sendNext(now: now, into: &actions)
            case .radio(let channel, let radio):
                let index = Int(channel)
                guard index < states.count else { return }
                switch radio {
                case .lostGoingToSearch:
                    unnamedPages[index] = nil
                    setState(index, .searching, into: &actions)
                case .channelClosed:
                    unnamedPages[index] = nil
                    // The search timed out (or the stick closed it): search again, for the
                    // device the channel paired with.
                    setState(index, .searching, into: &actions)
                    queue.append(Self.channelID(channel, channels[index]))
                    queue.append(ANTMessage(.openChannel, [channel]))
                    if awaiting == nil { sendNext(now: now, into: &actions) }
                default: break
                }
            }
        case .broadcastData, .acknowledgedData:
            guard message.payload.count >= 9 else { return }
            // Pages before the channels are open are the stick's last set-up's, read after a
            // reset: they are not this one's, nor news that it answers.
            if scanning {
                guard scanOpen else { return }
                let p = message.payload
                guard p.count >= 14, p[9] & 0x80 != 0 else { return }
                let device = ANTDeviceID(number: UInt16(p[10]) | UInt16(p[11]) << 8, type: p[12], transmissionType: p[13])
                return actions.append(.page(channel: 0, device: device, bytes: Array(p[1...8])))
            }
            let index = Int(message.payload[0])
            guard index < states.count, states[index] != .configuring else { return }
            let bytes = Array(message.payload[1...8])
            var device: ANTDeviceID?
            // Extended data: a flag byte, 0x80 when the channel id follows.
            if message.payload.count >= 14, message.payload[9] & 0x80 != 0 {
                let p = message.payload
                device = ANTDeviceID(number: UInt16(p[10]) | UInt16(p[11]) << 8, type: p[12], transmissionType: p[13])
            } else if case .tracking(let known) = states[index] {
                device = known
            } else if !extendedData, !queue.contains(where: { $0.id == .request && $0.payload.first == UInt8(index) }),
                awaiting?.id != .request
            {
                queue.append(ANTMessage(.request, [UInt8(index), ANTMessageID.channelID.rawValue]))
                if awaiting == nil { sendNext(now: now, into: &actions) }
            }
            guard let device else {
                unnamedPages[index, default: []].append(bytes)
                if unnamedPages[index]!.count > Self.unnamedPagesKept { unnamedPages[index]!.removeFirst() }
                return
            }
            if states[index] != .tracking(device) { setState(index, .tracking(device), into: &actions) }
            actions.append(.page(channel: index, device: device, bytes: bytes))
        case .channelID:
            // The answer to a request for a channel's id.
            guard message.payload.count >= 5, awaiting?.id == .request else { return }
            awaiting = nil
            let p = message.payload
            let index = Int(p[0])
            let number = UInt16(p[1]) | UInt16(p[2]) << 8
            if index < states.count, number != 0 {
                setState(index, .tracking(ANTDeviceID(number: number, type: p[3], transmissionType: p[4])), into: &actions)
            }
            sendNext(now: now, into: &actions)
        case .serialError:
            fail("the ANT stick reported a serial error: its messages are out of step", into: &actions)
        default:
            break
        }
    }

    /// What configures the stick after its reset: extended data, the network key, and each
    /// channel assigned as a receiver, given its id, period, frequency and search length, opened.
    private func configuration() -> [ANTMessage] {
        var messages = [ANTMessage(.libConfig, [0, 0x80]), ANTMessage(.networkKey, [networkNumber] + networkKey)]
        if scanning {
            // Channel 0 as a wildcard receiver on the ANT+ frequency, then scanning mode (the
            // ANT Message Protocol, 5.3 "Continuous Scanning Mode"): the channel id comes with
            // every message, whatever the lib config says.
            return messages + [
                ANTMessage(.assignChannel, [0, 0x00, networkNumber]),
                ANTMessage(.channelID, [0, 0, 0, 0, 0]),
                ANTMessage(.radioFrequency, [0, 57]),
                ANTMessage(.openRxScanMode, [0]),
            ]
        }
        for (index, plan) in channels.enumerated() {
            let channel = UInt8(index)
            messages += [
                ANTMessage(.assignChannel, [channel, 0x00, networkNumber]),  // 0x00: bidirectional receive
                Self.channelID(channel, plan),
                ANTMessage(.channelPeriod, [channel, UInt8(plan.period & 0xFF), UInt8(plan.period >> 8)]),
                ANTMessage(.radioFrequency, [channel, plan.frequency]),
                ANTMessage(.searchTimeout, [channel, Self.searchTimeoutUnits]),
                ANTMessage(.openChannel, [channel]),
            ]
        }
        return messages
    }

    private static func channelID(_ channel: UInt8, _ plan: ANTChannelPlan) -> ANTMessage {
        ANTMessage(.channelID, [channel, UInt8(plan.deviceNumber & 0xFF), UInt8(plan.deviceNumber >> 8), plan.deviceType, plan.transmissionType])
    }

    /// Commands whose answer names the channel in its first byte.
    private static func isChannelCommand(_ id: ANTMessageID) -> Bool {
        [.assignChannel, .channelID, .channelPeriod, .radioFrequency, .searchTimeout, .openChannel, .closeChannel, .openRxScanMode]
            .contains(id)
    }

    private mutating func sendNext(now: SessionTime, into actions: inout [Action]) {
        guard awaiting == nil, !queue.isEmpty else {
            if awaiting == nil { nextDeadline = nil }
            return
        }
        let message = queue.removeFirst()
        awaiting = message
        nextDeadline = now + (message.id == .resetSystem ? Self.resetTime : Self.answerTime)
        actions.append(.send(message))
    }

    private mutating func setState(_ index: Int, _ state: ChannelState, into actions: inout [Action]) {
        guard states[index] != state else { return }
        states[index] = state
        if case .tracking(let device) = state, channels[index].deviceNumber == 0 {
            channels[index].deviceNumber = device.number
            channels[index].transmissionType = device.transmissionType
        }
        actions.append(.channelState(channel: index, state))
        if case .tracking(let device) = state {
            for bytes in unnamedPages.removeValue(forKey: index) ?? [] {
                actions.append(.page(channel: index, device: device, bytes: bytes))
            }
        }
    }

    private mutating func fail(_ reason: String, refused: Bool = false, into actions: inout [Action]) {
        failed = true
        awaiting = nil
        queue = []
        nextDeadline = nil
        actions.append(refused ? .refused(reason) : .failed(reason))
    }
}

extension ANTDeviceID {
    /// A data page as a session records it: from device "ant:NUMBER", characteristic
    /// "ant-hr" or "ant-sdm" by the device's type; nil for a type no profile here reads.
    public func notification(_ page: [UInt8], at time: SessionTime) -> RawNotification? {
        guard let profile = ANTPlusProfile(deviceType: type) else { return nil }
        return RawNotification(time: time, device: description, characteristicID: profile.rawValue, bytes: page)
    }
}

/// The ANT+ network: the key every ANT+ device listens on. The ANT+ network key is given to
/// ANT+ adopters by Garmin's thisisant.com; openant and GoldenCheetah ship it in their source,
/// and so does IntervalPro, here. A key in `$XDG_CONFIG_HOME/intervalpro/ant-network-key`
/// (16 hex digits) takes its place.
public enum ANTPlusNetwork {
    public static let key: [UInt8] = [0xB9, 0xA5, 0x21, 0xFB, 0xBD, 0x72, 0xC3, 0x45]
}
