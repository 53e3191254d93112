/// An ANT serial message's id (the ANT Message Protocol and Usage document, section 9): one
/// value per message this project sends or reads.
public struct ANTMessageID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A channel's response to a command, or an event on its radio (`ANTChannelEvent`).
    public static let channelEvent = ANTMessageID(rawValue: 0x40)
    public static let assignChannel = ANTMessageID(rawValue: 0x42)
    public static let channelPeriod = ANTMessageID(rawValue: 0x43)
    public static let searchTimeout = ANTMessageID(rawValue: 0x44)
    public static let radioFrequency = ANTMessageID(rawValue: 0x45)
    public static let networkKey = ANTMessageID(rawValue: 0x46)
    public static let resetSystem = ANTMessageID(rawValue: 0x4A)
    public static let openChannel = ANTMessageID(rawValue: 0x4B)
    public static let closeChannel = ANTMessageID(rawValue: 0x4C)
    public static let request = ANTMessageID(rawValue: 0x4D)
    public static let broadcastData = ANTMessageID(rawValue: 0x4E)
    public static let acknowledgedData = ANTMessageID(rawValue: 0x4F)
    public static let channelID = ANTMessageID(rawValue: 0x51)
    public static let capabilities = ANTMessageID(rawValue: 0x54)
    /// Continuous scanning: channel 0 hears every device on its frequency, sender named in each message.
    public static let openRxScanMode = ANTMessageID(rawValue: 0x5B)
    /// Library configuration: 0x80 adds the sender's channel id to every data message.
    public static let libConfig = ANTMessageID(rawValue: 0x6E)
    /// Sent by the stick once it has reset.
    public static let startup = ANTMessageID(rawValue: 0x6F)
    public static let serialError = ANTMessageID(rawValue: 0xAE)

    public var description: String {
        switch self {
        case .channelEvent: "channel event"
        case .assignChannel: "assign channel"
        case .channelPeriod: "channel period"
        case .searchTimeout: "search timeout"
        case .radioFrequency: "radio frequency"
        case .networkKey: "network key"
        case .resetSystem: "reset system"
        case .openChannel: "open channel"
        case .closeChannel: "close channel"
        case .request: "request"
        case .broadcastData: "broadcast data"
        case .acknowledgedData: "acknowledged data"
        case .channelID: "channel id"
        case .capabilities: "capabilities"
        case .openRxScanMode: "open rx scan mode"
        case .libConfig: "lib config"
        case .startup: "startup"
        case .serialError: "serial error"
        default: "message 0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}

/// One ANT serial message: `A4 length id payload… checksum`, the checksum the XOR of every byte
/// before it.
public struct ANTMessage: Equatable, Sendable {
    public static let sync: UInt8 = 0xA4
    /// The longest payload this project reads: a data message with its extended channel id
    /// (channel, 8 bytes, flag, 4 bytes) and a margin for the flags newer sticks add.
    public static let largestPayload = 32

    public var id: ANTMessageID
    public var payload: [UInt8]

    public init(_ id: ANTMessageID, _ payload: [UInt8]) {
        self.id = id
        self.payload = payload
    }

    /// The message as the stick reads it.
    public var framed: [UInt8] {
        var bytes = [Self.sync, UInt8(payload.count), id.rawValue] + payload
        bytes.append(bytes.reduce(0, ^))
        return bytes
    }
}

/// Splits the bytes read from a stick into messages. A byte that cannot begin a message, or a
/// message whose checksum does not match, is skipped and counted: the next sync byte starts
/// again, so a stick that was mid-message when it was opened is read from its next message.
public struct ANTDeframer: Sendable {
    private var buffer: [UInt8] = []
    /// Bytes skipped so far (noise, cut or damaged messages).
    public private(set) var skippedBytes = 0

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) -> [ANTMessage] {
        buffer.append(contentsOf: bytes)
        var messages: [ANTMessage] = []
        var start = 0
        while start < buffer.count {
            guard buffer[start] == ANTMessage.sync else {
                start += 1
                skippedBytes += 1
                continue
            }
            guard start + 1 < buffer.count else { break }
            let length = Int(buffer[start + 1])
            guard length <= ANTMessage.largestPayload else {
                start += 1
                skippedBytes += 1
                continue
            }
            let end = start + 3 + length  // the checksum's index
            guard end < buffer.count else { break }
            let checksum = buffer[start..<end].reduce(0, ^)
            guard checksum == buffer[end] else {
                start += 1
                skippedBytes += 1
                continue
            }
            messages.append(ANTMessage(ANTMessageID(rawValue: buffer[start + 2]), Array(buffer[(start + 3)..<end])))
            start = end + 1
        }
        buffer.removeFirst(start)
        return messages
    }
}
