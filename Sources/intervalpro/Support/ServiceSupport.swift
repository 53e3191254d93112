public import ArgumentParser
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage

extension Service: ExpressibleByArgument {}

/// Where the accounts are, and `-v`, for the commands that talk to services.
struct ServiceOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log each request to a service (method, path, status; never a secret).")
    var verbose = false

    func context() throws -> ServiceContext { try ServiceContext.standard(verbose: verbose) }
}

/// `storeCall` for the store's work that waits on a service.
func asyncStoreCall<T>(_ body: () async throws(StoreError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw LaunchError(error.description, kind: .io)
    }
}
