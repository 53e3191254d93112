import Hummingbird
import HummingbirdWebSocket
import IntervalProCore
import IntervalProHistory
import IntervalProIO
public import IntervalProLaunch
import IntervalProStorage
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import HummingbirdCore
#if canImport(Glibc)
import Glibc
#endif
import ServiceLifecycle
import UnixSignals
import IntervalProIO

/// The page, its JSON API and its WebSocket (docs/reference/web-api.md), on Hummingbird.
public struct WebServer: Sendable {
    public let address: ListenAddress
    public let host: SessionHost
    public let access: WebAccess
    /// Where the history is read from.
    public let store: StoreLocation
    let catalogue = WebCatalogue()

    /// Request bodies larger than this are refused (413): commands and starts are a few bytes.
    public static let bodyLimit = 16 * 1024

    public init(address: ListenAddress, host: SessionHost, token: String?, store: StoreLocation) {
        self.address = address
        self.host = host
        access = WebAccess(token: address.isLoopback ? nil : token)
        self.store = store
    }

    /// Serves until cancelled, or with `stopOnSignals` until SIGTERM, SIGINT or SIGHUP, or until
    /// `stopping` ends; `listening` is called once the socket is bound. A signal or `stopping`
    /// stops gracefully: no new connections, and the requests in flight are answered first, for
    /// `stopGrace` at most, then cancelled.
    ///
    /// The server is put together here rather than by Hummingbird's `Application`, whose run
    /// also starts a task that formats the Date header once a second: an idle `serve` on a Pi
    /// woke some six times a second for it, all day. The header is written per response instead.
    /// HTTP/1 with the WebSocket upgrade, as `http1WebSocketUpgrade` builds it, with time
    /// limits: 10 s for a connection's first request head, 30 s idle between requests.
    /// `ownUserOnly`: connections from other users' processes are refused (on loopback, where
    /// no token is asked).
    static func serverBuilder(_ router: Router<BasicWebSocketRequestContext>, ownUserOnly: Bool) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        return HTTPServerBuilder { responder -> any ServerChildChannel in
            let channel = HeadDeadlineChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(idleTimeout: .seconds(30)))),
                deadline: .seconds(10))
            if ownUserOnly { return OwnUserOnlyChannel(inner: channel) }
            return channel
        }
    }

    public func run(
        stopOnSignals: Bool, stopping: AsyncStream<Void>? = nil, listening: @escaping @Sendable () -> Void
    ) async throws {
        var logger = Logger(label: "intervalpro.web")
        // Its messages are for its developers; failures to serve reach the user as errors.
        logger.logLevel = .critical
        let router = makeRouter()
        let responder = router.buildResponder()
        do {
            let server = try Self.serverBuilder(router, ownUserOnly: access.token == nil).buildServer(
                configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
                responder: { [logger, hub = host.hub] request, writer, channel in
                    let context = BasicWebSocketRequestContext(source: .init(channel: channel, logger: logger))
                    var response: Response
                    do {
                        response = try await responder.respond(to: request, context: context)
                    } catch let error as HTTPParserError {
                        throw error
                    } catch {
                        response = Response(status: .internalServerError)
                    }
                    response.headers[.date] = HTTPDate.now
                    try await writer.write(response: response.head, body: response.body)
                    IdleMemory.releaseWhenIdle(hub)
                },
                onServerRunning: { _ in
                    listening()
                    IdleMemory.releaseWhenIdle(host.hub)
                })
            // A closed terminal or a dropped ssh killed the server mid-session (the session left
            // running, the last second lost): a hang-up stops it as SIGTERM does, unless nohup
            // asked that it be ignored.
            let signals: [UnixSignal] = [.sigterm, .sigint] + (InterruptSignal.hangUpIgnored ? [] : [.sighup])
            var configuration = ServiceGroupConfiguration(
                services: [server], gracefulShutdownSignals: stopOnSignals ? signals : [], logger: logger)
            // Requests in flight get this long to finish, then are cancelled: one waiting on a
            // silent service (4 tries of 30 s) held a stop for 125 s, past systemd's 90.
            configuration.maximumGracefulShutdownDuration = Self.stopGrace
            let services = ServiceGroup(configuration: configuration)
            try await services.run(stoppingGracefullyWhen: stopping)
        } catch let error as IOError {
            // A port in use, an address not on this machine: said as the system says it.
            throw LaunchError("cannot listen on \(address): \(error.systemMessage)", kind: .unavailable)
        } catch is SocketAddressError.UnknownHost {
            // A host name that does not resolve (a typo): it was printed raw, and exited 1.
            throw LaunchError("cannot listen on \(address): no address found for that host name", kind: .usage)
        }
    }

    static let stopGrace = Duration.seconds(5)

    func makeRouter() -> Router<BasicWebSocketRequestContext> {
        // HEAD answers as GET without the body (RFC 9110 §9.3.2: a general-purpose server supports
        // both); `curl -I` and link checkers were told 404 of the page.
        let router = Router(context: BasicWebSocketRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.middlewares.add(AccessMiddleware(access: access))
        router.middlewares.add(NotFoundMiddleware())
        let (hub, host, catalogue, store) = (host.hub, self.host, catalogue, self.store)

        router.get("/") { _, _ in Self.page() }
        router.get("/history") { _, _ in Self.page() }
        router.get("/sensors") { _, _ in Self.page() }
        // "Add to Home screen": the app full screen, with its icon (both from here, not the network).
        router.get("/manifest.webmanifest") { _, _ in
            Self.response(.ok, contentType: "application/manifest+json", WebPage.manifest)
        }
        router.get("/icon.svg") { _, _ in Self.response(.ok, contentType: "image/svg+xml", WebPage.icon) }
        router.get("/sessions/:id/report") { _, context -> Response in
            guard let id = context.parameters.get("id", as: Int64.self) else {
                return Self.error(.notFound, "no such session")
            }
            let found: StoredSession?
            do {
                found = try store.open(readingOnly: true).session(id: id, loading: [.samples, .alphaOne])
            } catch let error as StoreError where error.isUnreadablePlan {
                // A later version's session: there, but not readable here (the command line's 65).
                return Self.error(.unprocessableContent, "\(error)")
            } catch {
                // A store that cannot be read is not a session that is gone (it said 404).
                return Self.error(.internalServerError, "\(error)")
            }
            guard let session = found, session.summary != nil else { return Self.error(.notFound, "no finished session \(id)") }
            let readiness = ReadinessToday.trend(store, before: session.listing.startedAt)
            return Self.response(.ok, contentType: "text/html; charset=utf-8", HTMLReport.page(session, readiness: readiness, localStart: WallClock.localDateTime(of: session.listing.startedAt)))
        }
        router.get("/api/state") { _, _ in Self.json(.ok, hub.current) }
        router.post("/api/command") { request, _ -> Response in
            switch await Self.jsonBody(request) {
            case .failure(let refusal): refusal.response
            case .success(let body): Self.command(body, hub: hub)
            }
        }
        router.get("/api/plans") { _, _ in Self.json(.ok, Self.plans(catalogue)) }
        // Plan ids are paths ("examples/cadence-ladder.json"): in the query, not the path.
        router.get("/api/plans/preview") { request, _ -> Response in
            guard let id = request.uri.queryParameters.get("id"), let entry = catalogue.plan(id: id) else {
                return Self.error(.notFound, "no such plan")
            }
            do {
                let plan = try loadPlan(entry.path)
                return Self.json(.ok, PlanPreview.json(plan, plan.timeline()).serialized(pretty: false))
            } catch {
                // What is wrong and where, as `plan check` says it: the page is a Pi's only screen.
                return Self.error(.unprocessableContent, "\(error)")
            }
        }
        router.get("/api/today") { _, _ -> Response in Self.json(.ok, await TodaysRuns.json()) }
        router.get("/api/recordings") { _, _ -> Response in
            let list = catalogue.recordings().map { entry in
                JSONValue.object([("id", .string(entry.id)), ("name", .string(BundledFiles.stem(of: entry.path)))])
            }
            return Self.json(.ok, JSONValue.object([("recordings", .array(list))]).serialized(pretty: false))
        }
        router.post("/api/sessions") { request, _ -> Response in
            let body: JSONNode
            switch await Self.jsonBody(request) {
            case .failure(let refusal): return refusal.response
            case .success(let node): body = node
            }
            return await Self.start(body, host: host, catalogue: catalogue)
        }
        router.get("/api/sessions") { request, _ -> Response in
            // A page at a time (a year of runs is over 200 sessions): `total` says how many there are.
            let query = request.uri.queryParameters
            let limit = query.get("limit").map { Int($0) } ?? 200
            let offset = query.get("offset").map { Int($0) } ?? 0
            guard let limit, (1...1000).contains(limit) else { return Self.error(.badRequest, "'limit' must be from 1 to 1000") }
            guard let offset, offset >= 0 else { return Self.error(.badRequest, "'offset' must be 0 or more") }
            host.closeAbandonedSessions()
            do {
                let opened = try store.open(readingOnly: true)
                let (listings, total) = try storeCall { () throws(StoreError) in
                    (try opened.listings(limit: limit, skipping: offset), try opened.sessionCount())
                }
                var uploads: [Int64: [UploadRecord]] = [:]
                for listing in listings {
                    uploads[listing.id] = try storeCall { () throws(StoreError) in try opened.uploads(session: listing.id) }
                }
                return Self.json(.ok, Self.history(listings, uploads: uploads, total: total))
            } catch let failure as LaunchError {
                return Self.error(failure)
            }
        }
        router.get("/api/trends") { request, _ -> Response in
            let weeks = request.uri.queryParameters.get("weeks").map { Int($0) } ?? 12
            guard let weeks, (1...520).contains(weeks) else { return Self.error(.badRequest, "'weeks' must be from 1 to 520") }
            do {
                let opened = try store.open(readingOnly: true)
                let report = try storeCall { () throws(StoreError) in try TrendsReport(store: opened, weeks: weeks) }
                return Self.json(.ok, report.json.serialized(pretty: false))
            } catch let failure as LaunchError {
                return Self.error(failure)
            }
        }
        router.delete("/api/sessions/:id") { _, context -> Response in
            host.closeAbandonedSessions()
            guard let id = context.parameters.get("id", as: Int64.self) else { return Self.error(.notFound, "no such session") }
            do {
                switch try store.delete(id: id).deletion {
                case .deleted:
                    host.hub.sessionDeleted(id)
                    return Response(status: .noContent, headers: [.cacheControl: "no-store"])
                case .noSuchSession: return Self.error(.notFound, "no session \(id)")
                case .running: return Self.error(.conflict, "session \(id) is running: finish it first")
                }
            } catch let failure as LaunchError {
                return Self.error(failure)
            }
        }
        router.post("/api/sessions/:id/upload") { request, context -> Response in
            guard let id = context.parameters.get("id", as: Int64.self) else { return Self.error(.notFound, "no such session") }
            let body: JSONNode
            switch await Self.jsonBody(request) {
            case .failure(let refusal): return refusal.response
            case .success(let node): body = node
            }
            return await SessionUpload.respond(id: id, body: body, store: store)
        }
        router.get("/api/sensors") { _, _ -> Response in Self.json(.ok, SensorChoice.state(host: host)) }
        router.put("/api/sensors") { request, _ -> Response in
            let body: JSONNode
            switch await Self.jsonBody(request) {
            case .failure(let refusal): return refusal.response
            case .success(let node): body = node
            }
            return SensorChoice.choose(body, host: host)
        }
        router.post("/api/scan") { request, _ -> Response in
            let body: JSONNode
            switch await Self.jsonBody(request) {
            case .failure(let refusal): return refusal.response
            case .success(let node): body = node
            }
            var seconds = 10.0
            if let node = body["seconds"] {
                guard let value = node.numberValue, (1...60).contains(value) else {
                    return Self.error(.badRequest, "'seconds' must be a number from 1 to 60")
                }
                seconds = value
            }
            do throws(SessionHost.StartError) {
                try host.startScan(seconds: seconds)
            } catch {
                switch error {
                case .notHere: return Self.error(.conflict, "this page shows the session `intervalpro run` started; `intervalpro serve` scans")
                case .busy: return Self.error(.conflict, "a session, a measurement or a scan is running: a scan would disturb it")
                case .busyElsewhere(let session): return Self.error(.conflict, Self.recordedElsewhere(session))
                case .unreadable(let message): return Self.error(.unprocessableContent, message)
                }
            }
            return Self.json(.accepted, #"{"scanning":true}"#)
        }
        router.get("/api/checks") { _, _ -> Response in
            Self.json(.ok, Checkup.json(await Checkup.run()).serialized(pretty: false))
        }
        router.post("/api/readiness") { request, _ -> Response in
            let body: JSONNode
            switch await Self.jsonBody(request) {
            case .failure(let refusal): return refusal.response
            case .success(let node): body = node
            }
            if let refusal = Self.unknownKey(in: body, taking: ["duration"], "a measurement takes duration (minutes)") { return refusal }
            var minutes = 2.0
            if let node = body["duration"] {
                guard let value = node.numberValue, (1...5).contains(value) else {
                    return Self.error(.badRequest, "'duration' must be a number of minutes from 1 to 5")
                }
                minutes = value
            }
            do throws(SessionHost.StartError) {
                try host.startReadiness(duration: minutes)
            } catch {
                switch error {
                case .notHere:
                    return Self.error(.conflict, "this page shows the session `intervalpro run` started; `intervalpro serve` measures")
                case .busy: return Self.error(.conflict, "a session or a measurement is running: finish it first")
                case .busyElsewhere(let session): return Self.error(.conflict, Self.recordedElsewhere(session))
                case .unreadable(let message): return Self.error(.unprocessableContent, message)
                }
            }
            return Self.json(.accepted, #"{"started":true}"#)
        }
        router.get("/api/readiness") { _, _ -> Response in
            let today = WallClock.localDateToday()
            do {
                // A store that cannot be read is said, as /api/sessions and `readiness history`
                // say it: the start page said "No measurement yet".
                let readiness = try ReadinessToday.reading(store, today: today).map(ReadinessJSON.today) ?? .null
                return Self.json(.ok, JSONValue.object([("date", .string(today)), ("readiness", readiness)]).serialized(pretty: false))
            } catch let failure as LaunchError {
                return Self.error(failure)
            }
        }
        // A plain GET (no Upgrade) was answered 200 with nothing: it is told what it reached.
        router.ws("/api/live", shouldUpgrade: { request, _ in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                throw HTTPError(.upgradeRequired, message: "/api/live is a WebSocket: open it as one (the page does)")
            }
            return .upgrade([:])
        }) { inbound, outbound, _ in
            // Until the page goes away: its frames are read (and dropped) so a close is seen.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for try await _ in inbound {} }
                group.addTask {
                    // A server stopping (SIGTERM) ends the readers, so their connections close.
                    try await withGracefulShutdownHandler {
                        try await hub.forEachState { try await outbound.write(.text($0)) }
                    } onGracefulShutdown: {
                        hub.stop()
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
        return router
    }

    /// Why a plan folder's entry that is no regular file is not read. A link to nothing, or a
    /// name that is not UTF-8 (read back, it names no file), was said to be a FIFO or a device.
    static func notRead(_ entry: WebCatalogue.Entry) -> String {
        BundledFiles.exists(entry.path)
            ? "not a regular file (a FIFO or a device): not read"
            : "\(entry.path): cannot be opened (a link to a file that is not there, or a name that is not UTF-8)"
    }

    /// The plans the page offers, and those in its folders it cannot offer with what is wrong
    /// in each: on a Pi without a screen, a plan with a typo is otherwise just not there.
    static func plans(_ catalogue: WebCatalogue) -> String {
        var list: [JSONValue] = []
        var unreadable: [JSONValue] = []
        for entry in catalogue.plans() {
            guard entry.isRegularFile else {
                unreadable.append(.object([("id", .string(entry.id)), ("error", .string(notRead(entry)))]))
                continue
            }
            do {
                let plan = try loadPlan(entry.path)
                let timeline = plan.timeline()
                list.append(
                    .object([
                        ("id", .string(entry.id)), ("name", .string(plan.name)), ("folder", .string(entry.folder)),
                        ("steps", .int(timeline.count)), ("duration", timeline.duration.map { .number($0.seconds) } ?? .null),
                    ]))
            } catch {
                unreadable.append(.object([("id", .string(entry.id)), ("error", .string("\(error)"))]))
            }
        }
        for (id, problem) in catalogue.unlistedPlanFolders() {
            unreadable.append(.object([("id", .string(id)), ("error", .string(problem))]))
        }
        // Where the user's own plans go, so that a page with none to offer can say it.
        let userFolder = catalogue.planFolders.first { $0.folder == "mine" }.map { JSONValue.string($0.path) } ?? .null
        return JSONValue.object([("plans", .array(list)), ("unreadable", .array(unreadable)), ("userFolder", userFolder)])
            .serialized(pretty: false)
    }

    struct BodyError: Error {
        var response: Response
    }

    /// A POST's JSON body, or the response refusing it: 415 not JSON, 413 too large, 400 malformed.
    static func jsonBody(_ request: Request) async -> Result<JSONNode, BodyError> {
        let type = request.headers[.contentType] ?? ""
        // "application/json", with parameters or none ("application/jsonx" is another type).
        let mediaType = type.split(separator: ";", maxSplits: 1).first.map { $0.filter { !$0.isWhitespace }.lowercased() } ?? ""
        guard mediaType == "application/json" else {
            return .failure(BodyError(response: error(.unsupportedMediaType, "send JSON (Content-Type: application/json)")))
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > bodyLimit {
            return .failure(BodyError(response: error(.contentTooLarge, "the body is over \(bodyLimit) bytes")))
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: bodyLimit)
        } catch {
            return .failure(BodyError(response: Self.error(.contentTooLarge, "the body is over \(bodyLimit) bytes")))
        }
        do {
            let node = try JSONParser.parse(Array(buffer.readableBytesView))
            guard case .object = node.kind else {
                return .failure(BodyError(response: error(.badRequest, "the body must be a JSON object")))
            }
            return .success(node)
        } catch {
            return .failure(BodyError(response: Self.error(.badRequest, "malformed JSON: \(error.message)")))
        }
    }

    /// The 400 for a key of a POST or PUT body (an object, `jsonBody`) that the route does not
    /// take, `said` saying what it takes; nil when it takes them all. A misspelt key ("sped":
    /// 100, "minutes": 5) was passed over, and the route did its default without a word.
    static func unknownKey(in body: JSONNode, taking keys: [String], _ said: String) -> Response? {
        guard case .object(let members) = body.kind, let unknown = members.first(where: { !keys.contains($0.key) }) else { return nil }
        return error(.badRequest, "unknown key '\(unknown.key)': \(said)")
    }

    static func page() -> Response {
        response(.ok, contentType: "text/html; charset=utf-8", WebPage.html)
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        response(status, contentType: "application/json", text)
    }

    /// The answer to a request that failed with a launcher's error: the one place the page
    /// turns an error's kind into an HTTP status. On the Pi's side that is 500; from a
    /// service (intervals.icu), a thing not there is 404 and any other answer 502.
    static func error(_ failure: LaunchError, fromService: Bool = false) -> Response {
        let status: HTTPResponse.Status =
            switch failure.kind {
            case .missingInput where fromService: .notFound
            // No account, or its key refused: the page's to fix, as an upload's is (it was 502,
            // though nothing was asked of the service).
            case .refused where fromService: .conflict
            case _ where fromService: .badGateway
            default: .internalServerError
            }
        return error(status, failure.message)
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(status, JSONValue.object([("error", .string(message))]).serialized(pretty: false))
    }

    static func response(_ status: HTTPResponse.Status, contentType: String, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension IOError {
    /// What the system says of it ("Address already in use"), without NIO's call and errno.
    var systemMessage: String { String(cString: strerror(errnoCode)) }
}
