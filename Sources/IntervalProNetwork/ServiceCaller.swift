public import IntervalProServices

/// Sends a service's requests through a transport, retrying as `RetryPolicy` decides, and
/// turns what finally came back into an answer or a `ServiceError`. The clock and the
/// pause are injected: tests of the policy need no waiting, the program uses real time.
public struct ServiceCaller: Sendable {
    public var service: Service
    public var send: @Sendable (HTTPRequest) async throws(TransportError) -> HTTPResponse
    public var policy = RetryPolicy()
    /// Seconds since 1970 (UTC).
    public var now: @Sendable () -> Double
    public var pause: @Sendable (Double) async -> Void
    /// Progress for the runner ("strava: HTTP 503, trying again in 2 s"), on stderr.
    public var progress: @Sendable (String) -> Void
    /// `-v`: each request's method, path and status; never a secret (URLs of requests
    /// carrying secrets are not logged, only their `summary`).
    public var log: @Sendable (String) -> Void

    public init(
        service: Service, send: @escaping @Sendable (HTTPRequest) async throws(TransportError) -> HTTPResponse,
        now: @escaping @Sendable () -> Double, pause: @escaping @Sendable (Double) async -> Void,
        progress: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void
    ) {
        self.service = service
        self.send = send
        self.now = now
        self.pause = pause
        self.progress = progress
        self.log = log
    }

    /// The answer, whatever its status, once no retry is due; a `ServiceError` when there
    /// was no answer at all or the rate limit is too far off.
    public func response(to request: HTTPRequest) async throws(ServiceError) -> HTTPResponse {
        var attempts = 0
        while true {
            attempts += 1
            let outcome: RetryPolicy.Outcome
            var lastError = ""
            do {
                let response = try await send(request)
                log("\(service.rawValue): \(request.summary) → \(response.status)")
                outcome = .answered(response)
            } catch {
                log("\(service.rawValue): \(request.summary) → \(error.message)")
                if error.isPermanent { throw ServiceError(service, .unavailable, error.message) }
                lastError = error.isTimeout ? "no answer within the time limit (\(error.message))" : error.message
                outcome = .transportFailed
            }
            switch policy.decide(after: outcome, attempts: attempts, now: now()) {
            case .retry(let pause):
                let reason = if case .answered(let response) = outcome { "HTTP \(response.status)" } else { lastError }
                progress("\(service.rawValue): \(reason); trying again in \(Self.seconds(pause))")
                await self.pause(pause)
            case .rateLimited(let wait):
                var limited = ServiceError(
                    service, .unavailable,
                    "\(request.summary): rate limit reached; it lifts in \(Self.seconds(wait))")
                limited.status = 429
                throw limited
            case .giveUp:
                if case .answered(let response) = outcome { return response }
                throw ServiceError(
                    service, .unavailable,
                    "\(request.summary): \(lastError) (after \(attempts) attempt\(attempts == 1 ? "" : "s"))")
            }
        }
    }

    /// The answer when it is a success; else the failure it stands for.
    public func success(_ request: HTTPRequest, doing action: String) async throws(ServiceError) -> HTTPResponse {
        let response = try await response(to: request)
        guard response.isSuccess else { throw ServiceError.from(response, service: service, doing: action) }
        return response
    }

    static func seconds(_ value: Double) -> String {
        value < 90 ? "\(Int(value.rounded(.up))) s" : "\(Int((value / 60).rounded(.up))) min"
    }
}
