import IntervalProCore
import IntervalProIO
import IntervalProLaunch
import IntervalProQR
import IntervalProWeb

/// Runs the web server for `serve` and beside `run --web`, saying where the page is.
enum WebServing {
    static func serve(_ server: WebServer, token: String?, stopOnSignals: Bool = false) async throws {
        try await server.run(stopOnSignals: stopOnSignals) { announce(server.address, token: token) }
    }

    /// `run --web`: the session `request` asks for, with the page showing it.
    static func alongside(_ request: SessionRequest, listen: ListenAddress) async throws -> SessionOutcome {
        try await WebServer.alongside(request, listen: listen) { announce($0, token: $1) }
    }

    /// The page's address on stderr; off loopback with the token and as a QR code for the phone.
    static func announce(_ address: ListenAddress, token: String?) {
        let url = address.pageURL(token: token)
        Terminal.writeStandardError("intervalpro: web page at \(url)\n")
        guard token != nil else { return }
        if let code = try? QRCode(url) { Terminal.writeStandardError(code.terminalText()) }
    }
}
