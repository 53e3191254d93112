import IntervalProCore
import IntervalProLaunch
import IntervalProIO
import Hummingbird

/// What the page asks of a session: a command for the running one, a new one to start.
extension WebServer {
    /// The commands the page sends, by their own names.
    static let commands = Dictionary(
        uniqueKeysWithValues: [UserCommand.pause, .resume, .next, .finish].map { ($0.rawValue, $0) })

    /// What a start request may say.
    static let startKeys = ["plan", "planned", "source", "recording", "speed", "metronome", "volume", "voice"]

    static func start(_ body: JSONNode, host: SessionHost, catalogue: WebCatalogue) async -> Response {
        if let refusal = unknownKey(in: body, taking: startKeys, "a start takes \(startKeys.joined(separator: ", "))") { return refusal }
        // A plan of the catalogue, or a run planned in intervals.icu (`run icu:ID`).
        let planID = body["plan"]?.stringValue
        let plannedID = body["planned"]?.stringValue
        for key in ["plan", "planned"] where body[key] != nil && body[key]?.stringValue == nil {
            return error(.badRequest, "'\(key)' must be a string (an id, as /api/plans and /api/today list them)")
        }
        guard (planID == nil) != (plannedID == nil) else {
            return error(.badRequest, "'plan' (a plan id) or 'planned' (an intervals.icu event id), one of them")
        }
        var entry: WebCatalogue.Entry?
        if let planID {
            guard let found = catalogue.plan(id: planID) else { return error(.notFound, "no plan '\(planID)'") }
            entry = found
        }
        guard let sourceName = body["source"]?.stringValue, let source = SessionHost.Source(rawValue: sourceName) else {
            return error(.badRequest, "'source' must be live, simulate, recording or metronome")
        }
        let sound: SessionHost.SoundChoice
        switch soundChoice(body) {
        case .failure(let refusal): return refusal.response
        case .success(let choice): sound = choice
        }
        var recording: WebCatalogue.Entry?
        if let recordingNode = body["recording"] {
            guard source == .recording else { return error(.badRequest, "'recording' goes with source recording") }
            guard let id = recordingNode.stringValue else { return error(.badRequest, "'recording' must be a recording id") }
            guard let found = catalogue.recording(id: id) else { return error(.notFound, "no recording '\(id)'") }
            recording = found
        } else if source == .recording {
            // The plan's own; not the first there is: another plan's recording scored against
            // this one reads as a runner who never found a zone, and was saved so.
            // Only an example has one: a plan of the user's named like an example was replayed
            // against the example's recording, its score saved.
            let stem = entry.flatMap { $0.folder == "examples" ? BundledFiles.stem(of: $0.path) : nil }
            guard let stem, let own = catalogue.recordings().first(where: { BundledFiles.stem(of: $0.path) == stem }) else {
                return error(.notFound, "no recording of this plan is bundled: choose one ('recording')")
            }
            recording = own
        }
        var speed: Double?
        if let speedNode = body["speed"] {
            guard source != .live, source != .metronome else { return error(.badRequest, "'speed' goes with simulate and recording") }
            guard let value = speedNode.numberValue, (1...100).contains(value) else {
                return error(.badRequest, "'speed' must be a number from 1 to 100")
            }
            speed = value
        }
        do throws(SessionHost.StartError) {
            if let entry {
                try host.start(plan: entry, source: source, recording: recording, speed: speed, sound: sound)
            } else {
                let loaded: (plan: Plan, text: String)
                do {
                    loaded = try await TodaysRuns.plan(event: plannedID!)
                } catch let failure as LaunchError {
                    return Self.error(failure, fromService: true)
                } catch {
                    return Self.error(.badGateway, "\(error)")
                }
                try host.start(loaded: loaded, planFile: "icu-\(plannedID!)", source: source, recording: recording, speed: speed, sound: sound)
            }
        } catch {
            switch error {
            case .notHere:
                return Self.error(.conflict, "this page shows the session `intervalpro run` started; `intervalpro serve` starts sessions")
            case .busy: return Self.error(.conflict, "a session, a measurement or a scan is running: finish it first")
            case .busyElsewhere(let session): return Self.error(.conflict, Self.recordedElsewhere(session))
            case .unreadable(let message): return Self.error(.unprocessableContent, message)
            }
        }
        return json(.created, #"{"started":true}"#)
    }

    /// Why nothing starts while `intervalpro run` records a session in another program: it has
    /// the sensors, and the page's idle view did not show it.
    static func recordedElsewhere(_ session: Int64) -> String {
        "session \(session) is being recorded by `intervalpro run` in another program (a terminal, ssh): it has the sensors; finish it there first"
    }

    /// `metronome` ("always", "off-target", "off"), `volume` (0 to 1) and `voice` ("en", "es",
    /// "off") of a start request, each optional.
    static func soundChoice(_ body: JSONNode) -> Result<SessionHost.SoundChoice, BodyError> {
        var choice = SessionHost.SoundChoice()
        if let node = body["metronome"] {
            guard let mode = node.stringValue.flatMap(MetronomeMode.init(rawValue:)) else {
                return .failure(BodyError(response: error(.badRequest, "'metronome' must be always, off-target or off")))
            }
            choice.metronome = mode
        }
        if let node = body["volume"] {
            guard let value = node.numberValue, (0...1).contains(value) else {
                return .failure(BodyError(response: error(.badRequest, "'volume' must be a number from 0 to 1")))
            }
            choice.volume = value
        }
        if let node = body["voice"] {
            switch node.stringValue {
            case "off": choice.noVoice = true
            case let name?:
                guard let language = CueLanguage(rawValue: name) else {
                    return .failure(BodyError(response: error(.badRequest, "'voice' must be en, es or off")))
                }
                choice.voice = language
            case nil: return .failure(BodyError(response: error(.badRequest, "'voice' must be en, es or off")))
            }
        }
        return .success(choice)
    }

    /// `POST /api/command`: a command for the running session.
    static func command(_ body: JSONNode, hub: LiveStateHub) -> Response {
        guard let name = body["command"]?.stringValue, let command = Self.commands[name] else {
            return Self.error(.badRequest, "'command' must be one of pause, resume, next, finish")
        }
        // `step`: the number of the step a `next` ends, as the page showed it.
        var endingStep: Int?
        if let stepNode = body["step"] {
            guard command == .next else { return Self.error(.badRequest, "'step' goes with next: the number of the step it ends") }
            guard let number = stepNode.numberValue, number >= 1, number == number.rounded(), number <= 1e9 else {
                return Self.error(.badRequest, "'step' must be a whole number from 1: the number of the step next ends")
            }
            endingStep = Int(number)
        }
        switch hub.send(command, endingStep: endingStep) {
        case .noSession: return Self.error(.conflict, "no session is running")
        case .notDuringMeasurement:
            return Self.error(.conflict, "a readiness measurement is running: finish cancels it, and it takes no other command")
        case .noSuchStep(let count):
            return Self.error(.badRequest, "'step' \(endingStep ?? 0) is past the plan's last: it has \(count)")
        case .stepAlreadyEnded:
            // Not an error for the page: the runner's wish, that step over, is done.
            return Self.json(.ok, JSONValue.object([("accepted", .string(name)), ("stepAlreadyEnded", .bool(true))]).serialized(pretty: false))
        case .queued:
            return Self.json(.accepted, JSONValue.object([("accepted", .string(name))]).serialized(pretty: false))
        }
    }
}
