public import IntervalProCore

/// Maps session time onto audio frames: frame = origin + t × rate, rounded to the nearest
/// frame. Integer arithmetic, so a step boundary lands on the same frame however the
/// session was driven.
public struct AudioClock: Sendable, Equatable {
    public let sampleRate: Int
    /// The frame session time zero falls on.
    public var origin: Int64

    public init(sampleRate: Int, origin: Int64 = 0) {
        precondition(sampleRate > 0)
        self.sampleRate = sampleRate
        self.origin = origin
    }

    public func frame(of time: SessionTime) -> Int64 {
        let scaled = time.microseconds * Int64(sampleRate)
        // Rounds half away from zero; session times are never negative in practice.
        let rounded = scaled >= 0 ? (scaled + 500_000) / 1_000_000 : (scaled - 500_000) / 1_000_000
        return origin + rounded
    }

    public func time(of frame: Int64) -> SessionTime {
        SessionTime(microseconds: (frame - origin) * 1_000_000 / Int64(sampleRate))
    }
}
