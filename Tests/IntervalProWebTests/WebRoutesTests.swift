import Foundation
import Hummingbird
import IntervalProCore
import IntervalProHistory
import IntervalProLaunch
import IntervalProStorage
import Testing

@testable import IntervalProWeb

/// The routes, in process (the router's own responder, through `RouterClient`): validation,
/// refusals and the access rules, on a store of the test's own. The Chromium suite (Tests/Web)
/// drives the same routes through a real server and a browser.
@Suite struct WebRoutesTests {
    /// A server of the routes on an empty store in a folder of the test's own; `token` makes it
    /// listen off loopback (every request then needs the token).
    func application(token: String? = nil) throws -> (RouterClient, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let address = token == nil ? ListenAddress(host: "127.0.0.1", port: 8417) : ListenAddress(host: "0.0.0.0", port: 8417)
        let server = WebServer(
            address: address, host: SessionHost(hub: LiveStateHub(), defaults: nil), token: token,
            store: StoreLocation(path: folder.appendingPathComponent("intervalpro.sqlite").path))
        return (RouterClient(server.makeRouter()), folder)
    }

    // The router test client asks as "localhost" (a loopback name).
    static let json: HTTPFields = [.contentType: "application/json"]
    static let local: HTTPFields = [:]

    /// A plans folder that could not be read (another user's, or a file where the folder
    /// should be) left the runner's plans off the page without a word.
    @Test("a plan folder that is there but cannot be listed is said, with why; one not there is not")
    func anUnlistedPlanFolderIsSaid() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-plans-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("plans").path
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        let problems = WebCatalogue.unlisted([("examples", folder.path), ("mine", file), ("mine", folder.path + "/none")])
        #expect(problems.map(\.id) == ["mine/"])
        #expect(problems.first?.problem == "cannot read the folder \(file): Not a directory")
    }

    /// A FIFO named like a plan in the plans folder: each read of it waited for a writer, and
    /// two such requests left the server no thread to answer any route.
    @Test("a FIFO in a plan folder is never read: not offered, and said as no regular file")
    func aFIFOIsNotAPlan() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.path + "/stall.json", 0o600) == 0)
        try Data(#"{"name": "Easy", "steps": [{"kind": "work", "duration": 60}]}"#.utf8).write(to: folder.appendingPathComponent("easy.json"))
        let names = WebCatalogue.files(in: folder.path, endingIn: [".json"])
        #expect(names == ["easy.json", "stall.json"])
        let entries = names.map { WebCatalogue.Entry(id: "mine/\($0)", path: folder.path + "/\($0)", folder: "mine") }
        #expect(entries.map(\.isRegularFile) == [true, false])
        #expect(WebServer.notRead(entries[1]) == "not a regular file (a FIFO or a device): not read")
    }

    /// A watch keeps its workouts as WORKOUT.FIT, which `run` takes: the page left such files out
    /// without a word. A link to nothing was said to be a FIFO or a device.
    @Test("plan files are listed whatever the case of their extension; a link to nothing is said as one")
    func plansInAnyCaseAndLinksToNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-case-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["easy.json", "UPPER.JSON", "WORKOUT.FIT", "notes.md"] {
            try Data("{}".utf8).write(to: folder.appendingPathComponent(name))
        }
        #expect(symlink("/nonexistent/x.json", folder.path + "/dangling.json") == 0)
        let names = WebCatalogue.files(in: folder.path, endingIn: [".json", ".fit"])
        #expect(names == ["UPPER.JSON", "WORKOUT.FIT", "dangling.json", "easy.json"])
        let dangling = WebCatalogue.Entry(id: "mine/dangling.json", path: folder.path + "/dangling.json", folder: "mine")
        #expect(WebServer.notRead(dangling).hasSuffix("cannot be opened (a link to a file that is not there, or a name that is not UTF-8)"))
    }

    /// A store that is no database: the start page said "No measurement yet", where the
    /// history route and `readiness history` said what is wrong. A misspelt key ("minutes": 5)
    /// measured the default two minutes.
    @Test("readiness: a store that cannot be read is said, as by the history; a key a measurement does not take is a 400")
    func readinessRoutes() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            try await client.execute(uri: "/api/readiness", method: .get, headers: Self.local) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#""readiness":null"#), "\(String(buffer: response.body))")
            }
            for body in [#"{"minutes": 5}"#, "[]"] {
                try await client.execute(uri: "/api/readiness", method: .post, headers: Self.json, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body): \(String(buffer: response.body))")
                }
            }
        }
        try Data("not a database".utf8).write(to: folder.appendingPathComponent("intervalpro.sqlite"))
        try await app.test { client in
            for uri in ["/api/readiness", "/api/sessions"] {
                try await client.execute(uri: uri, method: .get, headers: Self.local) { response in
                    #expect(response.status == .internalServerError, "\(uri): \(String(buffer: response.body))")
                    #expect(String(buffer: response.body).contains("not an IntervalPro database"), "\(uri): \(String(buffer: response.body))")
                }
            }
        }
    }

    @Test("trends: an empty store gives no sessions; weeks out of 1-520 is a 400")
    func trends() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            try await client.execute(uri: "/api/trends?weeks=4", method: .get, headers: Self.local) { response in
                #expect(response.status == .ok)
                let body = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                #expect((body?["sessions"] as? [Any])?.isEmpty == true)
                #expect(body?["weeks"] as? Int == 4)
            }
            for weeks in ["0", "521", "x"] {
                try await client.execute(uri: "/api/trends?weeks=\(weeks)", method: .get, headers: Self.local) { response in
                    #expect(response.status == .badRequest, "weeks=\(weeks)")
                }
            }
        }
    }

    /// The page listed the newest 200 and no more: a year of runs lost its first months.
    @Test("sessions: a page at a time, with the total; limit and offset out of range are a 400")
    func sessionsPageByPage() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try StoreLocation(path: folder.appendingPathComponent("intervalpro.sqlite").path).open()
        for day in 1...5 {
            _ = try store.beginSession(
                startedAt: "2026-11-0\(day)T07:30:00Z", planName: "Run \(day)",
                planText: #"{"name": "Run", "steps": [{"kind": "work", "duration": 60}]}"#, source: .simulation, devices: [], owner: "test")
        }
        try await app.test { client in
            // (query, the plans listed, newest first)
            let pages: [(String, [String])] = [
                ("", ["Run 5", "Run 4", "Run 3", "Run 2", "Run 1"]), ("?limit=2", ["Run 5", "Run 4"]), ("?limit=2&offset=4", ["Run 1"]),
            ]
            for (query, names) in pages {
                try await client.execute(uri: "/api/sessions\(query)", method: .get, headers: Self.local) { response in
                    #expect(response.status == .ok, "\(query): \(String(buffer: response.body))")
                    let body = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                    let listed = ((body?["sessions"] as? [[String: Any]]) ?? []).compactMap { $0["plan"] as? String }
                    #expect(listed == names, "\(query)")
                    #expect(body?["total"] as? Int == 5, "\(query)")
                }
            }
            for query in ["limit=0", "limit=1001", "limit=x", "offset=-1"] {
                try await client.execute(uri: "/api/sessions?\(query)", method: .get, headers: Self.local) { response in
                    #expect(response.status == .badRequest, "\(query)")
                }
            }
        }
    }

    /// A store that could not be read made every report link "no finished session" (404), as
    /// if the session were gone; the session list said the store's error.
    @Test("a report from a store that cannot be read is the store's error (500), not a 404")
    func aReportFromABrokenStoreSaysSo() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(repeating: 0x5A, count: 5000).write(to: folder.appendingPathComponent("intervalpro.sqlite"))
        try await app.test { client in
            try await client.execute(uri: "/sessions/1/report", method: .get, headers: Self.local) { response in
                #expect(response.status == .internalServerError)
                #expect(String(buffer: response.body).contains("not an IntervalPro database"), "\(String(buffer: response.body))")
            }
        }
    }

    @Test("sessions: deleting or uploading one that is not there is a 404; a bad upload body a 400")
    func sessions() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            try await client.execute(uri: "/api/sessions/7", method: .delete, headers: Self.local) { response in
                #expect(response.status == .notFound)
            }
            // JSON is application/json, with its parameters or none; "application/jsonx" was taken for it.
            for (type, expected) in [
                ("application/jsonx", HTTPResponse.Status.unsupportedMediaType), ("Application/JSON; charset=utf-8", .notFound),
            ] {
                try await client.execute(
                    uri: "/api/sessions/7/upload", method: .post, headers: [.contentType: type], body: ByteBuffer(string: #"{"to":"all"}"#)
                ) { response in
                    #expect(response.status == expected, "\(type)")
                }
            }
            try await client.execute(
                uri: "/api/sessions/7/upload", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"to":"garmin"}"#)
            ) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(
                uri: "/api/sessions/7/upload", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"force":"yes"}"#)
            ) { response in
                #expect(response.status == .badRequest)
            }
            // No such session, whatever the accounts (without any it was 409, "no accounts yet").
            try await client.execute(uri: "/api/sessions/7/upload", method: .post, headers: Self.json, body: ByteBuffer(string: "{}")) {
                response in
                #expect(response.status == .notFound, "\(String(buffer: response.body))")
            }
        }
    }

    @Test("starting: plan and planned both, or neither, is a 400; so is a bad metronome, volume or voice")
    func startRefusals() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            for body in [
                #"{"plan":"a","planned":"1","source":"simulate"}"#, #"{"source":"simulate"}"#,
            ] {
                try await client.execute(uri: "/api/sessions", method: .post, headers: Self.json, body: ByteBuffer(string: body)) {
                    #expect($0.status == .badRequest, "\(body)")
                }
            }
            let choice = WebServer.soundChoice
            #expect(try choice(JSONParser.parse(Array(#"{"metronome":"off-target","volume":0.5,"voice":"es"}"#.utf8))).get()
                == SessionHost.SoundChoice(metronome: .offTarget, volume: 0.5, voice: .es))
            #expect(try choice(JSONParser.parse(Array(#"{"voice":"off"}"#.utf8))).get() == SessionHost.SoundChoice(noVoice: true))
            for bad in [#"{"metronome":"loud"}"#, #"{"volume":1.5}"#, #"{"voice":"fr"}"#, #"{"voice":3}"#] {
                let node = try JSONParser.parse(Array(bad.utf8))
                if case .success = choice(node) { Issue.record("\(bad) was taken") }
            }
        }
    }

    @Test("scan: seconds out of 1-60 is a 400; a server that shows a session run elsewhere scans nothing (409)")
    func scan() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            try await client.execute(uri: "/api/scan", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"seconds":0}"#)) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/api/scan", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"seconds":5}"#)) {
                #expect($0.status == .conflict)
            }
            try await client.execute(uri: "/api/plans/preview?id=nothing.json", method: .get, headers: Self.local) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/manifest.webmanifest", method: .get, headers: Self.local) { response in
                #expect(response.status == .ok)
                let manifest = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                #expect(manifest?["display"] as? String == "standalone")
            }
        }
    }

    @Test("a path or method no route serves: 404 with a JSON error, as every error is")
    func unknownRoutes() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            for (uri, method) in [("/api/nope", HTTPRequest.Method.get), ("/api/state", .post), ("/api/command", .get)] {
                try await client.execute(uri: uri, method: method, headers: Self.local) { response in
                    #expect(response.status == .notFound, "\(method) \(uri)")
                    let body = try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                    #expect((body?["error"] as? String)?.contains("\(method.rawValue) \(uri)") == true, "\(method) \(uri): \(String(buffer: response.body))")
                }
            }
        }
    }

    /// `curl -I` of the page was a 404: HEAD had no route.
    @Test("HEAD answers as GET does, without the body; off loopback it wants the token as GET does")
    func headIsGetWithoutTheBody() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            for uri in ["/", "/api/sessions", "/icon.svg"] {
                let get = try await client.execute(uri: uri, method: .get, headers: Self.local) { $0 }
                try await client.execute(uri: uri, method: .head, headers: Self.local) { head in
                    #expect(head.status == .ok, "HEAD \(uri)")
                    #expect(head.status == get.status && head.body.readableBytes == 0, "HEAD \(uri)")
                    #expect(head.headers[.contentType] == get.headers[.contentType], "HEAD \(uri)")
                }
            }
        }
        let (guarded, elsewhere) = try application(token: "0123456789abcdef0123456789abcdef")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try await guarded.test { client in
            try await client.execute(uri: "/api/sessions", method: .head, headers: [:]) { #expect($0.status == .unauthorized) }
        }
    }

    @Test("sensors: a choice must be what run --hr/--cadence takes, a Bluetooth address or ant:NUMBER; anything else is a 400")
    func sensorChoices() async throws {
        let (app, folder) = try application()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            for body in [
                #"{"heartRate":"not-an-address"}"#, #"{"cadence":"ant:abc"}"#, #"{"cadence":"ant:70000"}"#, #"{"heartRate":""}"#,
                #"{"heartRate":"A0:9E:1A:12:34"}"#, #"{"cadence":"A0:9E:1A:12:34:GG"}"#, #"{"cadence":42}"#,
            ] {
                try await client.execute(uri: "/api/sensors", method: .put, headers: Self.json, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    #expect(String(buffer: response.body).contains("Bluetooth address"), "\(body): \(String(buffer: response.body))")
                }
            }
        }
        #expect(SensorChoice.isDeviceChoice("a0:9e:1a:12:34:56") && SensorChoice.isDeviceChoice("ant:0") && SensorChoice.isDeviceChoice("ANT:65535"))
    }

    @Test("off loopback, the new routes want the token; a foreign Origin may not delete, choose or scan")
    func access() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        let (app, folder) = try application(token: token)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await app.test { client in
            for (uri, method) in [
                ("/api/trends", HTTPRequest.Method.get), ("/api/sensors", .get), ("/api/checks", .get), ("/api/today", .get),
                ("/api/sessions/1", .delete), ("/api/scan", .post), ("/api/sensors", .put), ("/api/sessions/1/upload", .post),
            ] {
                try await client.execute(uri: uri, method: method, headers: [:]) {
                    #expect($0.status == .unauthorized, "\(method) \(uri)")
                }
            }
            let foreign: HTTPFields = [
                .authorization: "Bearer \(token)", .origin: "http://evil.example", .contentType: "application/json",
            ]
            for (uri, method) in [("/api/sessions/1", HTTPRequest.Method.delete), ("/api/scan", .post), ("/api/sensors", .put)] {
                try await client.execute(uri: uri, method: method, headers: foreign, body: ByteBuffer(string: "{}")) {
                    #expect($0.status == .forbidden, "\(method) \(uri)")
                }
            }
        }
    }

    /// A work cadence of 170.472 was listed as 170.5, which the page rounds again: 171 on the
    /// phone, 170 in `history`. It is listed as kept, and rounds as `history` rounds it.
    @Test("the page's work cadence is the one history prints, not rounded twice")
    func workCadenceIsRoundedOnce() throws {
        let listing = SessionListing(
            id: 1, startedAt: "2026-11-28T07:30:00Z", planName: "Ladder", source: .simulation, status: .finished,
            averageWorkCadence: 170.472)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(WebServer.history([listing]).utf8)) as? [String: Any])
        let listed = try #require((json["sessions"] as? [[String: Any]])?.first?["averageWorkCadence"] as? Double)
        // The page's Math.round, and history's figure.
        #expect((listed + 0.5).rounded(.down) == 170)
        #expect(formatFigure(listing.averageWorkCadence) == "170")
    }

    /// The page's history said "finished" of a session `history` and the report call "finished (early)".
    @Test("the page's history says a session stopped early as the command line does")
    func historyStatusAsTheCommandLineSaysIt() throws {
        let early = SessionListing(
            id: 3, startedAt: "2026-11-28T07:30:00Z", planName: "Ladder", source: .simulation, status: .finished, completed: false)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(WebServer.history([early]).utf8)) as? [String: Any])
        let session = try #require((json["sessions"] as? [[String: Any]])?.first)
        #expect(session["status"] as? String == "finished")
        #expect(session["statusText"] as? String == "finished (early)")
        #expect(early.statusText == "finished (early)")
        var whole = early
        whole.completed = true
        #expect(whole.statusText == "finished")
    }
}
