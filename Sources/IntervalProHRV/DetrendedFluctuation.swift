import RealModule

/// The short-term scaling exponent alpha 1 of detrended fluctuation analysis (DFA), as Peng
/// et al. defined DFA ("Quantification of scaling exponents and crossover phenomena in
/// nonstationary heartbeat time series", Chaos 5:82-87, 1995) and as exercise studies use it
/// for the aerobic threshold (Rogers et al. 2021, Front. Physiol. 11:596567, after Kubios HRV).
///
/// 1. The intervals are detrended by smoothness priors (Tarvainen, Ranta-aho & Karjalainen,
///    IEEE Trans. Biomed. Eng. 49:172-175, 2002) with lambda 500, as Kubios HRV and FatMaxxer
///    do before DFA: the slow drift of heart rate over a two-minute window is removed.
/// 2. The detrended series, less its mean, is integrated.
/// 3. For each box size n from 4 to 16 beats the integrated series is cut into boxes of n
///    beats from its start (the remainder left out); a least-squares line is fitted in each
///    box; F(n) is the root mean square of the residuals over all boxes.
/// 4. Alpha 1 is the least-squares slope of log F(n) against log n.
///
/// White noise gives about 0.5, 1/f noise about 1.0 and Brownian noise about 1.5. NeuroKit2's
/// `signal_detrend(method="tarvainen2002")` followed by `fractal_dfa(scale=range(4, 17),
/// overlap=False)` computes the same figure; Tests/Readiness checks the two agree.
public enum DetrendedFluctuation {
    public static let boxSizes = 4...16
    public static let smoothnessLambda = 500.0

    /// Alpha 1 of `intervals` (milliseconds, in order), detrended first; nil with fewer than
    /// two boxes of the largest size or a series without variation.
    public static func alpha1(_ intervals: [Double]) -> Double? {
        var factor = SmoothnessPriorsFactor(lambda: smoothnessLambda)
        return alpha1(intervals, detrendingWith: &factor)
    }

    /// Alpha 1 as above, with a factorisation kept from one window to the next.
    public static func alpha1(_ intervals: [Double], detrendingWith factor: inout SmoothnessPriorsFactor) -> Double? {
        guard intervals.count >= 2 * boxSizes.upperBound, let low = intervals.min(), let high = intervals.max(),
            high - low > 1e-6
        else { return nil }
        return alpha(of: factor.detrended(intervals), boxSizes: boxSizes)
    }

    /// The DFA exponent of `series` over `boxSizes`, without detrending the series first.
    public static func alpha(of series: [Double], boxSizes: ClosedRange<Int>) -> Double? {
        guard boxSizes.lowerBound >= 3, series.count >= boxSizes.upperBound else { return nil }
        let sums = ProfileSums(series)
        var logSizes: [Double] = []
        var logFluctuations: [Double] = []
        for size in boxSizes {
            let fluctuation = sums.rootMeanSquareResidual(boxSize: size)
            guard fluctuation > 0 else { return nil }
            logSizes.append(.log(Double(size)))
            logFluctuations.append(.log(fluctuation))
        }
        return slope(x: logSizes, y: logFluctuations)
    }

    /// The profile (the series less its mean, integrated) as running sums of y, i·y and y², from
    /// which each box's least-squares line and residuals follow in a few operations: alpha 1
    /// fits every box of 13 sizes in every window, and the sums serve them all.
    struct ProfileSums {
        /// Element k is the sum over the profile's first k points.
        private var y: [Double]
        private var iy: [Double]
        private var yy: [Double]

        init(_ series: [Double]) {
            let n = series.count
            let mean = series.reduce(0, +) / Double(n)
            var profile = [Double](repeating: 0, count: n)
            var y = [Double](repeating: 0, count: n + 1)
            var iy = y
            var yy = y
            // Read and written without bounds checks: alpha 1 sums every window of a session.
            series.withUnsafeBufferPointer { series in
                profile.withUnsafeMutableBufferPointer { profile in
                    var sum = 0.0
                    var total = 0.0
                    for i in 0..<n {
                        sum += series[i] - mean
                        profile[i] = sum
                        total += sum
                    }
                    // Centred, the profile's values and their squares stay small, and so do the
                    // rounding errors of the sums' differences.
                    let centre = total / Double(n)
                    y.withUnsafeMutableBufferPointer { y in
                        iy.withUnsafeMutableBufferPointer { iy in
                            yy.withUnsafeMutableBufferPointer { yy in
                                for i in 0..<n {
                                    let value = profile[i] - centre
                                    y[i + 1] = y[i] + value
                                    iy[i + 1] = iy[i] + Double(i) * value
                                    yy[i + 1] = yy[i] + value * value
                                }
                            }
                        }
                    }
                }
            }
            self.y = y
            self.iy = iy
            self.yy = yy
        }

        /// F(n): the root mean square, over every box of `boxSize` points from the start (the
        /// remainder left out), of the residuals from the box's least-squares line. Per box,
        /// with x = 0..<n centred: residual sum of squares = Σ(y-ȳ)² - (Σxy)² / Σx².
        func rootMeanSquareResidual(boxSize: Int) -> Double {
            let boxes = (y.count - 1) / boxSize
            let n = Double(boxSize)
            let centre = (n - 1) / 2
            let overN = 1 / n
            let overSumXX = 12 / (n * (n * n - 1))
            var squares = 0.0
            y.withUnsafeBufferPointer { y in
                iy.withUnsafeBufferPointer { iy in
                    yy.withUnsafeBufferPointer { yy in
                        for box in 0..<boxes {
                            let from = box * boxSize
                            let to = from + boxSize
                            let sumY = y[to] - y[from]
                            // Σ (i - from - centre) y_i over the box.
                            let sumXY = (iy[to] - iy[from]) - (Double(from) + centre) * sumY
                            let residual = (yy[to] - yy[from]) - sumY * sumY * overN - sumXY * sumXY * overSumXX
                            squares += max(0, residual)
                        }
                    }
                }
            }
            return (squares / Double(boxes * boxSize)).squareRoot()
        }
    }

    static func slope(x: [Double], y: [Double]) -> Double {
        let n = Double(x.count)
        let meanX = x.reduce(0, +) / n
        let meanY = y.reduce(0, +) / n
        var sxy = 0.0
        var sxx = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - meanX) * (b - meanY)
            sxx += (a - meanX) * (a - meanX)
        }
        return sxy / sxx
    }

    /// The series less its smoothness-priors trend: z − (I + λ²D₂ᵀD₂)⁻¹z, with D₂ the
    /// second-difference matrix.
    public static func smoothnessPriorsDetrended(_ series: [Double], lambda: Double) -> [Double] {
        var factor = SmoothnessPriorsFactor(lambda: lambda)
        return factor.detrended(series)
    }
}

/// The LDLᵀ factorisation of I + λ²D₂ᵀD₂, which the smoothness-priors trend solves. The matrix
/// is symmetric, positive definite and pentadiagonal, so the factorisation and the solve take
/// linear time. Its rows are the same for every size but the last two (D₂ᵀD₂'s bands read
/// 1 5 6 … 6 5 1 and −2 −4 … −4 −2), so one factor kept across alpha 1's windows, which
/// differ in length by a beat or two, serves them all: only the last two rows are worked out
/// per series. The figures are the same, bit for bit, as factorising each series anew.
public struct SmoothnessPriorsFactor: Sendable {
    public let lambda: Double
    /// D and the two bands of the unit lower triangular L, for the rows shared by all sizes.
    private var d: [Double] = []
    private var l1: [Double] = []
    private var l2: [Double] = []

    public init(lambda: Double) {
        self.lambda = lambda
    }

    /// `series` less its smoothness-priors trend.
    public mutating func detrended(_ series: [Double]) -> [Double] {
        let n = series.count
        guard n >= 3 else { return series.map { _ in 0 } }
        let weight = lambda * lambda
        if d.count < n { extend(to: max(n, 2 * d.count), weight: weight) }
        // Only D's last two entries and L's last band entry are the size's own (with n = 3 the
        // matrix is too small to share anything): they stand in for the shared rows' while
        // this series is solved, and are put back after.
        let saved = (d[n - 2], l1[n - 2], d[n - 1])
        if n == 3 {
            for i in 0..<3 {
                Self.factorRow(i, count: 3, diagonal: [1, 4, 1][i], first: -2, weight: weight, d: &d, l1: &l1, l2: &l2)
            }
        } else {
            Self.factorRow(n - 2, count: n, diagonal: 5, first: -2, weight: weight, d: &d, l1: &l1, l2: &l2)
            Self.factorRow(n - 1, count: n, diagonal: 1, first: -2, weight: weight, d: &d, l1: &l1, l2: &l2)
        }
        var trend = series
        // The same operations in the same order as a loop over the arrays, read without bounds
        // checks: alpha 1 detrends every window of a session.
        d.withUnsafeBufferPointer { d in
            l1.withUnsafeBufferPointer { l1 in
                l2.withUnsafeBufferPointer { l2 in
                    trend.withUnsafeMutableBufferPointer { trend in
                        trend[1] -= l1[0] * trend[0]
                        for i in 2..<n { trend[i] = trend[i] - l1[i - 1] * trend[i - 1] - l2[i - 2] * trend[i - 2] }
                        for i in 0..<n { trend[i] /= d[i] }
                        trend[n - 2] -= l1[n - 2] * trend[n - 1]
                        for i in stride(from: n - 3, through: 0, by: -1) {
                            trend[i] = trend[i] - l1[i] * trend[i + 1] - l2[i] * trend[i + 2]
                        }
                    }
                }
            }
        }
        if n == 3 {
            d.removeAll()
            l1.removeAll()
            l2.removeAll()
        } else {
            (d[n - 2], l1[n - 2], d[n - 1]) = saved
        }
        for i in 0..<n { trend[i] = series[i] - trend[i] }
        return trend
    }

    /// Factorises the shared rows up to `count`, as rows of a series longer than `count` + 2.
    private mutating func extend(to count: Int, weight: Double) {
        let from = d.count
        d.append(contentsOf: repeatElement(0, count: count - from))
        l1.append(contentsOf: repeatElement(0, count: count - from))
        l2.append(contentsOf: repeatElement(0, count: count - from))
        for i in from..<count {
            let diagonal: Double = i == 0 ? 1 : (i == 1 ? 5 : 6)
            let first: Double = i == 0 ? -2 : -4
            Self.factorRow(i, count: count + 2, diagonal: diagonal, first: first, weight: weight, d: &d, l1: &l1, l2: &l2)
        }
    }

    /// One row of the LDLᵀ recursion.
    private static func factorRow(
        _ i: Int, count n: Int, diagonal: Double, first: Double, weight: Double,
        d: inout [Double], l1: inout [Double], l2: inout [Double]
    ) {
        var di = 1 + weight * diagonal
        if i >= 1 { di -= l1[i - 1] * l1[i - 1] * d[i - 1] }
        if i >= 2 { di -= l2[i - 2] * l2[i - 2] * d[i - 2] }
        d[i] = di
        if i + 1 < n {
            var a1 = weight * first
            if i >= 1 { a1 -= l2[i - 1] * l1[i - 1] * d[i - 1] }
            l1[i] = a1 / di
        }
        if i + 2 < n { l2[i] = weight / di }
    }
}
