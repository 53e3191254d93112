// libFuzzer target: a Strava bulk export's activities.csv (`StravaActivitiesCSV.names`, and
// the RFC 4180 reader under it, `CSV.rows`), which `history import` reads for the runs' names.
//
// Beside "no trap": the rows written back as CSV (every field quoted, its quotes doubled, every
// row ended by a line break) read back as the same rows; and every name found is one line of
// text without white space around it, its file not empty.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let rows = CSV.rows(bytes)
    // Quotes doubled scalar by scalar: as a character, a quote and a combining mark after it
    // are one, not a quote.
    func quoted(_ field: String) -> String {
        var text = "\""
        for scalar in field.unicodeScalars {
            text.unicodeScalars.append(scalar)
            if scalar == "\"" { text.unicodeScalars.append(scalar) }
        }
        return text + "\""
    }
    let written = rows.map { row in row.map(quoted).joined(separator: ",") + "\n" }.joined()
    let again = CSV.rows(written)
    precondition(again == rows, "rows written back read as \(again), not \(rows)")
    for (file, name) in StravaActivitiesCSV.names(bytes) {
        precondition(!file.isEmpty && !name.isEmpty, "an empty file or name: \(file) \(name)")
        precondition(!name.contains { $0.isNewline || $0 == "\t" }, "a name of more than one line: \(name)")
        precondition(name == name.trimmingWhitespace && file == file.trimmingWhitespace, "white space around \(file) \(name)")
    }
    return 0
}
