#if canImport(Glibc)
import Glibc
#endif

/// A secret (an API key, a client secret) typed on a terminal without echo. Echo alone is
/// turned off: glibc's getpass(3) turned signals off too, so Ctrl-C at the prompt was read as
/// part of the key (sent as "\u{3}", and refused), and a kill left the terminal without echo.
/// The terminal's settings come back however the prompt ends.
enum SecretPrompt {
    /// The settings before the prompt, for the signal handler: written before it is installed.
    nonisolated(unsafe) private static var settings = termios()
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// A line from standard input, a terminal, after `prompt` on standard error.
    static func read(prompt: String) -> String? {
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return readLine() }
        var previous = Array(repeating: sigaction(), count: signals.count)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            // Only async-signal-safe calls: tcsetattr(3), write(2), signal(2), raise(3).
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &SecretPrompt.settings)
            var newline: UInt8 = 10
            _ = write(STDERR_FILENO, &newline, 1)
            // Ended as the signal ends a process, once this handler returns.
            _ = signal(number, SIG_DFL)
            _ = raise(number)
        }
        sigemptyset(&action.sa_mask)
        for (index, number) in signals.enumerated() { _ = sigaction(number, &action, &previous[index]) }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        Terminal.writeStandardError(prompt)
        let line = readLine()
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings)
        Terminal.writeStandardError("\n")
        for (index, number) in signals.enumerated() { _ = sigaction(number, &previous[index], nil) }
        return line
    }
}
