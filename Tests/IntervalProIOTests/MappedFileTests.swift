import Foundation
import Testing

@testable import IntervalProIO

@Suite("MappedFile")
struct MappedFileTests {
    @Test("a mapped file's bytes are the file's, whatever its size", arguments: [0, 1, 4_095, 4_096, 200_003])
    func bytesAreTheFiles(count: Int) throws {
        let dir = try TemporaryDirectory()
        let bytes = FileIOTests.pattern(count: count)
        let path = try dir.write("data.bin", bytes)
        let mapped = try MappedFile(path)
        #expect(mapped.bytes.count == count)
        #expect(Array(mapped.bytes) == bytes)
        // The mapping outlives the descriptor it was made from.
        #expect(!processHasOpen(path))
    }

    @Test func aMissingFileIsSaidAsOneThatCannotBeOpened() {
        #expect {
            try MappedFile("/nonexistent/intervalpro-mapped")
        } throws: { error in
            (error as? FileError).map { $0.isNotFound && $0.operation == .open } ?? false
        }
    }

    @Test func aFolderCannotBeMapped() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: FileError.self) { try MappedFile(dir.path) }
    }

    @Test("a temporary file holds what was written to it, piece by piece, and leaves nothing behind")
    func aTemporaryFileIsWrittenMappedAndGone() throws {
        let dir = try TemporaryDirectory()
        let bytes = FileIOTests.pattern(count: 300_001)
        let mapped = try MappedFile.temporary(in: dir.path) { (write) throws(FileError) in
            for start in stride(from: 0, to: bytes.count, by: 65_536) {
                try bytes[start..<min(bytes.count, start + 65_536)].withUnsafeBytes { piece in
                    Result { () throws(FileError) in try write(piece) }
                }.get()
            }
        }
        #expect(Array(mapped.bytes) == bytes)
        // Removed as soon as it was made: the folder is empty while it is still mapped.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [])
        #expect(try MappedFile.temporary(in: dir.path) { (_: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) in }.bytes.count == 0)
        #expect {
            try MappedFile.temporary(in: dir.file("missing")) { (_: (UnsafeRawBufferPointer) throws(FileError) -> Void) throws(FileError) in }
        } throws: { error in
            (error as? FileError).map { $0.operation == .create && $0.isNotFound } ?? false
        }
    }
}
