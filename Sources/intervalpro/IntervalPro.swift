import ArgumentParser
import Dispatch
import IntervalProLaunch
import Logging

@main
struct IntervalPro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intervalpro",
        abstract: "Cadence interval training: run plans against live, replayed or simulated sensors.",
        discussion: """
            Cadence is running cadence in steps per minute (spm); "BPM" in a plan means steps, \
            never heart rate. Exit codes: 0 ok, 64 usage, 65 bad data, 66 missing input, \
            69 unavailable, 74 I/O error, 77 permission (a service refused the credential).
            """,
        version: "0.1.0",
        subcommands: [
            RunCommand.self, ReplayCommand.self, ScanCommand.self, RecordCommand.self, DoctorCommand.self,
            RenderAudioCommand.self, HistoryCommand.self, ShowCommand.self, TrendsCommand.self, ExportCommand.self,
            ReportCommand.self, DeleteCommand.self, PlanCommand.self, DecodeCommand.self, ServeCommand.self,
            AccountCommand.self, TodayCommand.self, UploadCommand.self, ReadinessCommand.self,
        ]
    )

    /// The libraries' warnings and notices go to one sink, which prints them on stderr.
    ///
    /// A synchronous entry point: commands that only read files or the store run on the main
    /// thread and start no other; only the commands that wait on sensors, devices or services
    /// (`AsyncParsableCommand`s) start Swift's concurrency threads. An async `main` started
    /// them for every command, `--version` and completions included (about 0.5 ms and 2 MB).
    static func main() {
        LoggingSystem.bootstrap { _ in TerminalLogHandler() }
        let parsed: any ParsableCommand
        do { parsed = try parseAsRoot(nil) } catch { exit(withError: error) }
        guard let waiting = parsed as? any AsyncParsableCommand else {
            var command = parsed
            do { try command.run() } catch { exit(withError: error) }
            return
        }
        let command = ParsedCommand(command: waiting)
        Task {
            var waiting = command.command
            do { try await waiting.run() } catch { exit(withError: error) }
            exit()
        }
        dispatchMain()
    }
}

/// The parsed command, handed from `main` to the task that runs it; only that task uses it.
private struct ParsedCommand: @unchecked Sendable { var command: any AsyncParsableCommand }
