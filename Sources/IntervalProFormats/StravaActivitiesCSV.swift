import IntervalProCore

/// The `activities.csv` of a Strava bulk export: one row per activity, with the name the runner
/// gave it ("Activity Name") and, for those recorded by a device, its file in the export
/// ("Filename", such as `activities/1234567890.fit.gz`). A FIT file holds no name of its own, so
/// this is where an imported run's name comes from.
public enum StravaActivitiesCSV {
    /// The activities' names by file, relative to the folder that holds the CSV. Empty when the
    /// CSV has no "Activity Name" or "Filename" column. Of a column Strava writes twice (newer
    /// exports repeat some), the first is read.
    public static func names(_ bytes: [UInt8]) -> [String: String] {
        let rows = CSV.rows(String(decoding: bytes, as: UTF8.self))
        guard let header = rows.first,
            let nameColumn = header.firstIndex(where: { $0.trimmingWhitespace == "Activity Name" }),
            let fileColumn = header.firstIndex(where: { $0.trimmingWhitespace == "Filename" })
        else { return [:] }
        var names: [String: String] = [:]
        for row in rows.dropFirst() where row.count > max(nameColumn, fileColumn) {
            // A name is one line: one typed over two ("Long run\nwith friends") showed its line
            // break as U+FFFD in every table.
            let name = row[nameColumn].split(whereSeparator: { $0.isNewline || $0 == "\t" }).joined(separator: " ").trimmingWhitespace
            let file = row[fileColumn].trimmingWhitespace
            guard !name.isEmpty, !file.isEmpty else { continue }
            names[file] = name
        }
        return names
    }
}

/// Comma-separated values as RFC 4180 describes them: a field in double quotes may hold commas,
/// line breaks and quotes (doubled). Lines end in CRLF or LF. Never refuses: a quote left open
/// runs to the end of the text.
enum CSV {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = text.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if quoted {
                if character == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = characters.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty:
                quoted = true
            case ",":
                row.append(field)
                field = ""
            // A Character holds CR LF as one.
            case "\n", "\r\n", "\r":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default:
                field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
