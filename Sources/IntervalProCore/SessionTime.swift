/// A point in session time, or a span of it, in whole microseconds.
///
/// Integer time keeps scoring exact: splitting an interval at a tick, a pause or a step
/// boundary never changes a sum, so a replay gives the same figures however it is driven.
public struct SessionTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    public static let zero = SessionTime(microseconds: 0)

    public static func seconds(_ seconds: Double) -> SessionTime {
        SessionTime(microseconds: Int64((seconds * 1_000_000).rounded()))
    }

    public static func seconds(_ seconds: Int) -> SessionTime {
        SessionTime(microseconds: Int64(seconds) * 1_000_000)
    }

    public var seconds: Double { Double(microseconds) / 1_000_000 }

    public static func < (lhs: SessionTime, rhs: SessionTime) -> Bool { lhs.microseconds < rhs.microseconds }
    public static func + (lhs: SessionTime, rhs: SessionTime) -> SessionTime {
        SessionTime(microseconds: lhs.microseconds + rhs.microseconds)
    }
    public static func - (lhs: SessionTime, rhs: SessionTime) -> SessionTime {
        SessionTime(microseconds: lhs.microseconds - rhs.microseconds)
    }
    public static func += (lhs: inout SessionTime, rhs: SessionTime) { lhs = lhs + rhs }

    public var description: String { formatClock(seconds) }
}

/// "m:ss" below an hour, "h:mm:ss" above; fractions of a second are dropped.
public func formatClock(_ seconds: Double) -> String {
    let total = Int(max(0, seconds))
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
    let ss = s < 10 ? "0\(s)" : "\(s)"
    if h > 0 { return "\(h):\(m < 10 ? "0" : "")\(m):\(ss)" }
    return "\(m):\(ss)"
}
