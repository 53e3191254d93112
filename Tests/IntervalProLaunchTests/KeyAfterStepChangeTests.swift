@testable import IntervalProLaunch
import Testing

/// `n` typed just as a step ended by time, or 25 ms after the page's Next ended it, was taken
/// by the step after, which it ended too.
@Suite("a key's n just after a step change")
struct KeyAfterStepChangeTests {
    let start = ContinuousClock.now

    @Test("n within half a second of a step begun by time or by the page is left out; after it, taken")
    func nJustAfterAChangeIsLeftOut() {
        var keys = KeyAfterStepChange()
        keys.stepStarted(at: start)
        let kept1 = keys.keeps(nextAt: start + .milliseconds(25))
        #expect(!kept1)
        let kept2 = keys.keeps(nextAt: start + .milliseconds(499))
        #expect(!kept2)
        let kept3 = keys.keeps(nextAt: start + .milliseconds(500))
        #expect(kept3)
    }

    @Test("n n ends two steps: a step begun by the keys' own n is not guarded")
    func theKeysOwnStepIsNotGuarded() {
        var keys = KeyAfterStepChange()
        let kept4 = keys.keeps(nextAt: start)
        #expect(kept4, "no step change yet: the session's start is not one")
        keys.stepStarted(at: start + .milliseconds(1))
        let kept5 = keys.keeps(nextAt: start + .milliseconds(30))
        #expect(kept5)
        keys.stepStarted(at: start + .milliseconds(31))
        // The next change by time is guarded again.
        keys.stepStarted(at: start + .seconds(60))
        let kept6 = keys.keeps(nextAt: start + .seconds(60.1))
        #expect(!kept6)
    }
}
