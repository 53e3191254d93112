/// The RR intervals of one Heart Rate Measurement, in the wire unit of 1/1024 s, oldest first.
///
/// Up to 12 intervals are held in the value itself, four to a word: a notification at the
/// default ATT MTU carries 0 to 9, so decoding one neither allocates nor counts a reference
/// (the retain and release of a shared buffer were most of a parse). More (up to 255 at a
/// larger MTU) are held in an array.
public struct RRIntervals: RandomAccessCollection, Equatable, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The intervals (1/1024 s) a heart beats at: 30 to 240 bpm. A longer one is beats the
    /// strap missed (one without contact sends an interval of seconds; 2,000 ms is the upper
    /// bound of hrv-analysis's `remove_outliers`, Aura Healthcare, `high_rri=2000`), a
    /// shorter one noise: no beat.
    public static let heartbeat: ClosedRange<UInt16> = 256...2048

    static let inlineCapacity = 12

    private var inline: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// All the intervals, when there are more than `inlineCapacity`.
    private var spilled: [UInt16]?
    public let count: Int

    /// The `count` little-endian intervals that start at `offset` in `bytes`.
    @inline(__always) init(bytes: [UInt8], offset: Int, count: Int) {
        precondition(offset >= 0 && offset + 2 * count <= bytes.count, "RR intervals past the value's end")
        self.count = count
        guard count <= Self.inlineCapacity else {
            spilled = (0..<count).map { UInt16(bytes[offset + 2 * $0]) | UInt16(bytes[offset + 2 * $0 + 1]) << 8 }
            return
        }
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        for position in 0..<count {
            let interval = UInt64(bytes[offset + 2 * position]) | UInt64(bytes[offset + 2 * position + 1]) << 8
            let shifted = interval << UInt64(16 * (position & 3))
            switch position >> 2 {
            case 0: words.0 |= shifted
            case 1: words.1 |= shifted
            default: words.2 |= shifted
            }
        }
        inline = words
    }

    public init(_ intervals: some Sequence<UInt16>) {
        var bytes: [UInt8] = []
        for interval in intervals { bytes += [UInt8(interval & 0xFF), UInt8(interval >> 8)] }
        self.init(bytes: bytes, offset: 0, count: bytes.count / 2)
    }

    /// No intervals (the RR flag not set).
    public static var none: RRIntervals { RRIntervals(bytes: [], offset: 0, count: 0) }

    public init(arrayLiteral intervals: UInt16...) {
        self.init(intervals)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt16 {
        precondition(position >= 0 && position < count, "RR interval index out of range")
        if let spilled { return spilled[position] }
        let word =
            switch position >> 2 {
            case 0: inline.0
            case 1: inline.1
            default: inline.2
            }
        return UInt16(truncatingIfNeeded: word >> UInt64(16 * (position & 3)))
    }

    /// Each interval in milliseconds (1024 wire units are one second).
    public var milliseconds: [Double] { map { Double($0) * 1000 / 1024 } }

    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool {
        lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for interval in self { hasher.combine(interval) }
    }
}
