/// What a live screen shows of a session at one instant: the terminal draws it, the web
/// page receives it as JSON. Built from the engine in one place, so both show the same facts.
public struct SessionView: Equatable, Sendable {
    public struct Step: Equatable, Sendable {
        /// 0-based position in the timeline.
        public var index: Int
        public var count: Int
        public var title: String
        public var end: StepEnd
        /// Time the step has run, pauses excluded.
        public var elapsed: SessionTime
        /// Whole seconds left, rounded up as a countdown shows them; time steps only.
        public var secondsLeft: Int?
        /// Metres left; distance steps only.
        public var metresLeft: Double?
        /// How much of the step is done, 0 to 1; nil for an open step.
        public var progress: Double?
        public var zone: CadenceZone?
    }

    public var planName: String
    public var source: SessionSourceKind
    /// The engine's position in session time (the source's clock; it runs on while paused).
    public var time: SessionTime
    /// How long the session has run, pauses excluded: the runner's clock.
    public var runTime: SessionTime
    public var isPaused: Bool
    /// Nil once the session has finished.
    public var step: Step?
    /// The smoothed cadence, when a value is current.
    public var cadence: Double?
    public var heartRate: Int?
    public var feedback: Feedback
    public var inZonePercent: Double?
    /// A cadence value is current.
    public var hasSignal: Bool
    /// DFA alpha 1's latest window, when the heart-rate device sends RR intervals (computed
    /// beside the engine, off the notification path, and set by whoever shows the view).
    public var alphaOne: AlphaWindow?

    public init(_ engine: SessionEngine, at now: SessionTime) {
        planName = engine.planName
        source = engine.source
        time = now
        runTime = engine.resultsSoFar.reduce(SessionTime.zero) { $0 + $1.duration }
        isPaused = engine.isPaused
        cadence = engine.stream.currentSmoothedCadence(at: now)
        heartRate = engine.stream.currentHeartRate(at: now)
        feedback = engine.feedback
        hasSignal = engine.stream.currentCadence(at: now) != nil
        // No runner: no share of a zone nobody ran in (`SessionSummary.inZonePercent`).
        inZonePercent = engine.source == .metronome ? nil : engine.resultsSoFar.inZonePercent
        step = engine.currentStep.map { current in
            let elapsed = engine.stepElapsed
            var step = Step(
                index: current.index, count: engine.timeline.count, title: current.title, end: current.end,
                elapsed: elapsed, zone: current.zone)
            switch current.end {
            case .time(let length):
                let left = length - elapsed
                step.secondsLeft = Int(max(0, (Double(left.microseconds) / 1e6).rounded(.up)))
                step.progress = min(1, max(0, Double(elapsed.microseconds) / Double(max(1, length.microseconds))))
            case .distance(let metres):
                let covered = engine.distanceInStep ?? 0
                step.metresLeft = max(0, metres - covered)
                step.progress = min(1, max(0, covered / metres))
            case .open:
                break
            }
            return step
        }
    }

    /// Whether a screen would show `other` as it shows this view: the same figures at the
    /// precision they are shown with (whole spm and seconds, tenths of a percent).
    public func sameShown(as other: SessionView) -> Bool {
        func shown(_ view: SessionView) -> SessionView {
            var view = view
            view.time = .zero
            view.runTime = .seconds(Int(view.runTime.microseconds / 1_000_000))
            view.cadence = view.cadence.map { $0.rounded() }
            view.inZonePercent = view.inZonePercent.map { $0.rounded(toPlaces: 1) }
            // Alpha 1 as shown: its status, two decimals, whole per cent of artifacts.
            view.alphaOne = view.alphaOne.map { window in
                AlphaWindow(
                    second: 0, stepIndex: nil, status: window.status, beats: 0,
                    artifacts: Int((100 * window.artifactShare).rounded()), alpha1: window.alpha1?.rounded(toPlaces: 2),
                    heartRate: nil, cadence: nil, tooFewBeats: window.tooFewBeats)
            }
            if var step = view.step {
                step.elapsed = .seconds(Int(step.elapsed.microseconds / 1_000_000))
                step.metresLeft = step.metresLeft.map { $0.rounded() }
                // Progress follows from the whole seconds and metres above.
                step.progress = nil
                view.step = step
            }
            return view
        }
        return shown(self) == shown(other)
    }
}
