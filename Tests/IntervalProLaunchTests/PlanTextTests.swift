import IntervalProCore
import IntervalProLaunch
import Testing

struct PlanTextTests {
    /// intervals.icu's `4.5mi` is 7,242.048 m: shown to 10 m, as a runner reads a distance.
    @Test func distancesAreShownToTenMetresAndToTheMetre() {
        #expect(PlanText.end(.distance(4.5 * 1609.344)) == "7.24 km")
        #expect(PlanText.end(.distance(1609.344)) == "1.61 km")
        #expect(PlanText.end(.distance(1000)) == "1 km")
        #expect(PlanText.end(.distance(400)) == "400 m")
        #expect(PlanText.end(.distance(0.25 * 1609.344)) == "402 m")
        #expect(PlanText.end(.time(.seconds(90))) == "1:30")
    }
}
