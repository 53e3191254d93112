import CLinux
import Foundation
import Testing

/// `serve` gives back its code's pages when idle (IntervalProWeb's IdleMemory) through this call.
@Suite struct PageOutTests {
    /// Resident pages of this test binary's own read-only mappings, from /proc/self/smaps.
    static func residentKiB() throws -> Int {
        let executable = try #require(readLink("/proc/self/exe"))
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var total = 0
        var inExecutable = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                inExecutable = fields.count >= 6 && String(fields[5...].joined(separator: " ")) == executable
                    && !fields[1].contains("w")
            } else if inExecutable, fields.first == "Rss:", fields.count >= 2 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test("the executable's read-only mappings are advised, and their resident pages go")
    func pagesOutTheExecutable() throws {
        let before = try Self.residentKiB()
        let advised = intervalpro_page_out_executable()
        #expect(advised > 0, "errno \(errno)")
        let after = try Self.residentKiB()
        #expect(before > 0)
        #expect(after < before, "resident KiB of the binary's read-only mappings: \(before) → \(after)")
    }
}
