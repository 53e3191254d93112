import Foundation
import IntervalProIO
import Testing

// Audio end to end, through real libasound: Tests/Audio/asound.conf defines the PCM
// `intervalpro_test`, ALSA's `file` plugin over a `null` slave, writing a WAV to
// $INTERVALPRO_TEST_AUDIO. No sound card is needed, and none is ever touched: the file
// also replaces the default device.

let testALSAConfig = packagePath("Tests/Audio/asound.conf")

func audioEnvironment(_ wav: String) -> [String: String?] {
    ["ALSA_CONFIG_PATH": testALSAConfig, "INTERVALPRO_TEST_AUDIO": wav]
}

func readWAV(_ path: String) throws -> WAVFile {
    try #require(WAVFile.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))), "not a WAV: \(path)")
}

/// Frames where a click starts: the first sample above `threshold` after `gap` quiet
/// frames. Every plain click has the same attack, so the delay from the true onset is the
/// same for all of them.
func clickOnsets(_ wav: WAVFile, threshold: Int = 300) -> [Int] {
    // A click falls below the threshold within 40 ms; beats are at least 230 ms apart.
    let gap = wav.sampleRate / 40
    var found: [Int] = []
    var quiet = gap
    for frame in 0..<(wav.samples.count / wav.channels) {
        var loud = false
        for c in 0..<wav.channels where abs(Int(wav.samples[frame * wav.channels + c])) > threshold { loud = true }
        if loud {
            if quiet >= gap { found.append(frame) }
            quiet = 0
        } else {
            quiet += 1
        }
    }
    return found
}

/// Whether any sample in [from, to) seconds is above `threshold`.
func sounds(_ wav: WAVFile, from: Double, to: Double, threshold: Int = 300) -> Bool {
    let start = Int(from * Double(wav.sampleRate)) * wav.channels
    let end = min(wav.samples.count, Int(to * Double(wav.sampleRate)) * wav.channels)
    guard start < end else { return false }
    return wav.samples[start..<end].contains { abs(Int($0)) > threshold }
}

/// A 30-minute plan: a silent warmup, six work/rest pairs at changing targets (one a
/// range with a half-spm centre), a silent cooldown.
let thirtyMinutePlanText = """
    {
      "name": "Thirty minutes",
      "steps": [
        {"kind": "warmup", "duration": "5:00"},
        {"repeat": 6, "steps": [
          {"kind": "work", "duration": "2:30", "cadence": [170, 175, 180, {"low": 170, "high": 175}, 165, 185]},
          {"kind": "rest", "duration": "1:30", "cadence": 150}
        ]},
        {"kind": "cooldown", "duration": "1:00"}
      ]
    }
    """

@Suite("Audio through ALSA (test asound.conf)", .serialized)
struct AudioCommandTests {
    /// The plan's timed steps as (start seconds, length seconds, target spm or nil).
    static let thirtyMinuteSteps: [(Double, Double, Double?)] = {
        var steps: [(Double, Double, Double?)] = [(0, 300, nil)]
        var t = 300.0
        for target in [170, 175, 180, 172.5, 165, 185] {
            steps.append((t, 150, target))
            steps.append((t + 150, 90, 150))
            t += 240
        }
        steps.append((t, 60, nil))
        return steps
    }()

    @Test func everyClickOfAThirtyMinutePlanIsOnTheGrid() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", thirtyMinutePlanText)
        let wavPath = scratch.path("out.wav")
        let result = try intervalpro(
            arguments: ["render-audio", plan, "--simulate", "--no-voice", "--audio-device", "intervalpro_test",
                        "--audio-rate", "16000", "--audio-channels", "1"],
            environment: audioEnvironment(wavPath))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let wav = try readWAV(wavPath)
        #expect(wav.sampleRate == 16_000)
        #expect(wav.channels == 1)
        let rate = Double(wav.sampleRate)

        // The ideal grid: beat n of a step at start + n × 60/spm, before the step ends.
        var ideal: [Double] = []
        var firstBeats: [Double] = []
        for (start, length, target) in Self.thirtyMinuteSteps {
            guard let target else { continue }
            firstBeats.append(start * rate)
            var n = 0.0
            while n * 60 / target < length {
                ideal.append((start + n * 60 / target) * rate)
                n += 1
            }
        }
        let onsets = clickOnsets(wav)
        #expect(onsets.count == ideal.count)
        guard onsets.count == ideal.count, let first = onsets.first else { return }
        // The detector sees a click a few frames into its attack; the same for every click.
        let delay = Double(first) - ideal[0]
        #expect((0...12).contains(delay))
        var worst = 0.0
        for (onset, expected) in zip(onsets, ideal) { worst = max(worst, abs(Double(onset) - delay - expected)) }
        #expect(worst <= 1, "worst distance from the ideal grid: \(worst) frames")
        // Every tempo change lands on its step boundary.
        for boundary in firstBeats {
            #expect(onsets.contains { abs(Double($0) - delay - boundary) <= 1 }, "no click on the boundary at \(boundary / rate) s")
        }
        // Untargeted steps (the warmup, the cooldown) are silent.
        let warmup = sounds(wav, from: 0, to: 300)
        let cooldown = sounds(wav, from: 1_740.1, to: 1_800)
        #expect(!warmup && !cooldown)
    }

    @Test func deviceAndFileRendersAreTheSameSamples() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        let direct = scratch.path("direct.wav")
        let common = ["render-audio", plan, "--simulate", "--accent", "alternate", "--audio-rate", "16000"]
        let first = try intervalpro(arguments: common + ["-o", direct])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stderr.contains("rendered 3:0"))
        let viaALSA = scratch.path("alsa.wav")
        let second = try intervalpro(
            arguments: common + ["--audio-device", "intervalpro_test"], environment: audioEnvironment(viaALSA))
        #expect(second.status == 0, "stderr: \(second.stderr)")
        let a = try readWAV(direct)
        let b = try readWAV(viaALSA)
        #expect(a.channels == 2 && b.channels == 2 && a.sampleRate == b.sampleRate)
        #expect(a.samples.count == b.samples.count)
        let same = a.samples == b.samples
        #expect(same)
        // Alternate accents: left and right clicks differ, so the channels do.
        let panned = stride(from: 0, to: a.samples.count, by: 2).contains { a.samples[$0] != a.samples[$0 + 1] }
        #expect(panned)
    }

    @Test func voiceCuesWhereExpected() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        let wavPath = scratch.path("voice.wav")
        // Clicks off, so every sound is a voice cue; coaching (the simulated runner starts
        // each step off target) waits longer than the steps, so only the planned cues remain.
        let result = try intervalpro(
            arguments: ["render-audio", plan, "--simulate", "--metronome", "off", "--coaching-grace", "600",
                        "--audio-device", "intervalpro_test",
                        "--audio-rate", "16000", "--audio-channels", "1"],
            environment: audioEnvironment(wavPath))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let wav = try readWAV(wavPath)
        // Warmup announced at 0; work previewed at 50 s; 3-2-1 at 57, 58, 59; the same
        // before the rest at 120; halfway at 30, 90 and 150; the summary at 180.
        for (from, to) in [(0.0, 1.0), (30, 30.8), (50, 51), (57, 57.5), (58, 58.5), (59, 59.5), (90, 90.8),
                           (110, 111), (117, 117.5), (150, 150.8), (180, 181)] {
            let voiced = sounds(wav, from: from, to: to)
            #expect(voiced, "no voice in \(from)-\(to) s")
        }
        for (from, to) in [(5.0, 29.5), (33, 49.5), (63, 89.5), (93, 109.5), (123, 149.5), (153, 179.5)] {
            let voiced = sounds(wav, from: from, to: to)
            #expect(!voiced, "sound in \(from)-\(to) s")
        }
        // No voice and no clicks: nothing at all.
        let silentPath = scratch.path("silent.wav")
        let silent = try intervalpro(
            arguments: ["render-audio", plan, "--simulate", "--metronome", "off", "--no-voice", "-o", silentPath,
                        "--audio-rate", "8000"])
        #expect(silent.status == 0, "stderr: \(silent.stderr)")
        let allZero = try readWAV(silentPath).samples.allSatisfy { $0 == 0 }
        #expect(allZero)
    }

    /// A file for the phone by a treadmill, without a sensor: `--simulate` was the only way to
    /// one, and its made-up runner was coached in the runner's ears ("Faster, 6 more") and
    /// scored at the end. With no runner: the planned cues and the clicks alone.
    @Test func withNoRunnerTheClicksAndPlannedCuesAlone() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        let voicePath = scratch.path("voice.wav")
        let voiced = try intervalpro(
            arguments: ["render-audio", plan, "--metronome", "off", "-o", voicePath, "--audio-rate", "16000", "--audio-channels", "1"])
        #expect(voiced.status == 0, "stderr: \(voiced.stderr)")
        let voice = try readWAV(voicePath)
        // The cues of `voiceCuesWhereExpected`, with the default coaching grace: nothing between.
        for (from, to) in [(0.0, 1.0), (30, 30.8), (50, 51), (57, 57.5), (110, 111), (180, 181)] {
            #expect(sounds(voice, from: from, to: to), "no voice in \(from)-\(to) s")
        }
        for (from, to) in [(5.0, 29.5), (33, 49.5), (63, 89.5), (93, 109.5), (123, 149.5), (153, 179.5)] {
            #expect(!sounds(voice, from: from, to: to), "sound in \(from)-\(to) s")
        }
        // "Session complete." and no percent: about a second of speech, not three.
        #expect(!sounds(voice, from: 182, to: 190))

        let clicksPath = scratch.path("clicks.wav")
        let clicked = try intervalpro(arguments: ["render-audio", plan, "--no-voice", "-o", clicksPath, "--audio-rate", "16000"])
        #expect(clicked.status == 0, "stderr: \(clicked.stderr)")
        let clicks = try readWAV(clicksPath)
        let onsets = clickOnsets(clicks).map { Double($0) / Double(clicks.sampleRate) }
        // Work at 170 spm from 1:00 to 2:00, the rest without a target silent.
        let work = onsets.filter { $0 >= 60.5 && $0 < 119.5 }
        #expect(work.count >= 165 && work.count <= 170, "\(work.count) clicks in the work step")
        #expect(!onsets.contains { $0 > 120.5 })
        // Off target follows a cadence there is none of: it was a file of silence, said nowhere.
        let gatedPath = scratch.path("gated.wav")
        let gated = try intervalpro(
            arguments: ["render-audio", plan, "--no-voice", "--metronome", "off-target", "-o", gatedPath, "--audio-rate", "16000"])
        #expect(gated.status == 0 && gated.stderr.contains("with no runner, it plays throughout"), "\(gated.stderr)")
        let gatedClicks = try readWAV(gatedPath)
        #expect(clickOnsets(gatedClicks).count == onsets.count, "\(clickOnsets(gatedClicks).count) against \(onsets.count)")
        // A name of another format is written as WAV all the same, and said so.
        let misnamed = try intervalpro(
            arguments: ["render-audio", plan, "--no-voice", "-o", scratch.path("run.mp3"), "--audio-rate", "8000", "--audio-channels", "1"])
        #expect(misnamed.status == 0 && misnamed.stderr.contains("run.mp3 holds WAV audio, not MP3"), "\(misnamed.stderr)")
        // ffmpeg does not write over its own input: the advice was `ffmpeg -i run.mp3 out.mp3`.
        let wav = scratch.path("run.wav")
        #expect(misnamed.stderr.contains("(mv -i \(scratch.path("run.mp3")) \(wav) && ffmpeg -i \(wav) \(scratch.path("run.mp3")) converts it)"), "\(misnamed.stderr)")
        #expect(!clicked.stderr.contains("holds WAV audio"))

        // An open step lasts five minutes, a distance step its length at 2.5 m/s.
        let unbounded = try scratch.write(
            "open.json",
            #"{"name": "o", "steps": [{"kind": "work", "duration": "open", "cadence": 170}, {"kind": "rest", "distance": 500}]}"#)
        let unboundedPath = scratch.path("open.wav")
        let rendered = try intervalpro(
            arguments: ["render-audio", unbounded, "-o", unboundedPath, "--audio-rate", "8000", "--audio-channels", "1"])
        #expect(rendered.status == 0, "stderr: \(rendered.stderr)")
        let steps = try readWAV(unboundedPath)
        let length = Double(steps.samples.count) / 8000
        // The summary's cue at 8:20 ends it.
        #expect(length > 500.5 && length < 506, "\(length) s")
        #expect(sounds(steps, from: 299, to: 300) && !sounds(steps, from: 310, to: 490) && sounds(steps, from: 500, to: 501))
    }

    @Test func spanishVoiceDiffersFromEnglish() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        var renders: [[Int16]] = []
        for language in ["en", "es"] {
            let path = scratch.path("\(language).wav")
            let result = try intervalpro(
                arguments: ["render-audio", plan, "--simulate", "--metronome", "off", "--voice", language, "-o", path,
                            "--audio-rate", "8000", "--audio-channels", "1"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            renders.append(try readWAV(path).samples)
        }
        let differ = renders[0] != renders[1]
        let voiced = renders.allSatisfy { $0.contains { $0 != 0 } }
        #expect(differ && voiced)
    }

    /// `-o -` wrote a file named "-", and `-o` naming the session store truncated it to a WAV.
    @Test("render-audio: -o - is standard output, the same bytes as the file; a store is never written over")
    func renderAudioOutputs() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        let common = ["render-audio", plan, "--simulate", "--no-voice", "--audio-rate", "8000", "--audio-channels", "1"]
        let file = scratch.path("clicks.wav")
        #expect(try intervalpro(arguments: common + ["-o", file]).status == 0)
        let piped = try intervalpro(arguments: common + ["-o", "-"], in: scratch.url)
        #expect(piped.status == 0, "stderr: \(piped.stderr)")
        #expect(piped.stdoutData == (try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(WAVFile.parse(Array(piped.stdoutData))?.samples.contains { $0 != 0 } == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("-")))

        let store = scratch.path("data/intervalpro/intervalpro.sqlite")
        let env = ["XDG_CONFIG_HOME": scratch.path("config"), "XDG_DATA_HOME": scratch.path("data")]
        #expect(try intervalpro(arguments: ["run", plan, "--simulate", "--fast"], environment: env).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try intervalpro(arguments: common + ["-o", store], environment: env)
        #expect(refused.status == 74, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("SQLite database"), "stderr: \(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test("render-audio stopped by Ctrl-C: 130, and neither the file nor its unfinished copy is left")
    func renderAudioInterrupted() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.path("long.wav")
        let command = try RunningCommand(
            ["render-audio", packagePath("Plans/long-steady-run.json"), "--simulate", "--no-voice", "-o", file])
        // Once the unfinished copy is being written, a few blocks in.
        let deadline = Date().addingTimeInterval(30)
        func unfinished() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: scratch.url.path)) ?? []).filter { $0.hasSuffix(".tmp") }
        }
        while unfinished().isEmpty, command.process.isRunning, Date() < deadline { usleep(10_000) }
        #expect(!unfinished().isEmpty, "no unfinished copy seen")
        command.interrupt()
        let result = command.finish()
        // Killed, it left hundreds of megabytes of WAV beside the file asked for, and said nothing.
        #expect(result.exited && result.status == 130, "status \(result.status), stderr: \(result.stderr)")
        #expect(result.stderr.contains("long.wav was not written"), "stderr: \(result.stderr)")
        #expect(unfinished().isEmpty && !FileManager.default.fileExists(atPath: file))
    }

    /// A two-minute work step at 170 (zone 165-175), and a footpod that drops to 150 spm
    /// from 30 s to 70 s.
    static func offTargetRecording() -> String {
        var lines = [#"{"intervalpro_recording": 1, "started_at": "2026-03-01T07:30:00Z", "devices": [{"id": "pod", "name": "Footpod", "cadence_unit": "steps"}]}"#]
        for second in 0...120 {
            let cadence = (30..<70).contains(second) ? 150 : 170
            let hex = "04a802" + String(cadence, radix: 16)
            lines.append(#"{"t": \#(second).000, "dev": "pod", "char": "2a53", "hex": "\#(hex)"}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func offTargetClicksOnlyWhileOutOfZone() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json",
            #"{"version": 2, "name": "Off target", "metronome": {"mode": "off-target", "grace": 5, "voice": "off"}, "steps": [{"kind": "work", "duration": "2:00", "cadence": 170}]}"#
        )
        let recording = try scratch.write("run.jsonl", Self.offTargetRecording())
        let wavPath = scratch.path("off.wav")
        let result = try intervalpro(
            arguments: ["render-audio", plan, "--replay", recording, "-o", wavPath, "--audio-rate", "16000",
                        "--audio-channels", "1"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let wav = try readWAV(wavPath)
        let onsets = clickOnsets(wav).map { Double($0) / 16_000 }
        // Out of zone a few seconds after 30 s (smoothing), clicks 5 s later; back in zone
        // a few seconds after 70 s, and silent from then on.
        let (early, middle, late) = (sounds(wav, from: 0, to: 35), sounds(wav, from: 45, to: 65), sounds(wav, from: 80, to: 125))
        #expect(!early && middle && !late)
        let first = try #require(onsets.first)
        let last = try #require(onsets.last)
        #expect(first > 35 && first < 45, "first click at \(first) s")
        #expect(last > 70 && last < 80, "last click at \(last) s")
        // The clicks keep the step's grid (170 spm from 0 s), muted or not.
        let beat = 60.0 / 170
        for onset in onsets {
            let phase = (onset / beat) - (onset / beat).rounded()
            #expect(abs(phase * beat * 16_000) < 15, "click at \(onset) s is off the grid")
        }
        // Coaching: voice only (the flags override the plan). The advice turns to "faster"
        // at 31 s: coaching at 41 s, again after the 20 s cooldown (with "halfway" at 60 s),
        // and nothing once back in zone (74 s) until the summary at 120 s.
        let coachPath = scratch.path("coach.wav")
        let coached = try intervalpro(
            arguments: ["render-audio", plan, "--replay", recording, "-o", coachPath, "--metronome", "off",
                        "--voice", "en", "--audio-rate", "8000", "--audio-channels", "1"])
        #expect(coached.status == 0, "stderr: \(coached.stderr)")
        let coach = try readWAV(coachPath)
        let quietBefore = sounds(coach, from: 4, to: 40)
        let firstCoaching = sounds(coach, from: 40, to: 46)
        let quietBetween = sounds(coach, from: 48, to: 59.5)
        let secondCoaching = sounds(coach, from: 60, to: 66)
        let quietAfter = sounds(coach, from: 70, to: 119.5)
        #expect(!quietBefore && firstCoaching && !quietBetween && secondCoaching && !quietAfter)

        // The plan's mode is the default; --metronome always overrides it.
        let always = scratch.path("always.wav")
        _ = try intervalpro(
            arguments: ["render-audio", plan, "--replay", recording, "-o", always, "--metronome", "always",
                        "--audio-rate", "8000"])
        let clicking = sounds(try readWAV(always), from: 0, to: 10)
        #expect(clicking)
    }

    @Test func liveRunClicksThroughTheDeviceOnTheGrid() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json",
            #"{"name": "Live", "steps": [{"kind": "work", "duration": 3, "cadence": 180}, {"kind": "rest", "duration": 2}, {"kind": "work", "duration": 2, "cadence": 160}]}"#
        )
        let wavPath = scratch.path("live.wav")
        let result = try intervalpro(
            arguments: ["run", plan, "--simulate", "--no-voice", "--audio-device", "intervalpro_test"],
            environment: audioEnvironment(wavPath))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("warning"), "stderr: \(result.stderr)")
        let wav = try readWAV(wavPath)
        #expect(wav.sampleRate == 48_000)
        let onsets = clickOnsets(wav)
        // 180 spm for 3 s: 9 clicks 16000 frames apart; the rest is silent; then 160 spm
        // for 2 s: 6 clicks 18000 apart, the first exactly 5 s after the session's first.
        #expect(onsets.count == 15, "onsets: \(onsets)")
        guard onsets.count == 15 else { return }
        #expect(zip(onsets[0..<8], onsets[1..<9]).allSatisfy { $1 - $0 == 16_000 })
        #expect(onsets[9] - onsets[0] == 240_000)
        #expect(zip(onsets[9..<14], onsets[10..<15]).allSatisfy { $1 - $0 == 18_000 })
    }

    @Test func liveRunSpeaksThroughTheDevice() throws {
        let scratch = try ScratchDirectory()
        // Clicks off: every sound is a cue, synthesised during the session into the voice
        // bank and played by the render thread.
        let plan = try scratch.write(
            "plan.json",
            #"{"version": 2, "name": "Live voice", "metronome": {"mode": "off", "voice": "es"}, "steps": [{"kind": "work", "duration": 7, "cadence": 170}, {"kind": "rest", "duration": 1}]}"#
        )
        let wavPath = scratch.path("voice.wav")
        let result = try intervalpro(
            arguments: ["run", plan, "--simulate", "--audio-device", "intervalpro_test", "--coaching-grace", "600"],
            environment: audioEnvironment(wavPath))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let wav = try readWAV(wavPath)
        let frames = wav.samples.count / wav.channels
        let voiced = (0..<frames).filter { abs(Int(wav.samples[$0 * wav.channels])) > 300 }
        let first = try #require(voiced.first)
        // Session time 0 is half a second past what the device had been given when the
        // session began (up to half a second of silence): the announcement of the first step
        // starts there; the countdown "3" comes 4 s later (at 4 s of the 7 s step), "2" and
        // "1" after it, then the summary at 8 s.
        #expect(first >= wav.sampleRate / 2 && first < wav.sampleRate * 3 / 2, "first sound at frame \(first)")
        let origin = first
        func spoken(_ from: Double, _ to: Double) -> Bool {
            voiced.contains { $0 >= origin + Int(from * Double(wav.sampleRate)) && $0 < origin + Int(to * Double(wav.sampleRate)) }
        }
        let (three, two, one, summary) = (spoken(4, 4.4), spoken(5, 5.4), spoken(6, 6.4), spoken(8, 8.5))
        #expect(three && two && one && summary)
        let quiet = spoken(3.5, 3.95)
        #expect(!quiet)
    }

    @Test func missingDeviceWarnsOnceAndTheSessionCompletes() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Tiny", "steps": [{"kind": "work", "duration": 2, "cadence": 170}]}"#)
        let result = try intervalpro(
            arguments: ["run", plan, "--simulate", "--audio-device", "no_such_device", "--json"],
            environment: audioEnvironment(scratch.path("unused.wav")))
        #expect(result.status == 0)
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "stderr: \(result.stderr)")
        #expect(warnings.first?.contains("audio device 'no_such_device' is not available") == true)
        #expect(!result.stderr.contains("ALSA lib"))
        #expect(jsonObject(result.stdout)?["completed"] as? Bool == true)
    }

    @Test func audioAtOtherSpeedsIsSilentAndSaysSo() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        let asked = try intervalpro(
            arguments: ["run", plan, "--simulate", "--fast", "--json", "--audio-device", "intervalpro_test"],
            environment: audioEnvironment(scratch.path("fast.wav")))
        #expect(asked.status == 0)
        #expect(asked.stderr.contains("audio plays only in real time"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("fast.wav")))
        // Every audio option asks for sound (--coaching-grace and --audio-rate were passed over
        // without a word); --no-voice asks for less.
        for option in [["--coaching-grace", "3"], ["--audio-rate", "44100"]] {
            let result = try intervalpro(arguments: ["run", plan, "--simulate", "--fast", "--json"] + option)
            #expect(result.stderr.contains("audio plays only in real time"), "\(option): \(result.stderr)")
        }
        // Nor is the music followed, and --music or --duck were passed over without a word.
        for option in [["--music", "vlc"], ["--duck", "0.5"], ["--no-music-follow"]] {
            let result = try intervalpro(arguments: ["run", plan, "--simulate", "--fast", "--json", "--no-voice"] + option)
            #expect(result.stderr.contains("the music player is followed only in real time"), "\(option): \(result.stderr)")
        }
        // Not asked for: no word about it.
        let quiet = try intervalpro(arguments: ["run", plan, "--simulate", "--fast", "--json", "--no-voice"])
        #expect(!quiet.stderr.contains("audio") && !quiet.stderr.contains("music"), "\(quiet.stderr)")
    }

    @Test func renderAudioUsageAndDeviceErrors() throws {
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", shortPlanText)
        let neither = try intervalpro(arguments: ["render-audio", plan, "--simulate"])
        #expect(neither.status == 64)
        #expect(neither.stderr.contains("give exactly one of -o FILE or --audio-device NAME"))
        let noDevice = try intervalpro(
            arguments: ["render-audio", plan, "--simulate", "--audio-device", "no_such_device"],
            environment: audioEnvironment(scratch.path("x.wav")))
        #expect(noDevice.status == 69)
        #expect(noDevice.stderr.contains("no_such_device"))
        let badOutput = try intervalpro(
            arguments: ["render-audio", plan, "--simulate", "-o", scratch.path("missing/dir/out.wav")])
        #expect(badOutput.status == 74)
        let v1 = try scratch.write("v1.json", #"{"name": "x", "metronome": {}, "steps": [{"kind": "work", "duration": 60}]}"#)
        // Plan format version 1 promised that a top-level "metronome" object is accepted.
        let versionOne = try intervalpro(arguments: ["render-audio", v1, "--simulate", "-o", scratch.path("y.wav")])
        #expect(versionOne.status == 0, "stderr: \(versionOne.stderr)")
        // More than a WAV file's 4 GiB: its sizes wrapped round (100 minutes said to be 6:49).
        let long = try scratch.write("long.json", #"{"name": "long", "steps": [{"kind": "work", "duration": "1:40:00", "cadence": 172}]}"#)
        let tooLong = try intervalpro(
            arguments: ["render-audio", long, "--simulate", "--no-voice", "--audio-rate", "192000", "--audio-channels", "2",
                        "-o", scratch.path("long.wav")])
        #expect(tooLong.status == 64, "stderr: \(tooLong.stderr)")
        #expect(tooLong.stderr.contains("more than a WAV file can hold"), "\(tooLong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("long.wav")))
    }
}
