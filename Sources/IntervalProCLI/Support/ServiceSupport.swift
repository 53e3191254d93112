public import ArgumentParser
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices

extension Service: ExpressibleByArgument {}
extension UploadDestination: ExpressibleByArgument {}

/// Where the accounts are, and `-v`, for the commands that talk to services.
struct ServiceOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log each request to a service (method, path, status; never a secret).")
    var verbose = false

    func context() throws -> ServiceContext { try ServiceContext.standard(verbose: verbose) }
}
