import CEspeak
#if canImport(Glibc)
import Glibc
#endif
public import IntervalProCore

/// An espeak-ng status, one value per C constant.
public struct SpeechStatus: RawRepresentable, Equatable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let ok = SpeechStatus(rawValue: EE_OK.rawValue)
    public static let internalError = SpeechStatus(rawValue: EE_INTERNAL_ERROR.rawValue)
    public static let bufferFull = SpeechStatus(rawValue: EE_BUFFER_FULL.rawValue)
    public static let notFound = SpeechStatus(rawValue: EE_NOT_FOUND.rawValue)

    public var description: String {
        switch self {
        case .internalError: "internal error (is espeak-ng-data installed?)"
        case .bufferFull: "buffer full"
        case .notFound: "voice not found"
        default: "status \(rawValue)"
        }
    }
}

public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var status: SpeechStatus
    public var description: String { "espeak-ng: \(operation) failed: \(status)" }
}

/// Text to speech with libespeak-ng, synthesised in-process to 16-bit mono samples.
///
/// espeak-ng keeps one global engine per process. It is initialised once, on first use,
/// and never terminated: `espeak_Terminate` after synchronous synthesis waits forever on
/// an internal thread (espeak-ng 1.51), and the process's exit frees it anyway. Each
/// synthesiser selects its voice before speaking, so English and Spanish can alternate.
/// Used off the render thread only (synthesis allocates and reads voice files).
public final class SpeechSynthesizer {
    public let language: CueLanguage
    public let wordsPerMinute: Int
    /// espeak-ng's own output rate (22050 Hz).
    public let sampleRate: Int

    /// The process-wide engine: its output rate, or why it could not start.
    private static let engine: Result<Int, SpeechError> = {
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else { return .failure(SpeechError(operation: "initialise", status: .internalError)) }
        espeak_SetSynthCallback { wave, count, events in
            guard let wave, count > 0, let context = events?.pointee.user_data else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            sink.samples.append(contentsOf: UnsafeBufferPointer(start: wave, count: Int(count)))
            return 0
        }
        return .success(Int(rate))
    }()

    /// Collects samples from the C callback during one `espeak_Synth` call.
    private final class Sink {
        var samples: [Int16] = []
    }

    public init(language: CueLanguage, wordsPerMinute: Int = 165) throws(SpeechError) {
        self.language = language
        self.wordsPerMinute = wordsPerMinute
        sampleRate = try Self.engine.get()
        try selectVoice()
    }

    /// The spoken text as mono samples at `sampleRate`.
    public func synthesize(_ text: String) throws(SpeechError) -> [Int16] {
        try selectVoice()
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let status = withExtendedLifetime(sink) {
            text.withCString { chars in
                espeak_Synth(
                    chars, strlen(chars) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context)
            }
        }
        try Self.check(status, "synthesise")
        return sink.samples
    }

    private func selectVoice() throws(SpeechError) {
        try Self.check(language.rawValue.withCString { espeak_SetVoiceByName($0) }, "select voice '\(language.rawValue)'")
        try Self.check(espeak_SetParameter(espeakRATE, Int32(wordsPerMinute), 0), "set rate")
    }

    /// The one place espeak-ng statuses become errors.
    private static func check(_ status: espeak_ERROR, _ operation: String) throws(SpeechError) {
        guard status.rawValue != EE_OK.rawValue else { return }
        throw SpeechError(operation: operation, status: SpeechStatus(rawValue: status.rawValue))
    }
}
