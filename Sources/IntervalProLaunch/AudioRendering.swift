import IntervalProAudio
public import IntervalProCore
import IntervalProIO
import IntervalProRuntime
import IntervalProSound

/// A session's whole audio, exactly as it would play (`render-audio`): the session runs on
/// virtual time through the runner, its audio timeline (clicks on the beat grid, the
/// off-target gate, voice cues) is collected, then rendered to a WAV file or played through
/// the chosen device as fast as it takes the samples.
public enum AudioRendering {
    public enum Source: Sendable {
        /// A simulated runner with this seed.
        case simulation(seed: UInt64)
        /// A recording's path.
        case recording(String)
        /// No runner: the plan's clicks and step cues alone, nothing to coach (`NoRunner`).
        case noRunner
    }

    /// What was rendered: its length and format.
    public struct Rendered: Sendable {
        public var frames: Int64
        public var sampleRate: Int
        public var channels: Int
    }

    /// Renders to `file`, or plays through `audio`'s device when `file` is nil; `file` is never
    /// `planFile` or the recording read.
    public static func render(
        _ plan: Plan, from source: Source, audio: AudioChoice, to file: String?, planFile: String? = nil
    ) async throws -> Rendered {
        var audio = audio
        if case .noRunner = source {
            let (choice, note) = audio.withoutRunner(plan: plan)
            audio = choice
            if let note { warn(note) }
        }
        let settings = audio.settings(for: plan)
        let collector = AudioTimelineCollector(settings: settings, timeline: plan.timeline())
        switch source {
        case .simulation(let seed):
            var configuration = SimulatedRunner.Configuration.covering(plan.timeline())
            configuration.seed = seed
            try await session(plan, source: SimulatedRunner(configuration: configuration), units: [:], collector)
        case .recording(let path):
            let recording = try loadRecording(path)
            try await session(
                plan, source: ReplaySource(header: recording.header, entries: recording.entries),
                units: recording.header.cadenceUnits, collector)
        case .noRunner:
            // No one to press "next": an open step lasts five minutes, a distance step its length at 2.5 m/s.
            try await session(plan, source: NoRunner(endingUnboundedSteps: true), units: [:], collector)
        }
        let items = collector.finish()

        // The format: what the device negotiated, or what was asked for a file.
        var player: AudioPlayer?
        if file == nil {
            do {
                player = try AudioPlayer(device: audio.device, request: audio.request, volume: settings.volume)
            } catch {
                throw LaunchError("\(error)", kind: .unavailable)
            }
        }
        let rate = player?.sampleRate ?? audio.request.sampleRate
        let channels = player?.channels ?? audio.request.channels
        let voice = AudioChoice.voice(settings, outputRate: rate)
        // The store owns the voice clips' samples, which the events point into: it lives
        // until the last sample is rendered.
        let store = ClipStore()
        defer { withExtendedLifetime(store) {} }
        let events = AudioTimelineRender.events(items, clock: AudioClock(sampleRate: rate), voice: voice, store: store)
        let end = AudioTimelineRender.endFrame(events, sampleRate: rate)
        let rendered = Rendered(frames: end, sampleRate: rate, channels: channels)
        if let player {
            if let lost = AudioTimelineRender.play(events, to: end, through: player) {
                throw LaunchError("audio device '\(audio.device)' failed: \(lost)", kind: .io)
            }
            return rendered
        }
        guard let file else { return rendered }
        // Over 4 GiB a WAV header's sizes wrapped round: 100 minutes at 192 kHz in stereo was
        // said to be 6:49 long, after writing 4.6 GB.
        let bytes = Int(end) * channels * 2
        guard bytes <= WAVWriter.mostDataBytes else {
            let most = Double(WAVWriter.mostDataBytes) / Double(rate * channels * 2)
            throw LaunchError(
                "\(formatClock(Double(end) / Double(rate))) of audio at \(rate) Hz in \(channels == 1 ? "mono" : "stereo") is \(bytes / 1_000_000) MB, "
                    + "more than a WAV file can hold (4 GiB, \(formatClock(most)) here): choose a lower --audio-rate or --audio-channels 1",
                kind: .usage)
        }
        // Ctrl-C (or SIGTERM, SIGHUP) stops between blocks, and the unfinished file goes: killed,
        // the process left hundreds of megabytes of it beside the one asked for.
        InterruptSignal.install()
        do {
            var inputs = planFile.map { [$0] } ?? []
            if case .recording(let path) = source { inputs.append(path) }
            let writer = try WAVWriter(try openOutput(file, readingFrom: inputs), sampleRate: rate, channels: channels, frames: Int(end))
            let renderer = MetronomeRenderer(sampleRate: rate, channels: channels, volume: settings.volume)
            try AudioTimelineRender.render(events, to: end, renderer: renderer) { block in
                if InterruptSignal.isRaised { throw Stopped() }
                try writer.write(block)
            }
            try writer.finish()
        } catch let error as FileError {
            throw LaunchError(error)
        } catch is Stopped {
            throw LaunchError("stopped before the end: \(file) was not written", kind: .cancelled)
        }
        return rendered
    }

    /// Ctrl-C came while the file was written.
    private struct Stopped: Error {}

    private static func session<Source: SessionSource>(
        _ plan: Plan, source: Source, units: [String: CadenceUnit], _ collector: AudioTimelineCollector
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
}
