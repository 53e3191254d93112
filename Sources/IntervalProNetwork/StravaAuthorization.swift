import IntervalProIO
import Logging
public import IntervalProServices

/// Strava calls with a valid token: refreshed before it expires, once more if Strava says
/// it is no longer valid, and the new tokens saved at once.
public struct StravaAuthorization: Sendable {
    public let context: ServiceContext
    public let strava: Strava
    private let caller: ServiceCaller

    public init(context: ServiceContext) {
        self.context = context
        strava = Strava(baseURL: ServiceContext.baseURL(.strava))
        caller = context.caller(.strava)
    }

    /// Sends the request `make` builds with a valid token; a 401 refreshes and tries once more.
    public func response(_ make: (String) -> HTTPRequest) async throws(ServiceError) -> HTTPResponse {
        guard let account = context.accounts.strava else { throw ServiceContext.noAccount(.strava) }
        var token = account.accessToken
        let stillValid = account.expiresAt > context.now() + 60
        if Strava.needsRefresh(account, now: context.now()), !(stillValid && context.stravaEarlyRenewalFailed) {
            do {
                token = try await refresh()
            } catch where stillValid {
                // Renewed early, an hour before it expires: a renewal that fails (Strava's token
                // endpoint down, its answer lost) failed the upload though the token still
                // worked. It is used as it is, for the rest of the command; a 401 renews again below.
                context.stravaEarlyRenewalFailed = true
                logger.notice("strava: \(error.message); the current access token, valid for \(Int((account.expiresAt - context.now()) / 60)) min more, is used")
            }
        }
        let response = try await caller.response(to: make(token))
        guard response.status == 401 else { return response }
        token = try await refresh()
        return try await caller.response(to: make(token))
    }

    public func success(_ make: (String) -> HTTPRequest, doing action: String) async throws(ServiceError) -> HTTPResponse {
        let response = try await response(make)
        guard response.isSuccess else {
            var failure = ServiceError.from(response, service: .strava, doing: action)
            if failure.kind == .credentials { failure.message += "; add the account again if you revoked access" }
            throw failure
        }
        return response
    }

    private func refresh() async throws(ServiceError) -> String {
        guard let used = context.accounts.strava else { throw ServiceContext.noAccount(.strava) }
        // One process renews at a time, and one that renewed while this one waited has left
        // its tokens in the file: those are taken, not renewed again with a refresh token
        // Strava has replaced.
        let lock = context.file.lock()
        defer { withExtendedLifetime(lock) {} }
        context.reload()
        guard let account = context.accounts.strava else { throw ServiceContext.noAccount(.strava) }
        if account.refreshToken != used.refreshToken, !Strava.needsRefresh(account, now: context.now()) {
            return account.accessToken
        }
        let response = try await caller.response(to: strava.refresh(account))
        guard response.isSuccess, let grant = Strava.grant(response) else {
            if (400..<500).contains(response.status) && response.status != 429 {
                throw ServiceError(
                    .strava, .credentials,
                    "Strava refused to renew IntervalPro's access (\(ServiceError.errorText(response))); "
                        + "it was revoked or the client secret changed: run `intervalpro account add strava ...` again")
            }
            throw ServiceError.from(response, service: .strava, doing: "renewing the access token")
        }
        do throws(FileError) {
            try context.update { accounts in
                accounts.strava?.accessToken = grant.accessToken
                accounts.strava?.refreshToken = grant.refreshToken
                accounts.strava?.expiresAt = grant.expiresAt
            }
        } catch {
            throw ServiceError(.strava, .unavailable, "cannot save the refreshed token: \(error)")
        }
        return grant.accessToken
    }
}
