import IntervalProSound
import Synchronization

/// A lock-free single-producer, single-consumer ring of audio events: the session side
/// pushes, the render thread pops. Storage is allocated once; push and pop only move two
/// atomic indices (release on publish, acquire on read), so neither side ever waits.
final class EventQueue: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<AudioEvent>
    private let capacity: Int
    /// Next slot to read; written by the consumer only.
    private let head = Atomic<Int>(0)
    /// Next slot to write; written by the producer only.
    private let tail = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// Producer side. False when full.
    func push(_ event: AudioEvent) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        guard t - h < capacity else { return false }
        (storage + t % capacity).initialize(to: event)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Consumer side. Nil when empty.
    func pop() -> AudioEvent? {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        guard h < t else { return nil }
        let event = (storage + h % capacity).move()
        head.store(h + 1, ordering: .releasing)
        return event
    }

    /// Consumer side: the next event without taking it.
    func peek() -> AudioEvent? {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        guard h < t else { return nil }
        return storage[h % capacity]
    }
}

/// Preallocated buffers for voice cues in live playback. The session side fills a free
/// slot (synthesis happens there, never on the render thread) and hands the render thread
/// a clip pointing into it; the render thread marks the slot free again when the clip has
/// played, through an atomic.
///
/// A cue longer than a slot (a long step label: 21 words took 10.4 s) grows its slot, up to
/// `longestSeconds`: the slot is free, so the render thread holds nothing in it. It was cut
/// at the slot's 8 s, mid-word, where `render-audio` played it whole.
final class VoiceBank: @unchecked Sendable {
    let slots: Int
    /// The most a slot grows to.
    let longestCapacity: Int
    /// Each slot's samples and how many it holds. Touched by the session side only: the render
    /// thread reads a clip's samples through the pointer its clip carries.
    private var buffers: [UnsafeMutablePointer<Float>]
    private var capacities: [Int]
    private let busy: UnsafeMutablePointer<Atomic<Bool>>
    /// What each slot holds, so a repeated phrase ("3", "2", "1") is not synthesised again.
    /// Touched by the session side only.
    private var texts: [String?]

    init(slots: Int, seconds: Double, sampleRate: Int, longestSeconds: Double = 60) {
        self.slots = slots
        let capacity = Int(seconds * Double(sampleRate))
        longestCapacity = max(capacity, Int(longestSeconds * Double(sampleRate)))
        buffers = (0..<slots).map { _ in .allocate(capacity: capacity) }
        capacities = Array(repeating: capacity, count: slots)
        busy = .allocate(capacity: slots)
        for i in 0..<slots { (busy + i).initialize(to: Atomic(false)) }
        texts = Array(repeating: nil, count: slots)
    }

    deinit {
        busy.deinitialize(count: slots)
        busy.deallocate()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Render thread: the clip in this slot has finished.
    func release(_ slot: Int) {
        guard slot >= 0, slot < slots else { return }
        busy[slot].store(false, ordering: .releasing)
    }

    /// Session side: a clip holding `text`, made with `synthesise` unless a free slot
    /// already has it. Nil when every slot is playing.
    func clip(for text: String, synthesise: () -> [Float]) -> VoiceClip? {
        var free: Int?
        for slot in 0..<slots where !busy[slot].load(ordering: .acquiring) {
            if texts[slot] == text { return take(slot, count: lengths[slot]) }
            if free == nil || texts[slot] == nil { free = slot }
        }
        guard let slot = free else { return nil }
        let wave = synthesise()
        let count = min(wave.count, longestCapacity)
        if count > capacities[slot] {
            // Free: the render thread has released it, and holds no pointer into it.
            buffers[slot].deallocate()
            buffers[slot] = .allocate(capacity: count)
            capacities[slot] = count
        }
        wave.withUnsafeBufferPointer { source in
            guard let start = source.baseAddress, count > 0 else { return }
            buffers[slot].update(from: start, count: count)
        }
        texts[slot] = text
        lengths[slot] = count
        return take(slot, count: count)
    }

    private lazy var lengths = [Int](repeating: 0, count: slots)

    private func take(_ slot: Int, count: Int) -> VoiceClip {
        busy[slot].store(true, ordering: .releasing)
        return VoiceClip(id: slot, samples: UnsafeBufferPointer(start: buffers[slot], count: count))
    }
}
