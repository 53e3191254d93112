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
