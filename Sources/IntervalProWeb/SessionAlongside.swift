public import IntervalProLaunch

extension WebServer {
    /// `run --web`: the session `request` asks for, with the page showing it. The session
    /// starts once the page can be served (a port in use stops `run` before it); the server
    /// stops when the session ends, after the pages saw the finished state and the request
    /// that finished it (the page's Finish) was answered. `listening` is told the server's
    /// address and token (off loopback) when it listens.
    public static func alongside(
        _ request: SessionRequest, listen: ListenAddress,
        listening: @escaping @Sendable (_ address: ListenAddress, _ token: String?) -> Void
    ) async throws -> SessionOutcome {
        let token = listen.isLoopback ? nil : try WebToken.load()
        let hub = LiveStateHub()
        let server = WebServer(
            address: listen, host: SessionHost(hub: hub, defaults: nil), token: token,
            store: request.store ?? StoreLocation())
        let (served, nowServed) = AsyncStream.makeStream(of: Void.self)
        let (stopping, stopServing) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: Ended.self) { group in
            group.addTask {
                try await server.run(stopOnSignals: false, stopping: stopping) {
                    listening(server.address, token)
                    nowServed.finish()
                }
                return .server
            }
            group.addTask {
                for await _ in served {}
                try Task.checkCancellation()
                return .session(try await SessionLauncher.run(request, follower: hub))
            }
            defer { group.cancelAll() }
            var finished: SessionOutcome?
            var serving = true
            while let ended = try await group.next() {
                switch ended {
                case .session(let outcome):
                    finished = outcome
                    guard serving else { return outcome }
                    await hub.stop(waitingUpTo: .seconds(2))
                    stopServing.finish()
                    group.addTask {
                        try? await Task.sleep(for: .seconds(2))
                        return .timeLimit
                    }
                case .server:
                    serving = false
                    if let finished { return finished }
                case .timeLimit:
                    if let finished { return finished }
                }
            }
            throw LaunchError("the web server stopped", kind: .internalError)
        }
    }

    /// What ended first beside `run --web`'s session.
    private enum Ended: Sendable {
        case session(SessionOutcome)
        case server
        /// The server had its time to answer what it had after the session ended.
        case timeLimit
    }
}
