public import IntervalProCore

/// Where a stored session stands.
public enum SessionStatus: String, Sendable, CaseIterable {
    /// Being written by a running session.
    case running
    case finished
    /// Its process ended without finishing it (crash, kill, power loss); closed and
    /// scored up to the last second saved on the next start.
    case interrupted
}

/// One line of `history`: the figures kept beside each session so that listing many
/// sessions reads no samples.
public struct SessionListing: Equatable, Sendable {
    public var id: Int64
    /// UTC, "2026-03-01T07:30:00Z".
    public var startedAt: String
    public var planName: String
    public var source: SessionSourceKind
    public var status: SessionStatus
    public var completed: Bool?
    public var duration: Double?
    public var inZonePercent: Double?
    public var averageCadence: Double?
    public var averageWorkCadence: Double?
    public var averageHeartRate: Double?
    public var maxHeartRate: Int?
    public var distance: Double?
    /// Whether its devices are all the simulator's, whatever its source: a replay of a bundled
    /// recording, or of a copy of one, is the simulated runner's run.
    public var simulatorsSensors = false

    /// Whether the runner was the simulator: no runner's run, left out of trends and uploads.
    public var isSimulated: Bool { source == .simulation || simulatorsSensors }

    /// A replay (or import) of the simulator's recording: its source does not say simulated.
    public var replaysTheSimulator: Bool { source != .simulation && simulatorsSensors }

    /// The source as `history` says it: a replay of the simulator's recording is marked.
    public var sourceText: String { source.rawValue + (replaysTheSimulator ? " (simulator)" : "") }

    /// The status as the history, the report and the page say it: "finished (early)" for a
    /// session stopped before its plan's end.
    public var statusText: String {
        status.rawValue + (status == .finished && completed == false ? " (early)" : "")
    }

    public init(
        id: Int64, startedAt: String, planName: String, source: SessionSourceKind, status: SessionStatus,
        completed: Bool? = nil, duration: Double? = nil, inZonePercent: Double? = nil, averageCadence: Double? = nil,
        averageWorkCadence: Double? = nil, averageHeartRate: Double? = nil, maxHeartRate: Int? = nil,
        distance: Double? = nil
    ) {
        self.id = id
        self.startedAt = startedAt
        self.planName = planName
        self.source = source
        self.status = status
        self.completed = completed
        self.duration = duration
        self.inZonePercent = inZonePercent
        self.averageCadence = averageCadence
        self.averageWorkCadence = averageWorkCadence
        self.averageHeartRate = averageHeartRate
        self.maxHeartRate = maxHeartRate
        self.distance = distance
    }

    /// The listing figures of a finished (or interrupted) session's summary.
    public mutating func take(_ summary: SessionSummary) {
        completed = summary.completed
        duration = summary.duration.seconds
        inZonePercent = summary.inZonePercent
        averageCadence = summary.averageCadence
        averageWorkCadence = summary.averageWorkCadence
        averageHeartRate = summary.averageHeartRate
        maxHeartRate = summary.maxHeartRate
        distance = summary.distance
    }
}

/// Everything kept of one session: enough to show it, export it and replay it exactly.
public struct StoredSession: Sendable {
    public var listing: SessionListing
    /// The plan file as run, byte for byte.
    public var planText: String
    public var timeline: [TimelineStep]
    /// Devices with the cadence unit the session used for each.
    public var devices: [RecordedDevice]
    /// Scored steps; nil while the session is still running.
    public var summary: SessionSummary?
    public var samples: [SessionSample]
    public var entries: [RecordingEntry]
    public var controls: [SessionControl]
    /// Alpha 1's windows, from the samples' beats (empty when samples were not loaded).
    public var alphaWindows: [AlphaWindow] = []

    public init(
        listing: SessionListing, planText: String, timeline: [TimelineStep], devices: [RecordedDevice],
        summary: SessionSummary?, samples: [SessionSample], entries: [RecordingEntry], controls: [SessionControl]
    ) {
        self.listing = listing
        self.planText = planText
        self.timeline = timeline
        self.devices = devices
        self.summary = summary
        self.samples = samples
        self.entries = entries
        self.controls = controls
    }

    public var cadenceUnits: [String: CadenceUnit] { devices.cadenceUnits }

    /// The session in the recording format (version 1): its notifications, and the runner's
    /// commands as events of `RecordingFormat.runnerDevice` where they took effect, so that
    /// replaying them against the stored plan gives the stored summary. Without the commands,
    /// a run imported with its pauses came back from its export as a second run, ten minutes
    /// longer, those minutes "no signal".
    public var recordingLines: [String] {
        // With its plan, which an import in another store scores it against again.
        var lines = [RecordingLine.header(RecordingHeader(startedAt: listing.startedAt, devices: devices, planText: planText))]
        lines.reserveCapacity(entries.count + controls.count + 1)
        var commands = controls.compactMap { control -> (afterEntries: Int, entry: RecordingEntry)? in
            guard case .command(let command) = control.kind else { return nil }
            return (control.afterEntries, .runnerCommand(command, at: control.time))
        }[...]
        for (index, entry) in entries.enumerated() {
            while let command = commands.first, command.afterEntries <= index {
                lines.append(RecordingLine.entry(command.entry))
                commands.removeFirst()
            }
            lines.append(RecordingLine.entry(entry))
        }
        for command in commands { lines.append(RecordingLine.entry(command.entry)) }
        guard let duration = listing.duration, !controls.contains(where: { if case .command(.finish) = $0.kind { true } else { false } })
        else { return lines }
        let end = SessionTime.seconds(duration)
        // Cut off (a crash, kill -9), the session was closed where its last second was saved:
        // without a finish there, its replay ran on to the plan's end, the rest "no signal".
        // Ended by its plan after the last line (a footpod's last value at 36:59.5 of 37:00), it
        // imported without its plan a second short; a finish at the plan's end changes no replay.
        if listing.status == .interrupted || (listing.status == .finished && end > (entries.lazy.map(\.time).max() ?? .zero)) {
            lines.append(RecordingLine.entry(.runnerCommand(.finish, at: end)))
        }
        return lines
    }

    /// Scores the stored entries again.
    public func replayedSummary(interruptedAt: SessionTime? = nil) -> SessionSummary {
        SessionReplay.summary(
            planName: listing.planName, timeline: timeline, source: listing.source, cadenceUnits: cadenceUnits,
            entries: entries, controls: controls, interruptedAt: interruptedAt)
    }

    /// The summary JSON (version 1) with the stored session's identity added in front.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("session_id", .int(Int(listing.id))), ("started_at", .string(listing.startedAt)),
            ("status", .string(listing.status.rawValue)),
            // As `history --json` says it: a replay of the simulator's recording was "replay" here alone.
            ("simulated", .bool(listing.isSimulated)),
            (
                "devices",
                .array(
                    devices.map { device in
                        .object([
                            ("id", .string(device.id)), ("name", device.name.map { .string($0) } ?? .null),
                            ("cadence_unit", device.cadenceUnit.map { .string($0.rawValue) } ?? .null),
                        ])
                    })
            ),
        ]
        if let summary, case .object(let fields) = summary.json {
            members += fields
        } else {
            // Still running: the summary's keys all the same, nothing scored yet. Left out,
            // `show last --json | jq '.steps[]'` failed while a run went on.
            members += [
                ("summary_version", .int(1)), ("plan", .string(listing.planName)), ("source", .string(listing.source.rawValue)),
                ("duration_s", .null), ("completed", .null), ("steps", .array([])), ("totals", .null),
            ]
        }
        return .object(members)
    }
}

extension SessionListing {
    public var json: JSONValue {
        func rounded(_ value: Double?, _ places: Int) -> JSONValue { .nullable(value?.rounded(toPlaces: places)) }
        return .object([
            ("session_id", .int(Int(id))),
            ("started_at", .string(startedAt)),
            ("plan", .string(planName)),
            ("source", .string(source.rawValue)),
            ("status", .string(status.rawValue)),
            ("completed", completed.map { .bool($0) } ?? .null),
            ("duration_s", rounded(duration, 3)),
            ("in_zone_pct", rounded(inZonePercent, 2)),
            ("avg_cadence_spm", rounded(averageCadence, 1)),
            ("avg_work_cadence_spm", rounded(averageWorkCadence, 1)),
            ("avg_hr_bpm", rounded(averageHeartRate, 1)),
            ("max_hr_bpm", maxHeartRate.map { .int($0) } ?? .null),
            ("distance_m", rounded(distance, 1)),
            ("simulated", .bool(isSimulated)),
        ])
    }
}

extension SessionSample {
    /// One sample as JSON (`show --json --samples`): seconds, step index, cadence as sent
    /// and in spm, heart rate, speed, distance, where cadence stood against the zone, and the
    /// RR intervals of the second (1/1024 s, as the strap sent them).
    public var json: JSONValue {
        .object([
            ("t", .int(second)),
            ("step", stepIndex.map { .int($0) } ?? .null),
            ("raw_cadence", rawCadence.map { .int($0) } ?? .null),
            ("cadence_spm", cadence.map { .int($0) } ?? .null),
            ("hr_bpm", heartRate.map { .int($0) } ?? .null),
            ("speed_mps", .nullable(speed?.rounded(toPlaces: 3))),
            ("distance_m", .nullable(distance?.rounded(toPlaces: 2))),
            ("zone", .string(zoneStatus.rawValue)),
            ("rr", .array(rrIntervals.map { .int(Int($0)) })),
        ])
    }
}

extension AlphaWindow {
    /// One alpha 1 window as JSON (`show --json --samples`).
    public var json: JSONValue {
        .object([
            ("t", .int(second)),
            ("step", stepIndex.map { .int($0) } ?? .null),
            ("status", .string(status.rawValue)),
            ("beats", .int(beats)),
            ("artifacts", .int(artifacts)),
            ("alpha1", .nullable(alpha1)),
            ("hr_bpm", .nullable(heartRate?.rounded(toPlaces: 1))),
            ("cadence_spm", .nullable(cadence?.rounded(toPlaces: 1))),
        ])
    }
}
