import Foundation
import IntervalProCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import IntervalProIO

@Suite("FileIO.readAll")
struct FileIOTests {
    /// Bytes that are not periodic in 64 KiB, so a chunk read twice or skipped shows up.
    static func pattern(count: Int) -> [UInt8] {
        var state: UInt32 = 0x1234_5678
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test("reads files of every size around the 64 KiB chunk exactly", arguments: [0, 1, 65_535, 65_536, 65_537, 200_003])
    func readsExactly(count: Int) throws {
        let dir = try TemporaryDirectory()
        let bytes = Self.pattern(count: count)
        let path = try dir.write("data.bin", bytes)
        let read = try FileIO.readAll(path)
        #expect(read.count == count)
        #expect(read == bytes)
    }

    @Test("a pipe, whose size is not known beforehand, is read whole")
    func readsAPipe() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("pipe")
        #expect(mkfifo(path, 0o600) == 0)
        let bytes = Self.pattern(count: 200_003)
        // The reader's open waits for this writer, which writes in pieces, then closes.
        let writer = Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            defer { close(fd) }
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(fd, buffer.baseAddress! + offset, min(10_000, buffer.count - offset))
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
        writer.start()
        #expect(try FileIO.readAll(path) == bytes)
    }

    /// `plan check /dev/zero` (or `yes | intervalpro replay -`) grew to every byte of memory,
    /// then trapped with a stack trace.
    @Test("an endless stream is refused at the read bound, named, not read into all memory")
    func anEndlessStreamIsRefused() {
        #expect {
            _ = try FileIO.readAll("/dev/zero")
        } throws: { error in
            guard let failure = error as? FileError else { return false }
            return failure.description.contains("'/dev/zero'")
                && failure.description.contains("more than 512 MiB")
        }
    }

    /// `kill -9` of a long render left its new file beside the output for good.
    @Test("a replacement removes what a killed writer of the same file left, never a live one's")
    func abandonedReplacementsAreRemoved() throws {
        let scratch = try TemporaryDirectory()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let abandoned = try scratch.write("out.wav.intervalpro-\(gone.processIdentifier).tmp", [1, 2, 3])
        let live = try scratch.write("out.wav.intervalpro-1.tmp", [1, 2, 3])
        let other = try scratch.write("notes.txt.intervalpro-\(gone.processIdentifier).tmp", [1])
        try FileIO.write([4, 5], to: scratch.file("out.wav"))
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: live), "pid 1 runs")
        #expect(FileManager.default.fileExists(atPath: other), "another file's")
        #expect(try FileIO.readAll(scratch.file("out.wav")) == [4, 5])
    }

    /// A web token file others could read (0644) was used as it was.
    @Test("a secret's file is kept to its owner: group's and others' access taken away, the owner's kept")
    func aSecretIsKeptPrivate() throws {
        let scratch = try TemporaryDirectory()
        let token = try scratch.write("web-token", Array("0123\n".utf8))
        #expect(chmod(token, 0o644) == 0)
        FileIO.keepPrivate(token)
        var info = stat()
        #expect(stat(token, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try FileIO.readAll(token) == Array("0123\n".utf8))
    }

    /// `[1,2,3]` in sensors.json read as no memory, without the word a typo in it gets.
    @Test("remembered sensors: a file that is no object is said, as a malformed one is")
    func sensorMemoryThatIsNoObject() throws {
        let scratch = try TemporaryDirectory()
        let list = try scratch.write("sensors.json", Array("[1, 2, 3]\n".utf8))
        #expect {
            _ = try SensorMemory.load(from: list)
        } throws: { error in
            "\(error)" == "\(list): expected an object, found an array"
        }
        let kept = try scratch.write("kept.json", Array(#"{"version": 1, "cadence": {"address": "ant:4321"}}"#.utf8))
        #expect(try SensorMemory.load(from: kept) == SensorMemory(cadence: SensorMemory.Sensor(address: "ant:4321")))
    }

    /// A later version's sensors.json (version 2, a power meter, a calibration) was read, and
    /// the next choice wrote it back as version 1 with all of that gone.
    @Test("remembered sensors: what a later version keeps is written back with a choice")
    func sensorMemoryOfALaterVersion() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("sensors.json", Array(#"""
            {"version": 2, "power": {"address": "AA:00"},
             "heart_rate": {"address": "HR:01", "battery_seen": 80},
             "cadence": {"address": "ant:4321", "calibration": 1.02}}
            """#.utf8))
        var memory = try SensorMemory.load(from: path)
        memory.heartRate = SensorMemory.Sensor(address: "HR:01", name: "HRM-Pro")  // the same strap, chosen again
        memory.cadence = SensorMemory.Sensor(address: "C0:FE")  // another pod
        try memory.save(to: path)
        let text = String(decoding: try FileIO.readAll(path), as: UTF8.self)
        let again = try SensorMemory.load(from: path)
        #expect(again.version == 2 && again.otherMembers == ["power": #"{"address":"AA:00"}"#], "\(text)")
        #expect(again.heartRate?.others == ["battery_seen": "80"] && again.heartRate?.name == "HRM-Pro", "\(text)")
        #expect(again.cadence?.others == [:], "another device's calibration is not this one's: \(text)")
    }

    /// "Importing: 12 of 300 files" on a 20-column terminal wrapped, and each redraw left a row.
    @Test("a progress line is cut to the terminal's width, a wide character counting two")
    func progressLinesFitTheTerminal() {
        #expect(ProgressLine.cut("Importing: 12 of 300 files", to: 19) == "Importing: 12 of 3…")
        #expect(ProgressLine.cut("short", to: 19) == "short")
        #expect(ProgressLine.cut("記録 recording", to: 6).terminalWidth <= 6)
    }

    @Test("a missing file throws FileError: open, not found, naming the path")
    func missingFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("absent.json")
        let error = try #require(throws: FileError.self) { try FileIO.readAll(path) }
        #expect(error.isNotFound)
        #expect(error.operation == .open)
        #expect(error.path == path)
        #expect(error.description.contains("'\(path)'"))
        #expect(error.description == "cannot open '\(path)': No such file or directory")
    }

    @Test("a directory throws a read error naming the path")
    func directory() throws {
        let dir = try TemporaryDirectory()
        let error = try #require(throws: FileError.self) { try FileIO.readAll(dir.path) }
        #expect(!error.isNotFound)
        #expect(error.operation == .read)
        #expect(error.path == dir.path)
        #expect(error.description.hasPrefix("cannot read '\(dir.path)': "))
        #expect(error.description.contains("directory"), "EISDIR: \(error.description)")
    }

    // root reads anything, so the check only means something for other users.
    @Test("an unreadable file throws an open error that is not 'not found'", .enabled(if: getuid() != 0))
    func unreadable() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("secret.json", Array("{}".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        let error = try #require(throws: FileError.self) { try FileIO.readAll(path) }
        #expect(!error.isNotFound)
        #expect(error.operation == .open)
        #expect(error.description.contains(path))
    }

    /// The test above cannot run as root, and CI runs as root: a symbolic link to itself
    /// cannot be opened by anyone.
    @Test("a file that cannot be opened for a reason other than its absence is not 'not found'")
    func unopenable() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/loop.json"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path)
        let error = try #require(throws: FileError.self) { try FileIO.readAll(path) }
        #expect(!error.isNotFound)
        #expect(error.operation == .open)
        #expect(error.description.contains(path))
    }

    @Test("a plan read with readAll decodes")
    func readsABundledPlan() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.appendingPathComponent("Plans/cadence-ladder.json").path
        let bytes = try FileIO.readAll(path)
        #expect(bytes == Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let plan = try PlanDecoder.decode(bytes, file: path)
        #expect(plan.name == "Cadence ladder")
    }
}

@Suite("FileIO.isRegularFile")
struct RegularFileTests {
    @Test func onlyARegularFileIsOne() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("run.zip", [0x50, 0x4B, 3, 4])
        #expect(FileIO.isRegularFile(file))
        #expect(!FileIO.isRegularFile(dir.path))
        #expect(!FileIO.isRegularFile(dir.file("missing.zip")))
        // A pipe: its bytes, once read to look at them, would be gone.
        #expect(mkfifo(dir.file("pipe"), 0o600) == 0)
        #expect(!FileIO.isRegularFile(dir.file("pipe")))
        #expect(symlink(file, dir.file("link.zip")) == 0)
        #expect(FileIO.isRegularFile(dir.file("link.zip")))
    }
}

@Suite("FileIO.write")
struct FileIOWriteTests {
    /// `export -o` naming the session store wrote over it, and every session was gone.
    @Test("a database is never written over")
    func aDatabaseIsKept() throws {
        let dir = try TemporaryDirectory()
        let database = try dir.write("intervalpro.sqlite", Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 7, count: 4080))
        let before = try FileIO.readAll(database)
        let error = try #require(throws: FileError.self) { try FileIO.write([1, 2, 3], to: database) }
        #expect(error.description.contains("SQLite database"), "\(error)")
        #expect(try FileIO.readAll(database) == before)
        #expect(symlink(database, dir.file("link.fit")) == 0)
        #expect(throws: FileError.self) { try FileIO.write([1, 2, 3], to: dir.file("link.fit")) }
        #expect(try FileIO.readAll(database) == before)
    }

    /// Written beside and renamed over: a failed write leaves the old file whole, not emptied.
    @Test("a file is replaced whole, keeping its mode; a device is written in place; nothing is left beside")
    func replacedWhole() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("run.tcx", Array("old".utf8))
        #expect(chmod(path, 0o600) == 0)
        try FileIO.write(Array("new content".utf8), to: path)
        #expect(try FileIO.readAll(path) == Array("new content".utf8))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["run.tcx"])
        try FileIO.write([1, 2, 3], to: "/dev/null")
        // Into a folder that may not be written (as root, a file that is a folder instead): an error, the old file kept.
        let folder = dir.file("taken")
        #expect(mkdir(folder, 0o755) == 0)
        #expect(throws: FileError.self) { try FileIO.write([1], to: folder) }
    }
}


@Suite("FileIO.replaceContents")
struct ReplaceContentsTests {
    /// A stray temporary of mode 0644 was written through: the token came out world-readable.
    @Test("the new file is the owner's alone, whatever was left at the temporary name")
    func theNewFileIsTheOwnersAlone() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("web-token", Array("old".utf8))
        let stray = try dir.write("web-token.intervalpro-\(getpid()).tmp", Array("left over".utf8))
        #expect(chmod(stray, 0o644) == 0)
        try FileIO.replaceContents(of: path, with: "0123456789abcdef")
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try FileIO.readAll(path) == Array("0123456789abcdef".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["web-token"])
    }

    /// `serve` and a command both keep sensors.json: with one `.tmp` name for every writer,
    /// the second to write while the first was at it failed with EEXIST.
    @Test("another writer's temporary is left to it, and the replacement goes through")
    func anotherWritersTemporaryIsLeftAlone() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("sensors.json", Array("{}".utf8))
        // Process 1 is alive (its own writer, for all this one knows); the fixed name is the
        // one an earlier IntervalPro wrote at.
        let others = [
            try dir.write("sensors.json.intervalpro-1.tmp", Array("half".utf8)),
            try dir.write("sensors.json.tmp", Array("half".utf8)),
        ]
        try FileIO.replaceContents(of: path, with: "{\"hr\": null}")
        #expect(try FileIO.readAll(path) == Array("{\"hr\": null}".utf8))
        for other in others { #expect(try FileIO.readAll(other) == Array("half".utf8)) }
    }

    /// One left by a writer that was killed half way is taken away by the next.
    @Test("a temporary a writer that has ended left is removed")
    func anEndedWritersTemporaryIsRemoved() throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("accounts.json", Array("{}".utf8))
        let ended = try endedProcess()
        let left = try dir.write("accounts.json.intervalpro-\(ended).tmp", Array("half".utf8))
        try FileIO.replaceContents(of: path, with: "{\"accounts\": []}")
        #expect(access(left, F_OK) != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["accounts.json"])
    }

    /// Many threads replacing one file: each replacement is whole, and none fails.
    @Test("replacements from several threads of one process never meet")
    func replacementsFromSeveralThreadsNeverMeet() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/sensors.json"
        let texts = (0..<8).map { String(repeating: String($0), count: 4096) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for text in texts {
                group.addTask { for _ in 0..<20 { try FileIO.replaceContents(of: path, with: text) } }
            }
            try await group.waitForAll()
        }
        #expect(texts.contains(String(decoding: try FileIO.readAll(path), as: UTF8.self)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["sensors.json"])
    }

    /// A replacement that fails leaves no temporary behind (a full disk left a 0-byte
    /// accounts.json.tmp): here the rename fails, as the name is a folder with a file in it.
    @Test("a replacement that fails leaves the old contents and no temporary")
    func aFailedReplacementLeavesNoTemporary() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/accounts.json"
        #expect(mkdir(path, 0o700) == 0)
        _ = try dir.write("accounts.json/kept", Array("kept".utf8))
        #expect(throws: FileError.self) { try FileIO.replaceContents(of: path, with: "{}") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["accounts.json"], "no temporary left")
        #expect(try FileIO.readAll(path + "/kept") == Array("kept".utf8))
    }

    /// The id of a process that has ended and been waited for.
    private func endedProcess() throws -> Int32 {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        return ended.processIdentifier
    }
}
