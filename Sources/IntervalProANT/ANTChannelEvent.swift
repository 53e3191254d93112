/// What a channel-event message (0x40: channel, message id, code) says: the answer to a
/// command, or (message id 1) something that happened on the channel's radio.
public enum ANTChannelEvent: Equatable, Sendable {
    /// The stick's answer to the command `to`: 0 is done, anything else refused.
    case response(channel: UInt8, to: ANTMessageID, code: UInt8)
    case radio(channel: UInt8, RadioEvent)

    public struct RadioEvent: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The search found no device in its time: the channel closes after it.
        public static let searchTimeout = RadioEvent(rawValue: 0x01)
        /// A message expected in its slot did not come.
        public static let receiveFailed = RadioEvent(rawValue: 0x02)
        public static let channelClosed = RadioEvent(rawValue: 0x07)
        /// The device was lost (several missed messages): the channel searches again.
        public static let lostGoingToSearch = RadioEvent(rawValue: 0x08)

        public var description: String {
            switch self {
            case .searchTimeout: "search timed out"
            case .receiveFailed: "a message was missed"
            case .channelClosed: "channel closed"
            case .lostGoingToSearch: "device lost, searching again"
            default: "radio event 0x" + String(rawValue, radix: 16)
            }
        }
    }

    public static let responseNoError: UInt8 = 0

    /// Reads a channel-event message's payload; nil when it is too short to be one.
    public init?(_ payload: [UInt8]) {
        guard payload.count >= 3 else { return nil }
        if payload[1] == 1 {
            self = .radio(channel: payload[0], RadioEvent(rawValue: payload[2]))
        } else {
            self = .response(channel: payload[0], to: ANTMessageID(rawValue: payload[1]), code: payload[2])
        }
    }
}
