import IntervalProCore

/// When to try a call again: network errors and 5xx after a growing pause, 429 after what
/// the service says (Retry-After, or Strava's 15-minute and daily windows), and never when
/// the wait would be longer than a runner should sit through.
public struct RetryPolicy: Sendable, Equatable {
    public var maxAttempts = 4
    /// The pause after the first failure; it doubles after each.
    public var firstPause = 1.0
    /// The longest pause worth waiting for; past it, the call gives up (the upload stays queued).
    public var longestWait = 60.0

    public init() {}

    public enum Outcome: Sendable {
        case answered(HTTPResponse)
        case transportFailed
    }

    public enum Decision: Sendable, Equatable {
        case retry(after: Double)
        case giveUp
        /// A rate limit that lifts in `seconds`: too long to wait now.
        case rateLimited(liftsIn: Double)
    }

    /// - Parameters:
    ///   - attempts: how many attempts were made, this one included.
    ///   - now: seconds since 1970 (UTC), for Strava's windows.
    public func decide(after outcome: Outcome, attempts: Int, now: Double) -> Decision {
        let pause: Double
        switch outcome {
        case .transportFailed:
            pause = firstPause * Double(1 << min(attempts - 1, 10))
        case .answered(let response) where response.status == 429:
            let wait = Self.rateLimitWait(response, now: now)
            if wait > longestWait { return .rateLimited(liftsIn: wait) }
            pause = wait
        case .answered(let response) where response.status >= 500:
            pause = firstPause * Double(1 << min(attempts - 1, 10))
        case .answered:
            return .giveUp
        }
        return attempts < maxAttempts ? .retry(after: pause) : .giveUp
    }

    /// Seconds until a 429 lifts: Retry-After when given, else the end of the Strava window
    /// whose usage reached its limit (15 minutes, or the UTC day), else a minute.
    static func rateLimitWait(_ response: HTTPResponse, now: Double) -> Double {
        if let value = response.header("retry-after") {
            if let seconds = Double(value.trimmingWhitespace), seconds >= 0 { return seconds }
            // Or a date, as HTTP allows (RFC 9110 §10.2.3): it was waited as a minute.
            if let at = httpDate(value) { return max(0, Double(at) - now) }
        }
        var wait: Double?
        for prefix in ["x-ratelimit", "x-readratelimit"] {
            guard let limits = numbers(response.header("\(prefix)-limit")),
                let usage = numbers(response.header("\(prefix)-usage")), limits.count == 2, usage.count == 2
            else { continue }
            if usage[1] >= limits[1] {
                wait = max(wait ?? 0, 86_400 - now.truncatingRemainder(dividingBy: 86_400))
            } else if usage[0] >= limits[0] {
                wait = max(wait ?? 0, 900 - now.truncatingRemainder(dividingBy: 900))
            }
        }
        return wait ?? 60
    }

    /// Unix seconds of an HTTP date in its preferred form, "Sun, 06 Nov 1994 08:49:37 GMT".
    static func httpDate(_ text: String) -> Int64? {
        let parts = text.trimmingWhitespace.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", parts[1].count == 2, parts[3].count == 4, parts[4].count == 8,
            let month = months.firstIndex(of: String(parts[2]))
        else { return nil }
        let monthText = month + 1 < 10 ? "0\(month + 1)" : "\(month + 1)"
        return UTCTimestamp.unixSeconds("\(parts[3])-\(monthText)-\(parts[1])T\(parts[4])Z")
    }

    private static func numbers(_ header: String?) -> [Double]? {
        header?.split(separator: ",").map { Double($0.trimmingWhitespace) ?? 0 }
    }
}
