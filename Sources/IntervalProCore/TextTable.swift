/// Plain aligned columns for terminal tables.
public enum TextTable {
    public static func render(header: [String], rows: [[String]], rightAligned: [Int] = []) -> [String] {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return rightAligned.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces
        }
        return [line(header)] + rows.map(line)
    }
}

extension String {
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

/// "2026-03-01 07:30" from "2026-03-01T07:30:00Z" (UTC, as stored).
public func formatMinute(_ iso: String) -> String {
    guard iso.count >= 16 else { return iso }
    return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
}
