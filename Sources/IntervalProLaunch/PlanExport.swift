public import IntervalProCore
import IntervalProFormats
import Logging

/// The files a plan is written as: a FIT workout for a watch, or plan-format JSON.
public enum PlanExport: String, Sendable, CaseIterable {
    /// A FIT workout with cadence targets and repeats, for Garmin Connect or a watch's NewFiles folder.
    case fit
    /// The plan format (useful for a workout read from another format).
    case json

    /// The file; a FIT workout says what of the plan's texts it holds cut, and which zones rounded.
    public func encode(_ plan: Plan, createdUnixSeconds: Int64) -> [UInt8] {
        switch self {
        case .fit:
            for text in Set(FITWorkout.textsCut(plan)).sorted() {
                logger.warning("a FIT workout holds 200 bytes of a text: \"\(String(text.prefix(40)).printable)…\" is cut there")
            }
            let rounded = FITWorkout.zonesRounded(plan)
            if !rounded.isEmpty {
                logger.warning("a FIT workout's cadence targets are whole steps/min: zone \(rounded.joined(separator: ", zone "))")
            }
            return FITWorkout.encode(plan, createdUnixSeconds: createdUnixSeconds)
        case .json: return Array((PlanWriter.json(plan).serialized(pretty: true) + "\n").utf8)
        }
    }
}
