public import IntervalProCore

/// A run a watch recorded, kept as a session of its own: no plan was followed, so it is scored
/// against one open work step without a zone. Its figures are the stream's (duration, cadence,
/// work cadence, heart rate, distance) and its 1 Hz samples the series `report` draws; stored
/// with its notifications and the end of its source, it replays to the same summary as any
/// stored session (`SessionReplay`).
public struct ImportedRun: Sendable {
    /// The plan an imported run is kept with, as the history stores a plan: plan format
    /// version 1, one open work step. `name` is the activity's own name, when it has one.
    public static func planText(name: String?) -> String {
        JSONValue.object([
            ("version", .int(1)),
            ("name", .string(name ?? "Imported run")),
            ("steps", .array([.object([("kind", .string("work")), ("duration", .string("open")), ("label", .string("Imported run"))])])),
        ]).serialized(pretty: true) + "\n"
    }

    public var summary: SessionSummary
    public var samples: [SessionSample]
    /// The source's end, where the open step ended, as a live replay keeps it.
    public var controls: [SessionControl]

    /// Scores `entries` as a replay of them on virtual time does: every entry, then the
    /// source's end at the last one's time.
    public init(planName: String, timeline: [TimelineStep], cadenceUnits: [String: CadenceUnit], entries: [RecordingEntry]) {
        var engine = SessionEngine(
            planName: planName, timeline: timeline, source: .imported, cadenceUnits: cadenceUnits, reportsSamples: true)
        var summary: SessionSummary?
        var samples: [SessionSample] = []
        var controls: [SessionControl] = []
        var delivered = 0
        func deliver(_ event: SessionEngine.Event, _ time: SessionTime) {
            guard summary == nil else { return }
            for action in engine.handle(event, now: time) {
                switch action {
                case .sample(let sample): samples.append(sample)
                case .applied(let kind): controls.append(SessionControl(kind: kind, time: engine.cursor, afterEntries: delivered))
                case .sessionFinished(let result): summary = result
                default: break
                }
            }
        }
        for entry in entries {
            delivered += 1
            switch entry {
            case .notification(let notification): deliver(.notification(notification), notification.time)
            case .event(let time, let device, let name): deliver(.deviceEvent(device: device, name: name), time)
            }
        }
        deliver(.sourceEnded, entries.last?.time ?? .zero)
        // A plan of timed steps ends at its deadlines (the open step above never does).
        while summary == nil {
            guard let deadline = engine.nextDeadline else {
                deliver(.command(.finish), engine.cursor)
                break
            }
            deliver(.tick, deadline)
        }
        self.summary = summary!
        self.samples = samples
        self.controls = controls
    }
}
