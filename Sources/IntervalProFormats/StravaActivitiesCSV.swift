import IntervalProCore

/// The `activities.csv` of a Strava bulk export: one row per activity, with the name the runner
/// gave it ("Activity Name") and, for those recorded by a device, its file in the export
/// ("Filename", such as `activities/1234567890.fit.gz`). A FIT file holds no name of its own, so
/// this is where an imported run's name comes from.
public enum StravaActivitiesCSV {
    /// The activities' names by file, relative to the folder that holds the CSV. Empty when the
    /// CSV has neither the columns by their English names nor an export's layout. Of a column
    /// Strava writes twice (newer exports repeat some), the first is read.
    ///
    /// Strava writes the header in the account's language ("Name der Aktivität" and "Dateiname"
    /// in German): every run of a German export was "Imported run", without a word. The columns
    /// keep their order in every language, so without the English names the file column is the
    /// one whose values are the export's `activities/` files, and the name the third column,
    /// after the activity's id (a number) and date.
    public static func names(_ bytes: [UInt8]) -> [String: String] {
        let rows = CSV.rows(String(decoding: bytes, as: UTF8.self))
        guard let header = rows.first,
            let nameColumn = header.firstIndex(where: { $0.trimmingWhitespace == "Activity Name" }) ?? thirdAfterIDs(rows),
            let fileColumn = header.firstIndex(where: { $0.trimmingWhitespace == "Filename" }) ?? exportFiles(rows)
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

    /// The column of the export's own files, `activities/…`, in any language's header.
    static func exportFiles(_ rows: [[String]]) -> Int? {
        let columns = rows.dropFirst().map { row in
            row.indices.filter { row[$0].trimmingWhitespace.lowercased().hasPrefix("activities/") }
        }
        return columns.lazy.compactMap(\.first).first
    }

    /// The name's place in any language's header: the third column, where the first holds the
    /// activities' ids (numbers).
    static func thirdAfterIDs(_ rows: [[String]]) -> Int? {
        let data = rows.dropFirst().filter { $0.count > 2 }
        guard !data.isEmpty, data.allSatisfy({ !$0[0].isEmpty && $0[0].allSatisfy({ ("0"..."9").contains($0) }) }) else { return nil }
        return 2
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
