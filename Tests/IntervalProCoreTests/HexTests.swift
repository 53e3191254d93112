import Testing
@testable import IntervalProCore

@Suite("Hex")
struct HexTests {
    @Test("decodes", arguments: [
        ("", [UInt8]()),
        ("00", [0x00]),
        ("00ff7F", [0x00, 0xFF, 0x7F]),
        ("DEADbeef", [0xDE, 0xAD, 0xBE, 0xEF]),
        ("0x0A0b", [0x0A, 0x0B]),
        ("0X0a", [0x0A]),
        ("0x", []),
        ("0a 0b:0c-0d", [0x0A, 0x0B, 0x0C, 0x0D]),
        ("16 4a 3c 03", [0x16, 0x4A, 0x3C, 0x03]),
        ("aa:bb:cc", [0xAA, 0xBB, 0xCC]),
        ("0a  0b", [0x0A, 0x0B]),
        (" 0a ", [0x0A]),
        ("-0a-", [0x0A]),
        ("0x 0a", [0x0A]),
        ("0x0x", nil),  // "0x" is allowed once, at the start
    ] as [(String, [UInt8]?)])
    func decodes(text: String, bytes: [UInt8]?) {
        #expect(Hex.decode(text) == bytes)
    }

    @Test("rejects", arguments: [
        "0", "abc", "0a0",  // odd digit counts
        "0 a", "0:a", "0-a",  // separators inside a byte
        "0g", "zz", "0a,0b", "0a_0b", "0a\n0b", "0a\t0b", "x0a", "0a0x0b", "+0a", "é0", "0a.",
    ])
    func rejects(text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test func decodesSubstrings() {
        let line = "hex=0a0b;"
        let digits = line.dropFirst(4).dropLast()
        #expect(Hex.decode(digits) == [0x0A, 0x0B])
    }

    @Test func encodes() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00]) == "00")
        #expect(Hex.encode([0x00, 0x01, 0xAB, 0xFF, 0x10]) == "0001abff10")
    }

    @Test func everyByteRoundTrips() {
        let all = (0...255).map { UInt8($0) }
        let text = Hex.encode(all)
        #expect(text.count == 512)
        #expect(Hex.decode(text) == all)
        #expect(Hex.decode(text.uppercased()) == all)
        for byte in all {
            let pair = Hex.encode([byte])
            #expect(pair.count == 2)
            #expect(Hex.decode(pair) == [byte])
            #expect(Hex.decode("0x" + pair) == [byte])
        }
    }
}
