/// The moving figures of the artifact correction (`ArtifactCorrection`): the thresholds and
/// medians of the beats around each beat, worked out by sliding a sorted window along the
/// series, or taken from figures worked out before wherever a beat's neighbourhood is
/// unchanged (the next pass over a window, the next window of a session).
extension ArtifactCorrection {
    /// What one pass of detection worked out for each beat. The next pass, or the next window
    /// of a session, takes those whose neighbourhoods are unchanged instead of working them
    /// out again.
    struct Figures: Sendable {
        /// The interval ending at each beat.
        var rr: [Double] = []
        /// |dRR| and its threshold.
        var changes: [Double] = []
        var changeThresholds: [Double] = []
        /// The median of the intervals around each beat.
        var medians: [Double] = []
        /// |mRR| and its threshold, NaN at the beats where detection does not read it.
        var deviations: [Double] = []
        var deviationThresholds: [Double] = []
    }

    /// Figures to take from, and each beat's index among them (-1: a beat they do not have).
    struct Reuse: Sendable {
        var figures: Figures
        var origins: [Int]
    }

    /// `figure` of the sorted values within `width / 2` of each index (fewer at the ends), at
    /// the indices `wanted` (nil: all; NaN at the others). The window is kept sorted as it
    /// slides instead of sorted anew at each index: alpha 1 corrects every two-minute window of
    /// a run this way.
    static func slidingWindows(
        _ values: [Double], width: Int, wanted: [Bool]? = nil, _ figure: (UnsafeBufferPointer<Double>) -> Double
    ) -> [Double] {
        guard !values.isEmpty else { return [] }
        var runs = Runs(half: width / 2)
        runs.add(0...(values.count - 1), wanted: wanted)
        var result = [Double](repeating: .nan, count: values.count)
        slide(values, half: width / 2, over: runs.ranges, figure, into: &result)
        return result
    }

    /// The runs of indices whose figures are worked out, apart from one another.
    struct Runs {
        let half: Int
        private(set) var ranges: [ClosedRange<Int>] = []

        /// Adds the indices of `range` that are `wanted` (nil: all of them), after those added.
        mutating func add(_ range: ClosedRange<Int>, wanted: [Bool]?) {
            guard let wanted else { return add(range.lowerBound, range.upperBound) }
            var start: Int?
            for k in range {
                if wanted[k] {
                    if start == nil { start = k }
                } else if let first = start {
                    add(first, k - 1)
                    start = nil
                }
            }
            if let start { add(start, range.upperBound) }
        }

        private mutating func add(_ low: Int, _ high: Int) {
            // Through the gaps shorter than half a window: sliding over them costs less than
            // sorting the next run's first neighbourhood.
            if let last = ranges.last, low - last.upperBound <= half {
                ranges[ranges.count - 1] = last.lowerBound...high
            } else {
                ranges.append(low...high)
            }
        }
    }

    /// Writes `figure` of each index's neighbourhood into `result`, run by run. A run to the end
    /// is slid from the end back: its first neighbourhood is then half a window to sort, not a
    /// whole one.
    private static func slide(
        _ values: [Double], half: Int, over runs: [ClosedRange<Int>], _ figure: (UnsafeBufferPointer<Double>) -> Double,
        into result: inout [Double]
    ) {
        let n = values.count
        result.withUnsafeMutableBufferPointer { result in
            values.withUnsafeBufferPointer { values in
                for run in runs {
                    if run.upperBound == n - 1, run.lowerBound > 0 {
                        let from = max(0, run.lowerBound - half)
                        let reversed = [Double](values[from...].reversed())
                        reversed.withUnsafeBufferPointer { reversed in
                            slide(reversed, half: half, through: 0...(n - 1 - run.lowerBound), figure) { result[n - 1 - $0] = $1 }
                        }
                    } else {
                        slide(values, half: half, through: run, figure) { result[$0] = $1 }
                    }
                }
            }
        }
    }

    /// `slidingWindows(_:width:wanted:_:)`, taking each index's figure from `reference.figures` at
    /// its origin (`reference.origins`, -1 for none) wherever the neighbourhood there holds the
    /// same values, cut by the ends the same way: the same sorted values, so the same figure,
    /// bit for bit (a figure not worked out there is NaN). Only the runs of indices left
    /// are slid over. A window of alpha 1 shares all but its ends' neighbourhoods with the
    /// session, and a later pass all but those around the beats the pass before corrected.
    static func slidingWindows(
        _ values: [Double], width: Int, reusing reference: (values: [Double], figures: [Double], origins: [Int])?,
        wanted: [Bool]? = nil, _ figure: (UnsafeBufferPointer<Double>) -> Double
    ) -> [Double] {
        guard let reference, !values.isEmpty else { return slidingWindows(values, width: width, wanted: wanted, figure) }
        let n = values.count
        let half = width / 2
        let origins = reference.origins
        let available = reference.values.count
        // The indices whose figures are worked out here, in order, as ranges apart from one
        // another: those whose neighbourhood holds a value that differs from its origin's, or
        // two values whose origins are not side by side; and a neighbourhood cut by an end is
        // the reference's only if the reference's is cut there too.
        var refused: [ClosedRange<Int>] = []
        func refuse(from low: Int, through high: Int) {
            let low = max(0, low)
            let high = min(n - 1, high)
            guard low <= high else { return }
            if let last = refused.last, low <= last.upperBound + 1 {
                refused[refused.count - 1] = last.lowerBound...max(last.upperBound, high)
            } else {
                refused.append(low...high)
            }
        }
        if origins[0] != 0 { refuse(from: 0, through: half - 1) }
        reference.values.withUnsafeBufferPointer { referenceValues in
            values.withUnsafeBufferPointer { values in
                origins.withUnsafeBufferPointer { origins in
                    var j = 0
                    while j < n {
                        // Most beats follow the one before in the reference, with its value:
                        // passed over in a tight loop (a NaN is never equal, so it stops here).
                        if j > 0 {
                            var previous = origins[j - 1]
                            while j < n, origins[j] == previous + 1, origins[j] < available,
                                values[j] == referenceValues[origins[j]]
                            {
                                previous = origins[j]
                                j += 1
                            }
                            guard j < n else { break }
                        }
                        let origin = origins[j]
                        if origin < 0 || origin >= available || values[j] != referenceValues[origin] {
                            refuse(from: j - half, through: j + half)
                        } else if j > 0, origin != origins[j - 1] + 1 {
                            refuse(from: j - half, through: j - 1 + half)
                        }
                        j += 1
                    }
                }
            }
        }
        if origins[n - 1] != available - 1 { refuse(from: n - half, through: n - 1) }
        var result = [Double](repeating: .nan, count: n)
        // Between them the figures are the reference's; one not worked out there (NaN) is
        // worked out here too, the indices of such a run added at once.
        var workedOut = Runs(half: half)
        result.withUnsafeMutableBufferPointer { result in
            reference.figures.withUnsafeBufferPointer { figures in
                origins.withUnsafeBufferPointer { origins in
                    var next = 0
                    for range in refused + [n...n] {
                        var missing: Int?
                        for k in next..<max(next, range.lowerBound) {
                            let value = figures[origins[k]]
                            if value.isNaN {
                                if missing == nil { missing = k }
                            } else {
                                result[k] = value
                                if let first = missing {
                                    workedOut.add(first...(k - 1), wanted: wanted)
                                    missing = nil
                                }
                            }
                        }
                        if let first = missing { workedOut.add(first...(range.lowerBound - 1), wanted: wanted) }
                        if range.lowerBound < n { workedOut.add(range, wanted: wanted) }
                        next = range.upperBound + 1
                    }
                }
            }
        }
        slide(values, half: half, over: workedOut.ranges, figure, into: &result)
        return result
    }

    /// Calls `emit` with each index of `indices` and `figure` of the sorted values within
    /// `half` of it (fewer at the ends), sorting the first neighbourhood and then keeping it
    /// sorted as it slides: where one value leaves as another enters, only the values between
    /// the two places move, by one.
    private static func slide(
        _ values: UnsafeBufferPointer<Double>, half: Int, through indices: ClosedRange<Int>,
        _ figure: (UnsafeBufferPointer<Double>) -> Double, emit: (Int, Double) -> Void
    ) {
        let n = values.count
        var window = [Double](repeating: 0, count: min(n, 2 * half + 1))
        window.withUnsafeMutableBufferPointer { sorted in
            let first = indices.lowerBound
            let low = max(0, first - half)
            var count = min(n - 1, first + half) - low + 1
            for i in 0..<count { sorted[i] = values[low + i] }
            var firstWindow = UnsafeMutableBufferPointer(rebasing: sorted[0..<count])
            firstWindow.sort()
            emit(first, figure(UnsafeBufferPointer(rebasing: sorted[0..<count])))
            for k in indices.dropFirst() {
                let entering = k + half < n ? values[k + half] : nil
                let leaving = k - half - 1 >= 0 ? values[k - half - 1] : nil
                switch (entering, leaving) {
                case (let entering?, let leaving?):
                    replace(leaving, with: entering, in: sorted, count: count)
                case (let entering?, nil):
                    // Near an end the neighbourhood only grows or shrinks: the values past the
                    // place move as one block.
                    let to = insertionIndex(of: entering, in: sorted, count: count)
                    (sorted.baseAddress! + to + 1).update(from: sorted.baseAddress! + to, count: count - to)
                    sorted[to] = entering
                    count += 1
                case (nil, let leaving?):
                    let from = insertionIndex(of: leaving, in: sorted, count: count)
                    (sorted.baseAddress! + from).update(from: sorted.baseAddress! + from + 1, count: count - 1 - from)
                    count -= 1
                case (nil, nil):
                    break
                }
                emit(k, figure(UnsafeBufferPointer(rebasing: sorted[0..<count])))
            }
        }
    }

    /// Takes `leaving` out of the first `count` sorted values and puts `entering` in: the leaving
    /// value's place moves towards the entering one's, the values passed moving by one (one
    /// pass, no second search).
    @inline(__always) private static func replace(
        _ leaving: Double, with entering: Double, in sorted: UnsafeMutableBufferPointer<Double>, count: Int
    ) {
        var i = insertionIndex(of: leaving, in: sorted, count: count)
        while i + 1 < count, sorted[i + 1] < entering {
            sorted[i] = sorted[i + 1]
            i += 1
        }
        while i > 0, sorted[i - 1] > entering {
            sorted[i] = sorted[i - 1]
            i -= 1
        }
        sorted[i] = entering
    }

    /// The first index whose value is not less than `value` (where it is, when present).
    /// Halves the range without branching on the comparison (a conditional move), which a
    /// processor cannot predict for values of a noisy series.
    private static func insertionIndex(of value: Double, in sorted: UnsafeMutableBufferPointer<Double>, count: Int) -> Int {
        guard count > 0 else { return 0 }
        var base = 0
        var length = count
        while length > 1 {
            let half = length / 2
            base = sorted[base + half] < value ? base + half : base
            length -= half
        }
        return sorted[base] < value ? base + 1 : base
    }

    /// The q-quantile of sorted values, interpolating linearly between ranks (numpy's and
    /// pandas' default).
    static func quantile<Values: RandomAccessCollection<Double>>(_ sorted: Values, _ q: Double) -> Double
    where Values.Index == Int {
        let position = q * Double(sorted.count - 1)
        // Truncation is the floor here: the position is never negative.
        let lower = Int(position)
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }

    /// The first pass's figures over a session's beats as they come, each worked out once its
    /// whole neighbourhood is there: what the first pass over a window of them works out for
    /// its inner beats, whose neighbourhoods the window's ends do not cut. Each window then
    /// works out only its ends' (`correct(_:reusing:)`), and the session each figure once.
    struct SessionFigures: Sendable {
        /// Indexed as the intervals given to `extend(with:)`; NaN where not worked out (yet).
        private(set) var figures = Figures()
        private var changeWindow = FullWindow(half: thresholdWindow / 2)
        private var medianWindow = FullWindow(half: ArtifactCorrection.medianWindow / 2)
        private var deviationWindow = FullWindow(half: thresholdWindow / 2)

        /// Takes in the intervals (milliseconds) past those taken already.
        mutating func extend(with intervals: [Double]) {
            let known = figures.rr.count
            guard intervals.count > known else { return }
            for j in known..<intervals.count {
                figures.rr.append(intervals[j])
                figures.changes.append(j == 0 ? .nan : abs(intervals[j] - intervals[j - 1]))
                figures.changeThresholds.append(.nan)
                figures.medians.append(.nan)
                figures.deviations.append(.nan)
                figures.deviationThresholds.append(.nan)
            }
            let last = intervals.count - 1
            // Each window slid as a copy, so that `emit` may write the figures.
            var medians = medianWindow
            medians.advance(over: figures.rr, through: last, { quantile($0, 0.5) }) { centre, median in
                figures.medians[centre] = median
                figures.deviations[centre] = abs(deviation(figures.rr[centre], from: median))
            }
            medianWindow = medians
            var changes = changeWindow
            changes.advance(over: figures.changes, through: last, thresholdFigure) { figures.changeThresholds[$0] = $1 }
            changeWindow = changes
            var deviations = deviationWindow
            deviations.advance(over: figures.deviations, through: medianWindow.centre, thresholdFigure) {
                figures.deviationThresholds[$0] = $1
            }
            deviationWindow = deviations
        }

        /// Forgets the first `count` intervals' figures (the session's buffer dropped them).
        mutating func dropFirst(_ count: Int) {
            guard count > 0 else { return }
            guard count < figures.rr.count else {
                self = SessionFigures()
                return
            }
            figures.rr.removeFirst(count)
            figures.changes.removeFirst(count)
            figures.changeThresholds.removeFirst(count)
            figures.medians.removeFirst(count)
            figures.deviations.removeFirst(count)
            figures.deviationThresholds.removeFirst(count)
            changeWindow.dropFirst(count)
            medianWindow.dropFirst(count)
            deviationWindow.dropFirst(count)
        }
    }

    /// A neighbourhood of `2 * half + 1` values kept sorted as its centre moves along a series
    /// that grows at its end; only neighbourhoods without a NaN (a value not known) count.
    struct FullWindow: Sendable {
        let half: Int
        private var sorted: [Double] = []
        /// The index whose neighbourhood `sorted` holds; -1 before the first.
        private(set) var centre = -1

        init(half: Int) {
            self.half = half
        }

        /// Calls `emit` with each centre after the last, up to the one whose neighbourhood ends
        /// at `last`, and `figure` of its neighbourhood.
        mutating func advance(
            over values: [Double], through last: Int, _ figure: (UnsafeBufferPointer<Double>) -> Double,
            emit: (Int, Double) -> Void
        ) {
            if centre < 0 {
                // The first neighbourhood past the last NaN up to `last`.
                var first = 0
                if last >= 0 {
                    for index in stride(from: last, through: 0, by: -1) where values[index].isNaN {
                        first = index + 1
                        break
                    }
                }
                guard last - first + 1 >= 2 * half + 1 else { return }
                centre = first + half
                sorted = values[first...(first + 2 * half)].sorted()
                sorted.withUnsafeBufferPointer { emit(centre, figure($0)) }
            }
            while centre + half < last {
                let leaving = values[centre - half]
                let entering = values[centre + half + 1]
                centre += 1
                sorted.withUnsafeMutableBufferPointer { sorted in
                    replace(leaving, with: entering, in: sorted, count: sorted.count)
                    emit(centre, figure(UnsafeBufferPointer(sorted)))
                }
            }
        }

        mutating func dropFirst(_ count: Int) {
            guard centre >= 0 else { return }
            centre -= count
            // The next step takes out the value half a window before the centre: gone, it
            // starts again from the values left.
            if centre - half < 0 { self = FullWindow(half: half) }
        }
    }
}
