public import IntervalProCore

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
        case .pause: .command(.pause)
        case .resume: .command(.resume)
        case .next: .command(.next)
        case .finish: .command(.finish)
        case .sourceEnded: .sourceEnded
        }
    }
}

/// Scores stored entries and controls again, exactly as the session ran.
public enum SessionReplay {
    /// The summary of a session from what it received and what the runner did. With
    /// `interruptedAt`, the session is finished there (it was cut off), otherwise it runs
    /// to its end as it did live.
    public static func summary(
        planName: String, timeline: [TimelineStep], source: SessionSourceKind, cadenceUnits: [String: CadenceUnit],
        entries: [RecordingEntry], controls: [SessionControl], interruptedAt: SessionTime? = nil
    ) -> SessionSummary {
        var engine = SessionEngine(planName: planName, timeline: timeline, source: source, cadenceUnits: cadenceUnits)
        var summary: SessionSummary?
        func deliver(_ event: SessionEngine.Event, _ time: SessionTime) {
            guard summary == nil else { return }
            for action in engine.handle(event, now: time) {
                if case .sessionFinished(let result) = action { summary = result }
            }
        }
        var controlIndex = 0
        func deliverControls(upTo entryCount: Int) {
            while controlIndex < controls.count, controls[controlIndex].afterEntries <= entryCount {
                deliver(controls[controlIndex].event, controls[controlIndex].time)
                controlIndex += 1
            }
        }
        for (index, entry) in entries.enumerated() {
            deliverControls(upTo: index)
            switch entry {
            case .notification(let notification): deliver(.notification(notification), notification.time)
            case .event(let time, let device, let name): deliver(.deviceEvent(device: device, name: name), time)
            }
        }
        deliverControls(upTo: entries.count)
        if let interruptedAt {
            deliver(.command(.finish), max(interruptedAt, engine.cursor))
        }
        // Timed steps end at their deadlines, as the runner's ticks would end them.
        while summary == nil {
            guard let deadline = engine.nextDeadline else {
                deliver(.command(.finish), engine.cursor)
                break
            }
            deliver(.tick, deadline)
        }
        return summary!
    }
}
