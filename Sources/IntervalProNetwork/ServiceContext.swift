import Foundation
public import IntervalProIO
public import IntervalProServices
import Logging

/// What every command that talks to a service needs: the accounts, where each service is,
/// an HTTP transport, and where progress and `-v` logs go.
public final class ServiceContext: @unchecked Sendable {
    // @unchecked: `accounts` changes only on the command's one task (a token refresh).
    public let file: AccountFile
    public private(set) var accounts: Accounts
    public let verbose: Bool
    /// How calls are retried; `doctor` asks once, quickly.
    public let policy: RetryPolicy
    private let transport: Result<CurlTransport, TransportError>
    /// An early renewal of Strava's token failed this command: its other calls use the token
    /// while it is valid rather than try again (each call renewed first, with four attempts:
    /// an upload and its status checks took 30 s on a token endpoint answering 500).
    var stravaEarlyRenewalFailed = false

    public init(
        file: AccountFile, accounts: Accounts, verbose: Bool, timeout: Double? = nil, policy: RetryPolicy = RetryPolicy()
    ) {
        self.file = file
        self.accounts = accounts
        self.verbose = verbose
        self.policy = policy
        let seconds = timeout ?? Self.timeoutFromEnvironment()
        transport = Result { () throws(TransportError) in try CurlTransport(timeout: seconds) }
    }

    /// `INTERVALPRO_HTTP_TIMEOUT` in seconds, else 30 s. A value that is no time limit (`abc`,
    /// `0`, `inf`, which trapped on the way to curl's milliseconds) is said and not used.
    static func timeoutFromEnvironment() -> Double {
        let standard = 30.0
        guard let text = ProcessEnvironment.value("INTERVALPRO_HTTP_TIMEOUT"), !text.isEmpty else { return standard }
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            logger.warning("INTERVALPRO_HTTP_TIMEOUT=\(text) is not a time limit in seconds (more than 0, at most 86400): using \(Int(standard)) s")
            return standard
        }
        return seconds
    }

    /// The service's base URL: its variable when set (a proxy, a stand-in), else the real one.
    public static func baseURL(_ service: Service) -> String {
        var url = ProcessEnvironment.value(service.baseURLVariable).flatMap { $0.isEmpty ? nil : $0 } ?? service.defaultBaseURL
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    public func caller(_ service: Service) -> ServiceCaller {
        let transport = self.transport
        let verbose = self.verbose
        var caller = ServiceCaller(
            service: service,
            send: { request throws(TransportError) in try await transport.get().send(request) },
            now: { [unowned self] in now() },
            pause: { seconds in try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) },
            progress: { logger.notice("\($0)") },
            log: { message in if verbose { logger.notice("\(message)") } })
        caller.policy = policy
        return caller
    }

    public func now() -> Double { Date().timeIntervalSince1970 }

    /// The accounts as the file holds them now: another process may have renewed a token.
    public func reload() {
        if let current = try? file.load() { accounts = current }
    }

    /// Changes the accounts and rewrites the file at once (an account added or removed, a
    /// refreshed token: one Strava just replaced is never lost).
    public func update(_ change: (inout Accounts) -> Void) throws(FileError) {
        change(&accounts)
        try file.save(accounts)
    }

    public func intervalsICU() throws(ServiceError) -> IntervalsICU {
        guard let account = accounts.intervalsICU else { throw Self.noAccount(.intervalsICU) }
        return IntervalsICU(baseURL: Self.baseURL(.intervalsICU), account: account)
    }

    public static func noAccount(_ service: Service) -> ServiceError {
        let how =
            switch service {
            case .intervalsICU: "intervalpro account add intervals.icu --athlete ID"
            case .strava: "intervalpro account add strava --client-id ID"
            }
        return ServiceError(service, .credentials, "no \(service.rawValue) account: add one with `\(how)`")
    }

    /// Today's date where the runner is (YYYY-MM-DD): the calendar is in local dates.
    public static func localDate(secondsSince1970 now: Double) -> String {
        WallClock.localDate(unixSeconds: Int64(now))
    }
}
