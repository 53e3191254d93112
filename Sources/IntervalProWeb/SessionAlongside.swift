public import IntervalProLaunch

extension WebServer {
    /// `run --web`: the session `request` asks for, with the page showing it. The session
    /// starts once the page can be served (a port in use stops `run` before it); the server
    /// stops when the session ends, after the pages saw the finished state. `listening` is
    /// told the server's address and token (off loopback) when it listens.
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
        return try await withThrowingTaskGroup(of: SessionOutcome?.self) { group in
            group.addTask {
                try await server.run(stopOnSignals: false) {
                    listening(server.address, token)
                    nowServed.finish()
                }
                return nil
            }
            group.addTask {
                for await _ in served {}
                try Task.checkCancellation()
                return try await SessionLauncher.run(request, follower: hub)
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                guard let outcome = result else { continue }
                await hub.stop(waitingUpTo: .seconds(2))
                return outcome
            }
            throw LaunchError("the web server stopped", kind: .internalError)
        }
    }
}
