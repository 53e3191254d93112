import Hummingbird
import Logging
import NIOCore

/// The one-shot loopback page an OAuth authorization redirects to
/// (`http://127.0.0.1:PORT/callback?state=...&code=...`): it serves until a request brings
/// an answer `decide` accepts, then stops. Requests it does not accept (another `state`, a
/// stray favicon) are refused and the wait goes on.
public enum OAuthCallback {
    public struct Reply: Sendable {
        public var accepted: Bool
        public var page: String

        public init(accepted: Bool, page: String) {
            self.accepted = accepted
            self.page = page
        }
    }

    public struct TimedOut: Error {}

    /// - Parameters:
    ///   - port: 0 lets the system choose; `ready` learns the port once it is bound.
    ///   - decide: the reply to the query of a GET /callback (the browser waits for it: the
    ///     page says how the setup ended, not that it began).
    /// - Returns: the query of the accepted request.
    public static func wait(
        port: Int, timeout: Duration, ready: @escaping @Sendable (Int) -> Void,
        decide: @escaping @Sendable (Substring) async -> Reply
    ) async throws -> String {
        var logger = Logger(label: "intervalpro.oauth")
        logger.logLevel = .critical
        let (accepted, accept) = AsyncStream.makeStream(of: String.self)
        let router = Router()
        router.get("/callback") { request, _ -> Response in
            let query = request.uri.query ?? ""
            let reply = await decide(Substring(query))
            if reply.accepted { accept.yield(query) }
            return Response(
                status: reply.accepted ? .ok : .badRequest,
                headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: reply.page)))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? port) }, logger: logger)
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                try await app.run()
                return nil
            }
            group.addTask {
                for await query in accepted {
                    // The browser gets its page before the server stops.
                    try? await Task.sleep(for: .milliseconds(200))
                    return query
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TimedOut()
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let query = result { return query }
            }
            throw TimedOut()
        }
    }
}
