/// A data page of an ANT+ heart-rate monitor (ANT+ Device Profile: Heart Rate, device type
/// 120). Every page ends with the last beat's time (bytes 4-5, 1/1024 s, rolling over at 64 s),
/// the beat count (byte 6, rolling over at 256) and the computed heart rate (byte 7); byte 0 is
/// the page number, its top bit toggling every fourth message. Bytes 1-3 depend on the page.
public struct ANTPlusHeartRatePage: Equatable, Sendable {
    public static let deviceType: UInt8 = 120

    public var page: UInt8
    /// Byte 0's top bit, which a current strap toggles every fourth message and a legacy one
    /// never does: bytes 0-3 hold a page only once it has been seen to change.
    public var toggle: Bool
    public var beatTime: UInt16
    public var beatCount: UInt8
    public var heartRate: UInt8
    public var detail: Detail

    public enum Detail: Equatable, Sendable {
        /// Page 0 (default data) or a page this decoder does not know.
        case none
        /// Page 1: cumulative operating time, 2 s units.
        case operatingTime(seconds: Int)
        /// Page 2: manufacturer id and the serial number's upper 16 bits.
        case manufacturer(id: UInt8, serialUpper: UInt16)
        /// Page 3: hardware and software versions, model number.
        case product(hardware: UInt8, software: UInt8, model: UInt8)
        /// Page 4: the beat time before the last, so the last RR interval is known even when
        /// the message that carried it was missed.
        case previousBeat(time: UInt16)
    }

    public enum ParseError: Error, Equatable, Sendable {
        case wrongLength(Int)
    }

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> ANTPlusHeartRatePage {
        guard bytes.count == 8 else { throw .wrongLength(bytes.count) }
        let page = bytes[0] & 0x7F
        let detail: Detail =
            switch page {
            case 1: .operatingTime(seconds: 2 * (Int(bytes[1]) | Int(bytes[2]) << 8 | Int(bytes[3]) << 16))
            case 2: .manufacturer(id: bytes[1], serialUpper: UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
            case 3: .product(hardware: bytes[1], software: bytes[2], model: bytes[3])
            case 4: .previousBeat(time: UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
            default: .none
            }
        return ANTPlusHeartRatePage(
            page: page, toggle: bytes[0] & 0x80 != 0, beatTime: UInt16(bytes[4]) | UInt16(bytes[5]) << 8, beatCount: bytes[6], heartRate: bytes[7],
            detail: detail)
    }
}

/// RR intervals from a heart-rate monitor's pages, as a BLE strap sends them (1/1024 s): a new
/// beat (the count moved on) after the one before gives the time between their beat times; a
/// page 4 gives it from the previous beat time it carries, even when a message was missed.
/// When beats were missed without a page 4 to bridge them, no interval is made up.
///
/// A page 4 is believed only once the strap has been seen to toggle byte 0's top bit, as the
/// ANT+ heart-rate profile asks of a receiver: a legacy strap never toggles it and fills bytes
/// 0-3 as it likes, and one whose byte 0 read as page 4 lost nearly every interval to the
/// "previous beat time" its bytes 2-3 were taken for (2 beats in 70 s for some 98).
public struct ANTPlusBeatTracker: Sendable {
    private var last: (count: UInt8, time: UInt16)?
    /// The toggle bit as first seen, and whether it has changed since.
    private var firstToggle: Bool?
    private var toggles = false
    /// Intervals outside 0.2-3 s (300-20 beats a minute) are no beat-to-beat interval.
    static let plausible: ClosedRange<UInt16> = 205...3072
    /// Whether a beat went by without its interval since the last interval given.
    private var lostSinceLastInterval = false
    /// Whether the interval `add` gave last does not follow the one given before it: beats
    /// between them were missed (pages lost, or bridged by page 4 only for the last beat), or
    /// an interval no heart beats was left out. No successive difference is taken across it.
    public private(set) var beatsLostBefore = false

    public init() {}

    /// The new RR interval this page brings, if any.
    public mutating func add(_ page: ANTPlusHeartRatePage) -> [UInt16] {
        defer { last = (page.beatCount, page.beatTime) }
        if let firstToggle {
            if page.toggle != firstToggle { toggles = true }
        } else {
            firstToggle = page.toggle
        }
        guard let last, page.beatCount != last.count else { return [] }
        let interval: UInt16
        if page.beatCount != last.count &+ 1 { lostSinceLastInterval = true }
        if toggles, case .previousBeat(let previous) = page.detail {
            interval = page.beatTime &- previous
        } else if page.beatCount == last.count &+ 1 {
            interval = page.beatTime &- last.time
        } else {
            return []
        }
        guard Self.plausible.contains(interval) else {
            lostSinceLastInterval = true
            return []
        }
        beatsLostBefore = lostSinceLastInterval
        lostSinceLastInterval = false
        return [interval]
    }
}
