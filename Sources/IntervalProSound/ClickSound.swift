/// One click: a short pitched tone, precomputed, with the stereo gains it plays at.
public struct ClickTone: Sendable, Equatable {
    public var frequency: Double
    /// Peak level relative to the click volume (the accent is the loudest).
    public var level: Double
    public var leftGain: Float
    public var rightGain: Float

    public init(frequency: Double, level: Double, leftGain: Float = 1, rightGain: Float = 1) {
        self.frequency = frequency
        self.level = level
        self.leftGain = leftGain
        self.rightGain = rightGain
    }
}

/// The click sounds, synthesised once before a session so rendering only copies samples.
///
/// A click is a sine with a soft 2 ms attack and an exponential decay (time constant 12 ms,
/// 70 ms long), plus a quieter octave that fades faster: a rounded "tock" rather than a
/// raw square, which stays pleasant over an hour.
public struct ClickBank: Sendable {
    public enum Sound: Int, Sendable, CaseIterable {
        case plain, left, right, accent
    }

    public static let tones: [Sound: ClickTone] = [
        .plain: ClickTone(frequency: 1046.5, level: 0.8),
        // Left and right foot: a fifth apart, panned.
        .left: ClickTone(frequency: 880, level: 0.8, leftGain: 1, rightGain: 0.3),
        .right: ClickTone(frequency: 1318.5, level: 0.8, leftGain: 0.3, rightGain: 1),
        .accent: ClickTone(frequency: 1568, level: 1),
    ]

    public static let lengthSeconds = 0.07
    static let attackSeconds = 0.002
    static let decaySeconds = 0.012

    public let sampleRate: Int
    public let length: Int
    /// Mono samples of each sound, peak = its tone level (≤ 1).
    public let samples: [[Float]]

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
        let length = Int((Self.lengthSeconds * Double(sampleRate)).rounded())
        self.length = length
        samples = Sound.allCases.map { sound in
            Self.synthesise(Self.tones[sound]!, length: length, sampleRate: sampleRate)
        }
    }

    public func tone(_ sound: Sound) -> ClickTone { Self.tones[sound]! }

    static func synthesise(_ tone: ClickTone, length: Int, sampleRate: Int) -> [Float] {
        let rate = Double(sampleRate)
        let attack = attackSeconds * rate
        var wave = [Float](repeating: 0, count: length)
        var peak = 0.0
        var values = [Double](repeating: 0, count: length)
        for i in 0..<length {
            let t = Double(i) / rate
            // Raised-cosine attack avoids the click-within-a-click of an instant onset.
            let rise = Double(i) < attack ? 0.5 - 0.5 * cosine(Double.pi * Double(i) / attack) : 1
            let body = exponential(-t / decaySeconds)
            let octave = 0.25 * exponential(-t / (decaySeconds / 2)) * sine(2 * Double.pi * 2 * tone.frequency * t)
            // The last 5 ms fade to exactly zero so the tail never ends on a step.
            let tail = min(1, Double(length - 1 - i) / (0.005 * rate))
            let value = rise * tail * (body * sine(2 * Double.pi * tone.frequency * t) + octave)
            values[i] = value
            peak = max(peak, abs(value))
        }
        for i in 0..<length { wave[i] = Float(values[i] / peak * tone.level) }
        return wave
    }
}
