public import IntervalProNetwork
public import IntervalProServices
import IntervalProIO

/// Adds (or replaces) the intervals.icu account: the key is tried on the athlete's profile
/// first, and kept with the athlete's name only when it works.
public enum IntervalsICUSignIn {
    public static func add(
        athlete: String, apiKey: String, readinessToWellness: Bool, context: ServiceContext
    ) async throws -> IntervalsICUAccount {
        var account = IntervalsICUAccount(athleteID: athlete, apiKey: apiKey, readinessToWellness: readinessToWellness)
        let api = IntervalsICU(baseURL: ServiceContext.baseURL(.intervalsICU), account: account)
        let response: HTTPResponse
        do {
            response = try await serviceCall { () throws(ServiceError) in
                let answer = try await context.caller(.intervalsICU).success(api.athlete(), doing: "checking the API key")
                try ServiceError.unlessProfile(answer, service: .intervalsICU, doing: "checking the API key")
                return answer
            }
        } catch var refused as LaunchError where refused.kind == .refused && !athlete.isEmpty && athlete.allSatisfy(\.isNumber) {
            // An athlete id without its "i" is refused as a wrong key would be: the key was blamed.
            refused.message += "; intervals.icu athlete ids begin with i (i\(athlete)?), as its settings page shows them"
            throw refused
        }
        account.name = IntervalsICU.athleteName(response)
        let kept = account
        try save(context) { $0.intervalsICU = kept }
        return account
    }

    /// Changes the accounts file, or says why it could not be written.
    static func save(_ context: ServiceContext, _ change: (inout Accounts) -> Void) throws {
        do throws(FileError) {
            try context.update(change)
        } catch {
            throw LaunchError(error)
        }
    }
}
