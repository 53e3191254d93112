import Foundation
import IntervalProQR
import Testing

@Suite("QRCode")
struct QRCodeTests {
    static let pageAddress = "http://192.168.1.20:8417/?token=0123456789abcdef0123456789abcdef"

    @Test("zbarimg reads the PBM image back as the page address")
    func pbmDecodes() throws {
        let code = try QRCode(Self.pageAddress)
        #expect(try zbarimg(code.pbm(scale: 4, quietZone: 4)) == Self.pageAddress)
    }

    @Test("UTF-8 text goes through 8-bit mode unchanged")
    func utf8Decodes() throws {
        let text = "Cadencia más rápida: 170 pasos/min ✓"
        #expect(try zbarimg(QRCode(text).pbm(scale: 3, quietZone: 4)) == text)
    }

    @Test("the PBM header and size follow the scale and the quiet zone")
    func pbmLayout() throws {
        let code = try QRCode(Self.pageAddress)
        let image = code.pbm(scale: 3, quietZone: 2)
        let pixels = (code.size + 4) * 3
        let header = Array("P4\n\(pixels) \(pixels)\n".utf8)
        #expect(Array(image.prefix(header.count)) == header)
        #expect(image.count == header.count + (pixels + 7) / 8 * pixels)
    }

    @Test("level M, 8-bit mode: the address takes version 5 (37 modules); the finder patterns are in the corners")
    func matrix() throws {
        let code = try QRCode(Self.pageAddress)
        // 64 bytes: version 4-M holds 62 in 8-bit mode, version 5-M 84.
        #expect(code.size == 37)
        // A finder pattern: a dark 7×7 ring, a light ring, a dark 3×3 centre; then a light separator.
        for (left, top) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            for y in 0..<7 {
                for x in 0..<7 {
                    let ring = max(abs(x - 3), abs(y - 3))
                    #expect(code.isDark(x: left + x, y: top + y) == (ring != 2), "finder at (\(left), \(top)), module (\(x), \(y))")
                }
            }
        }
        #expect(!code.isDark(x: 7, y: 0) && !code.isDark(x: 0, y: 7), "the separator is light")
        #expect(code.isDark(x: 8, y: code.size - 8), "the dark module beside the lower left finder")
    }

    @Test("terminal text, read back by inverting its half blocks, is the matrix", arguments: [0, 1, 2, 4])
    func terminalTextRoundTrips(quietZone: Int) throws {
        let code = try QRCode(Self.pageAddress)
        let text = code.terminalText(quietZone: quietZone)
        let extent = code.size + 2 * quietZone
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == (extent + 1) / 2)

        // Block characters are light modules; a space is two dark ones.
        var light = [[Bool]]()
        for line in lines {
            let scalars = Array(line.unicodeScalars)
            #expect(scalars.count == extent)
            var top = [Bool]()
            var bottom = [Bool]()
            for scalar in scalars {
                switch scalar {
                case "█": top.append(true); bottom.append(true)
                case "▀": top.append(true); bottom.append(false)
                case "▄": top.append(false); bottom.append(true)
                case " ": top.append(false); bottom.append(false)
                default: Issue.record("unexpected character U+\(String(scalar.value, radix: 16))")
                }
            }
            light.append(top)
            light.append(bottom)
        }
        // The lower half of the last line lies past the code: background, drawn as nothing.
        #expect(light.count == extent + 1)
        #expect(light.last == [Bool](repeating: false, count: extent))
        light.removeLast()

        for y in 0..<extent {
            for x in 0..<extent {
                let column = x - quietZone
                let row = y - quietZone
                let inCode = (0..<code.size).contains(column) && (0..<code.size).contains(row)
                let expectedLight = inCode ? !code.isDark(x: column, y: row) : true
                #expect(light[y][x] == expectedLight, "module (\(x), \(y)) with a quiet zone of \(quietZone)")
            }
        }
    }

    @Test("the largest symbol's capacity is the limit: 2,331 bytes encode, 2,332 and 8,000 throw tooLong")
    func capacity() throws {
        let largest = try QRCode(String(repeating: "a", count: 2331))
        #expect(largest.size == 177)
        #expect(throws: QRCodeError.tooLong(bytes: 2332)) { try QRCode(String(repeating: "a", count: 2332)) }
        #expect(throws: QRCodeError.tooLong(bytes: 8000)) { try QRCode(String(repeating: "x", count: 8000)) }
    }

    @Test("empty text throws empty")
    func empty() {
        #expect(throws: QRCodeError.empty) { try QRCode("") }
    }

    /// Decodes a PBM image with zbarimg (zbar-tools, .ci/test-packages.txt) and returns the text.
    private func zbarimg(_ image: [UInt8]) throws -> String {
        let zbarimg = "/usr/bin/zbarimg"
        try #require(FileManager.default.isExecutableFile(atPath: zbarimg), "zbarimg missing: apt-get install zbar-tools")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intervalpro-qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("code.pbm")
        try Data(image).write(to: file)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: zbarimg)
        process.arguments = ["--raw", "-q", file.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let decoded = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "zbarimg: \(String(decoding: message, as: UTF8.self))")
        // --raw prints each symbol's data followed by a newline.
        var text = String(decoding: decoded, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
