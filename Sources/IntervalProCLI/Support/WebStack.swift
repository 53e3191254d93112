public import IntervalProLaunch
public import IntervalProNetwork
public import IntervalProServices
import IntervalProIO
import Synchronization

/// The page's server (Hummingbird on SwiftNIO), for the commands that serve something: `serve`,
/// `run --web`, and `account add strava` (Strava sends the runner back to a loopback page).
///
/// `intervalpro` is built without it, so that no other command pays for it at start-up: Swift's
/// runtime searches every protocol conformance in the binary for each new dynamic cast, and the
/// server stack is a fifth of them. `intervalpro-web` is the same command line with the stack;
/// `intervalpro` hands those commands over to it once their arguments are parsed and valid.
public protocol WebStack: Sendable {
    /// `serve`: the page, with sessions started from it getting these defaults, until stopped.
    func serve(
        listen: ListenAddress, newToken: Bool, allowRoot: Bool, sensors: SensorRequest, audio: AudioChoice,
        music: MusicRequest?, store: StoreLocation, display: SessionDisplay
    ) async throws

    /// `run --web`: the session `request` asks for, with the page showing it.
    func runAlongside(_ request: SessionRequest, listen: ListenAddress, allowRoot: Bool) async throws -> SessionOutcome

    /// `account add strava`: the address to open goes to `show`, and the account comes back once
    /// Strava has sent the runner to the loopback callback.
    func addStrava(
        clientID: String, clientSecret: String, port: Int, wait: Int, openBrowser: Bool, context: ServiceContext,
        show: @escaping @Sendable (_ authorizeURL: String) -> Void
    ) async throws -> StravaAccount
}

/// What `intervalpro` does with a command that serves a page: hands the process over to
/// `intervalpro-web` with the same arguments. The commands ask for the stack first thing in
/// `run()`, before they do anything, so that the hand-over repeats nothing.
enum WebStackHandOff {
    /// This binary's web stack, if it has one.
    static let installed = Mutex<(any WebStack)?>(nil)

    /// The web stack: this binary's, or else the process goes on in `intervalpro-web`, with the
    /// same arguments.
    static func stack() throws -> any WebStack {
        if let stack = installed.withLock({ $0 }) { return stack }
        try handOver(arguments: CommandLine.arguments)
    }

    /// Only returns by throwing, when the companion is missing or cannot be started.
    static func handOver(arguments: [String]) throws -> Never {
        guard let path = CompanionProgram.find(CompanionProgram.webServer) else {
            throw LaunchError(
                "\(CompanionProgram.notInstalled(CompanionProgram.webServer)): it serves the page for serve, run --web and Strava's sign-in; "
                    + CompanionProgram.reinstall,
                kind: .unavailable)
        }
        let failure = CompanionProgram.replaceProcess(with: path, arguments: arguments)
        throw LaunchError("could not start \(path): \(failure)", kind: .unavailable)
    }
}
