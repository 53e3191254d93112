import Hummingbird
import IntervalProCore
import IntervalProHistory
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage

/// `POST /api/sessions/ID/upload`: a saved session sent to the connected services through the
/// upload queue, as `intervalpro upload ID --to ...` sends it; the page shows each result.
enum SessionUpload {
    /// `{"to": "intervals.icu" | "strava" | "all", "force": false}`; `to` defaults to all.
    static func respond(id: Int64, body: JSONNode, store: StoreLocation) async -> Response {
        guard let to = body["to"].map({ $0.stringValue.flatMap(UploadDestination.init(rawValue:)) }) ?? .all else {
            return WebServer.error(.badRequest, "'to' must be intervals.icu, strava or all")
        }
        let force: Bool
        switch body["force"]?.kind {
        case nil: force = false
        case .bool(let value)?: force = value
        default: return WebServer.error(.badRequest, "'force' must be true or false")
        }
        // The session first: no such session is 404 whatever the accounts (it was 409, "no accounts yet").
        let sessionStore: SessionStore
        do {
            sessionStore = try store.openSaved()
            guard let listing = try sessionStore.listing(id: id) else { return WebServer.error(.notFound, "no session \(id)") }
            guard listing.status != .running else { return WebServer.error(.conflict, "session \(id) is running: finish it first") }
        } catch {
            return WebServer.error(.internalServerError, "\(error)")
        }
        let context: ServiceContext
        let services: [Service]
        do {
            context = try ServiceContext.standard()
            services = try Uploader.destinations(to, accounts: context.accounts)
        } catch let failure as LaunchError {
            // No account for it is the page's to fix (409); no configuration folder, the Pi's (503).
            let status: HTTPResponse.Status =
                switch failure.kind {
                case .refused: .conflict
                case .unavailable: .serviceUnavailable
                default: .internalServerError
                }
            return WebServer.error(status, failure.message)
        } catch {
            return WebServer.error(.internalServerError, "\(error)")
        }
        let uploader = Uploader(store: sessionStore, context: context)
        let results: [Uploader.Result]
        do {
            results = try await uploader.upload(session: id, to: services, force: force)
        } catch {
            return WebServer.error(.internalServerError, error.description)
        }
        let list: [JSONValue] = results.map { result in
            let message: String? =
                switch result.kind {
                case .uploaded, .alreadyThere: nil
                // The page has no force: the command line's `upload ID --force` sends it again.
                case .refusedDuplicate: result.record.activityURL.map { "there as \($0)" }
                case .stillProcessing: "the service is still processing it"
                case .waitingForAccount: "queued until an account for the service is added"
                case .failed(let failure): failure.message
                }
            return .object([
                ("service", .string(result.record.service)), ("outcome", .string(result.outcome)),
                ("url", result.record.activityURL.map(JSONValue.string) ?? .null), ("message", message.map(JSONValue.string) ?? .null),
            ])
        }
        return WebServer.json(.ok, JSONValue.object([("results", .array(list))]).serialized(pretty: false))
    }
}
