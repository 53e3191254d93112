public import IntervalProHistory
import IntervalProIO

/// The files a saved session is exported as (`export`, and the uploads' FIT).
public enum SessionExport: String, Sendable, CaseIterable {
    /// A FIT activity for Garmin Connect, Strava, intervals.icu: records at 1 Hz, a lap per step.
    case fit
    /// Training Center XML with per-foot RunCadence, as Garmin writes it.
    case tcx
    /// The recording format, replayable with `intervalpro replay FILE --plan PLAN`.
    case jsonl

    public func encode(_ session: StoredSession) throws -> [UInt8] {
        if let undated = session.undatedBecause { throw LaunchError(undated, kind: .invalidData) }
        if self == .fit, let undatable = FITActivity.undatable(session) { throw LaunchError(undatable, kind: .invalidData) }
        return switch self {
        case .fit: FITActivity.encode(session, utcOffset: WallClock.utcOffset(at:))
        case .tcx: Array(TCXActivity.document(session).utf8)
        case .jsonl: Array((session.recordingLines.joined(separator: "\n") + "\n").utf8)
        }
    }
}
