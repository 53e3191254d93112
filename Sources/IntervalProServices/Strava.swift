import IntervalProCore

/// Strava's API (https://developers.strava.com/docs/): OAuth 2 authorization-code flow,
/// bearer tokens that last six hours and are refreshed, uploads processed asynchronously.
public struct Strava: Sendable {
    public var baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// Reading the athlete and uploading activities.
    public static let scope = "read,activity:write"
    /// A token this close to expiry is refreshed before use (Strava hands out a new one
    /// only within the last hour anyway).
    public static let refreshMargin = 3600.0

    // MARK: Authorization

    public func authorizeURL(clientID: String, redirectURI: String, state: String) -> String {
        let query = QueryItem.encode([
            .init("client_id", clientID), .init("redirect_uri", redirectURI), .init("response_type", "code"),
            .init("approval_prompt", "auto"), .init("scope", Self.scope), .init("state", state),
        ])
        return "\(baseURL)/oauth/authorize?\(query)"
    }

    public func exchange(code: String, clientID: String, clientSecret: String) -> HTTPRequest {
        HTTPRequest(
            .post, "\(baseURL)/oauth/token",
            body: .form([
                .init("client_id", clientID), .init("client_secret", clientSecret), .init("code", code),
                .init("grant_type", "authorization_code"),
            ]), summary: "POST /oauth/token (authorization code)")
    }

    public func refresh(_ account: StravaAccount) -> HTTPRequest {
        HTTPRequest(
            .post, "\(baseURL)/oauth/token",
            body: .form([
                .init("client_id", account.clientID), .init("client_secret", account.clientSecret),
                .init("grant_type", "refresh_token"), .init("refresh_token", account.refreshToken),
            ]), summary: "POST /oauth/token (refresh)")
    }

    public static func needsRefresh(_ account: StravaAccount, now: Double) -> Bool {
        account.expiresAt - now < refreshMargin
    }

    /// What the loopback redirect brought back.
    public enum Callback: Sendable, Equatable {
        case authorized(code: String, scope: String?)
        case denied(String)
        /// Not the answer to our request (another `state`): refused, and the wait goes on.
        case foreign
    }

    public static func callback(query: Substring, expectedState: String) -> Callback {
        let items = QueryItem.decode(query)
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard value("state") == expectedState else { return .foreign }
        if let code = value("code"), !code.isEmpty { return .authorized(code: code, scope: value("scope")) }
        return .denied(value("error") ?? "no code in the answer")
    }

    /// New tokens; the code exchange also names the athlete.
    public struct Grant: Sendable, Equatable {
        public var accessToken: String
        public var refreshToken: String
        public var expiresAt: Double
        public var athleteName: String?

        public init(accessToken: String, refreshToken: String, expiresAt: Double, athleteName: String?) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresAt = expiresAt
            self.athleteName = athleteName
        }
    }

    public static func grant(_ response: HTTPResponse) -> Grant? {
        guard let root = try? JSONParser.parse(response.body), let access = root["access_token"]?.stringValue,
            let refresh = root["refresh_token"]?.stringValue, let expiresAt = root["expires_at"]?.numberValue
        else { return nil }
        let athlete = root["athlete"]
        let name = [athlete?["firstname"]?.stringValue, athlete?["lastname"]?.stringValue].compactMap { $0 }
            .joined(separator: " ")
        return Grant(accessToken: access, refreshToken: refresh, expiresAt: expiresAt, athleteName: name.isEmpty ? nil : name)
    }

    // MARK: API

    public func athlete(token: String) -> HTTPRequest {
        HTTPRequest(.get, "\(baseURL)/api/v3/athlete", credential: .bearer(token), summary: "GET /api/v3/athlete")
    }

    public func upload(token: String, fit: [UInt8], filename: String, name: String, externalID: String) -> HTTPRequest {
        HTTPRequest(
            .post, "\(baseURL)/api/v3/uploads", credential: .bearer(token),
            body: .multipart([
                .file("file", fit, filename: filename, contentType: "application/vnd.ant.fit"),
                .field("data_type", "fit"), .field("name", name), .field("external_id", externalID),
            ]), summary: "POST /api/v3/uploads")
    }

    public func uploadStatus(token: String, uploadID: String) -> HTTPRequest {
        let path = "/api/v3/uploads/\(QueryItem.percentEncoded(uploadID))"
        return HTTPRequest(.get, baseURL + path, credential: .bearer(token), summary: "GET \(path)")
    }

    public func activityURL(_ id: String) -> String { "\(baseURL)/activities/\(id)" }

    /// Where an upload stands (POST /uploads and GET /uploads/ID answer the same shape).
    public enum UploadState: Sendable, Equatable {
        case processing(uploadID: String)
        case ready(activityID: String)
        /// Strava already has this activity: its id, from "... duplicate of activity 123", or
        /// from the link Strava writes there ("duplicate of <a href='/activities/123' …>").
        case duplicate(activityID: String)
        case failed(String)
    }

    public static func uploadState(_ response: HTTPResponse) -> UploadState? {
        guard let root = try? JSONParser.parse(response.body) else { return nil }
        if let activity = IntervalsICU.idText(root["activity_id"]) { return .ready(activityID: activity) }
        if let error = root["error"]?.stringValue, !error.isEmpty {
            for marker in ["duplicate of activity ", "/activities/"] where error.contains("duplicate of") {
                guard let range = error.firstRange(of: marker) else { continue }
                let id = error[range.upperBound...].prefix(while: \.isNumber)
                if !id.isEmpty { return .duplicate(activityID: String(id)) }
            }
            return .failed(error)
        }
        guard let id = IntervalsICU.idText(root["id_str"]) ?? IntervalsICU.idText(root["id"]) else { return nil }
        return .processing(uploadID: id)
    }
}
