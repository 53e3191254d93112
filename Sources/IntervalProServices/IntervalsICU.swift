public import IntervalProCore
public import IntervalProFormats

/// intervals.icu's REST API (https://intervals.icu/api-docs.html): HTTP basic auth with the
/// user `API_KEY` and the personal key as password; planned workouts are calendar events.
public struct IntervalsICU: Sendable {
    public var baseURL: String
    public var account: IntervalsICUAccount

    public init(baseURL: String, account: IntervalsICUAccount) {
        self.baseURL = baseURL
        self.account = account
    }

    private var credential: HTTPRequest.Credential { .basic(user: "API_KEY", password: account.apiKey) }
    private var athletePath: String { "/api/v1/athlete/\(QueryItem.percentEncoded(account.athleteID))" }

    /// The athlete: proves the key works, and gives the name.
    public func athlete() -> HTTPRequest {
        HTTPRequest(.get, baseURL + athletePath, credential: credential, summary: "GET \(athletePath)")
    }

    /// The planned workouts of one day (YYYY-MM-DD, the athlete's local date).
    public func plannedWorkouts(on date: String) -> HTTPRequest {
        let query = QueryItem.encode([.init("oldest", date), .init("newest", date), .init("category", "WORKOUT")])
        return HTTPRequest(
            .get, "\(baseURL)\(athletePath)/events?\(query)", credential: credential,
            summary: "GET \(athletePath)/events")
    }

    public func plannedWorkout(id: String) -> HTTPRequest {
        let path = "\(athletePath)/events/\(QueryItem.percentEncoded(id))"
        return HTTPRequest(.get, baseURL + path, credential: credential, summary: "GET \(path)")
    }

    /// A finished session's FIT file, as a new activity. intervals.icu does not create a
    /// second activity from the same file.
    public func upload(fit: [UInt8], filename: String, name: String, externalID: String) -> HTTPRequest {
        let query = QueryItem.encode([.init("name", name), .init("external_id", externalID)])
        return HTTPRequest(
            .post, "\(baseURL)\(athletePath)/activities?\(query)", credential: credential,
            body: .multipart([.file("file", fit, filename: filename, contentType: "application/vnd.ant.fit")]),
            summary: "POST \(athletePath)/activities")
    }

    public func activityURL(_ id: String) -> String { "\(baseURL)/activities/\(id)" }

    /// One day's wellness record (YYYY-MM-DD): what a watch, a ring or the athlete entered.
    public func wellness(on date: String) -> HTTPRequest {
        let path = "\(athletePath)/wellness/\(QueryItem.percentEncoded(date))"
        return HTTPRequest(.get, baseURL + path, credential: credential, summary: "GET \(path)")
    }

    /// Writes a morning measurement into the day's wellness: `hrv` is rMSSD in ms (what
    /// intervals.icu's HRV chart reads), `restingHR` the measurement's mean heart rate. A PUT
    /// changes only the fields it names, so what a watch wrote there stays.
    public func updateWellness(on date: String, rmssd: Double, restingHeartRate: Int) -> HTTPRequest {
        let path = "\(athletePath)/wellness/\(QueryItem.percentEncoded(date))"
        let body = JSONValue.object([
            ("id", .string(date)), ("hrv", .number((rmssd * 10).rounded() / 10)), ("restingHR", .int(restingHeartRate)),
        ])
        return HTTPRequest(.put, baseURL + path, credential: credential, body: .json(body.serialized()), summary: "PUT \(path)")
    }

    // MARK: Answers

    public static func athleteName(_ response: HTTPResponse) -> String? {
        (try? JSONParser.parse(response.body))?["name"]?.stringValue
    }

    /// The new activity's id ("i9001").
    public static func uploadedActivityID(_ response: HTTPResponse) -> String? {
        guard let root = try? JSONParser.parse(response.body) else { return nil }
        if let id = idText(root["id"]) { return id }
        if case .array(let activities)? = root["activities"]?.kind, let first = activities.first {
            return idText(first["id"])
        }
        return nil
    }

    public static func plannedWorkouts(_ response: HTTPResponse) throws(ServiceError) -> [PlannedWorkout] {
        guard let root = try? JSONParser.parse(response.body), case .array(let events) = root.kind else {
            throw ServiceError(.intervalsICU, .unavailable, "the calendar's answer is not a list of events")
        }
        return events.compactMap(PlannedWorkout.init(event:))
    }

    public static func plannedWorkout(_ response: HTTPResponse) throws(ServiceError) -> PlannedWorkout {
        guard let root = try? JSONParser.parse(response.body), let workout = PlannedWorkout(event: root) else {
            throw ServiceError(.intervalsICU, .unavailable, "the event's answer is not an event")
        }
        return workout
    }

    public static func wellness(_ response: HTTPResponse) throws(ServiceError) -> Wellness {
        guard let root = try? JSONParser.parse(response.body), case .object = root.kind else {
            throw ServiceError(.intervalsICU, .unavailable, "the wellness answer is not a record")
        }
        return Wellness(record: root)
    }

    static func idText(_ node: JSONNode?) -> String? {
        guard let node else { return nil }
        if let text = node.stringValue { return text }
        if case .number(let value, true) = node.kind { return String(Int64(value)) }
        return nil
    }
}

/// A day's wellness record on intervals.icu, as far as readiness shows it; each field nil
/// when the day has none.
public struct Wellness: Sendable, Equatable {
    /// rMSSD in ms, as intervals.icu keeps it (from a watch, a ring, an app, or IntervalPro).
    public var hrv: Double?
    public var hrvSDNN: Double?
    public var restingHR: Double?
    public var sleepSeconds: Double?
    public var sleepScore: Double?
    /// A device's own readiness score (0 to 100).
    public var readiness: Double?

    public init(
        hrv: Double? = nil, hrvSDNN: Double? = nil, restingHR: Double? = nil, sleepSeconds: Double? = nil,
        sleepScore: Double? = nil, readiness: Double? = nil
    ) {
        self.hrv = hrv
        self.hrvSDNN = hrvSDNN
        self.restingHR = restingHR
        self.sleepSeconds = sleepSeconds
        self.sleepScore = sleepScore
        self.readiness = readiness
    }

    init(record: JSONNode) {
        // intervals.icu sends null or leaves out what a day lacks.
        func field(_ name: String) -> Double? { record[name]?.numberValue }
        self.init(
            hrv: field("hrv"), hrvSDNN: field("hrvSDNN"), restingHR: field("restingHR"), sleepSeconds: field("sleepSecs"),
            sleepScore: field("sleepScore"), readiness: field("readiness"))
    }

    public var isEmpty: Bool { self == Wellness() }
}

/// A workout on the intervals.icu calendar.
public struct PlannedWorkout: Sendable {
    public var id: String
    /// YYYY-MM-DD.
    public var date: String
    public var name: String
    /// "Run", "Ride", ...
    public var type: String
    /// The workout text ("- 10m 170rpm" lines), as the runner wrote it.
    public var description: String
    /// The workout as intervals.icu parsed it (`workout_doc`), for events that only carry that.
    public var workoutDoc: JSONNode?

    init?(event: JSONNode) {
        guard let id = IntervalsICU.idText(event["id"]) else { return nil }
        self.id = id
        date = String((event["start_date_local"]?.stringValue ?? "").prefix(10))
        name = event["name"]?.stringValue ?? "intervals.icu workout \(id)"
        type = event["type"]?.stringValue ?? ""
        description = event["description"]?.stringValue ?? ""
        workoutDoc = event["workout_doc"]
    }

    /// How the command line names it: `intervalpro run icu:ID`.
    public var reference: String { "icu:\(id)" }

    /// Runs of any kind (Run, TrailRun, VirtualRun); rides and swims are not for a cadence in steps.
    public var isRun: Bool { type.hasSuffix("Run") }

    /// The plan: the workout text read by the intervals.icu reader, or, when the text has no
    /// steps, the structured workout.
    public func plan() throws(ImportError) -> ImportedPlan {
        let file = "intervals.icu event \(id)"
        var imported: ImportedPlan
        do {
            imported = try IntervalsICUWorkout.read(Array(description.utf8), file: file)
        } catch {
            guard case .array(let steps)? = workoutDoc?["steps"]?.kind, !steps.isEmpty, let workoutDoc else { throw error }
            imported = try IntervalsICUWorkout.read(workoutDoc: workoutDoc, file: file)
        }
        imported.plan.name = name
        return imported
    }
}
