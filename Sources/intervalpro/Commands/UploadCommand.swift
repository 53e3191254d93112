import ArgumentParser
import IntervalProCore
import IntervalProHistory
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage

struct UploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload a saved session (as FIT) to intervals.icu, Strava or both.",
        discussion: """
            Each session is uploaded once per service: a second upload is refused unless \
            --force. An upload that fails stays queued; `intervalpro upload --pending` retries \
            the queue. Exit codes: 69 a service is unreachable (queued), 65 a service refused \
            the file, 77 a key or authorization was refused (queued).
            """
    )

    /// The services named by --to.
    enum Destination: String, ExpressibleByArgument, CaseIterable {
        case intervalsICU = "intervals.icu"
        case strava
        case all

        /// The one service named; nil for all.
        var service: Service? {
            switch self {
            case .intervalsICU: .intervalsICU
            case .strava: .strava
            case .all: nil
            }
        }
    }

    @Argument(help: "The session id (see `intervalpro history`), or `last`.")
    var session: SessionReference?

    @Option(help: "intervals.icu, strava, or all (every account added).")
    var to: Destination?

    @Flag(help: "Upload again a session the service already has.")
    var force = false

    @Flag(help: "Retry every queued upload instead.")
    var pending = false

    @Flag(help: "Print the results as JSON.")
    var json = false

    @OptionGroup var store: StoreOptions

    @OptionGroup var options: ServiceOptions

    func validate() throws {
        if pending {
            if session != nil || to != nil || force { throw ValidationError("--pending takes no session, --to or --force") }
        } else {
            guard session != nil else { throw ValidationError("name a session (an id or `last`), or use --pending") }
            guard to != nil else { throw ValidationError("say where: --to intervals.icu, strava or all") }
        }
    }

    func run() async throws {
        try await reportingFailures {
            let context = try options.context()
            let sessionStore = try store.open()
            let uploader = Uploader(store: sessionStore, context: context)
            let results: [Uploader.Result]
            var wellness: [WellnessWriter.Result] = []
            if pending {
                results = try await asyncStoreCall { () async throws(StoreError) in try await uploader.uploadPending() }
                // Readiness measurements queued for intervals.icu's wellness go with them.
                let writer = WellnessWriter(store: sessionStore, context: context)
                wellness = try await asyncStoreCall { () async throws(StoreError) in try await writer.sendPending() }
                if results.isEmpty, wellness.isEmpty, !json { print("No uploads queued.") }
            } else {
                let id = try session!.resolve(in: sessionStore, loading: []).listing.id
                let services = try Uploader.destinations(to!.service, accounts: context.accounts)
                results = try await asyncStoreCall { () async throws(StoreError) in
                    try await uploader.upload(session: id, to: services, force: force)
                }
            }
            try Self.report(results, wellness: wellness, json: json)
        }
    }

    /// One line per upload on stdout (or JSON), the reason for each failure on stderr; the
    /// exit status is the most telling failure's.
    static func report(
        _ results: [Uploader.Result], wellness: [WellnessWriter.Result] = [], json: Bool, linesToStandardError: Bool = false
    ) throws {
        func print(_ line: String) {
            if linesToStandardError { Terminal.writeStandardError("intervalpro: \(line)\n") } else { Swift.print(line) }
        }
        var worst: LaunchError?
        var lines: [JSONValue] = []
        for result in results {
            let record = result.record
            let subject = "session \(record.sessionID) → \(record.service)"
            var outcome: String
            switch result.kind {
            case .uploaded:
                outcome = "uploaded"
                if !json { print("\(subject): \(record.activityURL ?? record.activityID ?? "done")") }
            case .alreadyThere:
                outcome = "already-there"
                if !json { print("\(subject): already there, \(record.activityURL ?? "")") }
            case .refusedDuplicate:
                outcome = "refused-duplicate"
                let failure = LaunchError(
                    "\(subject): already uploaded (\(record.activityURL ?? record.activityID ?? "")); --force uploads it again",
                    kind: .invalidData)
                Terminal.writeStandardError("intervalpro: \(failure.message)\n")
                worst = worse(worst, failure)
            case .stillProcessing:
                outcome = "processing"
                let failure = LaunchError(
                    "\(subject): the service is still processing it; `intervalpro upload --pending` checks again",
                    kind: .unavailable)
                Terminal.writeStandardError("intervalpro: \(failure.message)\n")
                worst = worse(worst, failure)
            case .failed(let serviceFailure):
                outcome = record.status == .rejected ? "rejected" : "queued"
                var failure = LaunchError(serviceFailure)
                failure.message = "\(subject): \(serviceFailure.message)"
                if record.status != .rejected { failure.message += " (queued: `intervalpro upload --pending` retries)" }
                Terminal.writeStandardError("intervalpro: error: \(failure.message)\n")
                worst = worse(worst, failure)
            }
            lines.append(
                .object([
                    ("session", .number(Double(record.sessionID))), ("service", .string(record.service)),
                    ("outcome", .string(outcome)), ("status", .string(record.status.rawValue)),
                    ("activity_id", record.activityID.map(JSONValue.string) ?? .null),
                    ("url", record.activityURL.map(JSONValue.string) ?? .null),
                    ("error", record.lastError.map(JSONValue.string) ?? .null),
                ]))
        }
        var wellnessLines: [JSONValue] = []
        for result in wellness {
            let record = result.record
            let subject = "readiness \(record.readinessID) (\(result.localDate)) → \(record.service) wellness"
            if let serviceFailure = result.failure {
                var failure = LaunchError(serviceFailure)
                failure.message = "\(subject): \(serviceFailure.message)"
                if record.status == .pending { failure.message += " (queued: `intervalpro upload --pending` retries)" }
                Terminal.writeStandardError("intervalpro: error: \(failure.message)\n")
                worst = worse(worst, failure)
            } else if !json {
                print("\(subject): written")
            }
            wellnessLines.append(
                .object([
                    ("readiness", .int(Int(record.readinessID))), ("date", .string(result.localDate)),
                    ("service", .string(record.service)), ("status", .string(record.status.rawValue)),
                    ("error", record.lastError.map(JSONValue.string) ?? .null),
                ]))
        }
        if json {
            var members: [(String, JSONValue)] = [("uploads", .array(lines))]
            if !wellness.isEmpty { members.append(("wellness", .array(wellnessLines))) }
            Swift.print(JSONValue.object(members).serialized(pretty: true))
        }
        if let worst { throw ExitCode(ExitStatus(worst.kind).rawValue) }
    }

    /// Credentials first (nothing works until fixed), then a refused file, then "try later".
    private static func worse(_ a: LaunchError?, _ b: LaunchError) -> LaunchError {
        guard let a else { return b }
        let rank: [LaunchError.Kind: Int] = [.refused: 3, .invalidData: 2, .missingInput: 2, .unavailable: 1]
        return (rank[b.kind] ?? 0) > (rank[a.kind] ?? 0) ? b : a
    }
}
