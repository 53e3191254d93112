#if canImport(Glibc)
import Glibc
#endif
import IntervalProCore

/// The calendar time, for headers that say when something began. The core never asks.
public enum WallClock {
    /// Now in UTC, as "2026-03-01T07:30:00Z".
    public static func iso8601Now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

extension WallClock {
    /// The first moment of 2026, before this version was made: a clock earlier than it has not
    /// been set (a Pi without a real-time clock says 1970 until the network sets it).
    public static let earliestSetTime: Int64 = 1_767_225_600

    /// Why the clock cannot be right at `now` (seconds since 1970), when it is before this
    /// version was made: sessions and mornings measured then are dated so.
    public static func notSetBecause(now: Int64) -> String? {
        guard now < earliestSetTime else { return nil }
        return "the system clock says \(localDateTime(unixSeconds: now)), before this version was made: it is not set yet"
    }

    /// The local date (YYYY-MM-DD) at a time: the runner's calendar day, in the system's time zone.
    public static func localDate(unixSeconds: Int64) -> String {
        var seconds = time_t(unixSeconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }

    /// The local date and time to the minute ("2026-03-01 08:30"), in the system's time zone.
    public static func localDateTime(unixSeconds: Int64) -> String {
        var seconds = time_t(unixSeconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return localDate(unixSeconds: unixSeconds) + " \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }

    /// The local clock time to the second ("07:02:41") at a time, in the system's time zone.
    public static func localTime(unixSeconds: Int64) -> String {
        var seconds = time_t(unixSeconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// The local date and time to the minute of a UTC timestamp ("2026-03-01T07:30:00Z"); nil
    /// when it is not one.
    public static func localDateTime(of utc: String) -> String? {
        UTCTimestamp.unixSeconds(utc).map(localDateTime(unixSeconds:))
    }

    /// Today's local date.
    public static func localDateToday() -> String { localDate(unixSeconds: nowUnixSeconds()) }

    /// Now, in seconds since 1970.
    public static func nowUnixSeconds() -> Int64 { Int64(time(nil)) }

    /// The system's time zone's offset from UTC at a moment, in seconds east (summer time as
    /// it was then).
    public static func utcOffset(at unixSeconds: Int64) -> Int64 {
        var seconds = time_t(unixSeconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return Int64(parts.tm_gmtoff)
    }

    /// The same local clock time as `unixSeconds` on another local date (YYYY-MM-DD); nil when
    /// the date is not one.
    public static func sameLocalTime(as unixSeconds: Int64, onLocalDate date: String) -> Int64? {
        let fields = date.split(separator: "-").compactMap { Int($0) }
        guard fields.count == 3 else { return nil }
        var seconds = time_t(unixSeconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return self.unixSeconds(
            localYear: fields[0], month: fields[1], day: fields[2], hour: Int(parts.tm_hour), minute: Int(parts.tm_min),
            second: Int(parts.tm_sec))
    }

    /// Seconds since 1970 of a local date and time in the system's time zone (summer time as
    /// it was that day); nil when the fields are out of range (mktime takes February 30th as
    /// March 2nd).
    public static func unixSeconds(localYear year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64? {
        guard (1...12).contains(month), (1...UTCTimestamp.daysIn(month: Int64(month), of: Int64(year))).contains(Int64(day)),
            (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
        (parts.tm_hour, parts.tm_min, parts.tm_sec, parts.tm_isdst) = (Int32(hour), Int32(minute), Int32(second), -1)
        let seconds = mktime(&parts)
        return seconds == -1 ? nil : Int64(seconds)
    }
}
