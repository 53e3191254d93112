public import IntervalProCore
import IntervalProRuntime

/// Something the runner (or the end of the source) did to the session, kept so that a
/// stored session replays to the same results: notifications alone do not say when a
/// step was skipped or the session paused.
public struct SessionControl: Equatable, Sendable {
    public typealias Kind = SessionEngine.Control

    public var kind: Kind
    public var time: SessionTime
    /// How many entries (notifications and device events) came before it.
    public var afterEntries: Int

    public init(kind: Kind, time: SessionTime, afterEntries: Int) {
        self.kind = kind
        self.time = time
        self.afterEntries = afterEntries
    }

    var event: SessionEngine.Event {
        switch kind {
        case .command(let command): .command(command)
        case .sourceEnded: .sourceEnded
        }
    }
}

/// Scores stored entries and controls again, exactly as the session ran: through the
/// runner that ran it, on virtual time, each control at its own session time.
public enum SessionReplay {
    /// The summary of a session from what it received and what the runner did. With
    /// `interruptedAt`, the session is finished there (it was cut off), otherwise it runs
    /// to its end as it did live.
    public static func summary(
        planName: String, timeline: [TimelineStep], source: SessionSourceKind, cadenceUnits: [String: CadenceUnit],
        entries: [RecordingEntry], controls: [SessionControl], interruptedAt: SessionTime? = nil
    ) -> SessionSummary {
        let engine = SessionEngine(planName: planName, timeline: timeline, source: source, cadenceUnits: cadenceUnits)
        var runner = SessionRunner(
            engine: engine, source: EntryList(entries, kind: source), observer: SilentObserver(), pacing: .virtual,
            clock: ContinuousClock())
        runner.scheduled = controls.map { ScheduledEvent(time: $0.time, afterEntries: $0.afterEntries, event: $0.event) }
        // The controls say when the source ended, if it did.
        runner.endsSource = false
        runner.finishAt = interruptedAt
        return runner.runInMemory()
    }
}
