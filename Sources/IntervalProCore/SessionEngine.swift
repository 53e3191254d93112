/// What the runner can ask of a session, from keys or signals.
/// What the runner asks of a session (keys, the page's buttons, Ctrl-C), one type from the
/// request to the stored session: its raw value is the page's and the store's word for it.
public enum UserCommand: String, Equatable, Sendable {
    case togglePause = "toggle_pause", pause, resume
    /// End the current step now (the only way an open step ends live).
    case next
    /// End the session now, with a summary of what was run.
    case finish
}

/// The interval timer, zone scorer and feedback, as one state machine.
///
/// It reads no clock and sleeps nowhere: every event comes with the session time it
/// happened at, and the engine answers with the actions that follow. A driver feeds it
/// notifications, commands and ticks, and wakes it at `nextDeadline` so that timed steps
/// end on time even when no notification arrives.
public struct SessionEngine: Sendable {
    public enum Event: Sendable {
        case notification(RawNotification)
        case deviceEvent(device: String, name: String)
        case command(UserCommand)
        /// The replay or simulation has nothing more: open and distance steps end now.
        case sourceEnded
        /// Time has passed (to a deadline, or for the screen).
        case tick
    }

    public enum Action: Equatable, Sendable {
        /// A step began at this session time (the previous one's end, to the microsecond).
        case stepStarted(TimelineStep, at: SessionTime)
        /// A step ended at this session time, for the reason its result gives.
        case stepFinished(StepResult, at: SessionTime)
        case feedbackChanged(Feedback)
        /// Something from outside the plan changed the session's course (see `Control`),
        /// reported where it took effect: with a step it ended, just before its result.
        case applied(Control)
        case deviceEvent(device: String, name: String)
        /// A notification whose value did not decode; the session goes on without it.
        case rejectedNotification(device: String, error: NotificationParseError)
        /// The state at a whole second of session time, reported once that second has
        /// passed (before what happens after it): the 1 Hz samples the history keeps.
        /// Only with `reportsSamples`.
        case sample(SessionSample)
        case sessionFinished(SessionSummary)
    }

    /// What changes a session's course from outside its plan: a command that took effect,
    /// or the source running out while a step waited for it. A stored session keeps them,
    /// in order, so that it replays to the same result.
    public enum Control: Sendable, Hashable {
        /// A command that took effect (never `togglePause`: it takes effect as one of the two).
        case command(UserCommand)
        case sourceEnded

        public static let pause = Control.command(.pause)
        public static let resume = Control.command(.resume)
        public static let next = Control.command(.next)
        public static let finish = Control.command(.finish)

        /// The store's word for it: the command's, or "source_ended".
        public var rawValue: String {
            switch self {
            case .command(let command): command.rawValue
            case .sourceEnded: "source_ended"
            }
        }

        public init?(rawValue: String) {
            if rawValue == "source_ended" {
                self = .sourceEnded
            } else if let command = UserCommand(rawValue: rawValue), command != .togglePause {
                self = .command(command)
            } else {
                return nil
            }
        }
    }

    public let planName: String
    public let timeline: [TimelineStep]
    public let source: SessionSourceKind
    /// Whether `.sample` actions are reported (a session being saved); off, the engine
    /// does no work for them: a replay whose lines jump days ahead costs nothing.
    public let reportsSamples: Bool
    public private(set) var stream: CadenceStream

    public private(set) var stepIndex = 0
    private var current: StepResult?
    private var results: [StepResult] = []
    /// Session time up to which the current step has been scored.
    public private(set) var cursor = SessionTime.zero
    private var distanceAtStepStart: Double?
    static let distanceSlack = 1e-6
    public private(set) var isPaused = false
    public private(set) var isFinished = false
    private var started = false
    private var sourceEnded = false
    public private(set) var feedback = Feedback.noZone
    /// False until the current step's first feedback has been reported.
    private var feedbackAnnounced = false
    /// The next whole second to report as a `.sample`.
    public private(set) var nextSampleSecond = 0
    /// Reads GATT values and ANT+ pages (whose readings depend on the pages before them).
    private var decoder = NotificationDecoder()
    /// RR intervals of the heart-rate device since the last sample (only with `reportsSamples`).
    private var beatsSinceSample: [UInt16] = []

    public init(
        plan: Plan, source: SessionSourceKind, cadenceUnits: [String: CadenceUnit] = [:], reportsSamples: Bool = false
    ) {
        self.init(
            planName: plan.name, timeline: plan.timeline(), source: source, cadenceUnits: cadenceUnits,
            reportsSamples: reportsSamples)
    }

    public init(
        planName: String, timeline: [TimelineStep], source: SessionSourceKind,
        cadenceUnits: [String: CadenceUnit] = [:], reportsSamples: Bool = false
    ) {
        precondition(!timeline.isEmpty, "a plan has at least one step")
        self.planName = planName
        self.timeline = timeline
        self.source = source
        self.reportsSamples = reportsSamples
        stream = CadenceStream(units: cadenceUnits)
    }

    public var currentStep: TimelineStep? { isFinished ? nil : timeline[stepIndex] }

    /// Time the current step has run, pauses excluded.
    public var stepElapsed: SessionTime { current?.duration ?? .zero }

    /// When the current timed step will end if nothing else happens, or the cadence goes stale
    /// first; nil while paused or when neither will. Drivers must deliver a `.tick` at this time.
    public var nextDeadline: SessionTime? {
        guard started, !isFinished, !isPaused else { return nil }
        var deadline: SessionTime?
        if case .time(let length) = timeline[stepIndex].end { deadline = cursor + (length - stepElapsed) }
        // Where the cadence goes stale the advice becomes "no signal": on virtual time nothing
        // else comes then, and a replay's lines never said the signal was lost.
        if feedback != .noSignal, feedback != .noZone, let last = stream.cadence?.time {
            let stale = last + CadenceStream.staleAfter
            if stale > cursor { deadline = min(deadline ?? stale, stale) }
        }
        return deadline
    }

    /// Scored results so far, the current step's partial result included.
    public var resultsSoFar: [StepResult] { results + (current.map { [$0] } ?? []) }

    public var distanceInStep: Double? {
        guard let now = stream.distance else { return nil }
        return now - (distanceAtStepStart ?? 0)
    }

    public mutating func handle(_ event: Event, now: SessionTime) -> [Action] {
        guard !isFinished else { return [] }
        var actions: [Action] = []
        if !started {
            started = true
            startStep(0, at: .zero, into: &actions)
        }
        if reportsSamples { reportSamples(before: now, into: &actions) }
        advance(to: max(now, cursor), into: &actions)
        guard !isFinished else { return actions }
        let now = cursor

        switch event {
        case .notification(let notification):
            ingest(notification, at: now, into: &actions)
        case .deviceEvent(let device, let name):
            actions.append(.deviceEvent(device: device, name: name))
        case .command(let command):
            perform(command, at: now, into: &actions)
        case .sourceEnded:
            sourceEnded = true
            if case .time = timeline[stepIndex].end {} else {
                finishStep(at: now, reason: .sourceEnded, into: &actions)
            }
        case .tick:
            break
        }
        if !isFinished { updateFeedback(at: now, into: &actions) }
        return actions
    }

    // MARK: - Time

    /// A `.sample` for every whole second before `now` not yet reported, each the state at
    /// exactly its second: scoring does not depend on when events come, so advancing to
    /// each second in turn changes nothing but when the work is done.
    private mutating func reportSamples(before now: SessionTime, into actions: inout [Action]) {
        while !isFinished, SessionTime.seconds(nextSampleSecond) < now {
            let second = SessionTime.seconds(nextSampleSecond)
            advance(to: max(second, cursor), into: &actions)
            guard !isFinished else { return }
            actions.append(.sample(sample(at: second)))
            beatsSinceSample.removeAll(keepingCapacity: true)
            nextSampleSecond += 1
        }
    }

    private func sample(at now: SessionTime) -> SessionSample {
        let step = timeline[stepIndex]
        let cadence = stream.currentCadence(at: now)
        let status: ZoneStatus
        if isPaused {
            status = .paused
        } else if let zone = step.zone {
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
            second: nextSampleSecond, stepIndex: step.index,
            rawCadence: cadence == nil ? nil : stream.rawCadence,
            cadence: cadence, heartRate: stream.currentHeartRate(at: now), speed: speed, distance: stream.distance,
            zoneStatus: status, rrIntervals: beatsSinceSample)
    }

    /// Scores the current step up to `now`, ending timed steps whose time is up. Segments
    /// are split where a reading goes stale, so each is scored against one value.
    private mutating func advance(to now: SessionTime, into actions: inout [Action]) {
        while cursor < now, !isFinished {
            guard !isPaused else {
                cursor = now
                return
            }
            var segmentEnd = now
            if case .time(let length) = timeline[stepIndex].end {
                segmentEnd = min(segmentEnd, cursor + (length - stepElapsed))
            }
            // A reading going stale ends the segment (two checks, not an array built per segment).
            if let expiry = stream.cadence.map({ $0.time + CadenceStream.staleAfter }), expiry > cursor {
                segmentEnd = min(segmentEnd, expiry)
            }
            if let expiry = stream.heartRate.map({ $0.time + CadenceStream.staleAfter }), expiry > cursor {
                segmentEnd = min(segmentEnd, expiry)
            }
            score(from: cursor, to: segmentEnd)
            cursor = segmentEnd
            if case .time(let length) = timeline[stepIndex].end, stepElapsed >= length {
                finishStep(at: cursor, reason: .time, into: &actions)
            }
        }
    }

    private mutating func score(from start: SessionTime, to end: SessionTime) {
        guard var result = current, end > start else { return }
        let span = end - start
        result.duration += span
        let cadence = stream.currentCadence(at: start)
        if let cadence {
            result.cadenceWeighted += Int64(cadence) * span.microseconds
            result.cadenceTime += span.microseconds
        }
        if let zone = result.step.zone, let cadence {
            if zone.contains(Double(cadence)) {
                result.inZone += span
            } else if Double(cadence) < zone.low {
                result.below += span
            } else {
                result.above += span
            }
        } else if cadence == nil {
            result.noSignal += span
        }
        if let heartRate = stream.currentHeartRate(at: start) {
            result.heartRateWeighted += Int64(heartRate) * span.microseconds
            result.heartRateTime += span.microseconds
        }
        current = result
    }

    // MARK: - Steps

    private mutating func startStep(_ index: Int, at now: SessionTime, into actions: inout [Action]) {
        stepIndex = index
        var result = StepResult(step: timeline[index])
        result.maxHeartRate = stream.currentHeartRate(at: now)
        current = result
        distanceAtStepStart = stream.distance
        feedback = .noZone
        feedbackAnnounced = false
        actions.append(.stepStarted(timeline[index], at: now))
        switch timeline[index].end {
        case .time(let length) where length <= .zero:
            finishStep(at: now, reason: .time, into: &actions)
        case .open where sourceEnded, .distance where sourceEnded:
            finishStep(at: now, reason: .sourceEnded, into: &actions)
        default:
            break
        }
    }

    private mutating func finishStep(at now: SessionTime, reason: StepEndReason, into actions: inout [Action]) {
        guard var result = current else { return }
        result.endedBy = reason
        result.distance = distanceInStep
        results.append(result)
        current = nil
        switch reason {
        case .next: actions.append(.applied(.next))
        case .finished: actions.append(.applied(.finish))
        case .sourceEnded: actions.append(.applied(.sourceEnded))
        case .time, .distance: break
        }
        actions.append(.stepFinished(result, at: now))
        if reason != .finished, stepIndex + 1 < timeline.count {
            startStep(stepIndex + 1, at: now, into: &actions)
        } else {
            isFinished = true
            let completed = reason != .finished && stepIndex + 1 == timeline.count
            actions.append(
                .sessionFinished(SessionSummary(plan: planName, source: source, steps: results, completed: completed)))
        }
    }

    private mutating func perform(_ command: UserCommand, at now: SessionTime, into actions: inout [Action]) {
        switch command {
        case .togglePause:
            perform(isPaused ? .resume : .pause, at: now, into: &actions)
        case .pause where !isPaused:
            isPaused = true
            actions.append(.applied(.pause))
        case .resume where isPaused:
            isPaused = false
            actions.append(.applied(.resume))
        case .pause, .resume:
            break
        case .next:
            finishStep(at: now, reason: .next, into: &actions)
        case .finish:
            finishStep(at: now, reason: .finished, into: &actions)
        }
    }

    // MARK: - Readings

    private mutating func ingest(_ notification: RawNotification, at now: SessionTime, into actions: inout [Action]) {
        let reading: SensorReading
        do {
            guard let decoded = try decoder.decode(notification) else { return }
            reading = decoded
        } catch {
            actions.append(.rejectedNotification(device: notification.device, error: error))
            return
        }
        stream.ingest(reading, from: notification.device, at: now)
        if case .heartRate(let measurement) = reading {
            if stream.heartRateDevice == notification.device, stream.heartRate?.time == now,
                let heartRate = stream.currentHeartRate(at: now), var result = current
            {
                result.maxHeartRate = max(result.maxHeartRate ?? 0, heartRate)
                current = result
            }
            // Beats of the device the session takes them from, with skin contact.
            if reportsSamples, stream.beatDevice == notification.device, stream.beatsTime == now {
                beatsSinceSample.append(contentsOf: measurement.rrIntervals)
            }
        }
        // Reached to within a micrometre: tenths of a metre summed in binary fall short of a
        // decimal target (2001.3 - 1601.3 < 400), and the step ended a reading late.
        if case .distance(let target) = timeline[stepIndex].end, !isPaused,
            let covered = distanceInStep, covered >= target - Self.distanceSlack
        {
            finishStep(at: now, reason: .distance, into: &actions)
        }
    }

    private mutating func updateFeedback(at now: SessionTime, into actions: inout [Action]) {
        let next = Feedback.evaluate(
            smoothed: stream.currentSmoothedCadence(at: now), zone: timeline[stepIndex].zone, previous: feedback)
        if next != feedback || !feedbackAnnounced {
            feedback = next
            feedbackAnnounced = true
            actions.append(.feedbackChanged(next))
        }
    }
}
