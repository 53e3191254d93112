import Testing
@testable import IntervalProHRV

@Suite("Time-domain HRV")
struct TimeDomainTests {
    @Test func figuresWorkedOutByHand() throws {
        // Differences 10, −20, 10: rMSSD = √(600/3) = √200; deviations 0, 10, −10, 0: SDNN = √(200/3).
        let hrv = try #require(TimeDomainHRV(segments: [[1000, 1010, 990, 1000]]))
        #expect(abs(hrv.rmssd - 14.142_135_623_730_951) < 1e-9)
        #expect(abs(hrv.sdnn - 8.164_965_809_277_26) < 1e-9)
        #expect(hrv.meanInterval == 1000)
        #expect(hrv.meanHeartRate == 60)
        #expect(abs(hrv.lnRMSSD - 2.649_158_683_274_018) < 1e-12)
        #expect(hrv.beats == 4)
    }

    @Test func noDifferenceIsTakenAcrossAPause() throws {
        // Differences 10 and 10 within the segments; the −20 across the pause is not one.
        let hrv = try #require(TimeDomainHRV(segments: [[1000, 1010], [990, 1000]]))
        #expect(hrv.rmssd == 10)
        #expect(hrv.beats == 4)
    }

    @Test func nothingToDifferenceGivesNoFigures() {
        #expect(TimeDomainHRV(segments: []) == nil)
        #expect(TimeDomainHRV(segments: [[1000], [1000]]) == nil)
    }
}
