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
            With --audio-device NAME instead of -o, the same samples go through that ALSA device \
            (as fast as it takes them).
            """
    )

    @Argument(
        help: .planFile,
        completion: .planFiles)
    var plan: String

    @Option(help: ArgumentHelp("Replay this recording.", valueName: "file"), completion: .recordingFiles)
    var replay: String?

    @Flag(help: "Simulate a runner (HR strap and footpod).")
    var simulate = false

    @Option(parsing: .unconditional, help: .seed)
    var seed: UInt64?

    @Option(
        name: [.short, .customLong("output")], help: ArgumentHelp("The WAV file to write.", valueName: "file"),
        completion: .file(extensions: ["wav"]))
    var output: String?

    @OptionGroup(title: "Metronome and voice") var audio: AudioOptions

    func validate() throws {
        guard (replay != nil) != simulate else { throw ValidationError("give exactly one of --replay FILE or --simulate") }
        if seed != nil, !simulate { throw ValidationError("--seed shapes the simulated runner: a replay has none") }
        guard (output != nil) != (audio.audioDevice != nil) else {
            throw ValidationError("give exactly one of -o FILE or --audio-device NAME")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let plan = try loadPlan(plan)
            let source: AudioRendering.Source = replay.map { .recording($0) } ?? .simulation(seed: seed ?? 1)
            let rendered = try await AudioRendering.render(plan, from: source, audio: audio.choice, to: output, planFile: self.plan)
            let what = describe(frames: rendered.frames, rate: rendered.sampleRate, channels: rendered.channels)
            if let output {
                Terminal.writeStandardError("intervalpro: rendered \(what) to \(output == "-" ? "standard output" : output)\n")
            } else {
                Terminal.writeStandardError("intervalpro: played \(what) through '\(audio.device)'\n")
            }
        }
    }

    private func describe(frames: Int64, rate: Int, channels: Int) -> String {
        let seconds = Double(frames) / Double(rate)
        return "\(formatClock(seconds)) of audio (\(frames) frames, \(rate) Hz, \(channels == 1 ? "mono" : "stereo"))"
    }
}
