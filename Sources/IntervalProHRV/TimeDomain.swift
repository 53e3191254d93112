import RealModule

/// The time-domain figures of a series of corrected RR intervals, as the Task Force of the
/// European Society of Cardiology and NASPE defined them (Circulation 1996;93:1043-65):
/// rMSSD, the root mean square of successive differences, and SDNN, the standard deviation
/// of the intervals (sample SD, n − 1, as NeuroKit2 and hrv-analysis compute it).
///
/// The intervals come in segments: a pause in skin contact ends one, and no difference is
/// taken across it.
public struct TimeDomainHRV: Equatable, Sendable, Codable {
    public var beats: Int
    /// Milliseconds.
    public var meanInterval: Double
    /// Beats per minute, from the mean interval.
    public var meanHeartRate: Double
    /// Milliseconds.
    public var rmssd: Double
    /// The natural logarithm of rMSSD in milliseconds: the scale baselines are kept on, since
    /// rMSSD itself is skewed.
    public var lnRMSSD: Double
    /// Milliseconds.
    public var sdnn: Double

    /// Figures computed before (read back from the store).
    public init(beats: Int, meanInterval: Double, meanHeartRate: Double, rmssd: Double, lnRMSSD: Double, sdnn: Double) {
        self.beats = beats
        self.meanInterval = meanInterval
        self.meanHeartRate = meanHeartRate
        self.rmssd = rmssd
        self.lnRMSSD = lnRMSSD
        self.sdnn = sdnn
    }

    /// Nil with fewer than two successive intervals in any segment (no difference to take).
    public init?(segments: [[Double]]) {
        let all = segments.flatMap { $0 }
        var squares = 0.0
        var differences = 0
        for segment in segments where segment.count > 1 {
            for (earlier, later) in zip(segment, segment.dropFirst()) {
                squares += (later - earlier) * (later - earlier)
                differences += 1
            }
        }
        guard differences > 0, all.count > 1 else { return nil }
        let mean = all.reduce(0, +) / Double(all.count)
        let variance = all.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(all.count - 1)
        beats = all.count
        meanInterval = mean
        meanHeartRate = 60_000 / mean
        rmssd = (squares / Double(differences)).squareRoot()
        lnRMSSD = Double.log(rmssd)
        sdnn = variance.squareRoot()
    }
}
