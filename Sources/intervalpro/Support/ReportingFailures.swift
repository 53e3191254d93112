import ArgumentParser
import IntervalProIO
import IntervalProLaunch

/// Runs a command body, turning a `LaunchError` into a message on stderr and its exit code
/// (ArgumentParser would print them with a generic code 1).
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as LaunchError {
        Terminal.writeStandardError("intervalpro: error: \(failure.message)\n")
        throw ExitCode(ExitStatus(failure.kind).rawValue)
    }
}
