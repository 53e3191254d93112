import IntervalProCore

/// The services IntervalPro talks to, by the names the command line uses.
public enum Service: String, Sendable, CaseIterable, Comparable {
    case intervalsICU = "intervals.icu"
    case strava

    public static func < (lhs: Service, rhs: Service) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The variable that points the service somewhere else (a proxy, a stand-in in tests).
    public var baseURLVariable: String {
        switch self {
        case .intervalsICU: "INTERVALPRO_INTERVALS_ICU_URL"
        case .strava: "INTERVALPRO_STRAVA_URL"
        }
    }

    public var defaultBaseURL: String {
        switch self {
        case .intervalsICU: "https://intervals.icu"
        case .strava: "https://www.strava.com"
        }
    }
}

/// Why a call to a service did not give what was asked, in one line for the runner.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No answer, a timeout, 5xx after the retries, a rate limit not worth waiting for:
        /// try again later.
        case unavailable
        /// The service refused what was sent (the file, a field): sending it again will not help.
        case rejected
        /// The key or token is wrong, expired past refreshing, or revoked.
        case credentials
        /// What was asked for does not exist (an event id).
        case notFound
    }

    public var service: Service
    public var kind: Kind
    public var message: String
    /// The HTTP status the service answered with, when it answered (429 for a rate limit).
    public var status: Int?

    public init(_ service: Service, _ kind: Kind, _ message: String) {
        self.service = service
        self.kind = kind
        self.message = message
    }

    /// The message, after the service it is of unless it names it ("strava: no strava account").
    public var description: String {
        message.hasPrefix("no \(service.rawValue) ") ? message : "\(service.rawValue): \(message)"
    }

    /// The failure an error answer stands for, with the service's own error text.
    public static func from(_ response: HTTPResponse, service: Service, doing action: String) -> ServiceError {
        let text = errorText(response)
        let kind: Kind =
            switch response.status {
            case 401, 403: .credentials
            case 404: .notFound
            case 400, 409, 413, 415, 422: .rejected
            default: .unavailable
            }
        // intervals.icu refuses a key regenerated or deleted on its settings page: said with what
        // fixes it (the runner was told only "HTTP 401: Unauthorized", and that retrying would do).
        let advice =
            service == .intervalsICU && kind == .credentials
            ? "; intervals.icu refused the API key: add the account again with the key from https://intervals.icu/settings (`intervalpro account add intervals.icu --athlete ID`)"
            : ""
        var failure = ServiceError(service, kind, "\(action) failed: HTTP \(response.status): \(text)\(advice)")
        failure.status = response.status
        return failure
    }

    /// A success whose body is not the JSON object the service answers with: a Wi-Fi sign-in
    /// page or a proxy answered in its place (a key "checked" on such a page was saved, and
    /// `doctor` said the account worked).
    public static func unlessProfile(_ response: HTTPResponse, service: Service, doing action: String) throws(ServiceError) {
        if let root = try? JSONParser.parse(response.body), case .object = root.kind, root["id"] != nil { return }
        let type = response.header("content-type").map { ", \($0)" } ?? ""
        var failure = ServiceError(
            service, .unavailable,
            "\(action) failed: HTTP \(response.status)\(type) that is not \(service.rawValue)'s answer (a Wi-Fi sign-in page or a proxy in the way?)")
        failure.status = response.status
        throw failure
    }

    /// What a service says went wrong: intervals.icu's `error`, Strava's `message` with its
    /// `errors` (resource, field, code), else the body's first line.
    public static func errorText(_ response: HTTPResponse) -> String {
        if let root = try? JSONParser.parse(response.body) {
            var text = root["error"]?.stringValue ?? root["message"]?.stringValue
            if case .array(let errors)? = root["errors"]?.kind, !errors.isEmpty {
                let details = errors.map { error in
                    ["resource", "field", "code"].compactMap { error[$0]?.stringValue }.joined(separator: " ")
                }
                text = (text.map { $0 + ": " } ?? "") + details.joined(separator: "; ")
            }
            if let text, !text.isEmpty { return text }
        }
        let line = String(decoding: response.body.prefix(200), as: UTF8.self).split(separator: "\n").first
        return line.map(\.trimmingWhitespace) ?? "no details"
    }
}
