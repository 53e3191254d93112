import Foundation
import IntervalProCore
import Testing

@testable import IntervalProIO

@Suite("RecordingWriter")
struct RecordingWriterTests {
    static let header = RecordingHeader(
        startedAt: "2026-03-01T07:30:00Z",
        devices: [
            RecordedDevice(id: "00:00:5E:00:53:01", name: "HRM"),
            RecordedDevice(id: "00:00:5E:00:53:02", name: "Footpod", cadenceUnit: .strides),
        ])

    static let entries: [RecordingEntry] = [
        .notification(
            RawNotification(
                time: .seconds(0), device: "00:00:5E:00:53:02", characteristic: .rscMeasurement,
                bytes: [0x07, 0x40, 0x02, 0x4B, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x00])),
        .notification(
            RawNotification(
                time: .seconds(0.25), device: "00:00:5E:00:53:01", characteristic: .heartRateMeasurement,
                bytes: [0x16, 0x60, 0x80, 0x02])),
        .event(time: .seconds(1.5), device: "00:00:5E:00:53:02", name: "disconnected"),
        .notification(
            RawNotification(
                time: SessionTime(microseconds: 2_000_001), device: "00:00:5E:00:53:01",
                characteristicID: "2a99", bytes: [0x01])),
        .event(time: .seconds(12.125), device: "00:00:5E:00:53:02", name: "connected"),
    ]

    static func parse(_ path: String) throws -> (header: RecordingHeader, entries: [RecordingEntry]) {
        try RecordingParser.parse(try FileIO.readAll(path), file: path)
    }

    @Test("the header is on disk as soon as the writer exists")
    func headerImmediately() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rec.jsonl")
        let writer = try RecordingWriter(path: path, headerLine: RecordingLine.header(Self.header))
        let bytes = try FileIO.readAll(path)
        #expect(bytes == Array((RecordingLine.header(Self.header) + "\n").utf8))
        let parsed = try Self.parse(path)
        #expect(parsed.header == Self.header)
        #expect(parsed.entries.isEmpty)
        try writer.close()
    }

    @Test("every line is on disk as it is written, before close")
    func linesAsWritten() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rec.jsonl")
        let writer = try RecordingWriter(path: path, headerLine: RecordingLine.header(Self.header))
        for count in 1...Self.entries.count {
            try writer.write(line: RecordingLine.entry(Self.entries[count - 1]))
            let parsed = try Self.parse(path)
            #expect(parsed.header == Self.header)
            #expect(parsed.entries == Array(Self.entries.prefix(count)), "after \(count) lines")
        }
        #expect(writer.path == path)
        try writer.close()
        #expect(try Self.parse(path).entries == Self.entries)
    }

    @Test("close() is idempotent, and writes after it are dropped")
    func closeTwice() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rec.jsonl")
        let writer = try RecordingWriter(path: path, headerLine: RecordingLine.header(Self.header))
        try writer.write(line: RecordingLine.entry(Self.entries[0]))
        #expect(processHasOpen(path))
        try writer.close()
        #expect(!processHasOpen(path))
        try writer.close()
        try writer.write(line: RecordingLine.entry(Self.entries[1]))
        #expect(try Self.parse(path).entries == [Self.entries[0]])
    }

    /// A full disk (/dev/full: every write is ENOSPC) ended the recording at its first
    /// refused line, for good. It is held in memory, said, and only a close that still
    /// cannot write it fails, with the disk's own error.
    @Test("a full disk holds the lines in memory; a close that still cannot write them fails with ENOSPC")
    func aFullDiskHoldsTheLines() throws {
        let writer = try RecordingWriter(path: "/dev/full", headerLine: RecordingLine.header(Self.header))
        #expect(writer.isHeldByFullDisk)
        try writer.write(line: RecordingLine.entry(Self.entries[0]))
        #expect(writer.fullDiskNews(wasHeld: false)?.contains("the disk is full") == true)
        #expect(writer.fullDiskNews(wasHeld: true) == nil)
        #expect(throws: FileError.self) { try writer.close() }
        do {
            try writer.close()
        } catch {
            Issue.record("a second close has nothing left to write: \(error)")
        }
    }

    /// Past what a full disk may hold (`heldLimit`), the write fails as it did.
    @Test("past the limit a full disk may hold, the write fails")
    func pastTheLimitAFullDiskFails() throws {
        let writer = try RecordingWriter(path: "/dev/full", headerLine: RecordingLine.header(Self.header))
        let line = String(repeating: "x", count: 1 << 20)
        #expect(throws: FileError.self) {
            for _ in 0...(RecordingWriter.heldLimit >> 20) { try writer.write(line: line) }
        }
    }

    @Test("deinit closes the file")
    func deinitCloses() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rec.jsonl")
        do {
            let writer = try RecordingWriter(path: path, headerLine: RecordingLine.header(Self.header))
            try writer.write(line: RecordingLine.entry(Self.entries[2]))
            withExtendedLifetime(writer) { #expect(processHasOpen(path)) }
        }
        #expect(!processHasOpen(path))
        #expect(try Self.parse(path).entries == [Self.entries[2]])
    }

    @Test("a path in a missing directory throws FileError (create) naming the path")
    func missingDirectory() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("no/such/dir/rec.jsonl")
        let error = try #require(throws: FileError.self) {
            _ = try RecordingWriter(path: path, headerLine: RecordingLine.header(Self.header))
        }
        #expect(error.operation == .create)
        #expect(error.path == path)
        #expect(error.description.hasPrefix("cannot create '\(path)'"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a directory as the path throws FileError (create)")
    func directoryAsPath() throws {
        let dir = try TemporaryDirectory()
        let error = try #require(throws: FileError.self) {
            _ = try RecordingWriter(path: dir.path, headerLine: RecordingLine.header(Self.header))
        }
        #expect(error.operation == .create)
        #expect(!error.isNotFound)
    }

    /// A second recording with the same name replaced the first without a word (and before
    /// that, was appended to it).
    @Test("a file that holds something is never written over nor appended to; an empty one is taken; said before sensors are looked for")
    func anExistingRecordingIsKept() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rec.jsonl")
        try RecordingWriter(path: path, headerLine: RecordingLine.header(Self.header)).close()
        let before = try FileIO.readAll(path)
        for attempt in [{ _ = try RecordingWriter(path: path, headerLine: "{}") }, { try RecordingWriter.checkTarget(path) }] {
            let error = try #require(throws: FileError.self) { try attempt() }
            #expect(error.description.contains("recording never writes over a file"), "\(error)")
        }
        #expect(try FileIO.readAll(path) == before)

        let empty = try dir.write("empty.jsonl", [])
        try RecordingWriter.checkTarget(empty)
        try RecordingWriter(path: empty, headerLine: RecordingLine.header(Self.header)).close()
        #expect(try Self.parse(empty).header == Self.header)
        try RecordingWriter.checkTarget(dir.file("new.jsonl"))
        #expect(throws: FileError.self) { try RecordingWriter.checkTarget(dir.file("no/such/rec.jsonl")) }
    }
}

