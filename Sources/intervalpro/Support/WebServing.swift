import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProQR
import IntervalProWeb

/// Runs the web server for `serve` and beside `run --web`, saying where the page is.
enum WebServing {
    static func serve(_ server: WebServer, token: String?, stopOnSignals: Bool = false) async throws {
        do {
            try await server.run(stopOnSignals: stopOnSignals) { announce(server.address, token: token) }
        } catch {
            throw Failure("cannot serve on \(server.address): \(error)", status: .unavailable)
        }
    }

    /// `run --web`: the session `request` asks for, with the page showing it; the server
    /// stops when the session ends.
    static func alongside(_ request: SessionRequest, listen: ListenAddress) async throws -> SessionOutcome {
        let token = listen.isLoopback ? nil : try WebToken.load()
        let hub = LiveStateHub()
        let server = WebServer(
            address: listen, host: SessionHost(hub: hub, defaults: nil), token: token,
            store: request.store ?? StoreLocation())
        return try await withThrowingTaskGroup(of: SessionOutcome?.self) { group in
            group.addTask {
                try await serve(server, token: token)
                return nil
            }
            group.addTask { try await SessionLauncher.run(request, hub: hub) }
            // The first to end: the session, or a server that could not start.
            defer {
                hub.stop()
                group.cancelAll()
            }
            while let result = try await group.next() {
                if let outcome = result { return outcome }
            }
            throw Failure("the web server stopped", status: .software)
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
