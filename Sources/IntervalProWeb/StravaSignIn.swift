import Foundation
import IntervalProLaunch
public import IntervalProNetwork
public import IntervalProServices
import IntervalProIO
import NIOCore
import Synchronization

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
        // The page said "connected" before the code was exchanged: with a wrong client secret
        // or the upload permission unticked, the browser said connected and the terminal 77.
        // The setup ends before the browser's answer, and the page says how.
        let ended = Mutex<Result<StravaAccount, LaunchError>?>(nil)
        do {
            _ = try await OAuthCallback.wait(
                port: port, timeout: .seconds(seconds),
                ready: { port in
                    show(strava.authorizeURL(clientID: clientID, redirectURI: "http://127.0.0.1:\(port)/callback", state: state))
                },
                decide: { query in
                    switch Strava.callback(query: query, expectedState: state) {
                    case .foreign:
                        return .init(accepted: false, page: page("This answer is not for this setup (its state differs). Nothing was saved."))
                    case .denied(let reason):
                        ended.withLock {
                            $0 = .failure(LaunchError("strava: access was not given (\(reason)); nothing was saved", kind: .refused))
                        }
                        return .init(accepted: true, page: page("Strava access was not given. Nothing was saved; you can close this page."))
                    case .authorized(let code, let scope):
                        let result = await finish(
                            code: code, scope: scope, clientID: clientID, clientSecret: clientSecret, strava: strava, context: context)
                        ended.withLock { $0 = result }
                        switch result {
                        case .success:
                            return .init(accepted: true, page: page("IntervalPro is connected to Strava. You can close this page."))
                        case .failure(let failure):
                            return .init(
                                accepted: true,
                                page: page("IntervalPro is not connected: \(escaped(failure.message)). Nothing was saved; the terminal says what to do."))
                        }
                    }
                })
        } catch is OAuthCallback.TimedOut {
            throw LaunchError("no answer from Strava within \(seconds) s; nothing was saved", kind: .unavailable)
        } catch let failure as LaunchError {
            throw failure
        } catch let error as IOError {
            // Said as the system says it (it was "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)").
            throw LaunchError(
                "cannot listen on 127.0.0.1:\(port) for Strava's answer: \(error.systemMessage)", kind: .unavailable)
        } catch {
            throw LaunchError("cannot listen on 127.0.0.1:\(port) for Strava's answer: \(error)", kind: .unavailable)
        }
        guard let result = ended.withLock({ $0 }) else { throw LaunchError("strava: the answer's state differs", kind: .refused) }
        return try result.get()
    }

    /// The authorization's code exchanged for tokens, and the account saved: with the upload
    /// permission only (activity:write).
    private static func finish(
        code: String, scope: String?, clientID: String, clientSecret: String, strava: Strava, context: ServiceContext
    ) async -> Result<StravaAccount, LaunchError> {
        if let scope, !scope.split(separator: ",").contains("activity:write") {
            return .failure(
                LaunchError(
                    "strava: uploading needs the \"Upload your activities\" permission (activity:write); add the account again and keep it ticked",
                    kind: .refused))
        }
        let response: HTTPResponse
        do throws(ServiceError) {
            do throws(ServiceError) {
                response = try await context.caller(.strava).success(
                    strava.exchange(code: code, clientID: clientID, clientSecret: clientSecret), doing: "exchanging the code")
            } catch {
                // Strava answers a wrong client id or secret, or a spent code, with 400.
                guard error.kind == .rejected else { throw error }
                throw ServiceError(.strava, .credentials, error.message + "; check --client-id and --client-secret")
            }
        } catch {
            return .failure(LaunchError(error))
        }
        guard let grant = Strava.grant(response) else {
            return .failure(LaunchError("strava: the token answer has no tokens", kind: .unavailable))
        }
        let account = StravaAccount(
            clientID: clientID, clientSecret: clientSecret, accessToken: grant.accessToken, refreshToken: grant.refreshToken,
            expiresAt: grant.expiresAt, athleteName: grant.athleteName, scope: scope ?? Strava.scope)
        do throws(FileError) {
            try context.update { $0.strava = account }
        } catch {
            return .failure(LaunchError(error))
        }
        return .success(account)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
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
