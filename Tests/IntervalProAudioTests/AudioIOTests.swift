import AllocationCounter
import Foundation
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
    @Test func queueKeepsOrderAcrossThreadsAndRefusesWhenFull() {
        let queue = EventQueue(capacity: 64)
        for i in 0..<64 { #expect(queue.push(AudioEvent(frame: Int64(i), kind: .silence))) }
        #expect(!queue.push(AudioEvent(frame: 99, kind: .silence)))
        for i in 0..<64 { #expect(queue.pop()?.frame == Int64(i)) }
        #expect(queue.pop() == nil)

        // One producer thread, one consumer: every event arrives once, in order. A side that
        // finds the queue full or empty naps rather than spins: spinning held a core for as long
        // as the other side waited for one, which in the test process of some 600 tests beside it
        // came to nearly half of that process's processor time.
        let count = 100_000
        let produced = DispatchSemaphore(value: 0)
        Thread {
            var i = 0
            while i < count {
                if queue.push(AudioEvent(frame: Int64(i), kind: .clicksAudible(i % 2 == 0))) { i += 1 } else { usleep(20) }
            }
            produced.signal()
        }.start()
        var expected: Int64 = 0
        var inOrder = true
        while expected < count {
            if let event = queue.pop() {
                inOrder = inOrder && event.frame == expected
                expected += 1
            } else {
                usleep(20)
            }
        }
        produced.wait()
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

    /// A cue longer than a slot was cut at the slot's length, mid-word (live cues at 8 s).
    @Test func voiceBankReusesAFreeSlotWithTheSameTextAndWaitsForBusyOnes() {
        let bank = VoiceBank(slots: 2, seconds: 1, sampleRate: 100, longestSeconds: 3)
        var synthesised = 0
        let make: () -> [Float] = {
            synthesised += 1
            return [Float](repeating: 0.5, count: 150)  // longer than a slot: the slot grows
        }
        let first = bank.clip(for: "three", synthesise: make)
        #expect(first?.samples.count == 150)
        #expect(first?.samples.allSatisfy { $0 == 0.5 } == true)
        // Beyond the longest a slot grows to, cut there.
        let long = VoiceBank(slots: 1, seconds: 1, sampleRate: 100, longestSeconds: 3)
        #expect(long.clip(for: "long") { [Float](repeating: 0.25, count: 500) }?.samples.count == 300)
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

    @Test func atItsHorizonTheRenderThreadWaitsWithoutWakingUntilTheHorizonMoves() throws {
        #expect(alsaConfigured)
        let player = try AudioPlayer(
            device: "intervalpro_test", request: AudioFormatRequest(sampleRate: 8_000, channels: 1), volume: 0.5)
        player.limit(to: 4_000)
        player.start()
        while player.renderedFrames < 4_000 { player.waitUntilCaughtUp() }
        // The `file` PCM takes frames as fast as they come: the thread is at the horizon at once.
        // The quietest of up to three windows of 200 ms: on a loaded machine the first caught the
        // thread still finishing its last writes (55 switches, in a CI run 52 s into this test).
        // A thread looking every millisecond switches some 200 times in each.
        var fewest = Int.max
        for _ in 0..<3 where fewest > 2 {
            let before = try #require(Self.voluntarySwitches(ofThread: "ip-audio"))
            usleep(200_000)
            let after = try #require(Self.voluntarySwitches(ofThread: "ip-audio"))
            fewest = min(fewest, after - before)
        }
        #expect(fewest <= 2, "a thread looking every millisecond would switch some 200 times: \(fewest)")
        #expect(player.renderedFrames == 4_000)

        player.limit(to: 9_000)
        while player.renderedFrames < 9_000 { player.waitUntilCaughtUp() }
        #expect(player.renderedFrames == 9_000)
        player.stop()
    }

    /// A `file` PCM into a FIFO nobody reads: the render thread blocks in its write. Stopping
    /// the player joined it, for ever: `run` never printed its summary nor exited.
    @Test func aDeviceThatStopsTakingSamplesIsLeftAfterTheLimitAndSaidLost() throws {
        #expect(alsaConfigured)
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("stall-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Open for reading (never read) so that the plugin's open for writing does not block.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        setenv("INTERVALPRO_TEST_STALL", fifo, 1)
        let player = try AudioPlayer(
            device: "intervalpro_stall", request: AudioFormatRequest(sampleRate: 8_000, channels: 1), volume: 0.5)
        player.send(AudioEvent(frame: 0, kind: .tempo(spm: 120, pattern: .plain)))
        player.limit(to: 8_000 * 60)
        player.start()
        // A pipe holds 64 KiB: some 4 s of 8 kHz mono, then the write blocks.
        var previous: Int64 = -1
        while player.renderedFrames != previous {
            previous = player.renderedFrames
            usleep(300_000)
        }
        #expect(previous < 8_000 * 60, "the writes blocked")
        player.stop(waitingUpTo: .milliseconds(300))
        #expect(player.lostStatus == .stalled)
        #expect("\(ALSAStatus.stalled)" == "it stopped taking sound")
        // The blocked write ends (EPIPE, not a signal) once the reader goes; the thread with it.
        signal(SIGPIPE, SIG_IGN)
        close(reader)
    }

    /// The voluntary context switches so far of this process's thread named `name`, from /proc.
    static func voluntarySwitches(ofThread name: String) -> Int? {
        guard let tasks = opendir("/proc/self/task") else { return nil }
        defer { closedir(tasks) }
        while let entry = readdir(tasks) {
            let id = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard id.first?.isNumber == true, line(of: "/proc/self/task/\(id)/comm", startingWith: "") == name else { continue }
            return line(of: "/proc/self/task/\(id)/status", startingWith: "voluntary_ctxt_switches:")
                .flatMap { Int($0.filter(\.isNumber)) }
        }
        return nil
    }

    /// The rest of the first line of `path` that starts with `prefix`, without its newline.
    static func line(of path: String, startingWith prefix: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(prefix) { return String(text.dropFirst(prefix.count).prefix { $0 != "\n" }) }
        }
        return nil
    }
}
