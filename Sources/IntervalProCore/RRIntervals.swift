/// The RR intervals of one Heart Rate Measurement, in the wire unit of 1/1024 s, oldest first.
///
/// A view over the little-endian bytes they arrived in: decoding a notification keeps a
/// reference to its value instead of copying the intervals into an array of their own, so the
/// parser allocates nothing per notification (0 to 9 intervals at the default ATT MTU, up to
/// 255 at a larger one).
public struct RRIntervals: RandomAccessCollection, Equatable, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The intervals (1/1024 s) a heart beats at: 30 to 240 bpm. A longer one is beats the
    /// strap missed (one without contact sends an interval of seconds; 2,000 ms is the upper
    /// bound of hrv-analysis's `remove_outliers`, Aura Healthcare, `high_rri=2000`), a
    /// shorter one noise: no beat.
    public static let heartbeat: ClosedRange<UInt16> = 256...2048

    private let bytes: [UInt8]
    private let offset: Int
    public let count: Int

    /// The `count` intervals that start at `offset` in `bytes`.
    init(bytes: [UInt8], offset: Int, count: Int) {
        precondition(offset >= 0 && offset + 2 * count <= bytes.count, "RR intervals past the value's end")
        self.bytes = bytes
        self.offset = offset
        self.count = count
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
        let at = offset + 2 * position
        return UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
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
