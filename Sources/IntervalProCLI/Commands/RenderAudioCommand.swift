import ArgumentParser
import IntervalProCore
import IntervalProIO
import IntervalProLaunch

struct RenderAudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-audio",
        abstract: "Render a session's metronome and voice cues to a WAV file, exactly as they would play.",
        discussion: """
            Runs the session on virtual time (like --fast) and renders its whole audio timeline: \
            clicks on the beat grid of each step's target, the off-target gate and the voice cues. \
            Without --replay or --simulate there is no runner: the clicks and the step cues alone, \
            no coaching (a file for the phone); an open step lasts 5 minutes, a distance step its \
            length at 2.5 m/s. With --audio-device NAME instead of -o, the same samples go \
            through that ALSA device (as fast as it takes them).
            """
    )

    @Argument(
        help: .planFile,
        completion: .planFiles)
    var plan: String

    @Option(help: ArgumentHelp("Replay this recording: its runner is coached.", valueName: "file"), completion: .recordingFiles)
    var replay: String?

    @Flag(help: "Simulate a runner (HR strap and footpod) and coach it.")
    var simulate = false

    @Option(parsing: .unconditional, help: .seed)
    var seed: UInt64?

    @Option(
        name: [.short, .customLong("output")], help: ArgumentHelp("The WAV file to write.", valueName: "file"),
        completion: .file(extensions: ["wav"]))
    var output: String?

    @OptionGroup(title: "Metronome and voice") var audio: AudioOptions

    func validate() throws {
        if replay != nil, simulate { throw ValidationError("--replay and --simulate cannot be used together") }
        if seed != nil, !simulate { throw ValidationError("--seed shapes the simulated runner: add --simulate") }
        guard (output != nil) != (audio.audioDevice != nil) else {
            throw ValidationError("give exactly one of -o FILE or --audio-device NAME")
        }
        // Megabytes of WAV onto the screen, as gzip refuses to.
        if output == "-", Terminal.standardOutputIsTerminal {
            throw ValidationError("WAV audio is not written to a terminal: redirect it (-o - > run.wav), or give -o FILE")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let plan = try loadPlan(plan)
            let source: AudioRendering.Source =
                if let replay { .recording(replay) } else if simulate { .simulation(seed: seed ?? 1) } else { .noRunner }
            let rendered = try await AudioRendering.render(plan, from: source, audio: audio.choice, to: output, planFile: self.plan)
            let what = describe(frames: rendered.frames, rate: rendered.sampleRate, channels: rendered.channels)
            if let output {
                Terminal.writeStandardError("intervalpro: rendered \(what) to \(output == "-" ? "standard output" : output)\n")
                // `-o run.mp3` wrote a WAV under that name without a word, which a phone's player may refuse.
                if let other = Self.otherAudioFormat(output) {
                    // ffmpeg will not write over its own input: the WAV is renamed first (asking
                    // before it replaces another).
                    let wav = (String(output.dropLast(other.count)) + "wav").shellWord
                    Terminal.writeStandardError(
                        "intervalpro: \(output) holds WAV audio, not \(other): render-audio writes WAV only "
                            + "(mv -i \(output.shellWord) \(wav) && ffmpeg -i \(wav) \(output.shellWord) converts it)\n")
                }
            } else {
                Terminal.writeStandardError("intervalpro: played \(what) through '\(audio.device)'\n")
            }
        }
    }

    /// The format a file name promises, when it is another audio format than WAV.
    static func otherAudioFormat(_ path: String) -> String? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        let known = ["mp3", "ogg", "oga", "opus", "m4a", "aac", "flac", "wma"]
        let suffix = path[path.index(after: dot)...].lowercased()
        return known.contains(suffix) ? suffix.uppercased() : nil
    }

    private func describe(frames: Int64, rate: Int, channels: Int) -> String {
        let seconds = Double(frames) / Double(rate)
        return "\(formatClock(seconds)) of audio (\(frames) frames, \(rate) Hz, \(channels == 1 ? "mono" : "stereo"))"
    }
}
