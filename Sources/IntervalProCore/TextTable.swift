/// Plain aligned columns for terminal tables.
public enum TextTable {
    /// - Parameter fitting: the terminal's width, when `shrinking`'s cells (a plan's name) are
    ///   to be cut so that each line fits it (down to the header's width): one name of 112
    ///   characters wrapped every row of `history` on 80 columns, each onto three lines.
    public static func render(
        header: [String], rows: [[String]], rightAligned: [Int] = [], fitting width: Int? = nil, shrinking column: Int? = nil
    ) -> [String] {
        fitted(header: header, rows: rows, rightAligned: rightAligned, fitting: width, shrinking: column).lines
    }

    /// The table as `render` draws it, first leaving out the columns of `dropping`, in order,
    /// while `shrinking`'s would be cut to fewer than `roomWanted` columns (at 80 columns
    /// `history` cut every plan's name to five, "Morni…"); and the columns left out.
    public static func fitted(
        header: [String], rows: [[String]], rightAligned: [Int] = [], fitting width: Int?, shrinking column: Int?,
        dropping: [Int] = [], roomWanted: Int = 16
    ) -> (lines: [String], leftOut: Set<Int>) {
        // Cells hold what others wrote (a plan's name, a file's, a device's): shown, never obeyed.
        var rows = rows.map { $0.map(\.printable) }
        var widths = header.map(\.terminalWidth)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.terminalWidth) }
        }
        var shown = Array(header.indices)
        func total() -> Int { shown.reduce(0) { $0 + widths[$1] } + 2 * max(0, shown.count - 1) }
        var leftOut: Set<Int> = []
        if let width, let column, column < widths.count {
            for dropped in dropping where total() > width && widths[column] - (total() - width) < roomWanted {
                shown.removeAll { $0 == dropped }
                leftOut.insert(dropped)
            }
            if total() > width {
                // At 80 columns the other columns of `history` take 72: the names get what is left.
                let room = max(header[column].terminalWidth, widths[column] - (total() - width))
                for r in rows.indices where column < rows[r].count { rows[r][column] = rows[r][column].cut(toColumns: room) }
                widths[column] = min(widths[column], room)
            }
        }
        func line(_ cells: [String]) -> String {
            shown.filter { $0 < cells.count }.map { i in
                let cell = cells[i]
                let pad = String(repeating: " ", count: widths[i] - cell.terminalWidth)
                return rightAligned.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces
        }
        return ([line(header)] + rows.map(line), leftOut)
    }
}

extension String {
    /// The columns the text takes on a terminal, as glibc's `wcswidth` and terminals that use
    /// it (tmux, xterm, VTE) count them: two for each East Asian wide or fullwidth character and
    /// each emoji shown as one (a plan's label in Japanese counted one column a character put
    /// every later column out of line), none for a combining or enclosing mark or a format
    /// character, one for the rest, summed over a character's scalars: a Devanagari conjunct
    /// or a skin-toned emoji takes more than one cell, and counted as one a Hindi step title
    /// wrapped on the live screen, which then left a copy of it at every redraw.
    /// Unicode's East Asian Width (UAX #11), by the blocks that are wide throughout.
    public var terminalWidth: Int {
        unicodeScalars.reduce(0) { $0 + Self.columns($1) }
    }

    private static func columns(_ scalar: Unicode.Scalar) -> Int {
        // The soft hyphen is drawn, as a hyphen; the medial and final Hangul jamo join the
        // syllable before them; a flag's two regional indicators take a column each.
        if scalar.value == 0xAD || (0x1F1E6...0x1F1FF).contains(scalar.value) { return 1 }
        if (0x1160...0x11FF).contains(scalar.value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return isWide(scalar) ? 2 : 1
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default:
            scalar.properties.isEmojiPresentation
        }
    }

    /// A path as one word for a shell, in a command said to the user: single-quoted when it
    /// holds anything but plain characters, and never read as an option.
    public var shellWord: String {
        if hasPrefix("-") { return ("./" + self).shellWord }
        let plain = allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./+,:@%".contains($0)) }
        return plain ? self : "'" + split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// The text within `width` columns, a cut one ending in "…".
    public func cut(toColumns width: Int) -> String {
        guard terminalWidth > width else { return self }
        var kept = ""
        var used = 0
        for character in self {
            let columns = String(character).terminalWidth
            guard used + columns <= width - 1 else { break }
            kept.append(character)
            used += columns
        }
        return kept + "…"
    }

    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// A figure for a table or a report: rounded to `places`, "-" when there is none.
public func formatFigure(_ value: Double?, _ places: Int = 0) -> String {
    value.map { JSONValue.format($0.rounded(toPlaces: places)) } ?? "-"
}

/// A figure with exactly `places` decimals ("38.0", "3.60"), for a column whose rows must
/// line up and read alike; "-" when there is none.
public func formatFixed(_ value: Double?, _ places: Int) -> String {
    guard let value else { return "-" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    // Past Int's exact range, or not finite: as `formatFigure` writes it.
    guard scaled < 9e15 else { return JSONValue.format(value.rounded(toPlaces: places)) }
    let units = Int(scaled)
    let whole = units / Int(scale)
    let fraction = String(units % Int(scale))
    let sign = value < 0 && units > 0 ? "-" : ""
    guard places > 0 else { return "\(sign)\(whole)" }
    return "\(sign)\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
}

/// "2026-03-01 07:30" from "2026-03-01T07:30:00Z" (UTC, as stored).
public func formatMinute(_ iso: String) -> String {
    guard iso.count >= 16 else { return iso }
    return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
}

extension String {
    /// The text with its control characters (C0, DEL and C1: ESC, BEL, CR...) shown as U+FFFD:
    /// a name someone else wrote (a shared plan, an activity, a Bluetooth device's, a zip
    /// entry's) printed on a terminal could otherwise retitle, recolour or clear it.
    /// `keepingLineBreaks` keeps line feeds and tabs, for text of several lines.
    public func printable(keepingLineBreaks: Bool) -> String {
        guard unicodeScalars.contains(where: { Self.isControl($0, keepingLineBreaks: keepingLineBreaks) }) else { return self }
        var shown = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            shown.append(Self.isControl(scalar, keepingLineBreaks: keepingLineBreaks) ? "\u{FFFD}" : scalar)
        }
        return String(shown)
    }

    /// `printable(keepingLineBreaks: false)`: a name or a one-line label.
    public var printable: String { printable(keepingLineBreaks: false) }

    private static func isControl(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !keepingLineBreaks
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }
}
