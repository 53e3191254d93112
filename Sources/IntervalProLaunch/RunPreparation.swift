public import IntervalProCore
public import IntervalProNetwork
public import IntervalProServices
import IntervalProIO
import IntervalProStorage

/// What `run` does around its session: the plan read from a file or from the intervals.icu
/// calendar, the accounts checked before anything starts (a missing account stops `run`
/// before the session, not after), today's readiness before a hard session, and the upload of
/// the saved session at the end.
public struct RunPreparation: Sendable {
    public var plan: Plan
    /// The plan as the history keeps it (see `loadPlanKeepingText`).
    public var planText: String
    /// The services the saved session goes to; empty: no upload.
    public var uploadTo: [Service]
    let services: ServiceContext?

    /// `planArgument` is a plan file, an example's name, `today` or icu:EVENT_ID. `upload`:
    /// where the saved session goes; nil: no upload.
    public static func prepare(planArgument: String, upload: UploadDestination?, verbose: Bool) async throws
        -> RunPreparation
    {
        let planned = PlannedRuns.Reference(planArgument)
        // Said before an account is asked for (77 said there was none, of a typo).
        if case .event(let id) = planned, !id.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw LaunchError(
                "'\(planArgument)' names no intervals.icu event: an event is icu: and its number (icu:12345, as `intervalpro today` lists them)",
                kind: .usage)
        }
        let services = upload == nil && planned == nil ? nil : try ServiceContext.standard(verbose: verbose)
        let uploadTo = try upload.map { try Uploader.destinations($0, accounts: services!.accounts) } ?? []
        let (plan, text) =
            if let planned, let services {
                try await PlannedRuns.plan(planned, context: services)
            } else {
                try loadPlanKeepingText(planArgument)
            }
        return RunPreparation(plan: plan, planText: text, uploadTo: uploadTo, services: services)
    }

    /// Today's readiness, to say before a session with work steps (the kind it matters for),
    /// when there is advice for today (`ReadinessToday.adviceToday`).
    public func readinessNotice(store: StoreLocation) -> String? {
        guard plan.timeline().contains(where: { $0.kind == .work }),
            let readiness = ReadinessToday.read(store, today: WallClock.localDateToday()), readiness.adviceToday != nil
        else { return nil }
        return readiness.line
    }

    /// Uploads the finished session to `uploadTo`; one that fails stays queued for `upload --pending`.
    public func upload(_ outcome: SessionOutcome, store: StoreLocation) async throws -> [Uploader.Result] {
        guard !uploadTo.isEmpty, let services else { return [] }
        guard let id = outcome.savedSessionID else {
            guard outcome.measured else {
                throw LaunchError("no sensor was found, so the metronome ran alone: no run to upload", kind: .unavailable)
            }
            throw LaunchError("the session was not saved, so it was not uploaded", kind: .io)
        }
        // The session is saved and the upload queued before it is sent: Ctrl-C now stops the
        // upload (as in `upload`), where the session's handler took it and nothing read it.
        InterruptSignal.restoreDefaults()
        let uploader = Uploader(store: try store.open(), context: services)
        return try await asyncStoreCall { () async throws(StoreError) in
            try await uploader.upload(session: id, to: uploadTo, force: false)
        }
    }
}
