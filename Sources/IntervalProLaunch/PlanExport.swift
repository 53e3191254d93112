public import IntervalProCore
import IntervalProFormats

/// The files a plan is written as: a FIT workout for a watch, or plan-format JSON.
public enum PlanExport: String, Sendable, CaseIterable {
    /// A FIT workout with cadence targets and repeats, for Garmin Connect or a watch's NewFiles folder.
    case fit
    /// The plan format (useful for a workout read from another format).
    case json

    public func encode(_ plan: Plan, createdUnixSeconds: Int64) -> [UInt8] {
        switch self {
        case .fit: FITWorkout.encode(plan, createdUnixSeconds: createdUnixSeconds)
        case .json: Array((PlanWriter.json(plan).serialized(pretty: true) + "\n").utf8)
        }
    }
}
