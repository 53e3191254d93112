import ArgumentParser
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
    static func main() async {
        LoggingSystem.bootstrap { _ in TerminalLogHandler() }
        await main(nil)
    }
}
