import IntervalProCore
import IntervalProIO

/// When a recording began, from its header's `started_at`. RFC 3339 names the zone; a time
/// without one (Python's `datetime.now().isoformat()`) is the writer's clock, read as this
/// machine's local time: it was read as UTC, and a Berlin run of 23:50 was filed at 00:50 the
/// next day, in silence. `history import` says when it reads one so.
struct RecordingStart {
    /// Microseconds since 1970.
    var microseconds: Int64
    var namedNoZone: Bool
    /// The offset from UTC (seconds east) of the clock the time is written in: the one it
    /// names ("+09:00"), or this machine's zone's for a time without one; nil for a time in UTC
    /// ("Z", "+00:00"), which says nothing of the runner's clock. A morning measured abroad is filed at
    /// its own clock time (`ReadinessRun.Outcome.localEnd`).
    var utcOffset: Int64?

    /// As the store keeps it: UTC to the second ("2026-03-01T07:30:00Z").
    var utcText: String {
        UTCTimestamp.text(unixSeconds: Self.seconds(microseconds))
    }

    /// Whole seconds since 1970 of `microseconds`, rounded down.
    static func seconds(_ microseconds: Int64) -> Int64 {
        microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
    }

    /// Nil when `written` is no time.
    init?(_ written: String) {
        guard let asUTC = ISO8601.microseconds(written) else { return nil }
        (microseconds, namedNoZone) = (asUTC, ISO8601.namesNoZone(written))
        if namedNoZone {
            let fraction = ((asUTC % 1_000_000) + 1_000_000) % 1_000_000
            let fields = UTCTimestamp.text(unixSeconds: (asUTC - fraction) / 1_000_000)
            func number(_ from: Int, _ length: Int) -> Int { Int(fields.dropFirst(from).prefix(length)) ?? 0 }
            if let local = WallClock.unixSeconds(
                localYear: number(0, 4), month: number(5, 2), day: number(8, 2), hour: number(11, 2), minute: number(14, 2),
                second: number(17, 2))
            {
                microseconds = local * 1_000_000 + fraction
            }
        }
        // The written clock read as if it were UTC, less the moment it names. An offset of
        // zero says no more than "Z" does: RFC 3339's "-00:00" is an offset not known, and
        // "+00:00" is what a program writes for UTC (Python's isoformat of an aware time).
        if let last = written.utf8.last, last != UInt8(ascii: "Z"), last != UInt8(ascii: "z"),
            let clock = ISO8601.microseconds(String(written.prefix(19))),
            case let offset = Self.seconds(clock) - Self.seconds(microseconds), offset != 0
        {
            utcOffset = offset
        }
    }
}
