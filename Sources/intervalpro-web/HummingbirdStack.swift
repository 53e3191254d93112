import IntervalProCLI
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProQR
import IntervalProServices
import IntervalProWeb

/// The page's server for the commands that serve it: Hummingbird, on SwiftNIO.
struct HummingbirdStack: WebStack {
    func serve(
        listen: ListenAddress, newToken: Bool, allowRoot: Bool, sensors: SensorRequest, audio: AudioChoice,
        music: MusicRequest?, store: StoreLocation, display: SessionDisplay
    ) async throws {
        try WebAccess.refuseRoot(allowed: allowRoot)
        let token = listen.isLoopback ? nil : try WebToken.load(renew: newToken)
        let host = SessionHost(
            hub: LiveStateHub(),
            defaults: .init(sensors: sensors, audio: audio, music: music, store: store, display: display))
        let server = WebServer(address: listen, host: host, token: token, store: store)
        try await server.run(stopOnSignals: true) { Self.announce(server.address, token: token) }
        // Stopped (Ctrl-C, systemctl stop): a running session ends and is saved.
        await host.finishRunning()
    }

    func runAlongside(_ request: SessionRequest, listen: ListenAddress, allowRoot: Bool) async throws -> SessionOutcome {
        try WebAccess.refuseRoot(allowed: allowRoot)
        return try await WebServer.alongside(request, listen: listen) { Self.announce($0, token: $1) }
    }

    func addStrava(
        clientID: String, clientSecret: String, port: Int, wait: Int, openBrowser: Bool, context: ServiceContext,
        show: @escaping @Sendable (_ authorizeURL: String) -> Void
    ) async throws -> StravaAccount {
        try await StravaSignIn.add(clientID: clientID, clientSecret: clientSecret, port: port, wait: wait, context: context) {
            url in
            show(url)
            if openBrowser { StravaSignIn.openInBrowser(url) }
        }
    }

    /// The page's address on stderr; off loopback with the token and as a QR code for the phone.
    static func announce(_ address: ListenAddress, token: String?) {
        // Said as what it is: "http://0.0.0.0:8417/?token=…" and its QR code opened nothing.
        if address.awaitsNetwork {
            let query = token.map { "?token=\($0)" } ?? ""
            Terminal.writeStandardError(
                "intervalpro: web page on port \(address.port) of every address, but this machine has no network address yet "
                    + "(the network is not up): once it has, open http://ADDRESS:\(address.port)/\(query) with its address "
                    + "(`hostname -I`), or restart the service for the address and its QR code\n")
            return
        }
        let url = address.pageURL(token: token)
        Terminal.writeStandardError("intervalpro: web page at \(url)\n")
        guard token != nil else { return }
        if let code = try? QRCode(url) { Terminal.writeStandardError(code.terminalText()) }
    }
}
