import Foundation
@testable import IntervalProLaunch
import IntervalProRuntime
import Synchronization
import Testing

/// A replay or simulation shown in real time took a key at its next look, up to 250 ms
/// later: `n` typed just before a step ended by time ended the step after it instead.
@Suite("a key wakes a session paced on its clock")
struct InputWakeTests {
    /// A pipe standing for the terminal, and what its reader took.
    final class Keys: Sendable {
        let readEnd: Int32
        let writeEnd: Int32
        let taken = Mutex<[UInt8]>([])
        let takes = Atomic<Int>(0)
        let stillRead = Atomic<Bool>(true)

        init() {
            var ends: [Int32] = [-1, -1]
            precondition(pipe(&ends) == 0)
            readEnd = ends[0]
            writeEnd = ends[1]
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        func type(_ text: String) { _ = text.withCString { write(writeEnd, $0, strlen($0)) } }

        var input: InputWake.Input {
            InputWake.Input(descriptor: readEnd) { [self] in
                takes.add(1, ordering: .relaxed)
                guard stillRead.load(ordering: .relaxed) else { return false }
                var buffer = [UInt8](repeating: 0, count: 16)
                while true {
                    let count = read(readEnd, &buffer, buffer.count)
                    guard count > 0 else { break }
                    taken.withLock { $0 += buffer[0..<count] }
                }
                return true
            }
        }
    }

    /// Whether the doorbell rings within `seconds` (a generous bound: it rings at once or never).
    func rings(_ doorbell: Doorbell, within seconds: Int = 10) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await doorbell.wait(); return !Task.isCancelled }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Test("each key typed rings the doorbell, once taken")
    func keyRings() async {
        let keys = Keys()
        let doorbell = Doorbell()
        let wake = try? InputWake([keys.input], ring: doorbell.ring)
        #expect(wake != nil)
        keys.type("n")
        #expect(await rings(doorbell))
        #expect(keys.taken.withLock { $0 } == Array("n".utf8))
        keys.type(" ")
        #expect(await rings(doorbell))
        #expect(keys.taken.withLock { $0 } == Array("n ".utf8))
        withExtendedLifetime(wake) {}
    }

    @Test("keys no longer read (the terminal given back) are no longer waited for")
    func stopsWhenNoLongerRead() async throws {
        let keys = Keys()
        let doorbell = Doorbell()
        let wake = try InputWake([keys.input], ring: doorbell.ring)
        keys.stillRead.store(false, ordering: .relaxed)
        keys.type("q")
        // Left unread, the byte keeps the pipe readable: a watch kept would be called again and again.
        try await Task.sleep(for: .milliseconds(300))
        #expect(keys.takes.load(ordering: .relaxed) == 1)
        #expect(!(await rings(doorbell, within: 1)))
        withExtendedLifetime(wake) {}
    }
}
