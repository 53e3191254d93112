/// One DFA alpha 1 window of a session: the two minutes of beats that end at `second`
/// (docs/hrv-during-the-run.md). IntervalProHRV computes them; a session keeps them as they were shown.
public struct AlphaWindow: Equatable, Sendable {
    public enum Status: String, Sendable, CaseIterable {
        /// Less than a full window of session time has passed.
        case settling
        /// Too many artifacts, or too few beats, to trust a figure.
        case unreliable
        case scored
    }

    /// The session second the window ends at.
    public var second: Int
    public var stepIndex: Int?
    public var status: Status
    /// Beats in the window, and how many of them artifact correction changed.
    public var beats: Int
    public var artifacts: Int
    /// Only for a scored window.
    public var alpha1: Double?
    /// Mean heart rate of the window's corrected beats, and mean cadence of its seconds.
    public var heartRate: Double?
    public var cadence: Double?
    /// Unreliable for its beats: too few, or covering too little of its two minutes (a
    /// dropout, a strap without contact), whatever share of them was corrected.
    public var tooFewBeats: Bool

    public init(
        second: Int, stepIndex: Int?, status: Status, beats: Int, artifacts: Int, alpha1: Double?,
        heartRate: Double?, cadence: Double?, tooFewBeats: Bool = false
    ) {
        self.second = second
        self.stepIndex = stepIndex
        self.status = status
        self.beats = beats
        self.artifacts = artifacts
        self.alpha1 = alpha1
        self.heartRate = heartRate
        self.cadence = cadence
        self.tooFewBeats = tooFewBeats
    }

    public var artifactShare: Double { beats > 0 ? Double(artifacts) / Double(beats) : 0 }
}

/// Where alpha 1 first fell below a threshold, coming from above it.
public struct AlphaCrossing: Equatable, Sendable {
    /// 0.75 (the aerobic threshold) or 0.5 (the anaerobic threshold).
    public var threshold: Double
    public var window: AlphaWindow

    public init(threshold: Double, window: AlphaWindow) {
        self.threshold = threshold
        self.window = window
    }
}

/// A session's beat-to-beat figures: its artifacts, each step's mean alpha 1 and the
/// thresholds it crossed.
public struct SessionHRV: Equatable, Sendable {
    /// A window or session with this share of corrected beats or more gives alpha 1 not to
    /// trust (Rogers, Giles, Draper, Mourot & Gronwald 2021, Sensors 21:821: alpha 1 is
    /// biased from about 3 % artifacts, even after correction).
    public static let trustedArtifactShare = 0.03
    /// Alpha 1 at the first ventilatory (aerobic) threshold, 0.75 (Rogers, Giles, Draper, Hoos
    /// & Gronwald 2021, Front. Physiol. 11:596567), and at the second, 0.5 (Rogers, Giles,
    /// Draper, Mourot & Gronwald 2021, J. Funct. Morphol. Kinesiol. 6:38).
    public static let thresholds = [0.75, 0.5]

    public var beats: Int
    public var artifacts: Int
    /// Mean alpha 1 of each step's scored windows, by step index.
    public var stepAlpha1: [Int: Double]
    public var crossings: [AlphaCrossing]
    public var scoredWindows: Int

    public init(beats: Int, artifacts: Int, stepAlpha1: [Int: Double], crossings: [AlphaCrossing], scoredWindows: Int) {
        self.beats = beats
        self.artifacts = artifacts
        self.stepAlpha1 = stepAlpha1
        self.crossings = crossings
        self.scoredWindows = scoredWindows
    }

    /// All, when there were artifacts and no beat (a strap whose every interval is too short).
    public var artifactShare: Double { beats > 0 ? Double(artifacts) / Double(beats) : artifacts > 0 ? 1 : 0 }
    public var isTrusted: Bool { artifactShare < Self.trustedArtifactShare }

    /// The `hrv` object of the JSON summary.
    public var json: JSONValue {
        .object([
            ("beats", .int(beats)),
            ("artifacts", .int(artifacts)),
            ("artifact_pct", .number((100 * artifactShare).rounded(toPlaces: 2))),
            ("trusted", .bool(isTrusted)),
            ("scored_windows", .int(scoredWindows)),
            (
                "crossings",
                .array(
                    crossings.map { crossing in
                        .object([
                            ("threshold", .number(crossing.threshold)),
                            ("second", .int(crossing.window.second)),
                            // Below the threshold, to 2 decimals rounded down: 0.7482 was 0.75, below 0.75.
                            ("alpha1", .nullable(crossing.window.alpha1.map { ($0 * 100).rounded(.down) / 100 })),
                            ("hr_bpm", .nullable(crossing.window.heartRate?.rounded(toPlaces: 1))),
                            ("cadence_spm", .nullable(crossing.window.cadence?.rounded(toPlaces: 1))),
                        ])
                    })
            ),
        ])
    }
}
