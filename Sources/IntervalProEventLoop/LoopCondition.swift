/// Something a task on the loop waits for: raised by a handler on the loop's thread (or
/// from elsewhere through `raiseSoon`), or given up on after a timeout.
///
/// A raise with no one waiting is kept until the next wait, so nothing is missed between
/// two waits.
public final class LoopCondition: @unchecked Sendable {
    public let loop: EventLoop
    // Confined to the loop's thread.
    private var raised = false
    private var waiter: CheckedContinuation<Bool, Never>?
    private var timer: EventLoop.TimerID?

    public init(loop: EventLoop) { self.loop = loop }

    /// On the loop's thread: wakes the waiter, or the next one.
    public func raise() {
        guard let waiter else {
            raised = true
            return
        }
        self.waiter = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        waiter.resume(returning: true)
    }

    /// From any thread.
    public func raiseSoon() { loop.execute { [self] in raise() } }

    /// Waits until raised (true) or until `timeout` has passed (false); nil waits for the raise only.
    @discardableResult
    public func wait(timeout: Duration?) async -> Bool {
        await withCheckedContinuation { continuation in
            if loop.inLoop {
                register(continuation, timeout: timeout)
            } else {
                loop.execute { [self] in register(continuation, timeout: timeout) }
            }
        }
    }

    /// Raises the condition whenever `descriptor` is readable (from any thread): the terminal's
    /// keys, the interrupt pipe. `drain` empties it (keys are left for their reader).
    public func raise(whenReadable descriptor: Int32, drain: (@Sendable () -> Void)? = nil) {
        loop.execute { [self] in
            _ = loop.watch(descriptor, .readable) { [self] _ in
                drain?()
                raise()
            }
        }
    }

    private func register(_ continuation: CheckedContinuation<Bool, Never>, timeout: Duration?) {
        precondition(waiter == nil, "one waiter at a time")
        if raised {
            raised = false
            continuation.resume(returning: true)
            return
        }
        waiter = continuation
        if let timeout {
            timer = loop.schedule(after: timeout) { [self] in
                timer = nil
                let waiter = self.waiter
                self.waiter = nil
                waiter?.resume(returning: false)
            }
        }
    }
}
