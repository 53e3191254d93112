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
}
