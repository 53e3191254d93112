import IntervalProCore
import IntervalProSound
import Testing

@Suite("BeatGrid and AudioClock")
struct BeatGridTests {
    @Test(arguments: [(170.0, 48_000), (172.5, 48_000), (163.3, 44_100), (181.0, 16_000), (60.0, 8_000)])
    func everyBeatWithinHalfAFrameForThirtyMinutes(spm: Double, rate: Int) {
        let start: Int64 = 12_345
        var grid = BeatGrid(start: start, spm: spm, sampleRate: rate)
        #expect(grid.nextFrame == start)
        let beats = Int64(spm * 30)
        var worst = 0.0
        for n in 0...beats {
            #expect(grid.beat == n)
            let ideal = Double(start) + Double(n) * 60 / spm * Double(rate)
            worst = max(worst, abs(Double(grid.nextFrame) - ideal))
            grid.advance()
        }
        #expect(worst <= 0.5)
    }

    @Test func framesPerBeat() {
        #expect(BeatGrid(start: 0, spm: 160, sampleRate: 48_000).framesPerBeat == 18_000)
        #expect(abs(BeatGrid(start: 0, spm: 170, sampleRate: 48_000).framesPerBeat - 16_941.176_470_588) < 1e-6)
    }

    @Test func clockMapsSessionTimeToNearestFrame() {
        let clock = AudioClock(sampleRate: 48_000)
        #expect(clock.frame(of: .zero) == 0)
        #expect(clock.frame(of: .seconds(90)) == 4_320_000)
        // 10 µs = 0.48 frame rounds down; 11 µs = 0.528 frame rounds up.
        #expect(clock.frame(of: SessionTime(microseconds: 10)) == 0)
        #expect(clock.frame(of: SessionTime(microseconds: 11)) == 1)
        let shifted = AudioClock(sampleRate: 44_100, origin: 1_000)
        #expect(shifted.frame(of: .seconds(1)) == 45_100)
        #expect(shifted.time(of: 45_100) == .seconds(1))
    }
}
