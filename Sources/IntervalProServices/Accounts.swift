import IntervalProCore

/// The runner's intervals.icu account: an athlete id and a personal API key.
public struct IntervalsICUAccount: Sendable, Equatable {
    public var athleteID: String
    public var apiKey: String
    /// The athlete's name as intervals.icu gave it when the account was added.
    public var name: String?
    /// Every readiness measurement goes to the day's wellness, as with `readiness --upload`.
    public var readinessToWellness: Bool
    /// Settings this version does not know (a later one's), as JSON text by key: written back.
    public var others: [String: String] = [:]

    public init(athleteID: String, apiKey: String, name: String? = nil, readinessToWellness: Bool = false) {
        self.athleteID = athleteID
        self.apiKey = apiKey
        self.name = name
        self.readinessToWellness = readinessToWellness
    }
}

/// The runner's Strava authorization: the API application's id and secret, and the tokens
/// the authorization-code flow gave, refreshed before they expire.
public struct StravaAccount: Sendable, Equatable {
    public var clientID: String
    public var clientSecret: String
    public var accessToken: String
    public var refreshToken: String
    /// Seconds since 1970 (UTC) when `accessToken` stops working.
    public var expiresAt: Double
    public var athleteName: String?
    /// What the runner allowed ("read,activity:write").
    public var scope: String?
    /// Settings this version does not know (a later one's), as JSON text by key: written back.
    public var others: [String: String] = [:]

    public init(
        clientID: String, clientSecret: String, accessToken: String, refreshToken: String, expiresAt: Double,
        athleteName: String? = nil, scope: String? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.athleteName = athleteName
        self.scope = scope
    }
}

/// accounts.json: every account, secrets included. The file is the only place secrets live;
/// nothing here is ever printed (`listing` is what may be shown).
public struct Accounts: Sendable, Equatable {
    /// The version of the file's layout this one reads and writes.
    public static let version = 1

    public var intervalsICU: IntervalsICUAccount?
    public var strava: StravaAccount?
    /// Accounts of services this version does not know (a later one's), as JSON text by
    /// service: written back as they came, never dropped with their secrets.
    public var others: [String: String] = [:]
    /// The file's other members this version does not know (a later one's settings beside
    /// the accounts), as JSON text by key: written back. The layout grows by keys without a
    /// new version (`readiness_to_wellness` came so), and a rewrite by an earlier version
    /// dropped what a later one had added.
    public var otherMembers: [String: String] = [:]

    public init(intervalsICU: IntervalsICUAccount? = nil, strava: StravaAccount? = nil) {
        self.intervalsICU = intervalsICU
        self.strava = strava
    }

    public var services: [Service] {
        (intervalsICU == nil ? [] : [.intervalsICU]) + (strava == nil ? [] : [.strava])
    }

    public mutating func remove(_ service: Service) {
        switch service {
        case .intervalsICU: intervalsICU = nil
        case .strava: strava = nil
        }
    }

    /// Who each account is, without a secret: for `account list`.
    public func listing(now: Double) -> [(service: Service, who: String, detail: String)] {
        var rows: [(Service, String, String)] = []
        if let icu = intervalsICU {
            rows.append((.intervalsICU, icu.name.map { "\($0) (\(icu.athleteID))" } ?? icu.athleteID, "API key"))
        }
        if let strava {
            let expiry =
                strava.expiresAt > now
                ? "access token valid for \(Int((strava.expiresAt - now) / 60)) min, refreshed as needed"
                : "access token expired, refreshed on next use"
            rows.append((.strava, strava.athleteName ?? "athlete", "OAuth, \(strava.scope ?? "scope unknown"); \(expiry)"))
        }
        return rows
    }

    public func encoded() -> String {
        var members: [(String, JSONValue)] = []
        if let icu = intervalsICU {
            var fields: [(String, JSONValue)] = [("athlete_id", .string(icu.athleteID)), ("api_key", .string(icu.apiKey))]
            if let name = icu.name { fields.append(("name", .string(name))) }
            if icu.readinessToWellness { fields.append(("readiness_to_wellness", .bool(true))) }
            fields += JSONValue.literals(icu.others)
            members.append((Service.intervalsICU.rawValue, .object(fields)))
        }
        if let strava {
            var fields: [(String, JSONValue)] = [
                ("client_id", .string(strava.clientID)), ("client_secret", .string(strava.clientSecret)),
                ("access_token", .string(strava.accessToken)), ("refresh_token", .string(strava.refreshToken)),
                ("expires_at", .number(strava.expiresAt)),
            ]
            if let name = strava.athleteName { fields.append(("athlete", .string(name))) }
            if let scope = strava.scope { fields.append(("scope", .string(scope))) }
            fields += JSONValue.literals(strava.others)
            members.append((Service.strava.rawValue, .object(fields)))
        }
        members += JSONValue.literals(others)
        return JSONValue.object([("version", .int(Self.version)), ("accounts", .object(members))] + JSONValue.literals(otherMembers))
            .serialized(pretty: true) + "\n"
    }

    /// Reads accounts.json; a problem names the JSON path and what is wrong.
    public static func decode(_ bytes: [UInt8]) throws(AccountsProblem) -> Accounts {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw AccountsProblem(path: "$", message: "not valid JSON (\(error.message))")
        }
        guard case .object = root.kind else { throw AccountsProblem(path: "$", message: "expected an object") }
        // A later layout is not guessed at: read as empty, the next `account add` wrote over its
        // secrets. Refused, the file is left as it is.
        if let version = root["version"], !version.isNull {
            guard let number = version.numberValue, number == number.rounded(), number >= 1 else {
                throw AccountsProblem(path: "$.version", message: "expected a whole number from 1")
            }
            guard number <= Double(Self.version) else {
                throw AccountsProblem(
                    path: "$.version",
                    message: "version \(Int(number)) was written by a later IntervalPro; this one reads version \(Self.version), and leaves the file as it is")
            }
        }
        var result = Accounts()
        result.otherMembers = root.members(besides: ["version", "accounts"])
        // IntervalPro always writes "accounts": a file with other members and none is written
        // by hand, and "acounts" read as no accounts at all disabled every upload without a word.
        if root["accounts"] == nil, !result.otherMembers.isEmpty {
            let found = result.otherMembers.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw AccountsProblem(path: "$.accounts", message: "missing, beside \(found): the accounts go under \"accounts\"")
        }
        guard let accounts = root["accounts"], !accounts.isNull else { return result }
        guard case .object = accounts.kind else {
            throw AccountsProblem(path: "$.accounts", message: "expected an object of accounts by service, found \(accounts.typeName)")
        }
        result.others = accounts.members(besides: Set(Service.allCases.map(\.rawValue)))
        if let icu = accounts[Service.intervalsICU.rawValue] {
            let path = "$.accounts[\"intervals.icu\"]"
            var toWellness = false
            if let flag = icu["readiness_to_wellness"] {
                guard case .bool(let value) = flag.kind else {
                    throw AccountsProblem(path: path + ".readiness_to_wellness", message: "expected true or false")
                }
                toWellness = value
            }
            result.intervalsICU = IntervalsICUAccount(
                athleteID: try string(icu, "athlete_id", path), apiKey: try string(icu, "api_key", path),
                name: icu["name"]?.stringValue, readinessToWellness: toWellness)
            result.intervalsICU?.others = icu.members(besides: ["athlete_id", "api_key", "name", "readiness_to_wellness"])
        }
        if let strava = accounts[Service.strava.rawValue] {
            let path = "$.accounts.strava"
            guard let expiresAt = strava["expires_at"]?.numberValue else {
                throw AccountsProblem(path: path + ".expires_at", message: "expected a number")
            }
            result.strava = StravaAccount(
                clientID: try string(strava, "client_id", path), clientSecret: try string(strava, "client_secret", path),
                accessToken: try string(strava, "access_token", path),
                refreshToken: try string(strava, "refresh_token", path), expiresAt: expiresAt,
                athleteName: strava["athlete"]?.stringValue, scope: strava["scope"]?.stringValue)
            result.strava?.others = strava.members(
                besides: ["client_id", "client_secret", "access_token", "refresh_token", "expires_at", "athlete", "scope"])
        }
        return result
    }

    private static func string(_ node: JSONNode, _ key: String, _ path: String) throws(AccountsProblem) -> String {
        guard let value = node[key]?.stringValue, !value.isEmpty else {
            throw AccountsProblem(path: "\(path).\(key)", message: "expected a non-empty string")
        }
        return value
    }
}

public struct AccountsProblem: Error, Sendable, Equatable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}
