/// Beat times of one tempo, in whole frames, without drift.
///
/// Beat n falls on start + round(n × 60 × rate / spm). The fraction of a frame is kept as
/// an integer remainder (a fractional accumulator in units of 1/(spm × 10⁶) frame), so
/// the error never grows past half a frame however many beats go by.
public struct BeatGrid: Sendable, Equatable {
    /// Tempo resolution: a millionth of a step per minute.
    static let tempoScale: Int64 = 1_000_000

    public let start: Int64
    /// Steps per minute, in millionths.
    public let microSPM: Int64
    /// Index of the next beat (0 is the beat on `start`).
    public private(set) var beat: Int64 = 0
    /// Frame of the next beat.
    public private(set) var nextFrame: Int64

    private let wholeStep: Int64
    private let fractionStep: Int64
    /// Numerator of the fractional part of the next beat's position, plus one half (so
    /// the whole part is the position rounded to the nearest frame).
    private var remainder: Int64

    public init(start: Int64, spm: Double, sampleRate: Int) {
        precondition(spm > 0 && sampleRate > 0)
        self.start = start
        microSPM = max(1, Int64((spm * Double(Self.tempoScale)).rounded()))
        // Frames per beat = 60 × rate × scale / microSPM.
        let numerator = 60 * Int64(sampleRate) * Self.tempoScale
        wholeStep = numerator / microSPM
        fractionStep = numerator % microSPM
        remainder = microSPM / 2
        nextFrame = start
    }

    /// Moves to the following beat.
    public mutating func advance() {
        beat += 1
        nextFrame += wholeStep
        remainder += fractionStep
        if remainder >= microSPM {
            remainder -= microSPM
            nextFrame += 1
        }
    }

    /// Frames per beat, as a real number (for tests and figures).
    public var framesPerBeat: Double { Double(wholeStep) + Double(fractionStep) / Double(microSPM) }
}
