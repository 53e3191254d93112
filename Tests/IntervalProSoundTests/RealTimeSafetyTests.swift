import AllocationCounter
import IntervalProCore
import IntervalProSound
import Testing

@Suite("Render path: real-time safety")
struct RealTimeSafetyTests {
    @Test func schedulingAndRenderingAllocateNothing() {
        let clip = [Float](repeating: 0.3, count: 30_000)
        clip.withUnsafeBufferPointer { samples in
            // Everything the render thread does, in its order: take events, render periods, skip.
            let events = [
                AudioEvent(frame: 0, kind: .tempo(spm: 172.5, pattern: .alternate)),
                AudioEvent(frame: 24_000, kind: .voice(VoiceClip(id: 1, samples: samples))),
                AudioEvent(frame: 100_000, kind: .clicksAudible(false)),
                AudioEvent(frame: 150_000, kind: .clicksAudible(true)),
                AudioEvent(frame: 200_000, kind: .tempo(spm: 180, pattern: .accentFirst)),
                AudioEvent(frame: 400_000, kind: .silence),
            ]
            let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: 600 * 2)
            defer { buffer.deallocate() }
            var allocations: [Int] = []
            allocations.reserveCapacity(2)
            // The first run pays the runtime's one-time costs (type metadata for the event
            // kinds); the second is the steady state the render thread lives in.
            for _ in 0..<2 {
                let renderer = MetronomeRenderer(sampleRate: 48_000, channels: 2, volume: 0.8)
                let before = intervalpro_allocations_on_this_thread()
                // By index: a for-in loop over the array itself allocates in debug builds.
                for i in events.indices { renderer.schedule(events[i]) }
                for _ in 0..<50 { renderer.render(into: buffer, frames: 600) }
                // Stalls skipped (live playback, after the device ran dry): one in the middle
                // of the voice cue, one across a tempo change; then on.
                renderer.skip(to: 40_000)
                for _ in 0..<250 { renderer.render(into: buffer, frames: 600) }
                renderer.skip(to: 230_000)
                for _ in 0..<500 { renderer.render(into: buffer, frames: 600) }
                allocations.append(intervalpro_allocations_on_this_thread() - before)
                #expect(renderer.isIdle)
            }
            #expect(allocations[1] == 0, "\(allocations[1]) allocations on the render path")
        }
    }

    @Test func theCounterSeesAnAllocation() {
        // The check above would pass vacuously if the counter counted nothing.
        let before = intervalpro_allocations_on_this_thread()
        let array = [Int](repeating: 1, count: 1_000 + Int(before % 2))
        let after = intervalpro_allocations_on_this_thread()
        #expect(array.count >= 1_000)
        #expect(after > before)
    }
}
