import IntervalProNetwork
import IntervalProServices
import Synchronization
import Testing

@Suite("Retries and accounts")
struct RetryAndAccountsTests {
    let policy = RetryPolicy()

    static func answer(_ status: Int, headers: [String: String] = [:]) -> RetryPolicy.Outcome {
        .answered(HTTPResponse(status: status, headers: headers))
    }

    /// "strava: no strava account: …" named the service twice.
    @Test("an error names its service once")
    func anErrorNamesItsServiceOnce() {
        #expect(ServiceContext.noAccount(.strava).description.hasPrefix("no strava account: add one with `intervalpro account add strava"))
        #expect(ServiceError(.intervalsICU, .credentials, "the key was refused").description == "intervals.icu: the key was refused")
    }

    @Test("5xx and network errors: pauses of 1, 2 and 4 s, then the fourth attempt is the last")
    func backoff() {
        #expect(policy.decide(after: Self.answer(503), attempts: 1, now: 0) == .retry(after: 1))
        #expect(policy.decide(after: .transportFailed, attempts: 2, now: 0) == .retry(after: 2))
        #expect(policy.decide(after: Self.answer(500), attempts: 3, now: 0) == .retry(after: 4))
        #expect(policy.decide(after: Self.answer(500), attempts: 4, now: 0) == .giveUp)
    }

    @Test("answers that retrying cannot change are not retried")
    func noRetry() {
        for status in [200, 201, 400, 401, 403, 404, 422] {
            #expect(policy.decide(after: Self.answer(status), attempts: 1, now: 0) == .giveUp)
        }
    }

    @Test("429: Retry-After is honoured; a wait longer than a minute gives up and says when it lifts")
    func retryAfter() {
        #expect(policy.decide(after: Self.answer(429, headers: ["retry-after": "7"]), attempts: 1, now: 0) == .retry(after: 7))
        #expect(
            policy.decide(after: Self.answer(429, headers: ["retry-after": "120"]), attempts: 1, now: 0)
                == .rateLimited(liftsIn: 120))
        // A date, as HTTP allows: it was waited as a minute. 2026-11-28 10:00:05 UTC, 5 s on.
        let now = 1_795_860_000.0
        #expect(
            policy.decide(after: Self.answer(429, headers: ["retry-after": "Sat, 28 Nov 2026 10:00:05 GMT"]), attempts: 1, now: now)
                == .retry(after: 5))
    }

    @Test("429 from Strava: the 15-minute window, or the day, whose usage reached its limit")
    func stravaWindows() {
        // 10:07:30 UTC: the 15-minute window ends at 10:15.
        let now = 10 * 3600 + 7 * 60 + 30.0
        let quarter = ["x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "200,900"]
        #expect(policy.decide(after: Self.answer(429, headers: quarter), attempts: 1, now: now) == .rateLimited(liftsIn: 450))
        let day = ["x-ratelimit-limit": "200,2000", "x-ratelimit-usage": "20,2000"]
        #expect(
            policy.decide(after: Self.answer(429, headers: day), attempts: 1, now: now) == .rateLimited(liftsIn: 86_400 - now))
        let read = ["x-readratelimit-limit": "100,1000", "x-readratelimit-usage": "100,10"]
        #expect(policy.decide(after: Self.answer(429, headers: read), attempts: 1, now: now) == .rateLimited(liftsIn: 450))
    }

    @Test("the caller retries on its injected clock, and returns the last answer")
    func callerRetries() async throws {
        let statuses = Mutex([503, 502, 200])
        let pauses = Mutex([Double]())
        let caller = ServiceCaller(
            service: .intervalsICU,
            send: { _ in HTTPResponse(status: statuses.withLock { $0.removeFirst() }) },
            now: { 0 }, pause: { seconds in pauses.withLock { $0.append(seconds) } }, progress: { _ in }, log: { _ in })
        let request = HTTPRequest(.get, "http://127.0.0.1/x", summary: "GET /x")
        let response = try await caller.success(request, doing: "x")
        #expect(response.status == 200)
        #expect(pauses.withLock { $0 } == [1, 2])
    }

    @Test("a transport that never answers ends as 'unavailable' after four attempts")
    func callerGivesUp() async {
        let attempts = Mutex(0)
        let caller = ServiceCaller(
            service: .strava,
            send: { _ throws(TransportError) in
                attempts.withLock { $0 += 1 }
                throw TransportError(message: "Couldn't connect to server", isTimeout: false)
            },
            now: { 0 }, pause: { _ in }, progress: { _ in }, log: { _ in })
        do throws(ServiceError) {
            _ = try await caller.response(to: HTTPRequest(.get, "http://127.0.0.1/x", summary: "GET /x"))
            Issue.record("no failure")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(error.message == "GET /x: Couldn't connect to server (after 4 attempts)")
        }
        #expect(attempts.withLock { $0 } == 4)
    }

    @Test("accounts.json round-trips, and the listing shows no secret")
    func accountsRoundTrip() throws {
        let accounts = Accounts(
            intervalsICU: IntervalsICUAccount(athleteID: "i1", apiKey: "icu-secret", name: "Ann"),
            strava: StravaAccount(
                clientID: "42", clientSecret: "client-secret", accessToken: "access-secret", refreshToken: "refresh-secret",
                expiresAt: 1_795_555_605, athleteName: "Ann R", scope: "read,activity:write"))
        #expect(try Accounts.decode(Array(accounts.encoded().utf8)) == accounts)
        let shown = accounts.listing(now: 1_795_555_605 - 600).map { "\($0.service) \($0.who) \($0.detail)" }.joined()
        for secret in ["icu-secret", "client-secret", "access-secret", "refresh-secret"] {
            #expect(!shown.contains(secret))
        }
        #expect(shown.contains("valid for 10 min"))
        var sending = accounts
        sending.intervalsICU?.readinessToWellness = true
        #expect(try Accounts.decode(Array(sending.encoded().utf8)) == sending)
        #expect(!accounts.encoded().contains("readiness_to_wellness"), "written only when on")
    }

    /// A later version's file, or one of another layout, was read as no accounts, and the next
    /// `account add` wrote over it: a Strava refresh token and another service's tokens gone.
    @Test("accounts.json: a later version or another layout is refused, not written over; another service's account is kept")
    func accountsOfALaterVersion() throws {
        #expect(throws: AccountsProblem(path: "$.version", message: "version 2 was written by a later IntervalPro; this one reads version 1, and leaves the file as it is")) {
            try Accounts.decode(Array(#"{"version": 2, "accounts": {}}"#.utf8))
        }
        // A misspelt "accounts" was read as none: every upload failed as "no account".
        #expect(throws: AccountsProblem(path: "$.accounts", message: #"missing, beside "acounts": the accounts go under "accounts""#)) {
            try Accounts.decode(Array(#"{"version": 1, "acounts": {"strava": {}}}"#.utf8))
        }
        #expect(try Accounts.decode(Array(#"{"version": 1}"#.utf8)).services.isEmpty)
        #expect(throws: AccountsProblem(path: "$.accounts", message: "expected an object of accounts by service, found an array")) {
            try Accounts.decode(Array(#"{"version": 1, "accounts": [{"service": "strava"}]}"#.utf8))
        }
        var accounts = try Accounts.decode(
            Array(#"{"version": 1, "accounts": {"garmin": {"oauth_token": "GT", "expires": [1, 2.5, null]}}}"#.utf8))
        #expect(accounts.services.isEmpty && accounts.others.keys.sorted() == ["garmin"])
        accounts.intervalsICU = IntervalsICUAccount(athleteID: "i1", apiKey: "k")
        let written = accounts.encoded()
        let again = try Accounts.decode(Array(written.utf8))
        #expect(again == accounts && again.intervalsICU?.athleteID == "i1")
        #expect(written.contains(#""garmin": {"oauth_token":"GT","expires":[1,2.5,null]}"#), "\(written)")
    }

    /// The layout grows by keys under version 1 (`readiness_to_wellness` came so): removing
    /// Strava here dropped a later version's settings beside and inside the other accounts.
    @Test("accounts.json: settings a later version added are written back, beside and inside the accounts")
    func settingsOfALaterVersionAreKept() throws {
        var accounts = try Accounts.decode(Array(#"""
            {"version": 1, "defaults": {"upload": "private"},
             "accounts": {"intervals.icu": {"athlete_id": "i1", "api_key": "k", "wellness_fields": ["hrv", "sleep"]},
                          "strava": {"client_id": "1", "client_secret": "s", "access_token": "a", "refresh_token": "r",
                                     "expires_at": 5, "gear_id": "g7"}}}
            """#.utf8))
        #expect(accounts.strava?.others == ["gear_id": #""g7""#])
        accounts.strava = nil
        let again = try Accounts.decode(Array(accounts.encoded().utf8))
        #expect(again.otherMembers == ["defaults": #"{"upload":"private"}"#])
        #expect(again.intervalsICU?.others == ["wellness_fields": #"["hrv","sleep"]"#])
        #expect(again == accounts)
    }

    @Test("a malformed accounts.json names the JSON path and what is wrong")
    func accountsProblems() {
        #expect(throws: AccountsProblem(path: "$", message: "expected an object")) { try Accounts.decode(Array("[1]".utf8)) }
        do throws(AccountsProblem) {
            _ = try Accounts.decode(Array("{".utf8))
            Issue.record("a truncated file was read")
        } catch {
            #expect(error.path == "$")
            #expect(error.message.hasPrefix("not valid JSON ("))
        }
        #expect(throws: AccountsProblem(path: "$.accounts[\"intervals.icu\"].api_key", message: "expected a non-empty string")) {
            try Accounts.decode(Array(#"{"accounts": {"intervals.icu": {"athlete_id": "i1"}}}"#.utf8))
        }
        #expect(
            throws: AccountsProblem(
                path: "$.accounts[\"intervals.icu\"].readiness_to_wellness", message: "expected true or false")
        ) {
            try Accounts.decode(
                Array(#"{"accounts": {"intervals.icu": {"athlete_id": "i1", "api_key": "k", "readiness_to_wellness": 1}}}"#.utf8))
        }
        #expect(throws: AccountsProblem(path: "$.accounts.strava.expires_at", message: "expected a number")) {
            try Accounts.decode(Array(#"{"accounts": {"strava": {"client_id": "1"}}}"#.utf8))
        }
    }
}
