import ArgumentParser
import IntervalProIO
import IntervalProLaunch
import Logging
import Synchronization

/// The command line's entry, for both executables.
public enum IntervalProCommandLine {
    /// Parses the arguments and runs the command they name. `webStack` is the page's server,
    /// nil in `intervalpro`, which hands the commands that serve the page to `intervalpro-web`.
    @MainActor public static func main(webStack: (any WebStack)?) async {
        WebStackHandOff.installed.withLock { $0 = webStack }
        await IntervalPro.main()
    }
}

struct IntervalPro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intervalpro",
        abstract: "Cadence interval training: run plans against live, replayed or simulated sensors.",
        discussion: """
            Cadence is running cadence in steps per minute (spm); "BPM" in a plan means steps, \
            never heart rate. Exit codes: 0 ok, 64 usage, 65 bad data, 66 missing input, \
            69 unavailable, 70 internal error, 74 I/O error, 77 not permitted (a service refused the \
            credential, or serving as root), 130 stopped by Ctrl-C before anything was kept, 141 \
            standard output closed (| head). docs/reference/exit-codes.md (installed in \
            share/doc/intervalpro under the prefix: /usr from the package, /usr/local from \
            `make install`) has each case.
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
    /// Parsing and the commands that only read files or the store run without suspending,
    /// so on the main thread where Swift starts an async `main`, and start no other thread;
    /// only the commands that wait on sensors, devices or services go on to Swift's
    /// concurrency threads. (ArgumentParser's own async `main` parses asynchronously, which
    /// started those threads for every command, `--version` and completions included:
    /// about 0.5 ms and 2 MB. It parses asynchronously for completions that are computed
    /// asynchronously; ours are not, and `parseAsRoot` refuses such a completion in debug.)
    /// On the main actor, as the top-level code that calls it is: otherwise Swift runs it on
    /// the concurrency threads, which started three threads for `--version`, about 1 ms.
    @MainActor static func main() async {
        LoggingSystem.bootstrap { _ in TerminalLogHandler() }
        Terminal.continueWhenOutputCloses()
        for (refusal, status) in [(ProcessSurroundings.prepare(), ExitStatus.ioError), (ProcessSurroundings.notText(), .usage)] {
            guard let refusal else { continue }
            Terminal.writeStandardError("intervalpro: error: \(refusal)\n")
            exit(withError: ExitCode(status.rawValue))
        }
        do {
            if let unknown = unknownHelpTopic(Array(CommandLine.arguments.dropFirst())) {
                throw ValidationError("no command '\(unknown)': see 'intervalpro --help'")
            }
            var command = try parseAsRoot(nil)
            if var waiting = command as? any AsyncParsableCommand {
                try await waiting.run()
            } else {
                try command.run()
            }
        } catch {
            let status = exitCode(for: error)
            guard status.isSuccess else {
                // The command's own failure stands; standard output lost on the way is said too
                // (`doctor > /dev/full` exited 69 without a word).
                if let failure = Terminal.flushStandardOutput(), !failure.isBrokenPipe {
                    Terminal.writeStandardError("intervalpro: error: cannot write to standard output: \(failure)\n")
                }
                // A usage error as every other error reads ("intervalpro: error: …"), not
                // ArgumentParser's "Error: …" beside them.
                var text = fullMessage(for: error)
                // A number after "-" reads as an option, and what it was given for as missing:
                // `delete -1` was told "Missing expected argument '<id>'", `--dropout -1:5`
                // "Missing value for '--dropout <start:length>'".
                if let negative = CommandLine.arguments.dropFirst().first(where: { $0.count > 1 && $0.hasPrefix("-") && $0.dropFirst().first!.isNumber }),
                    let firstLineEnd = text.firstIndex(of: "\n")
                {
                    if text.hasPrefix("Error: Missing expected argument") {
                        text = "Error: \(negative) is no id: ids are the positive numbers the lists show" + text[firstLineEnd...]
                    } else if text.hasPrefix("Error: Missing value for '"), let option = text.dropFirst("Error: Missing value for '".count).split(separator: " ").first {
                        text = "Error: \(option) \(negative): no value it takes is negative" + text[firstLineEnd...]
                    }
                }
                if !text.isEmpty {
                    let said = text.hasPrefix("Error: ") ? "intervalpro: error: " + text.dropFirst("Error: ".count) : text
                    Terminal.writeStandardError(said + "\n")
                }
                exit(withError: status)
            }
            // Help, --version, a completion script: written as any command's output is, so that
            // a full disk fails them too (`--generate-completion-script bash > file` exited 0
            // with an empty file).
            let text = fullMessage(for: error)
            if !text.isEmpty { print(text) }
        }
        finishStandardOutput()
    }

    /// Exits 74 when what went to standard output could not be written, 141 when its reader
    /// left: `history --json > file` on a full disk printed nothing, said nothing and exited 0.
    static func finishStandardOutput() {
        guard let failure = Terminal.flushStandardOutput() else { return }
        // The reader left (`| head`): nothing to say to it, and the status a shell gives a
        // command SIGPIPE ended; what the command did (a session saved) stands.
        if failure.isBrokenPipe { exit(withError: ExitCode(ExitStatus.outputClosed.rawValue)) }
        Terminal.writeStandardError("intervalpro: error: cannot write to standard output: \(failure)\n")
        exit(withError: ExitCode(ExitStatus.ioError.rawValue))
    }

    /// The name in `help NAME…` that no command has: ArgumentParser printed the help of the
    /// nearest command with status 0, as if the name were right.
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var command: any ParsableCommand.Type = IntervalPro.self
        for name in arguments.dropFirst() where !name.hasPrefix("-") {
            let named = command.configuration.subcommands.first {
                $0._commandName == name || $0.configuration.aliases.contains(name)
            }
            guard let named else { return name }
            command = named
        }
        return nil
    }
}
