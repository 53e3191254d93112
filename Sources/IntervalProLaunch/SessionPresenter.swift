import IntervalProCore
import IntervalProIO
import IntervalProRuntime
import Logging

/// Shows a session as it runs, records what the source delivered, and collects keys.
///
/// It draws the live screen where the display has one and time is real; otherwise it
/// writes one plain line per event.
struct SessionPresenter: SessionObserver {
    enum Style {
        case screen(SessionDisplay.Stream)
        case lines(SessionDisplay.Stream)
    }

    let style: Style
    var recorder: RecordingWriter?
    var keyboard: RawKeyboard?
    /// Ctrl-C finishes the session.
    let takesInterrupt: Bool
    private var screen: LiveScreen
    private var warnedRecorder = false
    private var rejectedWarnings = Set<String>()
    private var lastLoggedFeedback: String?
    /// When "no signal" began before any reading came, not yet logged: every session's lines
    /// began "[0:00] no signal", the first reading a moment away. Logged once it has lasted
    /// `noSignalGrace`; after a reading, a dropout is logged at once (the reading is stale by then).
    private var unloggedNoSignalSince: SessionTime?
    private var sawReading = false
    static let noSignalGrace = SessionTime.seconds(3)
    private var lastTime = SessionTime.zero
    /// `TerminalStop.continued` when the screen was last drawn.
    private var continuedBeforeDraw = 0
    private var keyGuard = KeyAfterStepChange()
    /// The latest time of a line recorded.
    private var lastRecorded = SessionTime.zero

    /// What the runner's music player plays, when one is followed.
    let nowPlaying: @Sendable () -> String?
    /// The session's devices: notices name them.
    let devices: [RecordedDevice]

    init(
        style: Style, recorder: RecordingWriter?, keyboard: RawKeyboard?, takesInterrupt: Bool,
        devices: [RecordedDevice] = [], nowPlaying: @escaping @Sendable () -> String? = { nil }
    ) {
        self.nowPlaying = nowPlaying
        self.devices = devices
        self.style = style
        self.recorder = recorder
        self.keyboard = keyboard
        self.takesInterrupt = takesInterrupt
        if case .screen(let stream) = style { screen = LiveScreen(colour: stream.colour) } else { screen = LiveScreen(colour: false) }
    }

    mutating func received(_ entry: RecordingEntry) { record(entry) }

    /// The runner's command, kept in the recording beside the readings: a session stopped
    /// with Ctrl-C replayed on to its plan's end, its steps scored as no signal (96 % in zone
    /// live, 32 % replayed).
    mutating func commandApplied(_ command: UserCommand, at now: SessionTime) {
        record(.runnerCommand(command, at: now))
    }

    private mutating func record(_ entry: RecordingEntry) {
        guard let recorder else { return }
        do {
            let wasHeld = recorder.isHeldByFullDisk
            try recorder.write(line: RecordingLine.entry(entry))
            try recorder.keep(through: entry.time.seconds)
            lastRecorded = max(lastRecorded, entry.time)
            if let news = recorder.fullDiskNews(wasHeld: wasHeld) { logger.warning("\(news)") }
        } catch {
            // The session matters more than the copy: warn once and keep running.
            if !warnedRecorder {
                warnedRecorder = true
                logger.warning("\(error); the session goes on without recording")
            }
            self.recorder = nil
        }
    }

    mutating func notice(_ text: String) {
        switch style {
        case .screen: screen.notice = text
        case .lines(let stream): stream.write("[\(formatClock(lastTime.seconds))] \(text)\n")
        }
    }

    mutating func pendingCommands() -> [UserCommand] {
        var commands = keyboard?.pendingCommands() ?? []
        if commands.contains(.next), !keyGuard.keeps(nextAt: .now) {
            commands.removeAll { $0 == .next }
            notice("n left out: the step had just ended; n again ends this one")
        }
        if takesInterrupt, InterruptSignal.take() { commands.append(.finish) }
        return commands
    }

    /// The live screen is drawn on each tick of its clock, and at once for what the runner
    /// must see now; readings wait for the next tick, so a fast replay does not redraw
    /// hundreds of times a second. Plain lines show no view.
    func showsView(after actions: [SessionEngine.Action]?, of engine: SessionEngine) -> Bool {
        guard case .screen = style else { return false }
        guard let actions else { return true }
        return actions.contains { action in
            switch action {
            case .deviceEvent, .stepStarted, .applied(.pause), .applied(.resume), .sessionFinished: true
            default: false
            }
        }
    }

    mutating func show(_ view: SessionView) {
        guard case .screen(let stream) = style else { return }
        TerminalStop.screenHidesCursor(true)
        // Back from Ctrl-Z: the shell wrote below the screen, which is drawn afresh under it.
        let continued = TerminalStop.continued
        if continued != continuedBeforeDraw {
            continuedBeforeDraw = continued
            screen.startAfresh()
        }
        let frame = screen.draw(view, music: nowPlaying(), columns: Terminal.columns)
        if let region = stream.region {
            region.draw(frame, body: screen.lastBody, lines: screen.linesDrawn, write: stream.write)
        } else {
            stream.write(frame)
        }
    }

    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        lastTime = now
        recordPlanEnd(actions, at: now)
        if keyboard != nil, actions.contains(where: { if case .stepStarted(let step, _) = $0 { step.index > 0 } else { false } }) {
            keyGuard.stepStarted(at: .now)
        }
        switch style {
        case .screen:
            for action in actions {
                switch action {
                case .rejectedNotification(let device, let error): warnRejected(device, error)
                case .deviceEvent(let device, let name) where name == "disconnected":
                    screen.warning = "\(devices.displayName(of: device)) \(name)"
                case .deviceEvent(let device, let name): screen.notice = "\(devices.displayName(of: device)) \(name)"
                default: break
                }
            }
        case .lines(let stream):
            for action in actions {
                guard let line = logLine(action, engine: engine) else { continue }
                // A device's or a recording's names: shown, never obeyed.
                stream.write("[\(formatClock(now.seconds))] \(line.printable)\n")
            }
            if let since = unloggedNoSignalSince, now >= since + Self.noSignalGrace {
                unloggedNoSignalSince = nil
                lastLoggedFeedback = Feedback.noSignal.description
                stream.write("[\(formatClock(now.seconds))]   \(Feedback.noSignal)\n")
            }
        }
    }

    /// A session its plan ended after the last value (a footpod's at 36:59.5 of 37:00) ends its
    /// recording with a finish there: ending at that value, it imported without its plan a
    /// second short. Replayed against the plan, the plan ends first and the finish changes
    /// nothing. A finish of the runner's is recorded as it is applied (`commandApplied`); a
    /// replay whose source ran out ended at its last line.
    private mutating func recordPlanEnd(_ actions: [SessionEngine.Action], at now: SessionTime) {
        guard recorder != nil, now > lastRecorded,
            actions.contains(where: { if case .sessionFinished = $0 { true } else { false } }),
            case .stepFinished(let last, _)? = actions.last(where: { if case .stepFinished = $0 { true } else { false } }),
            last.endedBy == .time || last.endedBy == .distance
        else { return }
        record(.runnerCommand(.finish, at: now))
    }

    private mutating func warnRejected(_ device: String, _ error: NotificationParseError) {
        let key = "\(device) \(error.characteristicID)"
        guard rejectedWarnings.insert(key).inserted else { return }
        screen.warning = "\(devices.displayName(of: device)): \(error)"
    }

    private mutating func logLine(_ action: SessionEngine.Action, engine: SessionEngine) -> String? {
        switch action {
        case .stepStarted(let step, _):
            lastLoggedFeedback = nil
            unloggedNoSignalSince = nil
            var text = "\(step.title) (\(step.index + 1)/\(engine.timeline.count)): \(PlanText.end(step.end))"
            if let zone = step.zone { text += ", zone \(PlanText.zone(zone))" }
            return text
        case .stepFinished(let result, _):
            var text = "\(result.step.title) done after \(formatClock(result.duration.seconds))"
            // No runner: no share of a zone nobody ran in.
            if let pct = result.inZonePercent, engine.source != .metronome {
                text += ": \(JSONValue.format(pct.rounded(toPlaces: 1)))% in zone"
            }
            if let cadence = result.averageCadence { text += ", avg \(Int(cadence.rounded())) spm" }
            if let hr = result.averageHeartRate { text += ", HR \(Int(hr.rounded()))" }
            return text
        case .feedbackChanged where engine.source == .metronome:
            // No runner: "no signal" is no sensor missing.
            return nil
        case .feedbackChanged(let feedback):
            // Log changes of advice, not every spm of it.
            let category: String =
                switch feedback {
                case .faster: "faster"
                case .slower: "slower"
                default: feedback.description
                }
            guard category != lastLoggedFeedback, feedback != .noZone else {
                if feedback != .noSignal { unloggedNoSignalSince = nil }
                return nil
            }
            if feedback == .noSignal, !sawReading {
                if unloggedNoSignalSince == nil { unloggedNoSignalSince = lastTime }
                return nil
            }
            if feedback != .noSignal { sawReading = true }
            unloggedNoSignalSince = nil
            lastLoggedFeedback = category
            return "  \(feedback)"
        case .applied(.pause): return "paused"
        case .applied(.resume): return "resumed"
        case .applied: return nil
        case .deviceEvent(let device, let name): return "\(devices.displayName(of: device)) \(name)"
        case .rejectedNotification(let device, let error):
            let key = "\(device) \(error.characteristicID)"
            guard rejectedWarnings.insert(key).inserted else { return nil }
            return "warning: ignored a bad value from \(devices.displayName(of: device)): \(error)"
        case .sessionFinished, .sample: return nil
        }
    }

    mutating func finish() {
        keyboard?.restore()
        if case .screen(let stream) = style {
            TerminalStop.screenHidesCursor(false)
            stream.region?.close()
            stream.write(LiveScreen.showCursor)
        }
        if let recorder {
            do {
                try recorder.close()
            } catch {
                // What a full disk still held, or what did not reach the disk: the recording is cut short.
                logger.warning("\(error)")
                self.recorder = nil
            }
        }
    }
}
