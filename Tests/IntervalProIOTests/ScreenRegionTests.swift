import IntervalProIO
import Testing

/// What a terminal shows after the bytes a live screen writes: rows of text, a cursor, and the
/// few sequences the screen uses (move up to a line's start, erase a line, erase below).
final class ScreenOfRows {
    private(set) var rows: [String] = [""]
    private var row = 0

    func write(_ text: String) {
        var rest = Substring(text)
        while let first = rest.first {
            if rest.hasPrefix("\u{1B}[") {
                let sequence = rest.dropFirst(2).prefix { !$0.isLetter }
                let final = rest.dropFirst(2 + sequence.count).first ?? " "
                rest = rest.dropFirst(3 + sequence.count)
                switch final {
                case "F": row = max(0, row - (Int(sequence) ?? 1))
                case "K" where sequence == "2", "K" where sequence.isEmpty: rows[row] = ""
                case "J": rows = Array(rows[...row]); rows[row] = ""
                default: break  // the cursor hidden or shown
                }
            } else if first == "\n" {
                row += 1
                if row == rows.count { rows.append("") }
                rest = rest.dropFirst()
            } else if first == "\r" {
                rest = rest.dropFirst()
            } else {
                let line = rest.prefix { $0 != "\n" && $0 != "\u{1B}" && $0 != "\r" }
                rows[row] += line
                rest = rest.dropFirst(line.count)
            }
        }
    }

    /// The rows with text, top to bottom.
    var shown: [String] { rows.filter { !$0.isEmpty } }
}

@Suite("A warning while the live screen is shown")
struct ScreenRegionTests {
    func frame(_ time: String, after lines: Int) -> (frame: String, body: String) {
        let body = "\u{1B}[2KWork   step 1 of 1\n\u{1B}[2K[####----]  \(time) left\n\u{1B}[J"
        return ((lines > 0 ? "\u{1B}[?25l\u{1B}[\(lines)F" : "\u{1B}[?25l") + body, body)
    }

    /// A warning written straight under the screen was drawn over by the next frame, which
    /// moves up by its own lines only: the warning was gone and the frame before's first line
    /// stayed above the screen all run ("0:40 left" to a screen reader).
    @Test func itGoesAboveTheScreenAndTheScreenStaysWhole() {
        let region = ScreenRegion()
        let terminal = ScreenOfRows()
        let first = frame("0:40", after: 0)
        region.draw(first.frame, body: first.body, lines: 2, write: terminal.write)
        #expect(region.writeAbove("intervalpro: 2a37 through AcquireNotify\n", write: terminal.write))
        #expect(terminal.shown == ["intervalpro: 2a37 through AcquireNotify", "Work   step 1 of 1", "[####----]  0:40 left"])
        let second = frame("0:39", after: 2)
        region.draw(second.frame, body: second.body, lines: 2, write: terminal.write)
        #expect(terminal.shown == ["intervalpro: 2a37 through AcquireNotify", "Work   step 1 of 1", "[####----]  0:39 left"])

        // What a warning written straight to the terminal left, for comparison.
        let straight = ScreenOfRows()
        straight.write(first.frame)
        straight.write("intervalpro: 2a37 through AcquireNotify\n")
        straight.write(second.frame)
        #expect(straight.shown == ["Work   step 1 of 1", "Work   step 1 of 1", "[####----]  0:39 left"])
    }

    @Test func onceTheScreenIsClosedAWarningIsTheCallersToWrite() {
        let region = ScreenRegion()
        var written = ""
        #expect(!region.writeAbove("before any frame\n") { written += $0 })
        region.draw("frame\n", body: "frame\n", lines: 1) { written += $0 }
        region.close()
        #expect(!region.writeAbove("after the session\n") { written += $0 })
        #expect(written == "frame\n")
    }
}
