import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

/// What `run` and `replay` print when a session ends: the summary on stdout (JSON or text),
/// where the recording and the saved session went on stderr; exit 74 when saving, or the
/// recording asked for, failed (it was said as it happened; `record` exits 74 the same way).
enum SessionOutput {
    static func print(_ outcome: SessionOutcome, json: Bool, recordPath: String?) throws {
        if json {
            Swift.print(outcome.summary.json.serialized(pretty: true))
        } else {
            Swift.print(
                SummaryReport.text(
                    outcome.summary, colour: Terminal.wantsColour(isTerminal: Terminal.standardOutputIsTerminal),
                    width: Terminal.fittingColumns))
        }
        if let recordPath, outcome.recorded { Terminal.writeStandardError("intervalpro: recorded to \(recordPath)\n") }
        if let id = outcome.savedSessionID { Terminal.writeStandardError("intervalpro: saved as session \(id)\n") }
        // Said once more after the summary: on the live screen, the warning as it happened was
        // drawn over by the next frame.
        if let failure = outcome.saveFailure { Terminal.writeStandardError("intervalpro: error: \(failure)\n") }
        if let recordPath, !outcome.recorded {
            Terminal.writeStandardError("intervalpro: error: the recording \(recordPath) was cut short: it could not be written (said when it happened)\n")
        }
        if outcome.saveFailed || (recordPath != nil && !outcome.recorded) { throw ExitCode(ExitStatus.ioError.rawValue) }
    }
}
