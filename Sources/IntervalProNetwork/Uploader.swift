import IntervalProCore
import IntervalProHistory
import IntervalProIO
public import IntervalProServices
public import IntervalProStorage

/// Sends saved sessions to intervals.icu and Strava as FIT files, keeping in the store where
/// each stands: queued before the first byte leaves, done with the activity's id and address,
/// or the reason it is still queued. Nothing a runner recorded depends on a service answering.
public struct Uploader: Sendable {
    public let store: SessionStore
    public let context: ServiceContext
    /// Strava's processing is polled this many times at most (about a minute).
    public var pollLimit = 30

    public init(store: SessionStore, context: ServiceContext) {
        self.store = store
        self.context = context
    }

    /// What became of one session's upload to one service.
    public struct Result: Sendable {
        public var record: UploadRecord
        public enum Kind: Sendable, Equatable {
            case uploaded
            /// The service already had it (a Strava duplicate): now recorded as done.
            case alreadyThere
            /// Done earlier; not sent again without --force.
            case refusedDuplicate
            /// Strava is still processing: `upload --pending` asks again.
            case stillProcessing
            /// Queued for a service whose account was removed: kept, not tried, until one is added.
            case waitingForAccount
            case failed(ServiceError)
        }
        public var kind: Kind

        public init(record: UploadRecord, kind: Kind) {
            self.record = record
            self.kind = kind
        }
    }

    /// Queues the session for each service (a row marked pending), so that a failure later,
    /// or the program ending, leaves it to `upload --pending`. An upload Strava is processing
    /// keeps its id, to be asked about again: queued anew, the file was sent a second time.
    public func enqueue(session id: Int64, to services: [Service]) throws(StoreError) {
        for service in services {
            let status = try store.upload(session: id, service: service.rawValue)?.status
            guard status != .done, status != .processing else { continue }
            try store.saveUpload(
                UploadRecord(sessionID: id, service: service.rawValue, status: .pending, updatedAt: WallClock.iso8601Now()))
        }
    }

    /// Queues the session for every service, then sends it to each in turn.
    public func upload(session id: Int64, to services: [Service], force: Bool) async throws(StoreError) -> [Result] {
        try enqueue(session: id, to: services)
        var results: [Result] = []
        for service in services { results.append(try await upload(session: id, to: service, force: force)) }
        return results
    }

    public func upload(session id: Int64, to service: Service, force: Bool) async throws(StoreError) -> Result {
        // Read after the turn: another command may have sent it while this one waited.
        let turn = context.file.uploadsLock()
        defer { withExtendedLifetime(turn) {} }
        return try await send(session: id, to: service, force: force)
    }

    private func send(session id: Int64, to service: Service, force: Bool) async throws(StoreError) -> Result {
        let previous = try store.upload(session: id, service: service.rawValue)
        if let previous, previous.status == .done, !force { return Result(record: previous, kind: .refusedDuplicate) }
        var record =
            previous ?? UploadRecord(sessionID: id, service: service.rawValue, status: .pending, updatedAt: "")
        let resuming = record.status == .processing && !force
        if !resuming {
            record.status = .pending
            record.remoteUploadID = nil
        }
        record.attempts += 1
        record.updatedAt = WallClock.iso8601Now()
        try store.saveUpload(record)
        do {
            let kind: Result.Kind
            switch service {
            case .intervalsICU:
                (record, kind) = try await sendToIntervalsICU(record)
            case .strava:
                (record, kind) = try await sendToStrava(record, resuming: resuming)
            }
            record.lastError = nil
            record.updatedAt = WallClock.iso8601Now()
            try store.saveUpload(record)
            return Result(record: record, kind: kind)
        } catch let failure as ServiceError {
            // What the sending kept on the way (an upload Strava is processing, with its id)
            // stays: a 5xx while asking about it left the row pending without the id, and the
            // file was sent again.
            if let kept = try store.upload(session: id, service: service.rawValue) { record = kept }
            if failure.kind == .rejected { record.status = .rejected }
            record.lastError = failure.message
            record.updatedAt = WallClock.iso8601Now()
            try store.saveUpload(record)
            return Result(record: record, kind: .failed(failure))
        } catch let error as StoreError {
            throw error
        } catch {
            // Only ServiceError and StoreError are thrown above; anything else is kept queued.
            record.lastError = "\(error)"
            try store.saveUpload(record)
            return Result(record: record, kind: .failed(ServiceError(service, .unavailable, "\(error)")))
        }
    }

    /// Everything queued, oldest session first, read in the uploads' turn: two `upload
    /// --pending` at once both sent every queued session.
    public func uploadPending() async throws(StoreError) -> [Result] {
        let turn = context.file.uploadsLock()
        defer { withExtendedLifetime(turn) {} }
        var results: [Result] = []
        for record in try store.pendingUploads() {
            guard let service = Service(rawValue: record.service) else { continue }
            // Tried, each was refused for want of an account (77) at every --pending, for ever.
            guard context.accounts.services.contains(service) else {
                results.append(Result(record: record, kind: .waitingForAccount))
                continue
            }
            results.append(try await send(session: record.sessionID, to: service, force: false))
        }
        return results
    }

    // MARK: - Per service

    private struct Export {
        var fit: [UInt8]
        var filename: String
        var name: String
        var externalID: String
    }

    private func export(_ id: Int64, for service: Service) throws -> Export {
        guard let session = try store.session(id: id, loading: .samples) else {
            throw ServiceError(service, .notFound, "no session \(id) in \(store.path)")
        }
        guard session.summary != nil else {
            throw ServiceError(service, .rejected, "session \(id) is still running; upload it when it ends")
        }
        if let undated = session.undatedBecause { throw ServiceError(service, .rejected, undated) }
        if let undatable = FITActivity.undatable(session) { throw ServiceError(service, .rejected, "\(undatable): not uploaded") }
        // A simulated runner's figures are not a run: sent, they stood on the service as one
        // (a `run --upload` that found no sensor fell back to a simulation and uploaded it).
        guard session.listing.source != .simulation else {
            throw ServiceError(service, .rejected, "session \(id) is a simulation, no sensor's: not a run to upload")
        }
        // So is one the simulator recorded, replayed or imported: the bundled recordings are
        // the simulator's, and a simulation's --record imported on another machine.
        guard !session.devices.areAllSimulators else {
            throw ServiceError(
                service, .rejected, "session \(id) is a recording of the simulator's sensors (\(RecordedDevice.simulatorAddressPrefix)…), no runner's: not a run to upload")
        }
        let stamp = session.listing.startedAt.filter { $0.isNumber }
        return Export(
            fit: FITActivity.encode(session, utcOffset: WallClock.utcOffset(at:)), filename: "intervalpro-session-\(id).fit",
            name: "\(session.listing.planName) (IntervalPro)", externalID: "intervalpro-\(stamp)-\(id)")
    }

    private func sendToIntervalsICU(_ record: UploadRecord) async throws -> (UploadRecord, Result.Kind) {
        let api = try context.intervalsICU()
        let export = try export(record.sessionID, for: .intervalsICU)
        let response = try await context.caller(.intervalsICU).success(
            api.upload(fit: export.fit, filename: export.filename, name: export.name, externalID: export.externalID),
            doing: "uploading session \(record.sessionID)")
        guard let activity = IntervalsICU.uploadedActivityID(response) else {
            throw ServiceError(.intervalsICU, .unavailable, "the upload's answer has no activity id")
        }
        var record = record
        record.status = .done
        record.activityID = activity
        record.activityURL = api.activityURL(activity)
        return (record, .uploaded)
    }

    private func sendToStrava(_ record: UploadRecord, resuming: Bool) async throws -> (UploadRecord, Result.Kind) {
        let authorization = StravaAuthorization(context: context)
        let strava = authorization.strava
        var record = record
        var state: Strava.UploadState
        if resuming, let uploadID = record.remoteUploadID {
            state = .processing(uploadID: uploadID)
        } else {
            state = try await sendFile(of: record.sessionID, through: authorization)
        }
        var sentAgain = false
        var polls = 0
        while case .processing(let uploadID) = state {
            record.status = .processing
            record.remoteUploadID = uploadID
            try store.saveUpload(record)
            guard polls < pollLimit else { return (record, .stillProcessing) }
            polls += 1
            // Strava asks clients to poll no more than once a second; processing takes a few.
            await context.caller(.strava).pause(polls < 5 ? 1 : 2)
            let response: HTTPResponse
            do {
                response = try await authorization.success(
                    { strava.uploadStatus(token: $0, uploadID: uploadID) }, doing: "checking upload \(uploadID)")
            } catch {
                // Strava no longer knows the upload (kept from an earlier run, or gone on its
                // side): asked about again and again, it stayed queued for good. The file goes
                // anew, once; if Strava has the activity after all, it says it is a duplicate.
                guard error.kind == .notFound, !sentAgain else { throw error }
                sentAgain = true
                polls = 0
                state = try await sendFile(of: record.sessionID, through: authorization)
                continue
            }
            guard let next = Strava.uploadState(response) else {
                throw ServiceError(.strava, .unavailable, "the upload status is not an upload")
            }
            state = next
        }
        switch state {
        case .ready(let activity), .duplicate(let activity):
            record.status = .done
            record.activityID = activity
            record.activityURL = strava.activityURL(activity)
            if case .duplicate = state { return (record, .alreadyThere) }
            return (record, .uploaded)
        case .failed(let message):
            throw ServiceError(.strava, .rejected, "Strava could not read session \(record.sessionID): \(message)")
        case .processing:
            return (record, .stillProcessing)
        }
    }

    /// Sends a session's FIT file to Strava: where the upload stands.
    private func sendFile(of sessionID: Int64, through authorization: StravaAuthorization) async throws -> Strava.UploadState {
        let strava = authorization.strava
        let export = try export(sessionID, for: .strava)
        let response = try await authorization.success(
            { strava.upload(token: $0, fit: export.fit, filename: export.filename, name: export.name, externalID: export.externalID) },
            doing: "uploading session \(sessionID)")
        guard let first = Strava.uploadState(response) else {
            throw ServiceError(.strava, .unavailable, "the upload's answer is not an upload")
        }
        return first
    }
}
