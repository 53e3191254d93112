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

    static func accountFile() throws -> AccountFile {
        guard let file = AccountFile.standard() else {
            throw LaunchError("no configuration folder: set XDG_CONFIG_HOME or HOME", kind: .unavailable)
        }
        return file
    }

    func context() throws -> ServiceContext { try Self.context(verbose: verbose) }

    static func context(verbose: Bool) throws -> ServiceContext {
        let file = try accountFile()
        return ServiceContext(file: file, accounts: try load(file), verbose: verbose)
    }

    static func load(_ file: AccountFile) throws -> Accounts {
        do {
            return try file.load()
        } catch {
            switch error {
            case .unreadable(let error): throw LaunchError(error)
            case .malformed(let path, let problem):
                throw LaunchError("\(path): \(problem.path): \(problem.message)", kind: .invalidData)
            }
        }
    }
}

/// `storeCall` for the store's work that waits on a service.
func asyncStoreCall<T>(_ body: () async throws(StoreError) -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw LaunchError(error.description, kind: .io)
    }
}
