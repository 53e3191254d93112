import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// The page's routes answered in process: a request built as a browser sends it (to
/// "localhost") goes through the router's own responder, middleware and errors included, and
/// the response body is read to its end. Hummingbird's `.router` test mode does the same, but
/// its package (HummingbirdTesting) brings AsyncHTTPClient, swift-nio-ssl and a copy of
/// BoringSSL into the test build: some 3 processor-minutes of every CI run, for TLS no test uses.
struct RouterClient {
    let responder: RouterResponder<BasicWebSocketRequestContext>

    init(_ router: Router<BasicWebSocketRequestContext>) {
        responder = router.buildResponder()
    }

    struct Response {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    /// Runs `test` with this client (the shape of Hummingbird's `app.test(.router)`).
    func test<Value>(_ test: (RouterClient) async throws -> Value) async throws -> Value {
        try await test(self)
    }

    /// Sends one request and hands its response to `check`.
    @discardableResult
    func execute<Value>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (Response) async throws -> Value
    ) async throws -> Value {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = BasicWebSocketRequestContext(source: .init(channel: EmbeddedChannel(), logger: Logger(label: "routes")))
        let response = try await responder.respond(to: request, context: context)
        let collector = BodyCollector()
        try await response.body.write(collector)
        return try await check(Response(status: response.status, headers: response.headers, body: collector.body.withLock { $0 }))
    }

    /// Where the response body is written (the writer is consumed by the write: a reference).
    private final class BodyCollector: ResponseBodyWriter, Sendable {
        let body = Mutex(ByteBuffer())

        func write(_ buffer: ByteBuffer) async throws {
            body.withLock { $0.writeImmutableBuffer(buffer) }
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
