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

    @Argument(help: .sessionID)
    var session: SessionReference?

    @Option(help: "intervals.icu, strava, or all (every account added).")
    var to: UploadDestination?

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
            let sessionStore = try store.location.openSaved()
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
                let services = try Uploader.destinations(to!, accounts: context.accounts)
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
        let report = UploadReport(results, wellness: wellness)
        for line in report.lines {
            switch line {
            case .done where json: continue
            case .done(let text) where linesToStandardError: Terminal.writeStandardError("intervalpro: \(text)\n")
            case .done(let text): print(text)
            case .notice(let text): Terminal.writeStandardError("intervalpro: \(text)\n")
            case .error(let text): Terminal.writeStandardError("intervalpro: error: \(text)\n")
            }
        }
        if json { print(report.json.serialized(pretty: true)) }
        if let worst = report.worst { throw ExitCode(ExitStatus(worst).rawValue) }
    }
}
