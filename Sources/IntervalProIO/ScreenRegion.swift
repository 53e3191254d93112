import Synchronization

/// The live screen at the bottom of a terminal, as last drawn, shared with whatever else
/// writes to that terminal meanwhile. A warning on standard error goes above the screen, and
/// the screen is drawn again under it: written straight under the screen, the warning was
/// drawn over by the next frame, which moves up by its own lines only, and the top of the
/// frame before stayed behind for the rest of the run ("0:40 left" to a screen reader).
public final class ScreenRegion: Sendable {
    /// The screen `run` and `replay` draw on standard output.
    public static let standardOutput = ScreenRegion()

    private struct Shown {
        var lines = 0
        var body = ""
    }

    private let shown = Mutex(Shown())

    public init() {}

    /// Writes `frame` through `write`, and keeps what it drew: `body`, its lines without the
    /// move over the frame before, and how many `lines` they are.
    public func draw(_ frame: String, body: String, lines: Int, write: (String) -> Void) {
        shown.withLock { shown in
            write(frame)
            shown = Shown(lines: lines, body: body)
        }
    }

    /// The screen is left as it is (the session ended): what follows is written below it.
    public func close() {
        shown.withLock { $0 = Shown() }
    }

    /// Writes `text` (whole lines) through `write` in the screen's place and the screen again
    /// under it. False, with nothing written, when no screen is shown.
    public func writeAbove(_ text: String, write: (String) -> Void) -> Bool {
        shown.withLock { shown in
            guard shown.lines > 0 else { return false }
            write("\u{1B}[\(shown.lines)F\u{1B}[J" + text + shown.body)
            return true
        }
    }
}
