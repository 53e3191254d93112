public import IntervalProCore
import IntervalProRuntime

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
    /// How many times the runner paused.
    public var pauses: Int { controls.count { $0.kind == .pause } }
    /// The source's end, where the open step ended, as a live replay keeps it.
    public var controls: [SessionControl]

    /// Scores `entries` as a replay of them on virtual time does, through the runner: every
    /// entry, then the source's end at the last one's time. Over each of `pauses` (the watch's
    /// timer stopped) the session is paused, as the runner would have paused it live: a pause
    /// after the entries at its start, the resume before those at its end.
    public init(
        planName: String, timeline: [TimelineStep], cadenceUnits: [String: CadenceUnit], entries: [RecordingEntry],
        pauses: [Range<SessionTime>] = [], finishedAt: SessionTime? = nil
    ) {
        let engine = SessionEngine(
            planName: planName, timeline: timeline, source: .imported, cadenceUnits: cadenceUnits, reportsSamples: true)
        var runner = SessionRunner(
            engine: engine, source: EntryList(entries, kind: .imported), observer: Kept(), pacing: .virtual,
            clock: ContinuousClock())
        // The entries come in time order (`ActivityImport.recording`).
        func entriesBefore(_ time: SessionTime, including: Bool) -> Int {
            entries.firstIndex { including ? $0.time > time : $0.time >= time } ?? entries.count
        }
        runner.scheduled = pauses.flatMap { pause in
            [
                ScheduledEvent(time: pause.lowerBound, afterEntries: entriesBefore(pause.lowerBound, including: true), event: .command(.pause)),
                ScheduledEvent(time: pause.upperBound, afterEntries: entriesBefore(pause.upperBound, including: false), event: .command(.resume)),
            ]
        }
        // Finished by the runner (a recording's `finish`), not where its last reading was.
        if let finishedAt {
            runner.endsSource = false
            runner.finishAt = finishedAt
        }
        summary = runner.runInMemory()
        samples = runner.observer.samples
        controls = runner.observer.controls
    }

    /// What a stored session keeps of the run: its samples, and what the runner did after
    /// how many entries.
    private struct Kept: SessionObserver {
        var samples: [SessionSample] = []
        var controls: [SessionControl] = []
        var received = 0

        mutating func received(_ entry: RecordingEntry) { received += 1 }

        mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
            for action in actions {
                switch action {
                case .sample(let sample): samples.append(sample)
                case .applied(let kind): controls.append(SessionControl(kind: kind, time: engine.cursor, afterEntries: received))
                default: break
                }
            }
        }
    }
}
