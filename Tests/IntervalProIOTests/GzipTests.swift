import Foundation
@testable import IntervalProIO
import Testing

/// Files compressed by the system's gzip, as a Strava bulk export is.
@Suite("Gzip.inflate")
struct GzipTests {
    /// `bytes` through `gzip -c` (extra options before `-c`).
    func gzipped(_ bytes: [UInt8], _ options: [String] = []) throws -> [UInt8] {
        let scratch = try TemporaryDirectory()
        let plain = try scratch.write("plain", bytes)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = options + ["-c", plain]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(data)
    }

    /// Text that compresses unevenly and spans several of the reader's 64 KiB chunks.
    let recording: [UInt8] = Array(
        (0..<20_000).map { #"{"t":\#(Double($0) / 4),"dev":"pod","char":"2a53","hex":"02\#(String($0 % 256, radix: 16))00aa"}"# }
            .joined(separator: "\n").utf8)

    @Test func whatGzipWroteComesBackByteForByte() throws {
        let packed = try gzipped(recording, ["-9", "-n"])
        #expect(Gzip.isGzip(packed) && !Gzip.isGzip(recording))
        #expect(packed.count < recording.count / 4)
        #expect(try Gzip.inflate(packed) == recording)
        #expect(try Gzip.inflate(try gzipped([])) == [])
    }

    @Test func membersOneAfterAnotherAreReadInTurn() throws {
        let first = Array(recording[0..<1000]), second = Array(recording[1000...])
        #expect(try Gzip.inflate(try gzipped(first) + gzipped(second)) == recording)
    }

    @Test func aCutOrDamagedFileSaysWhatIsWrong() throws {
        let packed = try gzipped(recording)
        #expect(throws: Gzip.InflateError.self) { try Gzip.inflate(Array(packed[0..<(packed.count / 2)])) }
        do {
            _ = try Gzip.inflate(Array(packed[0..<(packed.count / 2)]))
        } catch {
            #expect(error.message.hasPrefix("the file ends inside its compressed data ("), "\(error.message)")
        }
        var damaged = packed
        damaged[2] = 7  // the compression method: only 8, deflate, exists
        #expect(throws: Gzip.InflateError(message: "its compressed data is damaged (unknown compression method) after 0 bytes")) {
            try Gzip.inflate(damaged)
        }
    }

    @Test func aCutFileGivesWhatCameBeforeTheCut() throws {
        let packed = try gzipped(recording)
        let salvage = try Gzip.inflateSalvaging(Array(packed[0..<(packed.count * 2 / 3)]))
        #expect(salvage.damage?.message.hasPrefix("the file ends inside its compressed data") == true)
        #expect(salvage.content.count > recording.count / 3)
        #expect(salvage.content == Array(recording.prefix(salvage.content.count)))
        #expect(throws: Gzip.InflateError.self) { try Gzip.inflateSalvaging(Array(packed.prefix(12))) }
    }
}
