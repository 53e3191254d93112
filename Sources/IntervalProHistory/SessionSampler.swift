public import IntervalProCore

/// Where cadence stood against the step's zone at one moment.
public enum ZoneStatus: String, Sendable, CaseIterable {
    case inZone = "in_zone"
    case below, above
    /// The step has a zone but no cadence reading was current.
    case noSignal = "no_signal"
    /// The step has no zone.
    case noZone = "no_zone"
    case paused
}

/// The state of a session at one whole second of session time, as stored and exported.
public struct SessionSample: Equatable, Sendable {
    /// Whole seconds since the session began.
    public var second: Int
    public var stepIndex: Int?
    /// Cadence per minute exactly as the sensor sent it (steps or strides).
    public var rawCadence: Int?
    /// Cadence in steps per minute, after the device's unit was applied.
    public var cadence: Int?
    public var heartRate: Int?
    public var speed: Double?
    /// Metres since the session began.
    public var distance: Double?
    public var zoneStatus: ZoneStatus

    public init(
        second: Int, stepIndex: Int?, rawCadence: Int?, cadence: Int?, heartRate: Int?, speed: Double?,
        distance: Double?, zoneStatus: ZoneStatus
    ) {
        self.second = second
        self.stepIndex = stepIndex
        self.rawCadence = rawCadence
        self.cadence = cadence
        self.heartRate = heartRate
        self.speed = speed
        self.distance = distance
        self.zoneStatus = zoneStatus
    }
}

/// Something the runner (or the end of the source) did to the session, kept so that a
/// stored session replays to the same results: notifications alone do not say when a
/// step was skipped or the session paused.
public struct SessionControl: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case pause, resume, next, finish
        case sourceEnded = "source_ended"
    }

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

    /// The control a batch of engine actions reveals, if any. Pauses, skips and early
    /// finishes come only from commands; `source_ended` only from the source running out.
    public static func revealed(by actions: [SessionEngine.Action]) -> Kind? {
        for action in actions {
            switch action {
            case .paused: return .pause
            case .resumed: return .resume
            case .stepFinished(let result):
                switch result.endedBy {
                case .next: return .next
                case .finished: return .finish
                case .sourceEnded: return .sourceEnded
                case .time, .distance: continue
                }
            default: continue
            }
        }
        return nil
    }
}

/// Turns what a session observer sees into 1 Hz samples and the control log.
///
/// It runs its own copy of the engine on the same entries and controls, so each sample
/// is the state at exactly its second, whether or not the running engine reported
/// anything then. Scoring never depends on when ticks come, so the copy keeps step with
/// the original.
public struct SessionSampler: Sendable {
    private var engine: SessionEngine
    private var rawCadenceByDevice: [String: Int] = [:]
    /// The next whole second to sample.
    public private(set) var nextSecond = 0
    public private(set) var entryCount = 0
    /// The latest session time seen (entries, controls, refreshes).
    public private(set) var latestTime = SessionTime.zero

    public init(planName: String, timeline: [TimelineStep], source: SessionSourceKind, cadenceUnits: [String: CadenceUnit]) {
        engine = SessionEngine(planName: planName, timeline: timeline, source: source, cadenceUnits: cadenceUnits)
    }

    /// Samples due before an entry at `entry.time`, then takes the entry in.
    public mutating func receive(_ entry: RecordingEntry) -> [SessionSample] {
        let samples = samples(before: entry.time)
        switch entry {
        case .notification(let notification):
            _ = engine.handle(.notification(notification), now: notification.time)
            if notification.characteristic == .rscMeasurement,
                case .rsc(let rsc)? = try? SensorReading.decode(.rscMeasurement, notification.bytes)
            {
                rawCadenceByDevice[notification.device] = Int(rsc.cadence)
            }
        case .event(let time, let device, let name):
            _ = engine.handle(.deviceEvent(device: device, name: name), now: time)
        }
        entryCount += 1
        latestTime = max(latestTime, entry.time)
        return samples
    }

    /// Samples due before a control at `time`, then applies it.
    public mutating func apply(_ kind: SessionControl.Kind, at time: SessionTime) -> (SessionControl, [SessionSample]) {
        let samples = samples(before: time)
        let control = SessionControl(kind: kind, time: time, afterEntries: entryCount)
        _ = engine.handle(control.event, now: time)
        latestTime = max(latestTime, time)
        return (control, samples)
    }

    /// Samples for every whole second before `time`: nothing can change them any more.
    public mutating func samples(before time: SessionTime) -> [SessionSample] {
        var samples: [SessionSample] = []
        while !engine.isFinished, SessionTime.seconds(nextSecond) < time {
            samples.append(sample(at: nextSecond))
            nextSecond += 1
        }
        latestTime = max(latestTime, time)
        return samples
    }

    /// The last samples when the session ends at `time`: samples cover [0, end).
    public mutating func finish(at time: SessionTime) -> [SessionSample] {
        samples(before: time)
    }

    private mutating func sample(at second: Int) -> SessionSample {
        let now = SessionTime.seconds(second)
        _ = engine.handle(.tick, now: now)
        let stream = engine.stream
        let step = engine.currentStep
        let cadence = stream.currentCadence(at: now)
        let status: ZoneStatus
        if engine.isPaused {
            status = .paused
        } else if let zone = step?.zone {
            if let cadence {
                status = zone.contains(Double(cadence)) ? .inZone : Double(cadence) < zone.low ? .below : .above
            } else {
                status = .noSignal
            }
        } else {
            status = .noZone
        }
        let speed = stream.isCurrent(stream.speed, at: now) ? stream.speed?.value : nil
        return SessionSample(
            second: second, stepIndex: step?.index,
            rawCadence: cadence == nil ? nil : stream.cadenceDevice.flatMap { rawCadenceByDevice[$0] },
            cadence: cadence, heartRate: stream.currentHeartRate(at: now), speed: speed, distance: stream.distance,
            zoneStatus: status)
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
