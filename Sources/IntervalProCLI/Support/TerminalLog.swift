import IntervalProCore
import IntervalProIO
import Logging

/// The one sink of the libraries' warnings and notices: a line on stderr in the command's
/// voice ("intervalpro: warning: …", "intervalpro: error: …", "intervalpro: …"). On a
/// terminal the line is cleared first, so a notice never lands in the middle of a progress
/// line being redrawn, and one written while a live screen is shown goes above the screen.
struct TerminalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let kind =
            switch event.level {
            case .error, .critical: "error: "
            case .warning: "warning: "
            case .trace, .debug, .info, .notice: ""
            }
        // A message may quote others' bytes (a file's cut line of NULs, a device's name): shown.
        let line = "intervalpro: \(kind)\("\(event.message)".printable(keepingLineBreaks: true))\n"
        // Not on a dumb terminal, which printed the escape as it is.
        let movesCursor = Terminal.standardErrorIsTerminal && !Terminal.isDumb
        if movesCursor, ScreenRegion.standardOutput.writeAbove(line, write: Terminal.writeStandardError) { return }
        Terminal.writeStandardError((movesCursor ? "\r\u{1B}[K" : "") + line)
    }
}
