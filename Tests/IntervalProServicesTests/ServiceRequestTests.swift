import IntervalProCore
import IntervalProFormats
import IntervalProServices
import Testing

@Suite("intervals.icu and Strava requests and answers")
struct ServiceRequestTests {
    let icu = IntervalsICU(
        baseURL: "https://intervals.icu", account: IntervalsICUAccount(athleteID: "i12345", apiKey: "k3y"))
    let strava = Strava(baseURL: "https://www.strava.com")

    static func answer(_ status: Int, _ body: String, headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    @Test("query items are percent-encoded as RFC 3986 unreserved characters allow, and decode back")
    func queryEncoding() {
        let items = [QueryItem("redirect_uri", "http://127.0.0.1:8080/callback"), QueryItem("scope", "read,activity:write")]
        let encoded = QueryItem.encode(items)
        #expect(encoded == "redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcallback&scope=read%2Cactivity%3Awrite")
        #expect(QueryItem.decode(Substring(encoded)) == items)
        #expect(QueryItem.decode("a=b+c&d=%E2%9C%93&e") == [QueryItem("a", "b c"), QueryItem("d", "✓"), QueryItem("e", "")])
    }

    @Test("intervals.icu: basic auth as API_KEY, the day's workouts, the upload as a multipart file")
    func intervalsICURequests() {
        let events = icu.plannedWorkouts(on: "2026-11-24")
        #expect(events.method == .get)
        #expect(events.url == "https://intervals.icu/api/v1/athlete/i12345/events?oldest=2026-11-24&newest=2026-11-24&category=WORKOUT")
        #expect(events.credential == .basic(user: "API_KEY", password: "k3y"))
        #expect(!events.summary.contains("k3y"))

        let upload = icu.upload(fit: [1, 2, 3], filename: "intervalpro-session-7.fit", name: "Pyramid", externalID: "ip-7")
        #expect(upload.method == .post)
        #expect(upload.url == "https://intervals.icu/api/v1/athlete/i12345/activities?name=Pyramid&external_id=ip-7")
        guard case .multipart(let parts) = upload.body else {
            Issue.record("the upload is not multipart")
            return
        }
        #expect(parts == [.file("file", [1, 2, 3], filename: "intervalpro-session-7.fit", contentType: "application/vnd.ant.fit")])
        #expect(icu.activityURL("i9001") == "https://intervals.icu/activities/i9001")
    }

    @Test("intervals.icu: the new activity's id, from the top level or the activities list")
    func uploadedActivity() {
        #expect(IntervalsICU.uploadedActivityID(Self.answer(201, #"{"id": "i9001", "activities": []}"#)) == "i9001")
        #expect(IntervalsICU.uploadedActivityID(Self.answer(201, #"{"activities": [{"id": 77}]}"#)) == "77")
        #expect(IntervalsICU.uploadedActivityID(Self.answer(201, "[]")) == nil)
    }

    @Test("planned workouts: runs only, the workout text read as a plan named after the event")
    func plannedWorkouts() throws {
        let body = """
            [{"id": 101, "start_date_local": "2026-11-24T00:00:00", "category": "WORKOUT", "name": "Cadence builder",
              "type": "Run", "description": "Warmup\\n- 5m 160-170rpm\\n\\nMain set 3x\\n- 1m 180rpm\\n- 1m 165rpm"},
             {"id": "102", "start_date_local": "2026-11-24T00:00:00", "name": "Spin", "type": "Ride",
              "description": "- 10m 90rpm"},
             {"name": "no id"}]
            """
        let workouts = try IntervalsICU.plannedWorkouts(Self.answer(200, body))
        #expect(workouts.map(\.id) == ["101", "102"])
        #expect(workouts.map(\.isRun) == [true, false])
        #expect(workouts[0].reference == "icu:101")
        #expect(workouts[0].date == "2026-11-24")
        let plan = try workouts[0].plan().plan
        #expect(plan.name == "Cadence builder")
        let steps = plan.timeline()
        #expect(steps.count == 7)
        #expect(steps[1].zone?.low == 180 || steps[1].zone?.target == 180)
    }

    @Test("a planned workout whose text has no steps is read from its structured workout")
    func structuredWorkout() throws {
        let body = """
            {"id": 5, "start_date_local": "2026-11-24T00:00:00", "name": "Strides", "type": "Run",
             "description": "Easy day, see coach notes.",
             "workout_doc": {"steps": [
                {"duration": 600, "cadence": {"start": 160, "end": 170, "units": "rpm"}, "warmup": true},
                {"reps": 4, "steps": [{"duration": 20, "cadence": {"value": 185, "units": "rpm"}}, {"duration": 60}]},
                {"distance": 1000}]}}
            """
        let workout = try IntervalsICU.plannedWorkout(Self.answer(200, body))
        let steps = try workout.plan().plan.timeline()
        #expect(steps.count == 1 + 8 + 1)
        #expect(steps.first?.end == .time(.seconds(600)))
        #expect(steps[1].end == .time(.seconds(20)))
        #expect(steps.last?.end == .distance(1000))
    }

    @Test("a planned workout that cannot be read names the event")
    func unreadableWorkout() throws {
        let workout = try IntervalsICU.plannedWorkout(Self.answer(200, #"{"id": 9, "name": "Rest", "description": "Rest day"}"#))
        #expect(throws: ImportError.self) { try workout.plan() }
        do {
            _ = try workout.plan()
        } catch {
            #expect(error.description.hasPrefix("intervals.icu event 9"))
        }
    }

    @Test("Strava: the authorize address carries the client, the loopback redirect, the scope and the state")
    func authorizeURL() {
        let url = strava.authorizeURL(clientID: "4242", redirectURI: "http://127.0.0.1:5000/callback", state: "s1")
        #expect(url.hasPrefix("https://www.strava.com/oauth/authorize?"))
        let items = QueryItem.decode(url.split(separator: "?")[1])
        let fields = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value) })
        #expect(fields["client_id"] == "4242")
        #expect(fields["redirect_uri"] == "http://127.0.0.1:5000/callback")
        #expect(fields["response_type"] == "code")
        #expect(fields["scope"] == "read,activity:write")
        #expect(fields["state"] == "s1")
    }

    @Test("Strava: the callback's state must be ours; a denial and a code are told apart")
    func callback() {
        #expect(Strava.callback(query: "state=other&code=c", expectedState: "s1") == .foreign)
        #expect(Strava.callback(query: "code=c", expectedState: "s1") == .foreign)
        #expect(Strava.callback(query: "state=s1&error=access_denied", expectedState: "s1") == .denied("access_denied"))
        #expect(
            Strava.callback(query: "state=s1&code=abc&scope=read,activity:write", expectedState: "s1")
                == .authorized(code: "abc", scope: "read,activity:write"))
    }

    @Test("Strava: the code exchange and the refresh are form posts with the grant type")
    func tokenRequests() {
        let exchange = strava.exchange(code: "abc", clientID: "4242", clientSecret: "sh")
        #expect(exchange.url == "https://www.strava.com/oauth/token")
        #expect(
            exchange.body
                == .form([.init("client_id", "4242"), .init("client_secret", "sh"), .init("code", "abc"), .init("grant_type", "authorization_code")]))
        #expect(!exchange.summary.contains("sh"))
        let account = StravaAccount(clientID: "4242", clientSecret: "sh", accessToken: "a", refreshToken: "r", expiresAt: 10_000)
        guard case .form(let fields) = strava.refresh(account).body else {
            Issue.record("the refresh is not a form")
            return
        }
        #expect(fields.contains(.init("grant_type", "refresh_token")))
        #expect(fields.contains(.init("refresh_token", "r")))
        #expect(Strava.needsRefresh(account, now: 10_000 - 3_599))
        #expect(!Strava.needsRefresh(account, now: 10_000 - 3_601))
    }

    @Test("Strava: a grant's tokens and the athlete's name")
    func grant() {
        let body = """
            {"token_type": "Bearer", "expires_at": 1795555605, "expires_in": 21600, "refresh_token": "r2",
             "access_token": "a2", "athlete": {"id": 777, "firstname": "Test", "lastname": "Runner"}}
            """
        #expect(
            Strava.grant(Self.answer(200, body))
                == Strava.Grant(accessToken: "a2", refreshToken: "r2", expiresAt: 1_795_555_605, athleteName: "Test Runner"))
        #expect(Strava.grant(Self.answer(200, #"{"access_token": "a"}"#)) == nil)
    }

    @Test("Strava: an upload is processing, ready, a duplicate of an activity, or failed")
    func uploadStates() {
        let processing = #"{"id": 5001, "id_str": "5001", "error": null, "status": "Your activity is still being processed.", "activity_id": null}"#
        #expect(Strava.uploadState(Self.answer(201, processing)) == .processing(uploadID: "5001"))
        #expect(
            Strava.uploadState(Self.answer(200, #"{"id": 5001, "error": null, "status": "Your activity is ready.", "activity_id": 8001}"#))
                == .ready(activityID: "8001"))
        #expect(
            Strava.uploadState(Self.answer(200, #"{"id": 5001, "error": "a.fit duplicate of activity 8001", "activity_id": null}"#))
                == .duplicate(activityID: "8001"))
        // What Strava writes: a link to the activity (a file it already has was "could not read", 65).
        let linked = #"{"id": 5999, "error": "run.fit duplicate of <a href='/activities/18106372042' target='_blank'>Morning Run</a>", "activity_id": null}"#
        #expect(Strava.uploadState(Self.answer(200, linked)) == .duplicate(activityID: "18106372042"))
        #expect(
            Strava.uploadState(Self.answer(200, #"{"id": 5001, "error": "Improperly formatted data.", "activity_id": null}"#))
                == .failed("Improperly formatted data."))
    }

    @Test("HTTP errors become one line with the service's own text, and the kind scripts act on")
    func failures() {
        let icu = ServiceError.from(Self.answer(401, #"{"status": 401, "error": "Unauthorized"}"#), service: .intervalsICU, doing: "x")
        #expect(icu.kind == .credentials)
        #expect(icu.message.hasPrefix("x failed: HTTP 401: Unauthorized; intervals.icu refused the API key: add the account again"))
        let strava = ServiceError.from(
            Self.answer(
                400, #"{"message": "Bad Request", "errors": [{"resource": "Upload", "field": "data_type", "code": "invalid"}]}"#),
            service: .strava, doing: "uploading")
        #expect(strava.kind == .rejected)
        #expect(strava.message == "uploading failed: HTTP 400: Bad Request: Upload data_type invalid")
        #expect(ServiceError.from(Self.answer(422, "bad file\nmore"), service: .intervalsICU, doing: "u").message.hasSuffix(": bad file"))
        #expect(ServiceError.from(Self.answer(404, "{}"), service: .intervalsICU, doing: "u").kind == .notFound)
        #expect(ServiceError.from(Self.answer(502, ""), service: .strava, doing: "u").kind == .unavailable)
    }
}
