import AllocationCounter
import Glibc
import IntervalProCore
import IntervalProSound
import Testing

@testable import IntervalProAudio

/// The test ALSA configuration (a `file` PCM over `null`), set before libasound reads any.
let alsaConfigured: Bool = {
    let root = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
    setenv("ALSA_CONFIG_PATH", "/\(root)/Tests/Audio/asound.conf", 1)
    setenv("INTERVALPRO_TEST_AUDIO", "/dev/null", 1)
    return true
}()

@Suite("Audio I/O: queue, voice bank, ALSA")
struct AudioIOTests {
    @Test func queueKeepsOrderAcrossThreadsAndRefusesWhenFull() async {
        let queue = EventQueue(capacity: 64)
        for i in 0..<64 { #expect(queue.push(AudioEvent(frame: Int64(i), kind: .silence))) }
        #expect(!queue.push(AudioEvent(frame: 99, kind: .silence)))
        for i in 0..<64 { #expect(queue.pop()?.frame == Int64(i)) }
        #expect(queue.pop() == nil)

        // One producer task, one consumer: every event arrives once, in order.
        let count = 100_000
        let producer = Task.detached {
            var i = 0
            while i < count {
                if queue.push(AudioEvent(frame: Int64(i), kind: .clicksAudible(i % 2 == 0))) { i += 1 }
            }
        }
        var expected: Int64 = 0
        var inOrder = true
        while expected < count {
            if let event = queue.pop() {
                inOrder = inOrder && event.frame == expected
                expected += 1
            }
        }
        await producer.value
        #expect(inOrder)
        #expect(queue.pop() == nil)
    }

    @Test func poppingAllocatesNothing() {
        let queue = EventQueue(capacity: 16)
        _ = queue.push(AudioEvent(frame: 0, kind: .silence))
        _ = queue.pop()
        for i in 0..<10 { _ = queue.push(AudioEvent(frame: Int64(i), kind: .tempo(spm: 170, pattern: .plain))) }
        let before = intervalpro_allocations_on_this_thread()
        var popped = 0
        while queue.peek() != nil, queue.pop() != nil { popped += 1 }
        #expect(intervalpro_allocations_on_this_thread() == before)
        #expect(popped == 10)
    }

    @Test func voiceBankReusesAFreeSlotWithTheSameTextAndWaitsForBusyOnes() {
        let bank = VoiceBank(slots: 2, seconds: 1, sampleRate: 100)
        var synthesised = 0
        let make: () -> [Float] = {
            synthesised += 1
            return [Float](repeating: 0.5, count: 150)  // longer than a slot: cut to 100
        }
        let first = bank.clip(for: "three", synthesise: make)
        #expect(first?.samples.count == 100)
        let second = bank.clip(for: "two", synthesise: make)
        #expect(second != nil && second?.id != first?.id)
        #expect(bank.clip(for: "one", synthesise: make) == nil)  // both slots playing
        bank.release(first!.id)
        let again = bank.clip(for: "three", synthesise: make)
        #expect(again?.id == first?.id)
        #expect(synthesised == 2)
    }

    @Test func openingAMissingDeviceNamesItAndTheReason() {
        #expect(alsaConfigured)
        do {
            _ = try PCMPlayback(device: "no_such_device", request: AudioFormatRequest())
            Issue.record("opened a device that does not exist")
        } catch {
            #expect(error.status == .notFound)
            #expect(error.description == "ALSA device 'no_such_device': open: No such file or directory")
        }
    }

    @Test func theTestDeviceNegotiatesAndTakesFrames() throws {
        #expect(alsaConfigured)
        let pcm = try PCMPlayback(
            device: "intervalpro_test", request: AudioFormatRequest(sampleRate: 44_100, channels: 1, latencyMicroseconds: 40_000))
        #expect(pcm.sampleRate == 44_100)
        #expect(pcm.channels == 1)
        #expect(pcm.periodFrames > 0 && pcm.periodFrames <= pcm.bufferFrames)
        let silence = [Int16](repeating: 0, count: 1_000)
        let written = silence.withUnsafeBufferPointer { pcm.write($0.baseAddress!, frames: 1_000) }
        #expect(written == 1_000)
        #expect(pcm.recover(.underrun) == .ok)
    }

    @Test func playerRendersUpToItsHorizonThenStops() throws {
        #expect(alsaConfigured)
        let player = try AudioPlayer(
            device: "intervalpro_test", request: AudioFormatRequest(sampleRate: 8_000, channels: 1), volume: 0.5)
        let events = [AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: .plain)), AudioEvent(frame: 7_000, kind: .silence)]
        let lost = AudioTimelineRender.play(events, to: 12_345, through: player)
        #expect(lost == nil)
        #expect(player.renderedFrames == 12_345)
        #expect(player.isIdle)
    }
}
