import Testing
@testable import IntervalProCore

@Suite("SessionTime")
struct SessionTimeTests {
    @Test func arithmeticAndConversions() {
        #expect(SessionTime.seconds(1.5).microseconds == 1_500_000)
        #expect(SessionTime.seconds(0.0000014).microseconds == 1)
        #expect(SessionTime.seconds(3).microseconds == 3_000_000)
        #expect(SessionTime.seconds(90).seconds == 90)
        #expect(SessionTime(microseconds: 1) + SessionTime(microseconds: 2) == SessionTime(microseconds: 3))
        #expect(SessionTime.seconds(5) - SessionTime.seconds(7) == SessionTime.seconds(-2))
        var t = SessionTime.zero
        t += .seconds(2)
        #expect(t == .seconds(2))
        #expect(SessionTime(microseconds: 999_999) < .seconds(1))
        #expect([SessionTime.seconds(3), .zero, .seconds(1)].sorted() == [.zero, .seconds(1), .seconds(3)])
    }

    @Test("clock text", arguments: [
        (0.0, "0:00"), (59.9, "0:59"), (61, "1:01"), (600, "10:00"), (3599, "59:59"), (3600, "1:00:00"),
        (3723, "1:02:03"), (36_000, "10:00:00"), (-5, "0:00"),
    ])
    func clock(seconds: Double, text: String) {
        #expect(formatClock(seconds) == text)
        #expect(SessionTime.seconds(seconds).description == text)
    }
}
