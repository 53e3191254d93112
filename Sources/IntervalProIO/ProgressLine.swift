import IntervalProCore

/// Progress of long work on a terminal's stderr, each line drawn over the last; nothing when
/// stderr is no terminal. Cut to the terminal's width: a line that wrapped (25 columns on 20)
/// was cleared only in part, and every redraw left a row behind.
public struct ProgressLine: Sendable {
    /// A dumb terminal (TERM=dumb) cannot draw over a line: it gets none.
    public let shown = Terminal.standardErrorIsTerminal && !Terminal.isDumb

    public init() {}

    public func draw(_ text: String) {
        guard shown else { return }
        Terminal.writeStandardError("\r\u{1B}[K" + Self.cut(text, to: Terminal.standardErrorColumns - 1))
    }

    public func clear() {
        if shown { Terminal.writeStandardError("\r\u{1B}[K") }
    }

    /// `text` within `width` columns, a cut one ending in "…".
    static func cut(_ text: String, to width: Int) -> String { text.cut(toColumns: width) }
}
