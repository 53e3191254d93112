#if canImport(Glibc)
import Glibc
#endif
import IntervalProEventLoop
public import IntervalProSound
import Synchronization

/// Plays a `MetronomeRenderer` through an ALSA PCM on its own render thread.
///
/// The render thread allocates nothing, takes no lock and does no I/O besides writing to
/// the device and to two eventfds: it takes events from a lock-free queue, renders one period
/// into a buffer allocated up front, and writes it. The session side talks to it only through
/// that queue, a few atomics and the eventfds (`ThreadDoorbell`), where either side waits for
/// the other instead of looking again every millisecond. `horizon` bounds how far the thread
/// may render: live playback keeps it a little ahead of the session (a real device blocks long
/// before), and an offline render through a device raises it as the timeline becomes final.
public final class AudioPlayer: @unchecked Sendable {
    public let output: PCMPlayback
    public var sampleRate: Int { output.sampleRate }
    public var channels: Int { output.channels }

    let renderer: MetronomeRenderer
    let voices: VoiceBank
    private let queue: EventQueue
    private let buffer: UnsafeMutablePointer<Int16>

    private let horizon: Atomic<Int64>
    private let rendered = Atomic<Int64>(0)
    private let idle = Atomic<Bool>(true)
    private let stopRequested = Atomic<Bool>(false)
    private let threadEnded = Atomic<Bool>(false)
    /// The status that stopped the thread (a lost device), or 0.
    private let lost = Atomic<Int32>(0)
    private var thread: LoopThread.Handle?
    /// Where the thread waits once it has rendered up to the horizon: rung when the horizon
    /// moves or the thread is to stop.
    private let horizonMoved: ThreadDoorbell
    /// Where the session side waits for the thread: rung when the thread reaches the horizon,
    /// when it stops, and after a period that leaves it idle past `idleWakeFrame`.
    private let caughtUp: ThreadDoorbell
    private let idleWakeFrame = Atomic<Int64>(.max)
    /// The frame the session side asked the thread to skip to (0: none asked).
    private let skipTarget = Atomic<Int64>(0)
    private let skipped = Atomic<Int64>(0)

    /// Voice clips with ids from here up are not the bank's (offline renders own them).
    public static let externalClipIDs = 1_000_000

    public init(device: String, request: AudioFormatRequest, volume: Double, voiceSlots: Int = 12) throws(ALSAError) {
        do {
            horizonMoved = try ThreadDoorbell()
            caughtUp = try ThreadDoorbell()
        } catch {
            throw ALSAError(device: device, operation: "make the render thread's eventfds", status: ALSAStatus(rawValue: -errno))
        }
        output = try PCMPlayback(device: device, request: request)
        renderer = MetronomeRenderer(sampleRate: output.sampleRate, channels: output.channels, volume: volume)
        voices = VoiceBank(slots: voiceSlots, seconds: 8, sampleRate: output.sampleRate)
        queue = EventQueue(capacity: 512)
        buffer = .allocate(capacity: output.periodFrames * output.channels)
        // Half a second of silence may go out before the session side first sets the
        // horizon: enough that a real device does not run dry while the session starts.
        horizon = Atomic(Int64(output.sampleRate / 2))
        let bank = voices
        renderer.onVoiceFinished = { id in bank.release(id) }
    }

    deinit {
        stop()
        buffer.deallocate()
    }

    /// Frames rendered so far: written to the device, or skipped (`skippedFrames`).
    public var renderedFrames: Int64 { rendered.load(ordering: .acquiring) }

    /// Frames skipped, never written to the device (see `skip(to:)`).
    public var skippedFrames: Int64 { skipped.load(ordering: .acquiring) }

    /// How long a device may take no sound before it is taken for stopped: its buffer's
    /// length and two seconds.
    public var stalledAfter: Duration {
        .microseconds(Int64(output.bufferFrames) * 1_000_000 / Int64(max(1, output.sampleRate))) + .seconds(2)
    }

    /// True once everything sent has played (as far as the renderer knows).
    public var isIdle: Bool { idle.load(ordering: .acquiring) }

    /// Why the device stopped, if it did.
    public var lostStatus: ALSAStatus? {
        let status = lost.load(ordering: .acquiring)
        return status == 0 ? nil : ALSAStatus(rawValue: status)
    }

    /// The thread renders up to (not including) this frame, then waits for more.
    public func limit(to frame: Int64) {
        horizon.store(frame, ordering: .releasing)
        horizonMoved.ring()
    }

    /// Session side: blocks until the thread has rendered up to the horizon or stopped (a
    /// ring may be left from before: what is waited for is checked again after).
    public func waitUntilCaughtUp() {
        caughtUp.wait()
    }

    /// Session side: blocks until the thread has rendered past `frame` with nothing left to
    /// play, reached the horizon or stopped, or for `timeout`.
    public func waitUntilIdle(past frame: Int64, timeout: Duration) {
        idleWakeFrame.store(frame, ordering: .releasing)
        caughtUp.wait(timeout: timeout)
    }

    /// Session side: the thread moves on to `frame` (not past the horizon: raise it first)
    /// without playing what lies before it, as if it had (`MetronomeRenderer.skip(to:)`):
    /// after a stall the device is behind the session, and playing on would leave every
    /// later click and cue that late.
    public func skip(to frame: Int64) {
        skipTarget.store(frame, ordering: .releasing)
        horizonMoved.ring()
    }

    /// Session side: queues an event. False when the queue is full.
    @discardableResult
    public func send(_ event: AudioEvent) -> Bool { queue.push(event) }

    /// Session side: a clip with this text from the voice bank, synthesised if needed.
    func voiceClip(for text: String, synthesise: () -> [Float]) -> VoiceClip? {
        voices.clip(for: text, synthesise: synthesise)
    }

    public func start() {
        guard thread == nil else { return }
        // The thread holds the player until its loop returns (stop() joins it).
        do {
            thread = try LoopThread.startJoinable(name: "ip-audio") { [self] in renderLoop() }
        } catch {
            lost.store(ALSAStatus.noDevice.rawValue, ordering: .releasing)
        }
    }

    /// Stops the thread after the period it is writing; the thread lets the device play out
    /// what it holds. A device that stopped taking samples (a stalled sound server, a `file`
    /// PCM into a pipe nobody reads) holds the thread in its write or that drain: it is waited
    /// for `limit` (nil: `stalledAfter`), then left, the device said lost.
    /// The session never printed its summary, nor exited, for one.
    public func stop(waitingUpTo limit: Duration? = nil) {
        guard let thread else { return }
        stopRequested.store(true, ordering: .releasing)
        horizonMoved.ring()
        self.thread = nil
        let deadline = ContinuousClock.now + (limit ?? stalledAfter)
        while !threadEnded.load(ordering: .acquiring) {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                // It holds the player (and so the buffer and the device) until its write returns.
                thread.detach()
                lost.store(ALSAStatus.stalled.rawValue, ordering: .releasing)
                return
            }
            caughtUp.wait(timeout: left)
        }
        thread.join()
    }

    // MARK: - Render thread

    private func renderLoop() {
        let period = Int64(output.periodFrames)
        // Whoever waits learns that the thread stopped.
        defer {
            threadEnded.store(true, ordering: .releasing)
            caughtUp.ring()
        }
        while !stopRequested.load(ordering: .acquiring) {
            // A skip first: the horizon raised before it is then visible. Horizon next: every
            // event sent before it was raised is then visible below.
            let skipTo = skipTarget.exchange(0, ordering: .acquiringAndReleasing)
            let limit = horizon.load(ordering: .acquiring)
            while let event = queue.peek(), renderer.pendingEvents < renderer.eventCapacity {
                _ = queue.pop()
                renderer.schedule(event)
            }
            if min(skipTo, limit) > renderer.frame {
                let from = renderer.frame
                renderer.skip(to: min(skipTo, limit))
                skipped.add(renderer.frame - from, ordering: .releasing)
                rendered.store(renderer.frame, ordering: .releasing)
                idle.store(renderer.isIdle, ordering: .releasing)
            }
            let frames = min(period, limit - renderer.frame)
            guard frames > 0 else {
                // Only reached when the session side has not caught up (an offline render
                // through a device, or a device that does not pace its writes): it rings when
                // it moves the horizon.
                caughtUp.ring()
                horizonMoved.wait()
                continue
            }
            renderer.render(into: buffer, frames: Int(frames))
            var offset = 0
            while offset < Int(frames) {
                let written = output.write(buffer + offset * output.channels, frames: Int(frames) - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                let status = output.recover(ALSAStatus(rawValue: Int32(truncatingIfNeeded: written)))
                if status != .ok {
                    lost.store(status.rawValue, ordering: .releasing)
                    return
                }
            }
            rendered.store(renderer.frame, ordering: .releasing)
            idle.store(renderer.isIdle, ordering: .releasing)
            if renderer.isIdle, renderer.frame > idleWakeFrame.load(ordering: .acquiring) { caughtUp.ring() }
        }
        // Stopped: here, where `stop` waits no longer than its limit for a device that plays nothing.
        output.drain()
    }
}
