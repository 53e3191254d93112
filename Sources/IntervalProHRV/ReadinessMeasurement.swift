public import IntervalProCore

/// A morning readiness measurement: a chest strap's RR intervals over a few minutes of lying
/// still, turned into rMSSD and the figures around it.
///
/// An I/O-free state machine: it is handed each Heart Rate Measurement with its arrival time
/// and the clock's ticks, and says where the measurement stands. Time counts only while the
/// strap reports skin contact (or cannot tell) and values keep arriving: a "no contact" value
/// or a silence longer than `staleAfter` pauses the count, and no successive difference is
/// taken across such a pause; nor across an interval longer than any heartbeat's, which is
/// beats lost, or shorter, which is noise; nor across beats a strap says went by unseen
/// (`beatsLostBefore`). The first `settle` seconds are not scored.
public struct ReadinessMeasurement: Sendable {
    public struct Settings: Equatable, Sendable {
        /// Scored time, after settling.
        public var duration: SessionTime
        public var settle = SessionTime.seconds(30)
        /// A silence this long is a loss of signal (the live session's staleness window).
        public var staleAfter = SessionTime.seconds(3)
        /// The longest interval that is one heartbeat (1/1024 s): 2,000 ms, 30 bpm, the upper
        /// bound of hrv-analysis's `remove_outliers` (Aura Healthcare; `high_rri=2000`). A
        /// longer one is beats the strap missed, or a gap in an app's export (10 s where the
        /// signal was lost): no beat, but a pause, as a silence is; and an artifact, counted
        /// with those corrected.
        public var longestHeartbeat: UInt16 = RRIntervals.heartbeat.upperBound
        /// The shortest interval that is one heartbeat (1/1024 s): 300 ms, the lower bound of
        /// the same `remove_outliers` (`low_rri=300`). A shorter one is noise or a number
        /// misread (an export's "1 005" read as 1 and 5 ms); scored as beats, two of them gave
        /// a morning of 40 ms an rMSSD of 115. Left out as a longer one is.
        public var shortestHeartbeat: UInt16 = 308
        /// A strap that has sent this many values with contact and not one RR interval sends none.
        public var valuesBeforeNoRR = 10
        /// The largest share of corrected beats a measurement may have and still be scored:
        /// hrv-analysis's rule (Aura Healthcare), under which a sample with more than 4 %
        /// outliers is invalid.
        public var maximumArtifactShare = 0.04
        /// Fewer scored beats than this say nothing about variability.
        public var minimumBeats = 30
        /// A mean heart rate above this is not a heart at rest: an adult's resting heart rate
        /// over 100 bpm is tachycardia (ICRP Publication 120, 2012, glossary; the American
        /// Heart Association's definition). Short-term HRV is measured at rest, in stationary
        /// conditions (Task Force of the ESC and NASPE, Circulation 1996;93:1043-65), and a
        /// baseline mixed with figures taken on the move means nothing: such a measurement
        /// (a run's recording, say) is refused, not judged.
        public var maximumRestingHeartRate = 100.0
        /// The largest share of the intervals that may lie within 1 ms of 60,000 / h ms for a
        /// whole heart rate h: beyond it, the sensor worked the intervals out from its heart
        /// rate instead of timing the beats (IntervalPro's own rule, see docs/readiness.md).
        /// Beats timed one by one land there by chance: about 2 ms in the gap between two whole
        /// rates' intervals, 6 ms at 100 bpm, so a third of them at most at rest (26 % of the
        /// 1,000 real intervals at 84 bpm of hrv-analysis's test data); intervals made up from
        /// a heart rate, all of them.
        public var maximumHeartRateIntervalShare = defaultMaximumHeartRateIntervalShare
        public static let defaultMaximumHeartRateIntervalShare = 0.8

        public init(duration: SessionTime) {
            self.duration = duration
        }

        public var total: SessionTime { settle + duration }
    }

    public enum Phase: Equatable, Sendable {
        /// Nothing received yet.
        case waiting
        case settling
        case measuring
        /// The strap says it has no skin contact: the count waits.
        case noContact
        /// Values stopped arriving: the count waits.
        case noSignal
        case complete
    }

    /// What the screen shows while measuring.
    public struct Progress: Equatable, Sendable {
        public var phase: Phase
        /// Time with contact still to go, settling included.
        public var timeLeft: SessionTime
        public var heartRate: UInt16?
        /// RR intervals scored so far.
        public var beats: Int
        /// True once the strap has shown it sends no RR intervals.
        public var sendsNoRR: Bool
        /// The last heart rate is over `Settings.maximumRestingHeartRate`, which a measurement's
        /// mean must not be: the screen and the page say so while it lasts.
        public var aboveRestingRate: Bool = false
        /// The intervals scored so far (once there are `Settings.minimumBeats`) are worked out
        /// from a heart rate, which refuses the measurement at its end: said while it runs.
        public var intervalsFromHeartRate: Bool = false
    }

    public let settings: Settings
    public private(set) var contactTime = SessionTime.zero
    public private(set) var heartRate: UInt16?
    /// Scored RR intervals as the strap sent them (1/1024 s), one list per stretch of contact.
    public private(set) var segments: [[UInt16]] = []
    /// Scored intervals no heartbeat is (longer than `Settings.longestHeartbeat`: beats lost;
    /// shorter than `Settings.shortestHeartbeat`: noise), left out.
    public private(set) var intervalsLeftOut = 0
    private var lastEvent: SessionTime?
    private var lastValue: SessionTime?
    private var inContact = false
    private var segmentOpen = false
    private var valuesWithContact = 0
    private var intervalsReceived = 0

    public init(settings: Settings) {
        self.settings = settings
    }

    public var isComplete: Bool { contactTime >= settings.total }
    /// When the last value came, in the measurement's time: where a replayed one ended.
    public var lastValueTime: SessionTime? { lastValue }
    public var sendsNoRR: Bool { intervalsReceived == 0 && valuesWithContact >= settings.valuesBeforeNoRR }
    public var beats: Int { segments.reduce(0) { $0 + $1.count } }

    public var phase: Phase {
        if isComplete { return .complete }
        guard lastValue != nil else { return .waiting }
        if !inContact { return .noContact }
        if !signalFresh { return .noSignal }
        return contactTime < settings.settle ? .settling : .measuring
    }

    public var progress: Progress {
        Progress(
            phase: phase, timeLeft: max(.zero, settings.total - contactTime), heartRate: heartRate, beats: beats,
            sendsNoRR: sendsNoRR,
            aboveRestingRate: heartRate.map { Double($0) > settings.maximumRestingHeartRate } ?? false,
            intervalsFromHeartRate: beats >= settings.minimumBeats
                && Self.workedOutFromHeartRate(segments, limit: settings.maximumHeartRateIntervalShare))
    }

    private var now: SessionTime { lastEvent ?? .zero }
    private var signalFresh: Bool { lastValue.map { now - $0 <= settings.staleAfter } ?? false }

    /// The clock moved on with nothing received.
    public mutating func advance(to time: SessionTime) {
        accrue(until: time)
        if !signalFresh { segmentOpen = false }
    }

    public mutating func receive(_ measurement: HeartRateMeasurement, at time: SessionTime) {
        let wasComplete = isComplete
        let silenceBefore = lastValue.map { time - $0 > settings.staleAfter } ?? true
        accrue(until: time)
        lastValue = time
        heartRate = measurement.heartRate
        inContact = measurement.sensorContact != .notDetected
        guard inContact else {
            segmentOpen = false
            return
        }
        valuesWithContact += 1
        intervalsReceived += measurement.rrIntervals.count
        guard !wasComplete else { return }
        // A silence lost beats, as do an ANT+ strap's missed pages: what follows starts a new stretch.
        if silenceBefore || measurement.beatsLostBefore { segmentOpen = false }
        guard contactTime > settings.settle else { return }
        for interval in measurement.rrIntervals {
            guard interval >= settings.shortestHeartbeat, interval <= settings.longestHeartbeat else {
                intervalsLeftOut += 1
                segmentOpen = false
                continue
            }
            if !segmentOpen {
                segments.append([])
                segmentOpen = true
            }
            segments[segments.count - 1].append(interval)
        }
    }

    /// Adds the time since the last event to the count if contact held and values were
    /// arriving, up to the silence that counts as a loss.
    private mutating func accrue(until time: SessionTime) {
        defer { lastEvent = max(lastEvent ?? time, time) }
        guard let since = lastEvent, inContact, let lastValue, time > since else { return }
        let countedUntil = min(time, lastValue + settings.staleAfter)
        guard countedUntil > since else { return }
        contactTime = min(settings.total, contactTime + (countedUntil - since))
    }

    /// The figures, once complete; or why the measurement cannot be scored.
    public func result() -> Result<ReadinessFigures, ReadinessRefusal> {
        if sendsNoRR || intervalsReceived == 0 { return .failure(.noRRIntervals) }
        let received = beats
        guard received >= settings.minimumBeats else {
            return .failure(.tooFewBeats(beats: received, needed: settings.minimumBeats))
        }
        // From the intervals as sent: a heart this fast is not at rest, however the few
        // artifacts among its beats are corrected.
        let units = segments.joined().reduce(0) { $0 + Int($1) }
        let heartRate = 60_000 / (Double(units) * 1000 / 1024 / Double(received))
        guard heartRate <= settings.maximumRestingHeartRate else {
            return .failure(.notAtRest(heartRate: heartRate, limit: settings.maximumRestingHeartRate))
        }
        // Before the artifact correction: whatever it would find in such intervals, the sensor
        // is the reason. Intervals all the same are the rMSSD-0 refusal's, below.
        if Self.workedOutFromHeartRate(segments, limit: settings.maximumHeartRateIntervalShare) {
            return .failure(.intervalsFromHeartRate(share: Self.shareFromWholeHeartRates(segments.joined())))
        }
        var corrected: [[Double]] = []
        var artifacts = intervalsLeftOut
        for segment in segments {
            let milliseconds = RRIntervals(segment).milliseconds
            let correction = ArtifactCorrection.correct(milliseconds)
            corrected.append(correction.intervals)
            artifacts += correction.corrected
        }
        let intervals = received + intervalsLeftOut
        let share = Double(artifacts) / Double(intervals)
        guard share <= settings.maximumArtifactShare else {
            return .failure(.tooManyArtifacts(corrected: artifacts, beats: intervals, limit: settings.maximumArtifactShare))
        }
        guard let figures = TimeDomainHRV(segments: corrected) else {
            return .failure(.tooFewBeats(beats: received, needed: settings.minimumBeats))
        }
        // Intervals that never change have an rMSSD of 0 and no ln rMSSD to place on the
        // baseline's scale (saved, its -inf emptied the baseline for a week and the normal
        // range for 60 days): intervals all the same are a sensor's, derived from its heart
        // rate, not beats timed one by one.
        guard figures.rmssd > 0 else { return .failure(.noBeatToBeatVariation) }
        return .success(
            ReadinessFigures(
                scoredDuration: settings.duration, hrv: figures, artifactsCorrected: artifacts, beatsReceived: intervals,
                correctedIntervals: corrected))
    }

    /// Whether intervals as a strap sent them (1/1024 s) were worked out from a whole heart
    /// rate rather than timed: over `limit` of them a whole rate's, and not all the same
    /// (rMSSD 0, refused as that). A morning saved before the rule is read with it too: the
    /// baseline leaves such a one out (`ReadinessRecord.leftOutOfBaseline`).
    public static func workedOutFromHeartRate(_ segments: [[UInt16]], limit: Double = Settings.defaultMaximumHeartRateIntervalShare) -> Bool {
        let intervals = segments.joined()
        guard let first = intervals.first, intervals.contains(where: { $0 != first }) else { return false }
        return shareFromWholeHeartRates(intervals) > limit
    }

    /// The share of `intervals` (1/1024 s) within 1 ms of 60,000 / h ms for a whole h: the
    /// interval of a whole heart rate, rounded to the millisecond or to the 1/1024 s (or both,
    /// one after the other) as a sensor sends it.
    public static func shareFromWholeHeartRates(_ intervals: some Collection<UInt16>) -> Double {
        guard !intervals.isEmpty else { return 0 }
        let matching = intervals.count(where: { units in
            let milliseconds = Double(units) * 1000 / 1024
            let nearest = (60_000 / milliseconds).rounded()
            return [nearest - 1, nearest, nearest + 1].contains { rate in rate > 0 && abs(60_000 / rate - milliseconds) <= 1 }
        })
        return Double(matching) / Double(intervals.count)
    }

    /// Corrected beats so far, for the screen (a detection pass over what is scored), and
    /// the intervals lost.
    public func artifactsSoFar() -> Int {
        segments.reduce(intervalsLeftOut) { count, segment in
            count + ArtifactCorrection.correct(RRIntervals(segment).milliseconds).corrected
        }
    }
}

/// A scored measurement's figures.
public struct ReadinessFigures: Equatable, Sendable {
    public var scoredDuration: SessionTime
    public var hrv: TimeDomainHRV
    public var artifactsCorrected: Int
    /// RR intervals received in the scored time, before correction.
    public var beatsReceived: Int
    /// The intervals the figures were computed from (ms, one list per stretch of contact);
    /// empty for a measurement read back from the store, which keeps the intervals as sent.
    public var correctedIntervals: [[Double]]

    public init(
        scoredDuration: SessionTime, hrv: TimeDomainHRV, artifactsCorrected: Int, beatsReceived: Int,
        correctedIntervals: [[Double]] = []
    ) {
        self.scoredDuration = scoredDuration
        self.hrv = hrv
        self.artifactsCorrected = artifactsCorrected
        self.beatsReceived = beatsReceived
        self.correctedIntervals = correctedIntervals
    }

    public var artifactShare: Double { beatsReceived == 0 ? 0 : Double(artifactsCorrected) / Double(beatsReceived) }
}

/// Why a measurement is not scored.
public enum ReadinessRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The strap sends heart rate without RR intervals.
    case noRRIntervals
    case tooFewBeats(beats: Int, needed: Int)
    case tooManyArtifacts(corrected: Int, beats: Int, limit: Double)
    /// The mean heart rate is over a resting heart rate's upper limit.
    case notAtRest(heartRate: Double, limit: Double)
    /// Every interval scored equals the one before it (rMSSD 0).
    case noBeatToBeatVariation
    /// Nearly every interval is a whole heart rate's (`share` of them): the sensor derives
    /// them from its heart rate.
    case intervalsFromHeartRate(share: Double)

    public var description: String {
        switch self {
        case .noRRIntervals:
            "the strap sends heart rate but no RR intervals, which the measurement needs"
        case .tooFewBeats(let beats, let needed):
            "only \(beats) beats were scored (at least \(needed) are needed): keep the strap on and lie still for the whole measurement"
        case .tooManyArtifacts(let corrected, let beats, let limit):
            "\(corrected) of \(beats) beats needed correcting (\(percent(Double(corrected) / Double(beats)))), more than the \(percent(limit)) a reliable measurement allows: wet the strap's electrodes, lie still and breathe calmly, then measure again"
        case .noBeatToBeatVariation:
            "the RR intervals do not change from one beat to the next (rMSSD 0): the sensor derives them from its heart rate instead of timing each beat; measure with a chest strap that times the beats (Polar H9 or H10, Garmin HRM, Wahoo TICKR)"
        case .intervalsFromHeartRate(let share):
            "\(percent(share)) of the RR intervals are exactly 60,000 / a whole heart rate, where beats timed one by one land a third of the time at most: the sensor works them out from its heart rate instead of timing each beat; measure with a chest strap that times the beats (Polar H9 or H10, Garmin HRM, Wahoo TICKR)"
        case .notAtRest(let heartRate, let limit):
            "the heart rate averaged \(Self.overLimit(heartRate, limit)) bpm, over the \(Int(limit)) bpm a heart at rest stays under: readiness is measured lying still just after waking, not on the move; if you were lying still, a heart that fast at rest is a reason not to train today (illness, fever, little sleep or a night's drinking); if not, measure again at rest"
        }
    }

    /// A heart rate over `limit`, in whole beats unless those read as the limit itself
    /// ("averaged 100 bpm, over the 100 bpm" for 100.03).
    static func overLimit(_ heartRate: Double, _ limit: Double) -> String {
        for scale in [1.0, 10, 100, 1000] {
            let shown = (heartRate * scale).rounded() / scale
            if shown > limit { return JSONValue.format(shown) }
        }
        return JSONValue.format(heartRate)
    }

    /// The reason in a few words, for a list.
    public var brief: String {
        switch self {
        case .noRRIntervals: "no RR intervals"
        case .tooFewBeats: "too few beats"
        case .tooManyArtifacts: "too many artifacts"
        case .notAtRest: "not at rest"
        case .noBeatToBeatVariation: "rMSSD 0"
        case .intervalsFromHeartRate: "RR intervals worked out from a heart rate"
        }
    }

    private func percent(_ share: Double) -> String {
        let tenths = (share * 1000).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10) %"
    }
}
