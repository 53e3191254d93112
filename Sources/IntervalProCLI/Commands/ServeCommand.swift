public import ArgumentParser
import IntervalProIO
import IntervalProLaunch

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the web page: start, watch and control sessions from a phone's browser.",
        // Past 12 options, all optional, ArgumentParser writes "<options>", as if they were needed.
        usage: "intervalpro serve [<options>]",
        discussion: """
            The page lists the example plans and those in $XDG_CONFIG_HOME/intervalpro/plans, \
            starts a session on live sensors (simulating a runner when none is found), a \
            simulated runner, a bundled recording or the metronome alone (no sensor), shows it live with pause, next and finish, \
            and lists the history with each session's report. On loopback (the default) no token \
            is needed; on any other address every request needs the token printed with the \
            address (and kept in $XDG_DATA_HOME/intervalpro/web-token). The API is in \
            docs/reference/web-api.md (installed in share/doc/intervalpro under the prefix: /usr \
            from the package, /usr/local from `make install`).
            """
    )

    @Option(help: ArgumentHelp("Address and port to listen on, or the address alone (port 8417): 0.0.0.0:8417 for the phone on the same network.", valueName: "host:port"))
    var listen = ListenAddress(host: "127.0.0.1", port: ListenAddress.defaultPort)

    // `serve --port 8000` was "Unknown option '--port'. Did you mean '--hr'?"
    @Option(parsing: .unconditional, help: ArgumentHelp("The port to listen on, on --listen's address.", valueName: "port"))
    var port: Int?

    func validate() throws {
        guard let port else { return }
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
        if listen.port != ListenAddress.defaultPort, listen.port != port {
            throw ValidationError("--listen \(listen) gives a port already: drop --port, or give --listen the address alone")
        }
    }

    private var address: ListenAddress {
        var address = listen
        if let port { address.port = port }
        return address
    }

    @Flag(help: "Make a new token (phones that had the old one must scan the new address).")
    var newToken = false

    @Flag(help: "Serve even as root (the page then acts with root's rights).")
    var allowRoot = false

    @OptionGroup(title: "Live sensors") var sensors: SensorOptions<HeartRateAndCadence>

    @OptionGroup(title: "Metronome and voice") var audio: AudioOptions

    @OptionGroup(title: "Music") var music: MusicOptions

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingFailures {
            try await WebStackHandOff.stack().serve(
                listen: address, newToken: newToken, allowRoot: allowRoot, sensors: sensors.request, audio: audio.choice,
                music: music.request(verbose: sensors.verbose), store: store.location, display: .serverLog)
        }
    }
}

extension ListenAddress: ExpressibleByArgument {
    init?(argument: String) { self.init(argument) }
    var defaultValueDescription: String { description }
}
