import Foundation
import Testing

/// A run is kept second by second: what spans weeks is no run to keep.
@Suite struct HistoryImportSpanTests {
    /// Three lines weeks apart took 1.9 GB to import and left a store of 268 MB, a session of
    /// 2,688 hours; `replay` still reads the file.
    @Test("a recording whose readings are a day or more apart is not imported, and says why")
    func readingsDaysApartAreNoRun() throws {
        let store = try ScratchStore()
        let lines = [
            #"{"intervalpro_recording": 1, "started_at": "2026-08-01T06:00:00Z", "devices": [{"id": "strap"}]}"#,
            #"{"t": 0, "dev": "strap", "char": "2a37", "hex": "0096"}"#,
            #"{"t": 4838400, "dev": "strap", "char": "2a37", "hex": "0096"}"#,
        ]
        let file = try store.directory.write("span.jsonl", lines.joined(separator: "\n") + "\n")
        let result = try store.run("history", "import", file, "--json")
        #expect(result.status == 65, "\(result.stderr)")
        let report = try #require(jsonObject(result.stdoutData), "\(result.stdout)")
        let unreadable = try #require(report["unreadable"] as? [[String: Any]])
        #expect((unreadable.first?["reason"] as? String)?.hasPrefix("readings a day or more apart") == true, "\(unreadable)")
        #expect(try store.sessions().isEmpty)
    }
}
