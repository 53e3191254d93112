import IntervalProCore

/// The live screen: step, time left, cadence against the zone, advice, heart rate.
/// Redraws in place with ANSI cursor movement; colour only when allowed.
struct LiveScreen {
    let colour: Bool
    /// The last thing said under the figures, one at a time: a warning (a value refused, a
    /// device gone) or a notice (a device connected, the path its values take). A notice was
    /// shown as "warning: … connected", and stayed on screen all run.
    var warning: String? { didSet { if warning != nil { notice = nil } } }
    var notice: String? { didSet { if notice != nil { warning = nil } } }
    private var drawnLines = 0
    /// The last frame's lines, without the move over the frame before: drawn again under a
    /// warning written in the screen's place (`ScreenRegion`).
    private(set) var lastBody = ""
    /// How many lines the last frame drew.
    var linesDrawn: Int { drawnLines }

    static let showCursor = "\u{1B}[?25h"
    static let barWidth = 40

    /// The bars' width on a terminal `columns` wide: 40, narrower where the cadence line
    /// ("cadence 166 spm  [bar]  zone 176-184", 34 besides the bar) would be cut, its zone
    /// first (at 40 columns the time left and the zone were cut off).
    static func barWidth(columns: Int) -> Int {
        max(8, min(barWidth, columns - 1 - (isNarrow(columns: columns) ? 18 : 34)))
    }

    /// Under 47 columns (a braille display's 40, a phone's terminal) the figures lose their
    /// words ("166 spm [bar] 176-184", 18 besides the bar): with them, the bar's 8 columns
    /// still cut the zone's upper bound, and the sensor's status, off.
    static func isNarrow(columns: Int) -> Bool { columns - 1 - 34 < 12 }

    init(colour: Bool) {
        self.colour = colour
    }

    private func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// - Parameters:
    ///   - music: what the runner's music player plays ("artist – title").
    ///   - columns: the terminal's width. Each line is cut to it: one that wrapped took two
    ///     rows, and the next frame, moving up by lines, left a row behind at every redraw.
    /// What stands beside the step when the figures are not the runner's own, now.
    static func sourceBadge(_ source: SessionSourceKind) -> String? {
        switch source {
        case .simulation: "SIMULATED"
        case .replay: "REPLAY"
        case .metronome: "METRONOME"
        case .live, .imported: nil
        }
    }

    /// The next frame is drawn below whatever is on the terminal, not over the last one.
    mutating func startAfresh() { drawnLines = 0 }

    mutating func draw(_ view: SessionView, music: String? = nil, columns: Int = 80) -> String {
        var lines: [String] = []
        if let step = view.step {
            // A run on live sensors that found none goes on with a simulated runner, and a
            // replay is a recording's figures: neither is the runner's now, said on every frame.
            // A long label is cut, not what follows it: cut whole, the line lost PAUSED first.
            // On a narrow terminal (40 columns) the badges close up to leave the label room.
            func tail(_ gap: String, _ position: String) -> String {
                gap + position + (Self.sourceBadge(view.source).map { paint(gap + $0, "35;1") } ?? "")
                    + (view.isPaused ? paint(gap + "PAUSED", "33;1") : "")
            }
            var badges = tail("   ", "step \(step.index + 1) of \(step.count)")
            if columns - 1 - Self.width(of: badges) < Self.shortestTitle { badges = tail("  ", "\(step.index + 1)/\(step.count)") }
            let room = columns - 1 - Self.width(of: badges)
            let title = paint(step.title, "1")
            lines.append((room >= Self.shortestTitle ? Self.cut(title, to: room) : title) + badges)
            let width = Self.barWidth(columns: columns)
            let narrow = Self.isNarrow(columns: columns)
            lines.append(timeLine(step, width: width))
            lines.append(cadenceLine(step, view, width: width, narrow: narrow))
            // No runner: nothing to advise, and no signal is none missing.
            lines.append(view.source == .metronome ? paint("no sensor: the clicks keep the target", "2") : adviceLine(view.feedback))
            let hr = view.heartRate.map { "\($0) bpm" } ?? "--"
            let pct = view.inZonePercent.map { formatFixed($0, 1) + "%" } ?? "--"
            let signalWord = view.source == .simulation ? "simulated" : view.source == .replay ? "replayed" : "cadence ok"
            let signal =
                view.source == .metronome ? "none" : view.hasSignal ? paint(signalWord, "32") : paint("no signal", "31")
            lines.append(narrow ? "HR \(hr)  in zone \(pct)  \(signal)" : "HR \(hr)   in zone so far \(pct)   sensor: \(signal)")
            if let alphaOne = Self.alphaOneText(view.alphaOne) { lines.append(alphaOne) }
        } else {
            lines.append("Finished")
        }
        // A player's title, a device's name or a recording's event name: shown, never obeyed.
        if let music { lines.append(paint("♪ \(music.printable)", "2")) }
        if let warning { lines.append(paint("warning: \(warning.printable)", "33")) }
        if let notice { lines.append(paint(notice.printable, "2")) }
        lines.append(paint(Self.isNarrow(columns: columns) ? "space pause · n next · q finish" : "space pause/resume · n next step · q finish", "2"))

        var out = "\u{1B}[?25l"
        if drawnLines > 0 { out += "\u{1B}[\(drawnLines)F" }
        var body = ""
        for line in lines { body += "\u{1B}[2K" + Self.cut(line, to: columns - 1) + "\n" }
        // Clears what a longer frame left below (a warning line gone).
        body += "\u{1B}[J"
        drawnLines = lines.count
        lastBody = body
        return out + body
    }

    /// `line` within `width` columns, its colour codes counting for none and a wide character
    /// (a label in Japanese) for two; a cut line ends in "…" and resets the colour. Counted in
    /// characters, a Japanese step line of 92 columns was left whole on 80, wrapped, and each
    /// redraw left a copy of it behind.
    static func cut(_ line: String, to width: Int) -> String {
        let visible = visibleCharacters(line)
        let columns = visible.last?.columnsAfter ?? 0
        guard width > 0, columns > width else { return line }
        // The characters that leave a column for the "…".
        let kept = visible.prefix { $0.columnsAfter <= width - 1 }
        let end = kept.count < visible.count ? visible[kept.count].index : line.endIndex
        return String(line[..<end]) + "…" + (line.contains("\u{1B}") ? "\u{1B}[0m" : "")
    }

    /// The fewest columns a step's title is cut to before the line is cut whole instead.
    static let shortestTitle = 12

    /// The columns `line` takes, its colour codes counting for none.
    static func width(of line: String) -> Int { visibleCharacters(line).last?.columnsAfter ?? 0 }

    /// Each character that takes columns, with the columns taken up to its end. Escape
    /// sequences ("\u{1B}[33;1m", to their final letter) take none.
    private static func visibleCharacters(_ line: String) -> [(index: String.Index, columnsAfter: Int)] {
        var visible: [(index: String.Index, columnsAfter: Int)] = []
        var columns = 0
        var inEscape = false
        for index in line.indices {
            let character = line[index]
            if inEscape || character == "\u{1B}" {
                inEscape = character == "\u{1B}" || !character.isLetter
            } else {
                columns += String(character).terminalWidth
                visible.append((index, columns))
            }
        }
        return visible
    }

    /// "alpha 1 0.82", "alpha 1 settling", "alpha 1 unreliable (4% artifacts)"; nil without beats.
    static func alphaOneText(_ window: AlphaWindow?) -> String? {
        guard let window else { return nil }
        switch window.status {
        case .settling: return "alpha 1 settling"
        case .unreliable:
            // Too few beats first: after a dropout the few left were said to be "4% artifacts".
            guard !window.tooFewBeats, window.artifactShare >= SessionHRV.trustedArtifactShare else {
                return "alpha 1 unreliable (too few beats)"
            }
            return "alpha 1 unreliable (\(Int((100 * window.artifactShare).rounded()))% artifacts)"
        // Two decimals always, as the summary's table: "alpha 1 1" read as a whole number.
        case .scored: return "alpha 1 " + (window.alpha1.map { formatFixed($0, 2) } ?? "--")
        }
    }

    private func timeLine(_ step: SessionView.Step, width: Int) -> String {
        switch step.end {
        case .time:
            return "\(bar(fraction: step.progress ?? 0, width: width))  \(formatClock(Double(step.secondsLeft ?? 0))) left"
        case .distance:
            return "\(bar(fraction: step.progress ?? 0, width: width))  \(Int(step.metresLeft ?? 0)) m left"
        case .open:
            return "open step: \(formatClock(step.elapsed.seconds)) so far, press n for the next step"
        }
    }

    private func bar(fraction: Double, width: Int) -> String {
        let filled = Int((min(1, max(0, fraction)) * Double(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// A scale from target-30 to target+30 spm: the zone as '=', the target as '|', the
    /// runner as '●'.
    private func cadenceLine(_ step: SessionView.Step, _ view: SessionView, width: Int, narrow: Bool) -> String {
        let smoothed = view.cadence
        let reading = smoothed.map { "\(Int($0.rounded())) spm" } ?? "-- spm"
        guard let zone = step.zone else { return narrow ? "\(reading)  no zone" : "cadence \(reading)   (no zone in this step)" }
        let span = 30.0
        func column(_ value: Double) -> Int {
            Int(((value - (zone.target - span)) / (2 * span) * Double(width - 1)).rounded())
        }
        var cells = [Character](repeating: " ", count: width)
        for i in max(0, column(zone.low))...min(width - 1, max(0, column(zone.high))) { cells[i] = "=" }
        cells[min(width - 1, max(0, column(zone.target)))] = "|"
        var scale = String(cells)
        if let smoothed {
            let at = min(width - 1, max(0, column(smoothed)))
            var marked = Array(scale)
            marked[at] = "*"
            scale = String(marked)
        }
        let zoneText = "\(JSONValue.format(zone.low))-\(JSONValue.format(zone.high))"
        return narrow ? "\(reading) [\(scale)] \(zoneText)" : "cadence \(reading)  [\(scale)]  zone \(zoneText)"
    }

    private func adviceLine(_ feedback: Feedback) -> String {
        let text = feedback.description
        switch feedback {
        case .inZone: return paint(text, "32;1")
        case .faster, .slower: return paint(text, "33;1")
        case .noSignal: return paint(text, "31")
        case .noZone: return text
        }
    }
}
