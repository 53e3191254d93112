import Foundation
import Testing

@Suite("intervalpro decode")
struct DecodeCommandTests {
    @Test("2a37 with contact and one RR interval, as JSON")
    func heartRateJSON() throws {
        let result = try intervalpro("decode", "2a37", "16", "48", "00", "04", "02", "--json")
        #expect(result.status == 0)
        #expect(result.stdout == #"{"heart_rate_bpm":72,"sensor_contact":"detected","rr_intervals_ms":[1000]}"# + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("2a53 running at 174 spm, as JSON")
    func rscJSON() throws {
        let result = try intervalpro("decode", "2a53", "04a802ae", "--json")
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let object = try #require(jsonObject(result.stdout))
        // 0x02A8 / 256 m/s = 2.65625, 0xAE = 174 per minute, flag bit 2 = running.
        #expect(object["cadence_per_min"] as? Int == 174)
        #expect(abs(try #require(number(object["speed_mps"])) - 2.65625) < 0.0001)
        #expect(object["running"] as? Bool == true)
        #expect(result.stdout.hasSuffix("\n"))
        #expect(!result.stdout.dropLast().contains("\n"), "one line of JSON")
    }

    @Test("ANT+ pages: a heart-rate page 4 with its RR interval, a foot pod's cadence in steps, a short page refused")
    func antPages() throws {
        let heart = try intervalpro("decode", "ant-hr", "84ff00100014093d", "--json")
        #expect(heart.status == 0, "stderr: \(heart.stderr)")
        let page = try #require(jsonObject(heart.stdout))
        #expect(page["heart_rate_bpm"] as? Int == 61)
        #expect(number(page["rr_interval_ms"]) == 1000)
        let pod = try intervalpro("decode", "ant-sdm", "02ffff558320ff11", "--json")
        #expect(number(try #require(jsonObject(pod.stdout))["cadence_spm"]) == 171)
        let text = try intervalpro("decode", "ant-sdm", "02ffff558320ff11")
        #expect(text.stdout.contains("ANT+ stride-based speed and distance page"))
        let short = try intervalpro("decode", "ant-hr", "0400")
        #expect(short.status == 65)
        #expect(short.stderr.contains("an ANT+ data page is 8 bytes, not 2"))
    }

    @Test("hex in pieces and in one piece mean the same")
    func hexPieces() throws {
        let pieces = try intervalpro("decode", "2a53", "04", "a8", "02", "ae", "--json")
        let joined = try intervalpro("decode", "2a53", "04a802ae", "--json")
        #expect(pieces.status == 0)
        #expect(pieces.stdout == joined.stdout)
    }

    @Test("the text form names the characteristic and the fields")
    func textForm() throws {
        let result = try intervalpro("decode", "2a37", "16", "48", "00", "04")
        #expect(result.status == 0)
        #expect(result.stdout.contains("Heart Rate Measurement"))
        #expect(result.stdout.contains("heart rate bpm: 72"))
        #expect(result.stdout.contains("rr intervals ms: 1000"))
    }

    @Test("a truncated RSC Measurement exits 65 naming the characteristic and both lengths")
    func truncated() throws {
        let result = try intervalpro("decode", "2a53", "04a8", "--json")
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("RSC Measurement"))
        #expect(result.stderr.contains("0x2A53"))
        #expect(result.stderr.contains("2 bytes"))
        #expect(result.stderr.contains("need 4"))
        #expect(result.stderr.hasPrefix("intervalpro: error:"))
        #expect(!looksLikeACrash(result.stderr))
    }

    @Test("a truncated Heart Rate Measurement exits 65")
    func truncatedHeartRate() throws {
        // Flags 0x01: the heart rate is 16 bits, but only one byte follows.
        let result = try intervalpro("decode", "2a37", "0148")
        #expect(result.status == 65)
        #expect(result.stderr.contains("Heart Rate Measurement"))
        #expect(result.stderr.contains("2 bytes"))
        #expect(result.stderr.contains("need 3"))
    }

    @Test("an unknown characteristic is a usage error (64)")
    func unknownCharacteristic() throws {
        let result = try intervalpro("decode", "2a99", "00")
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("unknown characteristic '2a99'"))
    }

    @Test("a value that is not hex is a usage error (64)")
    func notHex() throws {
        let result = try intervalpro("decode", "2a37", "0g")
        #expect(result.status == 64)
        #expect(result.stderr.contains("not hex"))
    }

    @Test(
        "the full 128-bit UUID works, in either case",
        arguments: ["00002a53-0000-1000-8000-00805f9b34fb", "00002A53-0000-1000-8000-00805F9B34FB"])
    func fullUUID(uuid: String) throws {
        let long = try intervalpro("decode", uuid, "04a802ae", "--json")
        let short = try intervalpro("decode", "2a53", "04a802ae", "--json")
        #expect(long.status == 0)
        #expect(long.stdout == short.stdout)
        #expect(long.stdout.contains(#""cadence_per_min":174"#))
    }

    @Test("a 128-bit UUID outside the Bluetooth base is refused (64)")
    func foreignUUID() throws {
        let result = try intervalpro("decode", "00002a53-1111-2222-3333-444444444444", "04a802ae")
        #expect(result.status == 64)
    }
}
