public import IntervalProCore

/// Decides what the audio does and when, from the engine's actions and session times:
/// tempo changes on step boundaries, `off-target` gating, and the voice cues.
///
/// Pure and clock-free, so the same director drives live playback and offline rendering.
/// Future items (a countdown, coaching after its grace period) wait here, where a later
/// action can still cancel them; `take(upTo:)` commits those that are due (live playback
/// asks a little ahead, to leave time for synthesis and the audio queue).
public struct AudioDirector: Sendable {
    public enum Item: Equatable, Sendable {
        case tempo(spm: Double, pattern: ClickPattern)
        case silence
        case clicksAudible(Bool)
        case cue(Cue)
    }

    public struct Scheduled: Equatable, Sendable {
        public var time: SessionTime
        public var item: Item

        public init(time: SessionTime, item: Item) {
            self.time = time
            self.item = item
        }
    }

    /// What cancels a pending item: a new step, or the runner coming back into zone.
    enum Tag { case step, coaching, gate, none }

    struct Pending {
        var time: SessionTime
        var item: Item
        var tag: Tag
        var order: Int
        /// A preview of this step: once spoken, its start is not announced again.
        var announces: Int?
    }

    /// Steps at least this long get the next step announced before they end...
    public static let previewMinimum = SessionTime.seconds(25)
    /// ...this long before their end.
    public static let previewLead = SessionTime.seconds(10)
    public static let countdownMinimum = SessionTime.seconds(6)
    public static let halfwayMinimum = SessionTime.seconds(60)
    /// The least time between two coaching cues, whatever the cooldown asked: a cue lasts
    /// about a second and a half, and reminders closer together queued up behind each other,
    /// still saying "faster" minutes after the runner was in zone (a cooldown of 0 repeated
    /// the cue at the same instant without end, until the memory ran out).
    public static let shortestCoachingCooldown = SessionTime.seconds(3)
    /// No coaching cue starts this close before a countdown: one that did was spoken between
    /// "two" and "one" ("three, two, faster twenty more, one"), pushing "one" and the next
    /// step's start late. Advice that near a step's end is too late to act on anyway.
    public static let quietBeforeCountdown = SessionTime.seconds(2)

    /// The cooldown that applies: the settings', no shorter than `shortestCoachingCooldown`.
    private var coachingCooldown: SessionTime { max(settings.coachingCooldown, Self.shortestCoachingCooldown) }

    public let settings: MetronomeSettings
    public let timeline: [TimelineStep]

    private var pending: [Pending] = []
    private var committed: [Scheduled] = []
    private var order = 0

    private var step: TimelineStep?
    private var stepStart = SessionTime.zero
    private var pausedInStep = SessionTime.zero
    private var pausedAt: SessionTime?
    private var outOfZoneSince: SessionTime?
    private var outOfZoneCue: Cue?
    private var lastCoaching: SessionTime?
    private var announcedStep: Int?
    /// When the running step's 3-2-1 countdown begins, if it has one.
    private var countdownAt: SessionTime?
    private var clicksAudible = false
    private var finished = false
    /// How far ahead items have been committed (live playback commits a little early).
    private var committedUpTo = SessionTime.zero

    public init(settings: MetronomeSettings, timeline: [TimelineStep]) {
        self.settings = settings
        self.timeline = timeline
    }

    /// Takes one batch of engine actions; `now` is the engine's cursor after the batch.
    /// Step boundaries are the times the actions carry, so they are exact even when the
    /// batch arrives late.
    public mutating func perform(_ actions: [SessionEngine.Action], at now: SessionTime) {
        for action in actions {
            switch action {
            case .stepStarted(let started, let time):
                commit(upTo: time)
                startStep(started, at: time)
            case .stepFinished(_, let time):
                // The next step (or the end) starts where this one ended. A reminder due at that
                // instant is this step's: it was said as the next began ("faster" into a rest).
                stepStart = time
                commit(upTo: SessionTime(microseconds: time.microseconds - 1))
                pending.removeAll { $0.tag == .coaching }
                commit(upTo: time)
            case .feedbackChanged(let feedback):
                commit(upTo: now)
                feedbackChanged(feedback, at: now)
            case .applied(.pause):
                commit(upTo: now)
                pause(at: now)
            case .applied(.resume):
                commit(upTo: now)
                resume(at: now)
            case .sessionFinished(let summary):
                commit(upTo: stepStart)
                finish(summary, at: stepStart)
            case .applied, .deviceEvent, .rejectedNotification, .sample:
                break
            }
        }
    }

    /// Commits and returns the items due at or before `horizon`, in time order.
    public mutating func take(upTo horizon: SessionTime) -> [Scheduled] {
        commit(upTo: horizon)
        defer { committed.removeAll(keepingCapacity: true) }
        return committed
    }

    /// Everything left, for the end of an offline render.
    public mutating func takeAll() -> [Scheduled] {
        commit(upTo: SessionTime(microseconds: .max))
        defer { committed.removeAll() }
        return committed
    }

    // MARK: - Actions

    private mutating func startStep(_ started: TimelineStep, at time: SessionTime) {
        cancel([.step, .coaching, .gate])
        step = started
        stepStart = time
        pausedInStep = .zero
        countdownAt = nil
        // A step that starts while paused (next, during a pause) counts its pause from here.
        if pausedAt != nil { pausedAt = time }
        outOfZoneSince = nil
        if let zone = started.zone, settings.mode != .off {
            add(time, .clicksAudible(settings.mode == .always), .none)
            if pausedAt == nil { add(time, .tempo(spm: zone.target, pattern: pattern(atStepStart: true)), .none) }
        } else {
            add(time, .silence, .none)
        }
        if announcedStep != started.index { addCue(time, .step(started), .step) }
        if pausedAt == nil, case .time(let length) = started.end {
            scheduleStepCues(from: time, end: time + length, length: length)
        }
    }

    private mutating func feedbackChanged(_ feedback: Feedback, at now: SessionTime) {
        let cue: Cue
        switch feedback {
        case .faster(let n): cue = .faster(n)
        case .slower(let n): cue = .slower(n)
        case .inZone, .noZone, .noSignal:
            outOfZoneSince = nil
            outOfZoneCue = nil
            cancel([.coaching, .gate])
            // A gate opening may already be committed a little ahead: close it after that.
            if settings.mode == .offTarget, clicksAudible { add(max(now, committedUpTo), .clicksAudible(false), .none) }
            return
        }
        let since = outOfZoneSince ?? now
        outOfZoneSince = since
        outOfZoneCue = cue
        guard pausedAt == nil else { return }
        scheduleCoaching(after: now)
        if settings.mode == .offTarget, !clicksAudible {
            cancel([.gate])
            add(max(now, since + settings.grace), .clicksAudible(true), .gate)
        }
    }

    private mutating func pause(at now: SessionTime) {
        pausedAt = now
        cancel([.step, .coaching, .gate])
        countdownAt = nil
        add(now, .silence, .none)
    }

    private mutating func resume(at now: SessionTime) {
        guard let since = pausedAt, let step else { return }
        pausedAt = nil
        pausedInStep += now - since
        if let zone = step.zone, settings.mode != .off {
            // A step that began while paused (next, during a pause) has not clicked yet: its
            // first click is the step's, accented.
            add(now, .tempo(spm: zone.target, pattern: pattern(atStepStart: since == stepStart)), .none)
        }
        if case .time(let length) = step.end {
            let elapsed = now - stepStart - pausedInStep
            scheduleStepCues(from: now, end: now + (length - elapsed), length: length)
        }
        if let outOf = outOfZoneSince {
            // Paused is not running out of zone: its grace counts running time. Counted, a
            // runner 5 s out of zone before a pause was coached the moment it ended.
            outOfZoneSince = outOf + (now - max(outOf, since))
            scheduleCoaching(after: now)
            if settings.mode == .offTarget, !clicksAudible {
                add(max(now, outOfZoneSince! + settings.grace), .clicksAudible(true), .gate)
            }
        }
    }

    private mutating func finish(_ summary: SessionSummary, at time: SessionTime) {
        pending.removeAll()
        finished = true
        add(time, .silence, .none)
        // Whole percent, but 100 and 0 only when so: 99.5 % was spoken "100 percent in zone".
        // None when no cadence came at all (no runner, a footpod that never spoke): "0 percent
        // in zone" said of a render for the phone judged a runner who was not there.
        let percent = summary.averageCadence == nil ? nil : summary.inZonePercent.map { exact in
            min(max(Int(exact.rounded()), exact > 0 ? 1 : 0), exact < 100 ? 99 : 100)
        }
        addCue(time, .summary(inZonePercent: percent, completed: summary.completed), .none)
    }

    // MARK: - Scheduling

    private func pattern(atStepStart: Bool) -> ClickPattern {
        switch settings.accent {
        case .none: .plain
        case .alternate: .alternate
        case .stepStart: atStepStart ? .accentFirst : .plain
        }
    }

    private mutating func scheduleStepCues(from now: SessionTime, end: SessionTime, length: SessionTime) {
        guard let step, settings.voice else { return }
        if length >= Self.halfwayMinimum {
            let halfway = end - SessionTime(microseconds: length.microseconds / 2)
            if halfway > now { addCue(halfway, .halfway, .step) }
        }
        let next = step.index + 1
        guard next < timeline.count else { return }
        if length >= Self.previewMinimum, end - Self.previewLead > now {
            addCue(end - Self.previewLead, .step(timeline[next]), .step, announces: next)
        }
        if length >= Self.countdownMinimum {
            countdownAt = end - .seconds(3)
            for n in stride(from: 3, through: 1, by: -1) where end - .seconds(n) > now {
                addCue(end - .seconds(n), .count(n), .step)
            }
        }
    }

    private mutating func scheduleCoaching(after now: SessionTime) {
        guard settings.voice, let since = outOfZoneSince, let cue = outOfZoneCue else { return }
        cancel([.coaching])
        var time = max(now, since + settings.coachingGrace)
        if let last = lastCoaching { time = max(time, last + coachingCooldown) }
        addCue(time, cue, .coaching)
    }

    private mutating func addCue(_ time: SessionTime, _ cue: Cue, _ tag: Tag, announces: Int? = nil) {
        guard settings.voice else { return }
        if tag == .coaching, let countdownAt, time > countdownAt - Self.quietBeforeCountdown { return }
        add(time, .cue(cue), tag, announces: announces)
    }

    private mutating func add(_ time: SessionTime, _ item: Item, _ tag: Tag, announces: Int? = nil) {
        pending.append(Pending(time: time, item: item, tag: tag, order: order, announces: announces))
        order += 1
    }

    private mutating func cancel(_ tags: [Tag]) {
        pending.removeAll { tags.contains($0.tag) }
    }

    /// Moves due items to `committed`, in time order, applying what committing implies.
    private mutating func commit(upTo horizon: SessionTime) {
        committedUpTo = max(committedUpTo, horizon)
        while let index = nextDue(upTo: horizon) {
            let item = pending.remove(at: index)
            committed.append(Scheduled(time: item.time, item: item.item))
            if let announced = item.announces { announcedStep = announced }
            switch item.item {
            case .clicksAudible(let on):
                clicksAudible = on
            case .cue(let said) where said.isCoaching:
                lastCoaching = item.time
                // Still out of zone: remind again after the cooldown.
                if let cue = outOfZoneCue, !finished {
                    addCue(item.time + coachingCooldown, cue, .coaching)
                }
            default:
                break
            }
        }
    }

    private func nextDue(upTo horizon: SessionTime) -> Int? {
        var best: Int?
        for (i, item) in pending.enumerated() where item.time <= horizon {
            if let b = best, (pending[b].time, pending[b].order) < (item.time, item.order) { continue }
            best = i
        }
        return best
    }
}
