import Foundation
import IntervalProIO
import IntervalProTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The runner's music player: a fake MPRIS player (Tests/FakeMPRIS) on a private session bus,
// a real-time session whose cues play through real libasound into a WAV (Tests/Audio).

/// A plan whose sounds are all voice cues: the step's announcement, the countdown, the summary.
let voicePlanText = #"""
    {"version": 2, "name": "Duck", "metronome": {"mode": "off", "voice": "en"},
     "steps": [{"kind": "work", "duration": 6, "cadence": 170}, {"kind": "rest", "duration": 4}]}
    """#

/// The cues `-v` says will sound, on CLOCK_MONOTONIC.
func reportedCues(_ stderr: String) -> [(start: Double, end: Double)] {
    stderr.split(separator: "\n").compactMap { line in
        guard let range = line.range(of: "music: a cue sounds from ") else { return nil }
        let words = line[range.upperBound...].split(separator: " ")
        guard words.count >= 3, let start = Double(words[0]), let end = Double(words[2]) else { return nil }
        return (start, end)
    }
}

/// Where sound starts in a WAV after at least `gap` seconds of quiet, in seconds.
func soundOnsets(_ wav: WAVFile, gap: Double = 0.25, threshold: Int = 300) -> [Double] {
    let quietFrames = Int(gap * Double(wav.sampleRate))
    var onsets: [Double] = []
    var quiet = quietFrames
    for frame in 0..<(wav.samples.count / wav.channels) {
        var loud = false
        for c in 0..<wav.channels where abs(Int(wav.samples[frame * wav.channels + c])) > threshold { loud = true }
        if loud {
            if quiet >= quietFrames { onsets.append(Double(frame) / Double(wav.sampleRate)) }
            quiet = 0
        } else {
            quiet += 1
        }
    }
    return onsets
}

/// The cues as one span where they follow too closely for the music to come back up
/// (the follower's bridge: tail + 2 ramps + lead, 0.9 s).
func spans(_ cues: [(start: Double, end: Double)]) -> [(start: Double, end: Double)] {
    var merged: [(start: Double, end: Double)] = []
    for cue in cues.sorted(by: { $0.start < $1.start }) {
        if let last = merged.last, cue.start - last.end < 0.9 {
            merged[merged.count - 1].end = max(last.end, cue.end)
        } else {
            merged.append(cue)
        }
    }
    return merged
}

func musicEnvironment(_ bus: PrivateBus, wav: String) -> [String: String?] {
    audioEnvironment(wav).merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
}

func postCommand(_ port: Int, _ command: String) async throws -> Int {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/command")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"command": "\#(command)"}"#.utf8)
    let (_, response) = try await URLSession.shared.data(for: request)
    return (response as? HTTPURLResponse)?.statusCode ?? 0
}

func webState(_ port: Int) async throws -> [String: Any] {
    let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/api/state")!)
    return jsonObject(data) ?? [:]
}

@Suite("Music player over MPRIS (fake player, private session bus)", .serialized)
struct MusicTests {
    @Test func everyCueIsDuckedAndTheVolumeComesBackExactly() throws {
        let bus = try PrivateBus()
        let player = try FakeMPRIS(bus: bus, name: "vlc", volume: 0.77, title: "Song", artists: ["Band"])
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", voicePlanText)
        let wavPath = scratch.path("out.wav")
        let result = try intervalpro(
            arguments: [
                "run", plan, "--simulate", "--audio-device", "intervalpro_test", "--coaching-grace", "600", "--no-save",
                "-v",
            ], environment: musicEnvironment(bus, wav: wavPath))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("music: following vlc"))
        // What was done to the player, as -v says it does: it said the cues' times alone.
        #expect(result.stderr.contains("music: vlc's volume set to 0.231") && result.stderr.contains("music: vlc's volume set to 0.77"))
        let cues = reportedCues(result.stderr)
        #expect(cues.count >= 3, "\(result.stderr)")

        // The cue times said are the sound's: their gaps are the WAV's (the first sample of
        // the file is not at a known wall time, so gaps are compared).
        let onsets = soundOnsets(try readWAV(wavPath))
        // Each sound in the WAV starts within a cue said (aligning the first), and each cue
        // said starts a sound (cues play one at a time, so they do not overlap).
        if let first = onsets.first, let firstCue = cues.first?.start {
            let said = cues.map { (start: $0.start - firstCue + first, end: $0.end - firstCue + first) }
            for onset in onsets {
                #expect(said.contains { onset >= $0.start - 0.1 && onset <= $0.end + 0.1 }, "sound at \(onset): \(said)")
            }
            #expect(zip(said, said.dropFirst()).allSatisfy { $1.start >= $0.end - 0.1 }, "\(said)")
        }

        let sets = player.volumeSets()
        for span in spans(cues) {
            // Down before the cue sounds: the ramp starts within 0.5 s before it (lead 0.15 s
            // plus ramp 0.25 s, ±0.1 s), and it is at the duck when it starts.
            let down = sets.filter { $0.t > span.start - 0.6 && $0.t < span.start + 0.1 && $0.value < 0.77 }
            #expect(!down.isEmpty, "ducked for the cue at \(span.start): \(sets)")
            // In ramp steps (0.25 s in 50 ms steps), not a Set for each echo of the last.
            #expect(down.count <= 8, "\(down.count) Sets on the way down for the cue at \(span.start)")
            #expect(
                down.contains { abs($0.value - 0.77 * 0.3) < 1e-9 && $0.t <= span.start + 0.1 },
                "at the duck when the cue at \(span.start) starts: \(down)")
            // Back after it: exactly 0.77, within tail and ramp (0.5 s) ±0.1 s of its end.
            let back = sets.first { $0.t > span.end - 0.1 && $0.value == 0.77 }
            #expect(back.map { $0.t <= span.end + 0.6 } ?? false, "restored after the cue ending at \(span.end): \(sets)")
            #expect(!sets.contains { $0.t > span.start + 0.1 && $0.t < span.end - 0.1 }, "left alone while it speaks")
        }
        #expect(sets.last?.value == 0.77)
        #expect(player.volumeChanges().last?.value == 0.77)
    }

    @Test func theMusicPausesAndResumesWithTheSessionAndIsShown() async throws {
        let bus = try PrivateBus()
        let player = try FakeMPRIS(bus: bus, name: "vlc", title: "Song", artists: ["Band"])
        let scratch = try ScratchDirectory()
        let plan = try scratch.write(
            "plan.json", #"{"name": "Long", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#)
        let port = try freePort()
        let command = try RunningCommand(
            ["run", plan, "--simulate", "--no-voice", "--metronome", "off", "--no-save", "--web", "\(port)"] + servingAsUs,
            environment: musicEnvironment(bus, wav: scratch.path("out.wav")))
        #expect(command.stderr.wait(upTo: 30) { $0.contains("web page at") })
        var shown: String?
        for _ in 0..<50 where shown == nil {
            shown = try await webState(port)["music"] as? String
            if shown == nil { usleep(100_000) }
        }
        #expect(shown == "Band – Song")

        #expect(try await postCommand(port, "pause") == 202)
        try waitFor(timeout: 5, "the player paused") { player.statusChanges().last?.status == "Paused" }
        #expect(player.calls("Pause").count == 1)
        #expect(try await postCommand(port, "resume") == 202)
        try waitFor(timeout: 5, "the player plays again") { player.statusChanges().last?.status == "Playing" }
        #expect(try await postCommand(port, "finish") == 202)
        let result = command.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(player.calls("Play").count == 1)
    }

    /// A minute of voice cues alone (the step's announcement first), vlc followed at 0.66.
    struct MinuteOfCues {
        let bus: PrivateBus
        let player: FakeMPRIS
        let scratch: ScratchDirectory
        let command: RunningCommand

        init(_ extraArguments: [String] = []) throws {
            bus = try PrivateBus()
            player = try FakeMPRIS(bus: bus, name: "vlc", volume: 0.66)
            scratch = try ScratchDirectory()
            let plan = try scratch.write(
                "plan.json",
                #"{"version": 2, "name": "Long", "metronome": {"mode": "off", "voice": "en"}, "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#
            )
            command = try RunningCommand(
                ["run", plan, "--simulate", "--audio-device", "intervalpro_test", "--coaching-grace", "600", "--no-save"]
                    + extraArguments,
                environment: musicEnvironment(bus, wav: scratch.path("out.wav")))
        }
    }

    @Test func ctrlCDuringACuePutsTheVolumeBack() throws {
        let session = try MinuteOfCues()
        let (player, command) = (session.player, session.command)
        // The step's announcement is ducked for: interrupt while the music is down.
        try waitFor(timeout: 20, "the music ducked") { player.volumeSets().contains { abs($0.value - 0.66 * 0.3) < 1e-9 } }
        command.interrupt()
        let result = command.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(player.volumeSets().last?.value == 0.66)
        #expect(player.volumeChanges().last?.value == 0.66)
    }

    /// A player frozen while ducked (SIGSTOP, a busy machine) was taken for one whose volume
    /// is read-only: when it thawed it applied the ramp's Set that waited for it, and stayed
    /// there (0.688 for its 0.8). The runner's volume is now sent after it.
    @Test func aPlayerFrozenWhileDuckedGetsItsVolumeBackWhenItThaws() throws {
        let session = try MinuteOfCues(["-v"])
        let (player, command) = (session.player, session.command)
        // Frozen as the ramp down for the step's announcement begins.
        try waitFor(timeout: 20, "the music going down") { player.volumeSets().contains { $0.value < 0.66 } }
        player.freeze()
        #expect(command.stderr.wait(upTo: 10) { $0.contains("music: vlc does not answer; its volume is put back when it does") })
        player.thaw()
        try waitFor(timeout: 10, "the volume back") { player.volumeChanges().last?.value == 0.66 }
        command.interrupt()
        let result = command.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(player.volumeChanges().last?.value == 0.66, "\(player.volumeChanges())")
        #expect(result.stderr.contains("music: vlc answers again"), "\(result.stderr)")
    }

    @Test func aReadOnlyVolumeIsNeverWritten() throws {
        let bus = try PrivateBus()
        let player = try FakeMPRIS(bus: bus, name: "vlc", readOnlyVolume: true, readOnlyError: .invalidArgs)
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", voicePlanText)
        let result = try intervalpro(
            arguments: ["run", plan, "--simulate", "--audio-device", "intervalpro_test", "--coaching-grace", "600", "--no-save"],
            environment: musicEnvironment(bus, wav: scratch.path("out.wav")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(player.volumeSets().isEmpty)
    }

    @Test func aPlayerThatLeavesIsDroppedWithoutError() throws {
        let bus = try PrivateBus()
        let player = try FakeMPRIS(bus: bus, name: "vlc", vanishAfter: 1.5)
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", voicePlanText)
        let result = try intervalpro(
            arguments: [
                "run", plan, "--simulate", "--audio-device", "intervalpro_test", "--coaching-grace", "600", "--no-save",
                "-v",
            ], environment: musicEnvironment(bus, wav: scratch.path("out.wav")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("music: vlc left"), "\(result.stderr)")
        #expect(!result.stderr.contains("error"))
        #expect(!player.isRunning)
    }

    @Test func noPlayerIsOneLineInVerboseAndNothingOtherwise() throws {
        let bus = try PrivateBus()
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", voicePlanText)
        let arguments = ["run", plan, "--simulate", "--audio-device", "intervalpro_test", "--speed", "1", "--no-save"]
        let verbose = try intervalpro(arguments: arguments + ["-v"], environment: musicEnvironment(bus, wav: scratch.path("a.wav")))
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.stderr.components(separatedBy: "music:").count - 1 == 1, "\(verbose.stderr)")
        #expect(verbose.stderr.contains("music: no MPRIS player on the session bus"))
        var noBus = audioEnvironment(scratch.path("b.wav"))
        noBus["DBUS_SESSION_BUS_ADDRESS"] = .some(nil)
        let quiet = try intervalpro(arguments: arguments, environment: noBus)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("music"), "\(quiet.stderr)")
        // Said with -v in one plain line: D-Bus's generic error name stacked a second parenthesis.
        let verboseNoBus = try intervalpro(arguments: arguments + ["-v"], environment: noBus)
        #expect(
            verboseNoBus.stderr.contains("music: no session bus (DBUS_SESSION_BUS_ADDRESS is not set); the music is left alone"),
            "\(verboseNoBus.stderr)")
        // A player asked for by name and no player at all: one line says so, -v or not.
        let named = try intervalpro(
            arguments: arguments + ["-v", "--music", "spotify"], environment: musicEnvironment(bus, wav: scratch.path("c.wav")))
        #expect(named.stderr.contains("music: no player named spotify on the session bus (none is)"), "\(named.stderr)")
        #expect(!named.stderr.contains("no MPRIS player"), "\(named.stderr)")
    }

    /// `--music spotfy` beside a running spotify: the name matched nothing, and nothing said so.
    @Test func aNamedPlayerThatIsNotThereIsSaid() throws {
        let bus = try PrivateBus()
        let player = try FakeMPRIS(bus: bus, name: "spotify")
        let scratch = try ScratchDirectory()
        let plan = try scratch.write("plan.json", #"{"name": "One", "steps": [{"kind": "work", "duration": 1, "cadence": 170}]}"#)
        let result = try intervalpro(
            arguments: ["run", plan, "--simulate", "--audio-device", "intervalpro_test", "--no-save", "--music", "spotfy"],
            environment: musicEnvironment(bus, wav: scratch.path("out.wav")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("music: no player named spotfy on the session bus (there: spotify)"), "\(result.stderr)")
        #expect(player.volumeSets().isEmpty)
        // Its whole bus name names it too (it was taken, and said to be not there).
        let busName = try intervalpro(
            arguments: ["run", plan, "--simulate", "--audio-device", "intervalpro_test", "--no-save", "-v", "--music", "org.mpris.MediaPlayer2.spotify"],
            environment: musicEnvironment(bus, wav: scratch.path("out2.wav")))
        #expect(busName.status == 0 && busName.stderr.contains("music: following spotify") && !busName.stderr.contains("no player named"), "\(busName.stderr)")
    }
}
