public import IntervalProCore
public import IntervalProSound

/// Speaks cues: espeak-ng text to speech, resampled to the output rate. Used off the
/// render thread only.
public final class CueVoice {
    public let language: CueLanguage
    public let outputRate: Int
    private let synthesizer: SpeechSynthesizer
    private var cache: [String: [Float]] = [:]

    public init(language: CueLanguage, outputRate: Int) throws(SpeechError) {
        self.language = language
        self.outputRate = outputRate
        synthesizer = try SpeechSynthesizer(language: language)
    }

    public func text(_ cue: Cue) -> String { cue.text(language) }

    /// Mono samples at `outputRate`, peak 1; empty if synthesis failed (the cue is skipped).
    public func samples(_ text: String) -> [Float] {
        if let cached = cache[text] { return cached }
        let pcm = (try? synthesizer.synthesize(text)) ?? []
        let samples = VoiceSamples.prepare(pcm, from: synthesizer.sampleRate, to: outputRate)
        cache[text] = samples
        return samples
    }
}
