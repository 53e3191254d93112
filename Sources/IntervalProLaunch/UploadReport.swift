public import IntervalProCore
public import IntervalProNetwork
import IntervalProServices
import IntervalProStorage

extension Uploader.Result {
    /// What became of it, in the word the command line's JSON and the page share:
    /// uploaded, already-there, refused-duplicate, processing, rejected or queued.
    public var outcome: String {
        switch kind {
        case .uploaded: "uploaded"
        case .alreadyThere: "already-there"
        case .refusedDuplicate: "refused-duplicate"
        case .stillProcessing: "processing"
        case .waitingForAccount: "queued"
        case .failed: record.status == .rejected ? "rejected" : "queued"
        }
    }
}

/// The results of uploads and wellness writes, as `upload`, `run --upload` and `readiness
/// --upload` report them: a line for each, the JSON document, and the most telling failure.
public struct UploadReport: Sendable {
    public enum Line: Sendable, Equatable {
        /// Sent (or there already).
        case done(String)
        /// Not sent, and nothing is wrong: sent before, still processing.
        case notice(String)
        case error(String)

        public var text: String {
            switch self {
            case .done(let text), .notice(let text), .error(let text): text
            }
        }
    }

    public var lines: [Line] = []
    public var json: JSONValue
    /// The failure the exit status tells: credentials first (nothing works until they are
    /// fixed), then a refused file, then "try later".
    public var worst: LaunchError.Kind?

    public init(_ results: [Uploader.Result], wellness: [WellnessWriter.Result] = []) {
        var uploads: [JSONValue] = []
        var failures: [LaunchError.Kind] = []
        for result in results {
            let record = result.record
            let subject = "session \(record.sessionID) → \(record.service)"
            switch result.kind {
            case .uploaded:
                lines.append(.done("\(subject): \(record.activityURL ?? record.activityID ?? "done")"))
            case .alreadyThere:
                lines.append(.done("\(subject): already there, \(record.activityURL ?? "")"))
            case .refusedDuplicate:
                let there = record.activityURL ?? record.activityID ?? ""
                lines.append(.notice("\(subject): already uploaded (\(there)); --force uploads it again"))
                failures.append(.invalidData)
            case .stillProcessing:
                lines.append(
                    .notice("\(subject): the service is still processing it; `intervalpro upload --pending` checks again"))
                failures.append(.unavailable)
            case .waitingForAccount:
                lines.append(
                    .notice("\(subject): stays queued: no \(record.service) account to send it with (`intervalpro account add \(record.service)` adds one)"))
            case .failed(let failure):
                let queued = record.status == .rejected ? "" : " (queued: `intervalpro upload --pending` retries)"
                lines.append(.error("\(subject): \(failure.message)\(queued)"))
                failures.append(LaunchError(failure).kind)
            }
            uploads.append(
                .object([
                    ("session", .number(Double(record.sessionID))), ("service", .string(record.service)),
                    ("outcome", .string(result.outcome)), ("status", .string(record.status.rawValue)),
                    ("activity_id", record.activityID.map(JSONValue.string) ?? .null),
                    ("url", record.activityURL.map(JSONValue.string) ?? .null),
                    ("error", record.lastError.map(JSONValue.string) ?? .null),
                ]))
        }
        var writes: [JSONValue] = []
        for result in wellness {
            let record = result.record
            let subject = "readiness \(record.readinessID) (\(result.localDate)) → \(record.service) wellness"
            if result.waitingForAccount {
                lines.append(.notice("\(subject): stays queued: no intervals.icu account to write it with"))
            } else if let failure = result.failure {
                let queued = record.status == .pending ? " (queued: `intervalpro upload --pending` retries)" : ""
                lines.append(.error("\(subject): \(failure.message)\(queued)"))
                failures.append(LaunchError(failure).kind)
            } else {
                lines.append(.done("\(subject): written"))
            }
            writes.append(
                .object([
                    ("readiness", .int(Int(record.readinessID))), ("date", .string(result.localDate)),
                    ("service", .string(record.service)), ("status", .string(record.status.rawValue)),
                    ("error", record.lastError.map(JSONValue.string) ?? .null),
                ]))
        }
        // Both lists always, empty or not: `jq '.wellness[]'` in a cron job failed on every run
        // without a readiness write.
        json = .object([("uploads", .array(uploads)), ("wellness", .array(writes))])
        worst = failures.max { Self.rank($0) < Self.rank($1) }
    }

    private static func rank(_ kind: LaunchError.Kind) -> Int {
        switch kind {
        case .refused: 3
        case .invalidData, .missingInput: 2
        case .unavailable: 1
        default: 0
        }
    }
}
