import Foundation
import Testing

@testable import IntervalProIO

/// Archives made by the system's zip, as Garmin Connect's export hands one out.
@Suite("Zip.entries and Zip.contents")
struct ZipTests {
    /// `files` (name → bytes) zipped by /usr/bin/zip with `options`, in a folder `folder/`.
    func zipped(_ files: [(String, [UInt8])], _ options: [String] = []) throws -> [UInt8] {
        let scratch = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: scratch.file("folder"), withIntermediateDirectories: true)
        for (name, bytes) in files { try scratch.write("folder/" + name, bytes) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
        process.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        process.arguments = ["-q", "-r"] + options + ["out.zip", "folder"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("out.zip"))))
    }

    let activity: [UInt8] = Array((0..<50_000).map { "\($0 % 97) steps\n" }.joined().utf8)

    /// Names without the UTF-8 flag are code page 437 (APPNOTE 4.4.4), as Windows tools
    /// write them: "Läufe" was "L�ufe"; UTF-8 bytes without the flag (Info-ZIP on Linux) stay.
    @Test func namesAreUTF8OrCodePage437() {
        let windows: [UInt8] = Array("L".utf8) + [0x84] + Array("ufe/kaputt_".utf8) + [0x81] + Array(".gpx".utf8)
        #expect(Zip.name(windows[...], flags: 0) == "Läufe/kaputt_ü.gpx")
        let utf8 = Array("Läufe/morgen.tcx".utf8)
        #expect(Zip.name(utf8[...], flags: 0x0800) == "Läufe/morgen.tcx")
        #expect(Zip.name(utf8[...], flags: 0) == "Läufe/morgen.tcx")
        #expect(Zip.name(Array("run.fit".utf8)[...], flags: 0) == "run.fit")
    }

    @Test func storedAndDeflatedEntriesComeBackByteForByte() throws {
        for options in [[], ["-0"], ["-9"]] {
            let archive = try zipped([("run.fit", activity), ("README.txt", Array("hello\n".utf8))], options)
            #expect(Zip.isZip(archive))
            let entries = try Zip.entries(archive)
            #expect(Set(entries.map(\.name)) == ["folder/", "folder/run.fit", "folder/README.txt"], "\(options)")
            #expect(entries.filter { !$0.isFolderOrMacResource }.count == 2)
            let run = try #require(entries.first { $0.name == "folder/run.fit" })
            #expect(run.method == (options == ["-0"] ? 0 : 8))
            #expect(try Zip.contents(of: run, in: archive) == activity)
        }
    }

    @Test("an archive mapped from disk gives what the same archive in memory gives")
    func aMappedArchiveReadsAsOneInMemory() throws {
        let archive = try zipped([("run.fit", activity), ("stored.txt", Array("hello\n".utf8))], ["-n", ".txt"])
        let scratch = try TemporaryDirectory()
        let mapped = try MappedFile(try scratch.write("export.zip", archive))
        let entries = try Zip.entries(mapped.bytes)
        #expect(entries == (try Zip.entries(archive)))
        for entry in entries where !entry.isFolderOrMacResource {
            #expect(try Zip.contents(of: entry, in: mapped.bytes) == (try Zip.contents(of: entry, in: archive)), "\(entry.name)")
        }
        #expect(Set(entries.map(\.method)) == [0, 8])
    }

    @Test("an entry handed on a piece at a time is the entry, its size and CRC-32 checked")
    func anEntryComesPieceByPiece() throws {
        let large = Array((0..<400_000).map { "\($0 % 1013) strides\n" }.joined().utf8)
        for options in [[], ["-0"]] {
            let archive = try zipped([("inner.data", large)], options)
            let entry = try #require(try Zip.entries(archive).first { $0.name == "folder/inner.data" })
            #expect(entry.method == (options == ["-0"] ? 0 : 8))
            var pieces: [[UInt8]] = []
            try archive.withUnsafeBytes { bytes in
                try Result { () throws(Zip.ArchiveError) in
                    try Zip.contents(of: entry, in: bytes) { (piece) throws(Zip.ArchiveError) in pieces.append(Array(piece)) }
                }.get()
            }
            #expect(pieces.joined().elementsEqual(large), "\(options)")
            // Stored: the one piece the archive holds; deflated: a piece per 64 KiB inflated.
            #expect(options == ["-0"] ? pieces.count == 1 : pieces.count > 1 && pieces.dropLast().allSatisfy { $0.count == 65_536 })
            // A CRC-32 the data does not match, and a sink that refuses: both said.
            var wrong = entry
            wrong.crc32 ^= 1
            #expect(throws: Zip.ArchiveError(message: "folder/inner.data: its CRC-32 does not match: the file is damaged")) {
                try archive.withUnsafeBytes { bytes in
                    try Result { () throws(Zip.ArchiveError) in try Zip.contents(of: wrong, in: bytes) { (_) throws(Zip.ArchiveError) in } }.get()
                }
            }
            // More than its directory entry says: inflating stops there, never all held.
            var short = entry
            short.size -= 10
            let overflow = options == ["-0"]
                ? "folder/inner.data: \(large.count) bytes where the directory says \(short.size): the file is damaged"
                : "folder/inner.data: it inflates to more than \(short.size) bytes, its size: the file is damaged"
            #expect(throws: Zip.ArchiveError(message: overflow)) { try Zip.contents(of: short, in: archive) }
            #expect(throws: Zip.ArchiveError(message: "disk full")) {
                try archive.withUnsafeBytes { bytes in
                    try Result { () throws(Zip.ArchiveError) in
                        try Zip.contents(of: entry, in: bytes) { (_) throws(Zip.ArchiveError) in throw Zip.ArchiveError(message: "disk full") }
                    }.get()
                }
            }
        }
    }

    @Test func damageIsFoundAndSaid() throws {
        let archive = try zipped([("run.fit", activity)])
        let run = try #require(try Zip.entries(archive).first { $0.name == "folder/run.fit" })
        var flipped = archive
        // A byte of the stored CRC-32 in the local header is not read; one of the data is.
        flipped[run.localHeaderOffset + 30 + "folder/run.fit".utf8.count + 100] ^= 0xFF
        #expect(throws: Zip.ArchiveError.self) { try Zip.contents(of: run, in: flipped) }
        #expect(throws: Zip.ArchiveError(message: "no zip directory at its end: the file was cut short, or is no zip file")) {
            try Zip.entries(Array(archive.dropLast(10)))
        }
        #expect(throws: Zip.ArchiveError(message: "folder/run.fit: its data runs past the end of the file: the file was cut short")) {
            try Zip.contents(of: run, in: Array(archive.prefix(run.localHeaderOffset + 200)))
        }
    }

    @Test func encryptedEntriesAreRefusedInSoManyWords() throws {
        let archive = try zipped([("run.fit", activity)], ["-P", "secret"])
        let run = try #require(try Zip.entries(archive).first { $0.name == "folder/run.fit" })
        #expect(throws: Zip.ArchiveError(message: "folder/run.fit: encrypted, which is not read")) { try Zip.contents(of: run, in: archive) }
    }

    /// `zip -fz` writes ZIP64 (end record, extra fields) however small the archive.
    @Test func zip64ArchivesFromZipReadByteForByte() throws {
        for options in [["-fz"], ["-fz", "-0"]] {
            let archive = try zipped([("run.fit", activity), ("README.txt", Array("hello\n".utf8))], options)
            let entries = try Zip.entries(archive)
            let run = try #require(entries.first { $0.name == "folder/run.fit" }, "\(options)")
            #expect(run.size == activity.count)
            #expect(try Zip.contents(of: run, in: archive) == activity)
            // Without its ZIP64 end record the archive says it is damaged, never crashes.
            let record = try #require(Self.lastIndex(of: [0x50, 0x4B, 6, 6], in: archive))
            var broken = archive
            broken[record] = 0
            #expect(throws: Zip.ArchiveError(message: "a ZIP64 archive whose ZIP64 end record is missing or damaged: the file is damaged")) {
                try Zip.entries(broken)
            }
        }
    }

    /// Over 65,535 files, as Python's zipfile writes them: the count is in the ZIP64 end record.
    @Test func moreThan65535FilesAreCountedFromTheZIP64Record() throws {
        let scratch = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // One line: the imports check reads a line that begins with `import` as Swift's.
        let writer = "z = __import__('zipfile').ZipFile(__import__('sys').argv[1], 'w'); "
            + "[z.writestr(f'a/{i}.txt', str(i)) for i in range(65_600)]; z.close()"
        process.arguments = ["-c", writer, scratch.file("many.zip")]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let archive = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("many.zip"))))
        let entries = try Zip.entries(archive)
        #expect(entries.count == 65_600)
        #expect(try Zip.contents(of: entries[65_599], in: archive) == Array("65599".utf8))
    }

    static func lastIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        stride(from: bytes.count - pattern.count, through: 0, by: -1).first { Array(bytes[$0..<($0 + pattern.count)]) == pattern }
    }
}
