import Foundation
import IntervalProFIT
import Testing

/// Two copies of one run in an import: which is kept.
extension HistoryImportTests {
    /// What `history import FOLDER --json` of two copies of one run said: the one session it
    /// kept, and the file it called a copy, with why.
    struct KeptCopy {
        var session: Int
        var copyFile: String
        var copyReason: String
        var report: [String: Any]
    }

    func importTwoCopies(_ folder: String, in store: ScratchStore, sourceLocation: SourceLocation = #_sourceLocation) throws -> KeptCopy {
        let result = try store.run("history", "import", folder, "--json")
        #expect(result.status == 0, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        let report = try #require(jsonObject(result.stdoutData), sourceLocation: sourceLocation)
        let imported = report["imported"] as? [Int] ?? []
        let copies = report["duplicates"] as? [[String: Any]] ?? []
        #expect(imported.count == 1 && copies.count == 1, "\(report)", sourceLocation: sourceLocation)
        return KeptCopy(
            session: try #require(imported.first, sourceLocation: sourceLocation),
            copyFile: copies.first?["file"] as? String ?? "", copyReason: copies.first?["reason"] as? String ?? "",
            report: report)
    }

    /// A cut copy and the whole run in one import: the cut one, read first, was kept, both were
    /// said to be imported before, and the advice (delete it, import again) kept it again.
    @Test("a cut copy and the whole run in one import: the whole run is kept, the copy said to be one")
    func theLongerCopyInOneImportIsKept() throws {
        let store = try ScratchStore()
        let folder = store.directory.path("both")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try store.directory.write("both/a-cut.gpx", gpxRun(start: Self.lastRun, seconds: 96, perFoot: 86))
        try store.directory.write("both/b-whole.gpx", gpxRun(start: Self.lastRun, seconds: 600, perFoot: 86))
        let kept = try importTwoCopies(folder, in: store)
        #expect((kept.report["longer_than_kept"] as? [Any])?.isEmpty == true, "\(kept.report)")
        #expect(kept.copyFile.hasSuffix("a-cut.gpx"), "\(kept.report)")
        // Read side by side, the whole run may be stored first ("the same run as") or replace
        // the cut one ("a shorter copy"): which, a loaded machine decides.
        #expect(
            kept.copyReason.hasPrefix("a shorter copy of the run in") || kept.copyReason.hasPrefix("the same run as"),
            "\(kept.report)")
        let shown = try #require(jsonObject(try store.run("show", "\(kept.session)", "--json").stdoutData))
        #expect(number(shown["duration_s"]).map { $0 > 590 } == true, "\(shown["duration_s"] ?? "none")")
        // Imported again: both copies are of a run imported before.
        let again = try #require(jsonObject(try store.run("history", "import", folder, "--json").stdoutData))
        let reasons = (again["duplicates"] as? [[String: Any]])?.compactMap { $0["reason"] as? String } ?? []
        #expect(reasons.count == 2 && reasons.allSatisfy { $0.hasPrefix("imported before as session") }, "\(reasons)")
    }

    /// Garmin's TCX says what recorded it (`<Creator>`) after its laps: a copy cut off before
    /// it had no creator, so another key, and was kept beside the whole file as another run.
    @Test("a TCX cut off before its <Creator> is a copy of the whole file, in one import or in two")
    func aTCXCutOffBeforeItsCreatorIsACopy() throws {
        let whole = tcxRun(start: Self.lastRun, seconds: 600, perFoot: 86)
        let cut = String(whole.prefix(whole.count * 6 / 10))
        #expect(!cut.contains("<Creator>"))
        // In one import, the whole file is kept, whichever is read first.
        for (cutName, wholeName) in [("a-cut.tcx", "b-whole.tcx"), ("b-cut.tcx", "a-whole.tcx")] {
            let store = try ScratchStore()
            let folder = store.directory.path("copies")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try store.directory.write("copies/" + cutName, cut)
            try store.directory.write("copies/" + wholeName, whole)
            let kept = try importTwoCopies(folder, in: store)
            #expect(kept.copyFile.hasSuffix(cutName), "\(kept.report)")
            let listed = try #require(jsonObject(try store.run("history", "--json").stdoutData))
            #expect((listed["sessions"] as? [Any])?.count == 1, "\(listed)")
            let shown = try #require(jsonObject(try store.run("show", "\(kept.session)", "--json").stdoutData))
            #expect(number(shown["duration_s"]).map { $0 > 590 } == true, "\(shown["duration_s"] ?? "none")")
        }
        // In two, the cut copy first: the whole file is skipped, and said to be the one to keep.
        let store = try ScratchStore()
        let cutFile = try store.directory.write("cut.tcx", cut)
        let wholeFile = try store.directory.write("whole.tcx", whole)
        #expect(try store.run("history", "import", cutFile).status == 0)
        let later = try #require(jsonObject(try store.run("history", "import", wholeFile, "--json").stdoutData))
        #expect((later["imported"] as? [Int])?.isEmpty == true, "\(later)")
        let said = try #require((later["longer_than_kept"] as? [[String: Any]])?.first?["reason"] as? String, "\(later)")
        #expect(said.hasPrefix("session 1 is 6:00, this file 9:59: `intervalpro delete 1` and import again"), "\(said)")
        // And the whole file first: the cut copy is the same run.
        let other = try ScratchStore()
        #expect(try other.run("history", "import", other.directory.write("whole.tcx", whole)).status == 0)
        let copy = try #require(jsonObject(try other.run("history", "import", other.directory.write("cut.tcx", cut), "--json").stdoutData))
        #expect((copy["imported"] as? [Int])?.isEmpty == true, "\(copy)")
        #expect((copy["duplicates"] as? [[String: Any]])?.count == 1, "\(copy)")
    }

    /// A watch file with bytes flipped (its CRC does not match) read one timestamp 48 minutes
    /// past the run's end: taken for the longer copy, it replaced the intact file of the run.
    @Test("a damaged FIT beside its intact copy: the intact one is kept, whichever is read first; one imported later is said")
    func theIntactCopyIsKept() throws {
        func run(damaged: Bool) -> Data {
            var writer = FITFileWriter()
            writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
            let start = Int(Self.lastRun.timeIntervalSince1970) - Int(FITTime.epochOffset)
            for second in 0..<600 {
                let time = start + second + (damaged && second == 590 ? 2_880 : 0)
                writer.write(
                    FITMessage(20, [FITField(253, .uint32, .int(time)), FITField(3, .uint8, .int(140)), FITField(4, .uint8, .int(85))]))
            }
            var bytes = writer.fileBytes()
            if damaged { bytes[bytes.count - 1] ^= 0xFF }
            return Data(bytes)
        }
        for (intact, damaged) in [("a-intact.fit", "b-damaged.fit"), ("b-intact.fit", "a-damaged.fit")] {
            let store = try ScratchStore()
            let folder = store.directory.path("copies")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try run(damaged: false).write(to: URL(fileURLWithPath: folder + "/" + intact))
            try run(damaged: true).write(to: URL(fileURLWithPath: folder + "/" + damaged))
            let kept = try importTwoCopies(folder, in: store)
            #expect(kept.copyFile.hasSuffix(damaged), "\(kept.report)")
            let shown = try #require(jsonObject(try store.run("show", "\(kept.session)", "--json").stdoutData))
            #expect(number(shown["duration_s"]).map { $0 < 700 } == true, "\(shown["duration_s"] ?? "none")")
        }
        // The damaged copy imported on its own first: the intact one, imported later, says how to keep it.
        let store = try ScratchStore()
        let damagedFile = try store.directory.write("damaged.fit", "")
        try run(damaged: true).write(to: URL(fileURLWithPath: damagedFile))
        let intactFile = try store.directory.write("intact.fit", "")
        try run(damaged: false).write(to: URL(fileURLWithPath: intactFile))
        #expect(try store.run("history", "import", damagedFile).status == 0)
        let later = try #require(jsonObject(try store.run("history", "import", intactFile, "--json").stdoutData))
        let said = try #require((later["longer_than_kept"] as? [[String: Any]])?.first?["reason"] as? String, "\(later)")
        #expect(said.hasPrefix("session 1 was read from a damaged file, this one is intact: `intervalpro delete 1`"), "\(said)")
    }
}
