import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProQR
import IntervalProWeb
#if canImport(Glibc)
import Glibc
#endif

/// Runs the web server for `serve` and beside `run --web`, saying where the page is.
enum WebServing {
    /// The page acts on the session and the history with the server's rights: never root's,
    /// unless asked for in so many words.
    static func refuseRoot(allowed: Bool) throws {
        guard geteuid() == 0, !allowed else { return }
        throw LaunchError(
            "the web page is not served as root: run it as the user whose sessions it keeps (the systemd user unit does), or pass --allow-root",
            kind: .refused)
    }

    static func serve(_ server: WebServer, token: String?, stopOnSignals: Bool = false) async throws {
        try await server.run(stopOnSignals: stopOnSignals) { announce(server.address, token: token) }
    }

    /// `run --web`: the session `request` asks for, with the page showing it; the server
    /// stops when the session ends.
    static func alongside(_ request: SessionRequest, listen: ListenAddress) async throws -> SessionOutcome {
        let token = listen.isLoopback ? nil : try WebToken.load()
        let hub = LiveStateHub()
        let server = WebServer(
            address: listen, host: SessionHost(hub: hub, defaults: nil), token: token,
            store: request.store ?? StoreLocation())
        // The session starts once the page can be served: a port in use stops `run` before it.
        let (listening, nowListening) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: SessionOutcome?.self) { group in
            group.addTask {
                try await server.run(stopOnSignals: false) {
                    announce(server.address, token: token)
                    nowListening.finish()
                }
                return nil
            }
            group.addTask {
                for await _ in listening {}
                try Task.checkCancellation()
                return try await SessionLauncher.run(request, follower: hub)
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                guard let outcome = result else { continue }
                // The pages see the finished state before the server goes.
                await hub.stop(waitingUpTo: .seconds(2))
                return outcome
            }
            throw LaunchError("the web server stopped", kind: .internalError)
        }
    }

    /// The page's address on stderr; off loopback with the token and as a QR code for the phone.
    static func announce(_ address: ListenAddress, token: String?) {
        let url = address.pageURL(token: token)
        Terminal.writeStandardError("intervalpro: web page at \(url)\n")
        guard token != nil else { return }
        if let code = try? QRCode(url) { Terminal.writeStandardError(code.terminalText()) }
    }
}
