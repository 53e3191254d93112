/// Artifact correction of RR intervals by Lipponen & Tarvainen (2019), "A robust algorithm for
/// heart rate variability time series artefact correction using novel beat classification",
/// J Med Eng Technol 43(3):173-181, doi:10.1080/03091902.2019.1640306: the method behind
/// Kubios HRV's automatic correction.
///
/// Each beat is classified from two normalised series: dRR, the change from the previous
/// interval, and mRR, the deviation from the median of the 11 intervals around it (negative
/// deviations doubled). Each is divided by a time-varying threshold, 5.2 times the quartile
/// deviation of its absolute values over the 91 beats around it. A large dRR followed by one
/// of the opposite sign is an ectopic beat; a long interval that halves to the local median is a
/// missed beat; a short one that adds up with the next to the median is an extra beat; any
/// other large deviation is a long or short beat.
///
/// Corrections follow NeuroKit2's `signal_fixpeaks(method="Kubios")` (0.2.13), which the tests
/// hold this implementation to: an extra beat is removed, a missed beat is put back halfway,
/// an ectopic or long/short beat is moved halfway between its neighbours; detection and
/// correction repeat while the number of artifacts found keeps falling. The first two and the
/// last beat are never moved. A beat flagged again in a later pass (an ectopic beat's
/// neighbours often are) is one beat corrected, not two: each beat is followed through the
/// passes' removals and insertions.
public enum ArtifactCorrection {
    /// What one pass found, by the index of the beat (the interval ending at it).
    public struct Artifacts: Equatable, Sendable {
        public var ectopic: [Int] = []
        public var missed: [Int] = []
        public var extra: [Int] = []
        public var longShort: [Int] = []

        public init(ectopic: [Int] = [], missed: [Int] = [], extra: [Int] = [], longShort: [Int] = []) {
            self.ectopic = ectopic
            self.missed = missed
            self.extra = extra
            self.longShort = longShort
        }

        public var count: Int { ectopic.count + missed.count + extra.count + longShort.count }
    }

    /// The corrected intervals and how many beats were corrected on the way.
    public struct Result: Equatable, Sendable {
        /// Milliseconds, in order.
        public var intervals: [Double]
        /// The beats flagged as artifacts in any pass, each counted once.
        public var corrected: Int
        /// The passes' findings, in order (empty when the series was clean).
        public var passes: [Artifacts]
    }

    // The constants of the paper (and of NeuroKit2's port).
    static let alpha = 5.2
    static let thresholdWindow = 91
    static let medianWindow = 11
    static let c1 = 0.13
    static let c2 = 0.17

    /// Corrects `intervals` (milliseconds, in order, all positive).
    public static func correct(_ intervals: [Double]) -> Result {
        correct(intervals, reusing: nil)
    }

    /// Corrects `intervals`, the first pass taking from `reuse` the figures of the beats whose
    /// neighbourhoods it holds unchanged (`AlphaOneTracker`'s session figures), each later
    /// pass those of the pass before it: the result is the same, bit for bit.
    static func correct(_ intervals: [Double], reusing reuse: Reuse?) -> Result {
        var beats = beatTimes(intervals)
        var (found, figures) = detect(beats, reusing: reuse)
        guard found.count > 0 else { return Result(intervals: intervals, corrected: 0, passes: []) }
        var passes = [found]
        // Who each beat is: its place in the series as given, or a new number for one put back.
        var beatsSeen = Identities(count: beats.count)
        beatsSeen.flag(found)
        var origins: [Int]
        (beats, origins) = apply(found, to: beats, identities: &beatsSeen)
        while true {
            let (again, againFigures) = detect(beats, reusing: Reuse(figures: figures, origins: origins))
            // Stops once a pass finds no fewer than the last: that one is not applied.
            guard again.count < found.count, again.count > 0 else { break }
            found = again
            figures = againFigures
            passes.append(found)
            beatsSeen.flag(found)
            (beats, origins) = apply(found, to: beats, identities: &beatsSeen)
        }
        return Result(intervals: differences(beats), corrected: beatsSeen.flagged.count, passes: passes)
    }

    /// The beats of a series followed through the passes, and those flagged so far.
    struct Identities {
        var current: [Int]
        var next: Int
        var flagged: Set<Int> = []

        init(count: Int) {
            current = Array(0..<count)
            next = count
        }

        mutating func flag(_ artifacts: Artifacts) {
            for index in artifacts.ectopic + artifacts.missed + artifacts.extra + artifacts.longShort where current.indices.contains(index) {
                flagged.insert(current[index])
            }
        }
    }

    /// The beat times the intervals imply, the first at 0.
    static func beatTimes(_ intervals: [Double]) -> [Double] {
        var times = [0.0]
        times.reserveCapacity(intervals.count + 1)
        var now = 0.0
        for interval in intervals {
            now += interval
            times.append(now)
        }
        return times
    }

    static func differences(_ beats: [Double]) -> [Double] {
        zip(beats.dropFirst(), beats).map { $0 - $1 }
    }

    /// Finds the artifacts among `beats` (times in milliseconds).
    public static func detect(_ beats: [Double]) -> Artifacts {
        detect(beats, reusing: nil).found
    }

    /// The artifacts among `beats`, and the figures that found them.
    static func detect(_ beats: [Double], reusing reuse: Reuse?) -> (found: Artifacts, figures: Figures) {
        let n = beats.count
        guard n > 2 else { return (Artifacts(), Figures()) }
        // The interval ending at each beat; the first has none, so it takes the mean of the others.
        var rr = [Double](repeating: 0, count: n)
        for k in 1..<n { rr[k] = beats[k] - beats[k - 1] }
        rr[0] = mean(rr[1...])
        var drr = [Double](repeating: 0, count: n)
        for k in 1..<n { drr[k] = rr[k] - rr[k - 1] }
        drr[0] = mean(drr[1...])

        var figures = Figures(rr: rr, changes: drr.map(abs))
        let th1 = threshold(figures.changes, reusing: reuse.map { ($0.figures.changes, $0.figures.changeThresholds, $0.origins) })
        let drrn = normalised(drr, by: th1)
        let medrr = slidingWindows(rr, width: medianWindow, reusing: reuse.map { ($0.figures.rr, $0.figures.medians, $0.origins) }) {
            quantile($0, 0.5)
        }
        let mrr = [Double](unsafeUninitializedCapacity: n) { mrr, initialized in
            for k in 0..<n { mrr[k] = deviation(rr[k], from: medrr[k]) }
            initialized = n
        }
        figures.deviations = mrr.map(abs)
        // mRR's threshold is read (below) only at a beat that dRR's does not clear, and at the
        // beat after it: worked out there alone (NaN elsewhere), a few beats a window, not all.
        var wanted = [Bool](repeating: false, count: n)
        for i in 0..<(n - 2) where !(abs(drrn[i]) <= 1) {
            wanted[i] = true
            wanted[i + 1] = true
        }
        let th2 = threshold(
            figures.deviations, reusing: reuse.map { ($0.figures.deviations, $0.figures.deviationThresholds, $0.origins) },
            wanted: wanted)
        let mrrn = normalised(mrr, by: th2)
        figures.changeThresholds = th1
        figures.medians = medrr
        figures.deviationThresholds = th2

        // Mirrored at both ends without repeating the edge (numpy's "reflect"), two deep.
        func padded(_ k: Int) -> Double {
            var index = k
            if index < 0 { index = -index }
            if index >= n { index = 2 * (n - 1) - index }
            return drrn[max(0, min(n - 1, index))]
        }
        // The paper's S12 and S22 series, read only at beats past the first threshold: computed
        // there, not for every beat.
        func s12(_ k: Int) -> Double {
            if drrn[k] > 0 { return nanMax(padded(k - 1), padded(k + 1)) }
            if drrn[k] < 0 { return nanMin(padded(k - 1), padded(k + 1)) }
            return 0
        }
        func s22(_ k: Int) -> Double {
            if drrn[k] >= 0 { return nanMin(padded(k + 1), padded(k + 2)) }
            if drrn[k] < 0 { return nanMax(padded(k + 1), padded(k + 2)) }
            return 0
        }

        var found = Artifacts()
        var i = 0
        // The last two beats have too little after them to be classified.
        while i < n - 2 {
            // Written as the paper's flow chart reads (and NeuroKit2 codes it), so that a NaN
            // (a window of identical intervals has no spread) behaves the same.
            if abs(drrn[i]) <= 1 {
                i += 1
                continue
            }
            let ectopicUp = drrn[i] > 1 && s12(i) < -c1 * drrn[i] - c2
            let ectopicDown = drrn[i] < -1 && s12(i) > -c1 * drrn[i] + c2
            if ectopicUp || ectopicDown {
                found.ectopic.append(i)
                i += 1
                continue
            }
            if !(abs(drrn[i]) > 1 || abs(mrrn[i]) > 3) {
                i += 1
                continue
            }
            var candidates = [i]
            if abs(drrn[i + 1]) < abs(drrn[i + 2]) { candidates.append(i + 1) }
            for j in candidates {
                defer { i += 1 }
                let long = drrn[j] > 1 && s22(j) < -1
                let farFromMedian = abs(mrrn[j]) > 3
                let short = drrn[j] < -1 && s22(j) > 1
                guard long || farFromMedian || short else { continue }
                let halvesToMedian = abs(rr[j] / 2 - medrr[j]) < th2[j]
                let addsUpToMedian = abs(rr[j] + rr[j + 1] - medrr[j]) < th2[j]
                if short && addsUpToMedian {
                    found.extra.append(j)
                } else if long && halvesToMedian {
                    found.missed.append(j)
                } else {
                    found.longShort.append(j)
                }
            }
        }
        return (found, figures)
    }

    /// Each value divided by its threshold; NaN where the threshold is 0 (no spread).
    private static func normalised(_ values: [Double], by thresholds: [Double]) -> [Double] {
        [Double](unsafeUninitializedCapacity: values.count) { result, initialized in
            for k in values.indices { result[k] = thresholds[k] == 0 ? .nan : values[k] / thresholds[k] }
            initialized = values.count
        }
    }

    /// mRR: an interval's deviation from the median around it, a shorter one's doubled.
    static func deviation(_ value: Double, from median: Double) -> Double {
        let deviation = value - median
        return deviation < 0 ? deviation * 2 : deviation
    }

    /// Applies one pass's corrections: extra beats removed, missed ones put back, misplaced
    /// ones moved, keeping the other lists' indices pointing at the same beats.
    /// `identities` follow the beats removed and put back; `origins` gives each beat's index
    /// before the pass (-1 for one put back).
    static func apply(
        _ artifacts: Artifacts, to beats: [Double], identities: inout Identities
    ) -> (beats: [Double], origins: [Int]) {
        var beats = beats
        var origins = Array(beats.indices)
        var missed = artifacts.missed
        var ectopic = artifacts.ectopic
        var longShort = artifacts.longShort
        if !artifacts.extra.isEmpty {
            let removed = Set(artifacts.extra)
            beats = beats.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
            identities.current = identities.current.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
            origins = origins.filter { !removed.contains($0) }
            missed = shifted(missed, past: artifacts.extra, by: -1)
            ectopic = shifted(ectopic, past: artifacts.extra, by: -1)
            longShort = shifted(longShort, past: artifacts.extra, by: -1)
        }
        if !missed.isEmpty {
            let valid = missed.filter { $0 > 1 && $0 < beats.count }
            // Inserted from the last, so the earlier positions stay as computed.
            let added = valid.map { (at: $0, time: beats[$0 - 1] + (beats[$0] - beats[$0 - 1]) / 2) }
            for insertion in added.reversed() {
                beats.insert(insertion.time, at: insertion.at)
                identities.current.insert(identities.next, at: insertion.at)
                identities.next += 1
                origins.insert(-1, at: insertion.at)
            }
            ectopic = shifted(ectopic, past: missed, by: 1)
            longShort = shifted(longShort, past: missed, by: 1)
        }
        beats = movedHalfway(ectopic, in: beats)
        beats = movedHalfway(longShort, in: beats)
        return (beats, origins)
    }

    /// Each listed beat moved halfway between its neighbours (all computed before any moves).
    /// In place: a beat halfway between its neighbours stays between them, and two moved
    /// side by side keep their order, so the series stays sorted as moving and re-sorting
    /// would leave it.
    private static func movedHalfway(_ indices: [Int], in beats: [Double]) -> [Double] {
        var result = beats
        for index in indices where index > 1 && index < beats.count - 1 {
            result[index] = beats[index - 1] + (beats[index + 1] - beats[index - 1]) / 2
        }
        return result
    }

    /// Every index after one of `sources` moved by `step` per such source, without duplicates.
    private static func shifted(_ indices: [Int], past sources: [Int], by step: Int) -> [Int] {
        guard !indices.isEmpty else { return indices }
        var result = indices
        for source in sources { result = result.map { $0 > source ? $0 + step : $0 } }
        return Array(Set(result)).sorted()
    }

    /// 5.2 × the quartile deviation of `magnitudes` (absolute values) over the 91 around each one
    /// (`wanted`: only those), taken from `reference` where it has the same neighbourhood
    /// (`slidingWindows(_:width:reusing:wanted:_:)`).
    private static func threshold(
        _ magnitudes: [Double], reusing reference: (values: [Double], figures: [Double], origins: [Int])?,
        wanted: [Bool]? = nil
    ) -> [Double] {
        slidingWindows(magnitudes, width: thresholdWindow, reusing: reference, wanted: wanted, thresholdFigure)
    }

    static func thresholdFigure(_ window: UnsafeBufferPointer<Double>) -> Double {
        alpha * (quantile(window, 0.75) - quantile(window, 0.25)) / 2
    }

    private static func mean(_ values: ArraySlice<Double>) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    private static func nanMax(_ a: Double, _ b: Double) -> Double { a.isNaN || b.isNaN ? .nan : Swift.max(a, b) }
    private static func nanMin(_ a: Double, _ b: Double) -> Double { a.isNaN || b.isNaN ? .nan : Swift.min(a, b) }
}
