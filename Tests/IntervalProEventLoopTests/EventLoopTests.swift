import Glibc
import IntervalProEventLoop
import Synchronization
import Testing

/// The event loop with real descriptors (a pipe, a socket pair), real timers and real tasks.
@Suite struct EventLoopTests {
    /// A non-blocking pipe: (read end, write end).
    func pipeEnds() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    /// The calling thread's voluntary context switches so far, from /proc.
    static func voluntarySwitches() -> Int? {
        guard let file = fopen("/proc/thread-self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("voluntary_ctxt_switches:") {
                return Int(text.dropFirst("voluntary_ctxt_switches:".count).filter(\.isNumber))
            }
        }
        return nil
    }

    @Test("a readable descriptor runs its handler on the loop's thread; unwatched, it no longer does")
    func watchesDescriptors() async throws {
        let loop = try EventLoop(name: "test-watch")
        defer { loop.shutdown() }
        let (readEnd, writeEnd) = try pipeEnds()
        defer { close(readEnd); close(writeEnd) }
        let seen = Mutex<[UInt8]>([])
        let arrived = LoopCondition(loop: loop)
        let id = await loop.submit {
            loop.watch(readEnd, .readable) { _ in
                var byte: UInt8 = 0
                while read(readEnd, &byte, 1) == 1 { seen.withLock { $0.append(byte) } }
                #expect(loop.inLoop)
                arrived.raise()
            }
        }
        var byte: UInt8 = 42
        _ = write(writeEnd, &byte, 1)
        #expect(await arrived.wait(timeout: .seconds(5)))
        #expect(seen.withLock { $0 } == [42])

        await loop.submit { loop.unwatch(id) }
        byte = 43
        _ = write(writeEnd, &byte, 1)
        #expect(await !arrived.wait(timeout: .milliseconds(100)), "no handler once unwatched")
        #expect(seen.withLock { $0 } == [42])
    }

    @Test("a doorbell: a ring before the wait is kept, a wait without one times out, a ring from another thread wakes a blocked wait")
    func doorbell() throws {
        let doorbell = try ThreadDoorbell()
        doorbell.ring()
        doorbell.ring()
        #expect(doorbell.wait(timeout: .seconds(5)), "kept from before")
        #expect(!doorbell.wait(timeout: .milliseconds(20)), "two rings count as one")

        final class Flag: Sendable { let value = Atomic<Bool>(false) }
        let rung = Flag()
        try LoopThread.start(name: "test-ring") {
            usleep(50_000)
            rung.value.store(true, ordering: .releasing)
            doorbell.ring()
        }
        // Counted around the wait alone: an expectation's event, recorded while other tests
        // record theirs, waited on the testing library's lock too (4 to 13 switches with the
        // other suites beside it). Looking every millisecond would switch about 50 times in
        // the 50 ms; one block is 1, and locks shared with the other tests' threads add a few.
        let before = Self.voluntarySwitches()
        let woke = doorbell.wait()
        let after = Self.voluntarySwitches()
        #expect(woke)
        let wasRung = rung.value.load(ordering: .acquiring)
        #expect(wasRung, "woken by the ring, not before")
        if let before, let after {
            #expect(after - before <= 10, "one block, not a poll every millisecond: \(after - before) switches")
        }
    }

    @Test("a hang-up reaches the handler as .hangUp")
    func hangUp() async throws {
        let loop = try EventLoop(name: "test-hangup")
        defer { loop.shutdown() }
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let events = Mutex<EventLoop.Events>([])
        let arrived = LoopCondition(loop: loop)
        let ours = pair[0]
        _ = await loop.submit {
            loop.watch(ours, .readable) { happened in
                events.withLock { $0.formUnion(happened) }
                arrived.raise()
            }
        }
        close(pair[1])
        #expect(await arrived.wait(timeout: .seconds(5)))
        #expect(events.withLock { $0.contains(.hangUp) })
    }

    @Test("timers fire in order, not before their time; a cancelled one never")
    func timers() async throws {
        let loop = try EventLoop(name: "test-timers")
        defer { loop.shutdown() }
        let clock = ContinuousClock()
        let fired = Mutex<[(String, Duration)]>([])
        let done = LoopCondition(loop: loop)
        let start = clock.now
        await loop.submit {
            loop.schedule(after: .milliseconds(60)) { fired.withLock { $0.append(("late", start.duration(to: clock.now))) }; done.raise() }
            let cancelled = loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append(("cancelled", .zero)) } }
            loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append(("early", start.duration(to: clock.now))) } }
            loop.cancel(cancelled)
        }
        #expect(await done.wait(timeout: .seconds(5)))
        let order = fired.withLock { $0 }
        #expect(order.map(\.0) == ["early", "late"])
        #expect(order.first.map { $0.1 >= .milliseconds(20) } ?? false)
        #expect(order.last.map { $0.1 >= .milliseconds(60) } ?? false)
    }

    @Test("a raise with no one waiting is kept for the next wait; a wait times out when nothing comes")
    func conditionKeepsRaise() async throws {
        let loop = try EventLoop(name: "test-condition")
        defer { loop.shutdown() }
        let condition = LoopCondition(loop: loop)
        condition.raiseSoon()
        #expect(await condition.wait(timeout: .milliseconds(1)))
        #expect(await !condition.wait(timeout: .milliseconds(20)))
    }

    @Test("a task preferring the loop runs on its thread, and sleeps there without waking it on a timer")
    func taskExecutor() async throws {
        let loop = try EventLoop(name: "test-executor")
        defer { loop.shutdown() }
        let condition = LoopCondition(loop: loop)
        let onLoop = await withTaskExecutorPreference(loop) { loop.inLoop }
        #expect(onLoop)
        // Idle for 300 ms with one waiter and no other timer: the thread sleeps once, not 6 times.
        let counts = await withTaskExecutorPreference(loop) { () -> (Int?, Int?, Bool) in
            let before = Self.voluntarySwitches()
            let woke = await condition.wait(timeout: .milliseconds(300))
            return (before, Self.voluntarySwitches(), woke || !loop.inLoop)
        }
        let before = try #require(counts.0)
        let after = try #require(counts.1)
        #expect(!counts.2, "timed out, and went on on the loop's thread")
        #expect(after - before <= 3, "\(after - before) wake-ups for one 300 ms wait")
    }
}
