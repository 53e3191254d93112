import Foundation
import Testing

/// A recording of an ANT+ foot pod (page 1 and page 2 in turn, 4 Hz, 85.5 strides a minute)
/// and an ANT+ strap (4 Hz pages, a beat every 820/1024 s: 75 bpm), as a session records them.
func antRecording(seconds: Int, withBadPage: Bool = false) -> String {
    var lines = [
        #"{"intervalpro_recording": 1, "started_at": "2026-03-01T07:30:00Z", "devices": [{"id": "ant:4321", "name": "Foot pod", "cadence_unit": "steps"}, {"id": "ant:12345", "name": "HRM-Run"}]}"#
    ]
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    var distance = 0.0
    for tick in 0..<(seconds * 4) {
        let t = Double(tick) / 4
        distance += 3.0 / 4
        let metres = distance.truncatingRemainder(dividingBy: 256)
        let sdm: [UInt8] =
            tick % 2 == 0
            ? [1, 0, UInt8(tick / 4 % 256), UInt8(metres), UInt8(Int(metres * 16) % 16) << 4 | 3, 0, UInt8(tick / 2 % 256), 0]
            : [2, 0xFF, 0xFF, 85, 0x83, 0, 0xFF, 0x01]
        lines.append(#"{"t": \#(String(format: "%.3f", t)), "dev": "ant:4321", "char": "ant-sdm", "hex": "\#(hex(sdm))"}"#)
        let beats = Int(t * 1024) / 820
        let beatTime = UInt16(truncatingIfNeeded: beats * 820)
        let hr: [UInt8] = [0, 0, 0, 0, UInt8(beatTime & 0xFF), UInt8(beatTime >> 8), UInt8(truncatingIfNeeded: beats), 75]
        lines.append(#"{"t": \#(String(format: "%.3f", t + 0.01)), "dev": "ant:12345", "char": "ant-hr", "hex": "\#(hex(hr))"}"#)
        if withBadPage, tick == 8 {
            lines.append(#"{"t": \#(String(format: "%.3f", t + 0.02)), "dev": "ant:4321", "char": "ant-sdm", "hex": "0200"}"#)
        }
    }
    return lines.joined(separator: "\n") + "\n"
}

@Suite("recordings of ANT+ sensors")
struct ANTRecordingTests {
    @Test("a foot pod's strides score as steps, the strap's beat times give heart rate and RR intervals")
    func antRecordingScores() throws {
        let scratch = try ScratchDirectory()
        let recording = try scratch.write("ant.jsonl", antRecording(seconds: 120, withBadPage: true))
        let plan = try scratch.write(
            "plan.json", #"{"name": "Two minutes", "steps": [{"kind": "work", "duration": "2:00", "cadence": 170}]}"#)
        let result = try intervalpro("replay", recording, "--plan", plan, "--fast", "--json", "--no-save")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let summary = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        let totals = try #require(summary["totals"] as? [String: Any])
        #expect(number(totals["avg_cadence_spm"]) == 171)
        #expect(try #require(number(totals["in_zone_pct"])) > 99)
        #expect(number(totals["avg_hr_bpm"]) == 75)
        let hrv = try #require(summary["hrv"] as? [String: Any], "\(summary)")
        // A beat every 820/1024 s for two minutes: 149 intervals after the first beat.
        #expect((148...150).contains(hrv["beats"] as? Int ?? 0), "\(hrv)")
        // The one bad page is said once and skipped; the file is not refused.
        #expect(result.stderr.contains("ant-sdm: an ANT+ data page is 8 bytes, not 2"), "\(result.stderr)")

        // --cadence-unit is for Bluetooth pods: a foot pod's pages are strides by their profile,
        // doubled as read (strides doubled them again: 342).
        let strides = try intervalpro("replay", recording, "--plan", plan, "--fast", "--json", "--no-save", "--cadence-unit", "strides")
        let stridesTotals = try #require(jsonObject(strides.stdoutData)?["totals"] as? [String: Any], "stdout: \(strides.stdout)")
        #expect(number(stridesTotals["avg_cadence_spm"]) == 171)

        let statistics = try intervalpro("replay", recording, "--json")
        #expect(statistics.status == 0, "stderr: \(statistics.stderr)")
        #expect(statistics.stdout.contains("ant-sdm"), "\(statistics.stdout)")
        // Without a plan, the same: the statistics doubled the pod's strides once more.
        let stridesStatistics = try intervalpro("replay", recording, "--json", "--cadence-unit", "strides")
        #expect(stridesStatistics.stdout == statistics.stdout)
    }

    /// The profile asks a foot pod for page 1 only; one that sent no page 2 scored "no signal"
    /// for the whole session.
    @Test("a foot pod that sends page 1 alone scores its cadence from its strides")
    func pageOneAlone() throws {
        let scratch = try ScratchDirectory()
        // 85.5 strides a minute; page 1 holds the strides so far and the time of the last one
        // on the pod's clock (1/200 s, rolling over at 256 s), 3 m/s.
        var lines = [#"{"intervalpro_recording": 1, "started_at": "2026-03-01T07:30:00Z", "devices": [{"id": "ant:4321", "name": "Foot pod"}]}"#]
        for tick in 0..<(120 * 4) {
            let t = Double(tick) / 4
            let strides = (t * 85.5 / 60).rounded(.down)
            let podTime = (strides * 60 / 85.5).truncatingRemainder(dividingBy: 256)
            let metres = Int(t * 3) % 256
            let page: [UInt8] = [
                1, UInt8(Int((podTime * 200).rounded()) % 200), UInt8(Int(podTime)), UInt8(metres), 3, 0, UInt8(Int(strides) % 256), 0,
            ]
            let hex = page.map { String(format: "%02x", $0) }.joined()
            lines.append(#"{"t": \#(String(format: "%.3f", t)), "dev": "ant:4321", "char": "ant-sdm", "hex": "\#(hex)"}"#)
        }
        let recording = try scratch.write("page-one.jsonl", lines.joined(separator: "\n") + "\n")
        let plan = try scratch.write(
            "plan.json", #"{"name": "Two minutes", "steps": [{"kind": "work", "duration": "2:00", "cadence": 170}]}"#)
        let result = try intervalpro("replay", recording, "--plan", plan, "--fast", "--json", "--no-save")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let step = try #require((jsonObject(result.stdoutData)?["steps"] as? [[String: Any]])?.first, "stdout: \(result.stdout)")
        #expect(number(step["avg_cadence_spm"]) == 171, "\(step)")
        // Its first 2 s of pages give none yet.
        #expect((2...3).contains(number(step["no_signal_s"]) ?? 0), "\(step)")
        #expect(try #require(number(step["in_zone_pct"])) > 97, "\(step)")
    }
}
