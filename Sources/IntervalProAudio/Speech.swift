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
    /// Not espeak-ng's: the library itself could not be opened. Not -1, which is
    /// EE_INTERNAL_ERROR: a missing library was reported as missing voice data.
    public static let notInstalled = SpeechStatus(rawValue: -1_000)

    public var description: String {
        switch self {
        case .internalError: "internal error (is espeak-ng-data installed?)"
        case .bufferFull: "buffer full"
        case .notFound: "voice not found"
        case .notInstalled: "libespeak-ng.so.1 could not be opened (Debian: apt install libespeak-ng1)"
        default: "status \(rawValue)"
        }
    }
}

public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var status: SpeechStatus
    public var description: String { "espeak-ng: \(operation) failed: \(status)" }

    public init(operation: String, status: SpeechStatus) {
        self.operation = operation
        self.status = status
    }
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
    private let api: intervalpro_espeak

    /// The process-wide engine: the library's functions and its output rate, or why it
    /// could not start.
    private static let engine: Result<(api: intervalpro_espeak, rate: Int), SpeechError> = {
        var api = intervalpro_espeak()
        guard intervalpro_espeak_open(&api) == 0 else {
            return .failure(SpeechError(operation: "load", status: .notInstalled))
        }
        let rate = api.initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
        guard rate > 0 else { return .failure(SpeechError(operation: "initialise", status: .internalError)) }
        api.set_synth_callback { wave, count, events in
            guard let wave, count > 0, let context = events?.pointee.user_data else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
            sink.samples.append(contentsOf: UnsafeBufferPointer(start: wave, count: Int(count)))
            return 0
        }
        return .success((api, Int(rate)))
    }()

    /// Collects samples from the C callback during one `espeak_Synth` call.
    private final class Sink {
        var samples: [Int16] = []
    }

    public init(language: CueLanguage, wordsPerMinute: Int = 165) throws(SpeechError) {
        self.language = language
        self.wordsPerMinute = wordsPerMinute
        (api, sampleRate) = try Self.engine.get()
        try selectVoice()
    }

    /// The spoken text as mono samples at `sampleRate`.
    public func synthesize(_ text: String) throws(SpeechError) -> [Int16] {
        try selectVoice()
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let status = withExtendedLifetime(sink) {
            text.withCString { chars in
                api.synth(
                    chars, strlen(chars) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context)
            }
        }
        try Self.check(status, "synthesise")
        return sink.samples
    }

    private func selectVoice() throws(SpeechError) {
        try Self.check(language.rawValue.withCString { api.set_voice_by_name($0) }, "select voice '\(language.rawValue)'")
        try Self.check(api.set_parameter(espeakRATE, Int32(wordsPerMinute), 0), "set rate")
    }

    /// The one place espeak-ng statuses become errors.
    private static func check(_ status: espeak_ERROR, _ operation: String) throws(SpeechError) {
        guard status.rawValue != EE_OK.rawValue else { return }
        throw SpeechError(operation: operation, status: SpeechStatus(rawValue: status.rawValue))
    }
}
