import CLinux
import Foundation
import Testing

/// `serve` gives back its code's pages when idle (IntervalProWeb's IdleMemory) through this call,
/// and a live session before its sensors connect. One test at a time, each measured up to three
/// times: a page-out elsewhere in the process (a session started in another suite) between the
/// two measures left nothing to page out (19,132 KiB before, 19,208 after, once in CI).
@Suite(.serialized) struct PageOutTests {
    /// Whether, in one of three tries, the resident KiB `measure` gives fell across a page-out;
    /// every try, for the message.
    static func fallsAcrossAPageOut(
        preparing prepare: () -> Void = {}, _ measure: () throws -> Int
    ) rethrows -> (fell: Bool, tries: [(before: Int, after: Int)]) {
        var tries: [(before: Int, after: Int)] = []
        for _ in 0..<3 {
            prepare()
            let before = try measure()
            let advised = intervalpro_page_out_code()
            #expect(advised > 0, "errno \(errno)")
            tries.append((before, try measure()))
            if tries.last!.after < tries.last!.before { return (true, tries) }
        }
        return (false, tries)
    }

    /// Resident pages of this test binary's own read-only mappings, from /proc/self/smaps.
    static func residentKiB() throws -> Int {
        try residentKiB(of: try #require(readLink("/proc/self/exe")))
    }

    /// Resident pages of the read-only mappings of `executable`, a file's path.
    static func residentKiB(of executable: String) throws -> Int {
        // Read to its end: String(contentsOfFile:) stops at the first read of a /proc file.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
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
        let (fell, tries) = try Self.fallsAcrossAPageOut { try Self.residentKiB() }
        #expect(fell, "resident KiB of the binary's read-only mappings, before → after: \(tries)")
    }

    /// After `doctor`'s checks and a report, an idle `serve` held 17 MB of libraries' pages
    /// (libcrypto, gnutls, ALSA) that only the binary's were given back of.
    @Test("another file's read-only mapping, as a library's, is advised too, and its resident pages go")
    func pagesOutLibraries() throws {
        let dir = try ScratchFolder()
        let path = dir.url.appendingPathComponent("library.so").path
        try Data(repeating: 7, count: 1 << 20).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let mapped = try #require(mmap(nil, 1 << 20, PROT_READ, MAP_PRIVATE, descriptor, 0))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, 1 << 20) }
        // Each try reads every page first: all of it resident, then paged out.
        let (fell, tries) = try Self.fallsAcrossAPageOut(preparing: {
            var sum = 0
            for offset in stride(from: 0, to: 1 << 20, by: 4096) { sum &+= Int(mapped.load(fromByteOffset: offset, as: UInt8.self)) }
            #expect(sum == 7 * 256)
        }) { try Self.residentKiB(of: path) }
        #expect(fell, "resident KiB of the file's read-only mapping, before → after: \(tries)")
    }
}

/// A folder of its own under the temporary directory, removed with it.
final class ScratchFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("intervalpro-pageout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}
