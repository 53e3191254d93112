import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// Runs a command body, turning a `LaunchError` into a message on stderr and its exit code
/// (ArgumentParser would print them with a generic code 1).
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as LaunchError {
        throw reported(failure)
    }
}

/// The same, for the commands that wait on sensors, devices or services.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as LaunchError {
        throw reported(failure)
    }
}

private func reported(_ failure: LaunchError) -> ExitCode {
    // The reader of `-o -` left (`| head`): said to no one, as for what `print` wrote.
    guard failure.kind != .outputClosed else { return ExitCode(ExitStatus.outputClosed.rawValue) }
    Terminal.writeStandardError("intervalpro: error: \(failure.message.printable(keepingLineBreaks: true))\n")
    return ExitCode(ExitStatus(failure.kind).rawValue)
}
