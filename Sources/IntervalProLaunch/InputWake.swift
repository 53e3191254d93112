import IntervalProEventLoop

/// Rouses a session paced on its clock (a replay or a simulation shown in real time) the
/// moment a key or Ctrl-C arrives. The runner otherwise took them at its next look, up to
/// 250 ms later: `n` typed a moment before a step ended by time was applied in the step after,
/// and ended that one.
final class InputWake {
    /// A descriptor to wait on, and what takes what arrived on it, so that it is not readable
    /// again at once; false when it is no longer read, and no longer waited on.
    struct Input {
        var descriptor: Int32
        var take: @Sendable () -> Bool
    }

    private let loop: EventLoop

    /// Waits for `inputs` on a thread of its own, and rings `ring` once each arrival is taken.
    init(_ inputs: [Input], ring: @escaping @Sendable () -> Void) throws(EventLoopError) {
        loop = try EventLoop(name: "intervalpro-keys")
        loop.execute { [loop] in
            for input in inputs {
                var watch: EventLoop.WatchID?
                watch = loop.watch(input.descriptor, .readable) { events in
                    let reading = input.take()
                    if reading { ring() }
                    // A terminal hung up stays readable: watched on, the thread would spin.
                    if !reading || !events.isDisjoint(with: [.hangUp, .error]), let watch { loop.unwatch(watch) }
                }
            }
        }
    }

    deinit { loop.shutdown() }
}
