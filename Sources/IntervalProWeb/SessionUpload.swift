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
        let to = body["to"].map { $0.stringValue } ?? "all"
        guard let to, to == "all" || Service(rawValue: to) != nil else {
            return WebServer.error(.badRequest, "'to' must be intervals.icu, strava or all")
        }
        let force: Bool
        switch body["force"]?.kind {
        case nil: force = false
        case .bool(let value)?: force = value
        default: return WebServer.error(.badRequest, "'force' must be true or false")
        }
        guard let file = AccountFile.standard() else {
            return WebServer.error(.serviceUnavailable, "no configuration folder: set XDG_CONFIG_HOME or HOME")
        }
        let accounts: Accounts
        do {
            accounts = try file.load()
        } catch {
            return WebServer.error(.internalServerError, "\(file.path) cannot be read")
        }
        let services = to == "all" ? accounts.services : [Service(rawValue: to)!]
        guard !services.isEmpty else {
            return WebServer.error(.conflict, "no accounts yet: add one with `intervalpro account add intervals.icu ...` or `... strava ...`")
        }
        for service in services where !accounts.services.contains(service) {
            return WebServer.error(.conflict, "no \(service.rawValue) account: `intervalpro account add \(service.rawValue) ...` adds one")
        }
        let sessionStore: SessionStore
        do {
            sessionStore = try store.open()
            guard let listing = try sessionStore.listing(id: id) else { return WebServer.error(.notFound, "no session \(id)") }
            guard listing.status != .running else { return WebServer.error(.conflict, "session \(id) is running: finish it first") }
        } catch {
            return WebServer.error(.internalServerError, "\(error)")
        }
        let uploader = Uploader(store: sessionStore, context: ServiceContext(file: file, accounts: accounts, verbose: false))
        let results: [Uploader.Result]
        do {
            results = try await uploader.upload(session: id, to: services, force: force)
        } catch {
            return WebServer.error(.internalServerError, error.description)
        }
        let list: [JSONValue] = results.map { result in
            let (outcome, message): (String, String?) =
                switch result.kind {
                case .uploaded: ("uploaded", nil)
                case .alreadyThere: ("already-there", nil)
                case .refusedDuplicate: ("refused-duplicate", "already uploaded; send again with force")
                case .stillProcessing: ("processing", "the service is still processing it")
                case .failed(let failure): (result.record.status == .rejected ? "rejected" : "queued", failure.message)
                }
            return .object([
                ("service", .string(result.record.service)), ("outcome", .string(outcome)),
                ("url", result.record.activityURL.map(JSONValue.string) ?? .null), ("message", message.map(JSONValue.string) ?? .null),
            ])
        }
        return WebServer.json(.ok, JSONValue.object([("results", .array(list))]).serialized(pretty: false))
    }
}
