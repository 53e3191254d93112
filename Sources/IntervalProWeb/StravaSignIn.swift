import Foundation
import IntervalProLaunch
public import IntervalProNetwork
public import IntervalProServices
import IntervalProIO

/// Connects Strava by OAuth: the runner opens Strava's authorization page, Strava sends the
/// browser back to a loopback callback, and the code it brings is exchanged for tokens. The
/// account is kept only with the "Upload your activities" permission (activity:write).
public enum StravaSignIn {
    /// - Parameters:
    ///   - port: the loopback port Strava redirects to (0: any free port).
    ///   - show: hears the address to open once the callback listens.
    /// - Returns: the account added.
    public static func add(
        clientID: String, clientSecret: String, port: Int, wait seconds: Int, context: ServiceContext,
        show: @escaping @Sendable (_ authorizeURL: String) -> Void
    ) async throws -> StravaAccount {
        let strava = Strava(baseURL: ServiceContext.baseURL(.strava))
        let state = RandomText.hex(bytes: 16)
        let query: String
        do {
            query = try await OAuthCallback.wait(
                port: port, timeout: .seconds(seconds),
                ready: { port in
                    show(strava.authorizeURL(clientID: clientID, redirectURI: "http://127.0.0.1:\(port)/callback", state: state))
                },
                decide: { query in
                    switch Strava.callback(query: query, expectedState: state) {
                    case .foreign:
                        .init(accepted: false, page: page("This answer is not for this setup (its state differs). Nothing was saved."))
                    case .denied:
                        .init(accepted: true, page: page("Strava access was not given. You can close this page."))
                    case .authorized:
                        .init(accepted: true, page: page("IntervalPro is connected to Strava. You can close this page."))
                    }
                })
        } catch is OAuthCallback.TimedOut {
            throw LaunchError("no answer from Strava within \(seconds) s; nothing was saved", kind: .unavailable)
        } catch let failure as LaunchError {
            throw failure
        } catch {
            throw LaunchError("cannot listen on 127.0.0.1:\(port) for Strava's answer: \(error)", kind: .unavailable)
        }
        let code: String
        let scope: String?
        switch Strava.callback(query: Substring(query), expectedState: state) {
        case .authorized(let given, let givenScope): (code, scope) = (given, givenScope)
        case .denied(let reason): throw LaunchError("strava: access was not given (\(reason)); nothing was saved", kind: .refused)
        case .foreign: throw LaunchError("strava: the answer's state differs", kind: .refused)
        }
        if let scope, !scope.split(separator: ",").contains("activity:write") {
            throw LaunchError(
                "strava: uploading needs the \"Upload your activities\" permission (activity:write); add the account again and keep it ticked",
                kind: .refused)
        }
        let response = try await serviceCall { () throws(ServiceError) in
            do throws(ServiceError) {
                return try await context.caller(.strava).success(
                    strava.exchange(code: code, clientID: clientID, clientSecret: clientSecret), doing: "exchanging the code")
            } catch {
                // Strava answers a wrong client id or secret, or a spent code, with 400.
                guard error.kind == .rejected else { throw error }
                throw ServiceError(.strava, .credentials, error.message + "; check --client-id and --client-secret")
            }
        }
        guard let grant = Strava.grant(response) else {
            throw LaunchError("strava: the token answer has no tokens", kind: .unavailable)
        }
        let account = StravaAccount(
            clientID: clientID, clientSecret: clientSecret, accessToken: grant.accessToken, refreshToken: grant.refreshToken,
            expiresAt: grant.expiresAt, athleteName: grant.athleteName, scope: scope ?? Strava.scope)
        do throws(FileError) {
            try context.update { $0.strava = account }
        } catch {
            throw LaunchError(error)
        }
        return account
    }

    static func page(_ message: String) -> String {
        "<!doctype html><meta charset=utf-8><title>IntervalPro</title><p style=\"font:1.2em sans-serif\">\(message)</p>\n"
    }

    /// Opens `url` with xdg-open when a desktop session is there to show the page (on a Pi
    /// over ssh there is none: the address printed is what the runner opens).
    public static func openInBrowser(_ url: String) {
        guard ProcessEnvironment.value("DISPLAY") != nil || ProcessEnvironment.value("WAYLAND_DISPLAY") != nil else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xdg-open")
        process.arguments = [url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
