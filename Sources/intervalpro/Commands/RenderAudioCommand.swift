import ArgumentParser
import IntervalProAudio
import IntervalProCore
import IntervalProIO
import IntervalProRuntime
import IntervalProSound
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
        help: "The plan: a plan file (JSON, version 1 or 2), intervals.icu text, a Zwift .zwo or a FIT workout.",
        completion: .planFiles)
    var plan: String

    @Option(help: ArgumentHelp("Replay this recording.", valueName: "file"), completion: .recordingFiles)
    var replay: String?

    @Flag(help: "Simulate a runner (HR strap and footpod).")
    var simulate = false

    @Option(help: "Seed of the simulated runner (same seed, same run).")
    var seed: UInt64 = 1

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The WAV file to write.", valueName: "file"))
    var output: String?

    @OptionGroup(title: "Metronome and voice") var audio: AudioOptions

    func validate() throws {
        guard (replay != nil) != simulate else { throw ValidationError("give exactly one of --replay FILE or --simulate") }
        guard (output != nil) != (audio.audioDevice != nil) else {
            throw ValidationError("give exactly one of -o FILE or --audio-device NAME")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let plan = try loadPlan(plan)
            let settings = audio.settings(for: plan)
            let collector = AudioTimelineCollector(settings: settings, timeline: plan.timeline())
            if simulate {
                var configuration = SimulatedRunner.Configuration.covering(plan.timeline())
                configuration.seed = seed
                try await session(plan: plan, source: SimulatedRunner(configuration: configuration), units: [:], collector)
            } else if let replay {
                let recording = try loadRecording(replay)
                try await session(
                    plan: plan, source: ReplaySource(header: recording.header, entries: recording.entries),
                    units: recording.header.cadenceUnits, collector)
            }
            let items = collector.finish()

            // The format: what the device negotiated, or what was asked for a file.
            var player: AudioPlayer?
            if output == nil {
                do {
                    player = try AudioPlayer(device: audio.device, request: audio.request, volume: settings.volume)
                } catch {
                    throw LaunchError("\(error)", kind: .unavailable)
                }
            }
            let rate = player?.sampleRate ?? audio.request.sampleRate
            let channels = player?.channels ?? audio.request.channels
            var voice: CueVoice?
            if settings.voice {
                do {
                    voice = try CueVoice(language: settings.language, outputRate: rate)
                } catch {
                    warn("voice cues are not available (\(error)); clicks only")
                }
            }
            let store = ClipStore()
            let events = AudioTimelineRender.events(items, clock: AudioClock(sampleRate: rate), voice: voice, store: store)
            let end = AudioTimelineRender.endFrame(events, sampleRate: rate)

            if let player {
                if let lost = AudioTimelineRender.play(events, to: end, through: player) {
                    throw LaunchError("audio device '\(audio.device)' failed: \(lost)", kind: .io)
                }
                Terminal.writeStandardError(
                    "intervalpro: played \(describe(frames: end, rate: rate, channels: channels)) through '\(audio.device)'\n")
                return
            }
            guard let output else { return }
            do {
                let writer = try WAVWriter(path: output, sampleRate: rate, channels: channels)
                let renderer = MetronomeRenderer(sampleRate: rate, channels: channels, volume: settings.volume)
                try AudioTimelineRender.render(events, to: end, renderer: renderer) { block in try writer.write(block) }
                try writer.close()
            } catch let error as FileError {
                throw LaunchError(error)
            }
            Terminal.writeStandardError(
                "intervalpro: rendered \(describe(frames: end, rate: rate, channels: channels)) to \(output)\n")
        }
    }

    private func session<Source: SessionSource>(
        plan: Plan, source: Source, units: [String: CadenceUnit], _ collector: AudioTimelineCollector
    ) async throws {
        let engine = SessionEngine(plan: plan, source: source.kind, cadenceUnits: units)
        var runner = SessionRunner(
            engine: engine, source: source, observer: collector, pacing: .virtual, clock: ContinuousClock())
        do {
            _ = try await runner.run()
        } catch {
            throw LaunchError("the session stopped: \(error)", kind: .io)
        }
    }

    private func describe(frames: Int64, rate: Int, channels: Int) -> String {
        let seconds = Double(frames) / Double(rate)
        return "\(formatClock(seconds)) of audio (\(frames) frames, \(rate) Hz, \(channels == 1 ? "mono" : "stereo"))"
    }
}
