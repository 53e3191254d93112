import IntervalProCore
import RealModule
import Testing
@testable import IntervalProHRV

/// Series with a known scaling: white noise has alpha 0.5, 1/f noise 1.0, Brownian noise 1.5
/// (Peng et al. 1995). Tests/Readiness holds the figures to NeuroKit2 on RR data.
@Suite("Detrended fluctuation analysis")
struct DetrendedFluctuationTests {
    /// SplitMix64 with a Box-Muller normal: the same series on every run.
    struct Noise {
        var state: UInt64
        mutating func uniform() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        mutating func normal() -> Double {
            let u = max(uniform(), 1e-300)
            return (-2 * Double.log(u)).squareRoot() * Double.cos(2 * Double.pi * uniform())
        }
        mutating func white(_ count: Int) -> [Double] { (0..<count).map { _ in normal() } }
        /// Voss-McCartney pink noise: 16 sources, the k-th renewed every 2^k samples.
        mutating func pink(_ count: Int) -> [Double] {
            var sources = (0..<16).map { _ in normal() }
            return (0..<count).map { i in
                for k in 0..<16 where i % (1 << k) == 0 { sources[k] = normal() }
                return sources.reduce(0, +) + normal()
            }
        }
    }

    func meanAlpha(_ make: (inout Noise) -> [Double]) -> Double {
        var noise = Noise(state: 20_261_125)
        let alphas = (0..<20).map { _ in
            DetrendedFluctuation.alpha(of: make(&noise), boxSizes: DetrendedFluctuation.boxSizes) ?? .nan
        }
        return alphas.reduce(0, +) / Double(alphas.count)
    }

    /// Boxes of 4 to 16 sit where linear DFA reads white noise high (Kantelhardt et al. 2001,
    /// Physica A 295:441-454): NeuroKit2 gives 0.577 over 20 series of 2,048 values too.
    @Test func whiteNoiseScalesAtOneHalf() {
        let alpha = meanAlpha { $0.white(2048) }
        #expect(alpha > 0.5 && alpha < 0.63, "alpha \(alpha)")
    }

    @Test func pinkNoiseScalesAtOne() {
        let alpha = meanAlpha { $0.pink(2048) }
        #expect(abs(alpha - 1.0) < 0.12, "alpha \(alpha)")
    }

    @Test func brownianNoiseScalesAtOneAndAHalf() {
        let alpha = meanAlpha { noise in
            var sum = 0.0
            return noise.white(2048).map { step in
                sum += step
                return sum
            }
        }
        #expect(abs(alpha - 1.5) < 0.05, "alpha \(alpha)")
    }

    @Test func tooShortOrFlatGivesNoFigure() {
        #expect(DetrendedFluctuation.alpha1(Array(repeating: 800, count: 31)) == nil)
        #expect(DetrendedFluctuation.alpha1(Array(repeating: 800, count: 200)) == nil)
    }

    /// The banded solve against the definition, z − (I + λ²D₂ᵀD₂)⁻¹z, solved densely.
    @Test(arguments: [3, 4, 5, 12])
    func smoothnessPriorsMatchesTheDenseSolve(count: Int) {
        var noise = Noise(state: UInt64(count))
        let series = (0..<count).map { 800 + 40 * noise.normal() + 3 * Double($0) }
        let lambda = 7.0
        var matrix = (0..<count).map { i in (0..<count).map { j in i == j ? 1.0 : 0 } }
        for k in 0..<(count - 2) {
            let row = [(k, 1.0), (k + 1, -2.0), (k + 2, 1.0)]
            for (i, a) in row { for (j, b) in row { matrix[i][j] += lambda * lambda * a * b } }
        }
        // Gaussian elimination with the right-hand side as the last column.
        var augmented = zip(matrix, series).map { $0 + [$1] }
        for pivot in 0..<count {
            for row in (pivot + 1)..<count {
                let factor = augmented[row][pivot] / augmented[pivot][pivot]
                for column in pivot...count { augmented[row][column] -= factor * augmented[pivot][column] }
            }
        }
        var trend = [Double](repeating: 0, count: count)
        for row in stride(from: count - 1, through: 0, by: -1) {
            var value = augmented[row][count]
            for column in (row + 1)..<count { value -= augmented[row][column] * trend[column] }
            trend[row] = value / augmented[row][row]
        }
        let detrended = DetrendedFluctuation.smoothnessPriorsDetrended(series, lambda: lambda)
        for (value, expected) in zip(detrended, zip(series, trend).map { $0 - $1 }) {
            #expect(abs(value - expected) < 1e-7, "\(value) vs \(expected)")
        }
    }
}
