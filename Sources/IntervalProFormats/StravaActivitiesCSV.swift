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
        let rows = CSV.rows(bytes)
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
/// line breaks and quotes (doubled). Lines end in CRLF, LF or CR. Never refuses: a quote left
/// open runs to the end of the text. Read byte by byte: the quotes, commas and line breaks are
/// those bytes whatever follows them (read as Swift's characters, a quote and a combining mark
/// after it were one character, and a comma before one was not a comma).
enum CSV {
    static func rows(_ text: String) -> [[String]] {
        rows(Array(text.utf8))
    }

    /// The rows of UTF-8 text, each field decoded on its own (a byte that is not UTF-8 as U+FFFD).
    /// Fields end at a comma, or at what `separates` says (RR interval text's semicolons).
    static func rows(_ bytes: [UInt8], separatedBy separates: (UInt8) -> Bool = { $0 == UInt8(ascii: ",") }) -> [[String]] {
        let quote = UInt8(ascii: "\""), lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == quote {
                    if index < bytes.count, bytes[index] == quote {
                        field.append(quote)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case quote where field.isEmpty:
                quoted = true
            case _ where separates(byte):
                endField()
            case lineFeed, carriageReturn:
                if byte == carriageReturn, index < bytes.count, bytes[index] == lineFeed { index += 1 }
                endField()
                rows.append(row)
                row = []
            default:
                field.append(byte)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            endField()
            rows.append(row)
        }
        return rows
    }
}
