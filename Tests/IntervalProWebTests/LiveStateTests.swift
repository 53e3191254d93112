import IntervalProCore
import IntervalProLaunch
import IntervalProRuntime
@testable import IntervalProWeb
import Synchronization
import Testing

let ladder = """
    {"name": "Two steps", "steps": [
      {"kind": "warmup", "duration": 60, "cadence": 160},
      {"kind": "work", "duration": 120, "cadence": 172},
      {"kind": "cooldown", "duration": 60, "cadence": 158}
    ]}
    """

/// The same steps, short enough that every state of a fast run fits a reader's backlog
/// (alpha 1 adds a state every 5 s once two minutes have passed).
let shortLadder = """
    {"name": "Two steps", "steps": [
      {"kind": "warmup", "duration": 40, "cadence": 160},
      {"kind": "work", "duration": 60, "cadence": 172},
      {"kind": "cooldown", "duration": 40, "cadence": 158}
    ]}
    """

/// The same steps, an hour long: a session that is still running whenever a command reaches it.
let hourLadder = """
    {"name": "Two steps", "steps": [
      {"kind": "warmup", "duration": 600, "cadence": 160},
      {"kind": "work", "duration": 2400, "cadence": 172},
      {"kind": "cooldown", "duration": 600, "cadence": 158}
    ]}
    """

func request(speed: Double? = nil, fast: Bool = false, planText: String = ladder) throws -> SessionRequest {
    let plan = try PlanDecoder.decode(Array(planText.utf8), file: "two.json")
    var request = SessionRequest(
        plan: plan, planText: planText, planFile: "two.json", source: .simulate(.covering(plan.timeline())))
    request.speed = speed
    request.fast = fast
    request.audio = AudioChoice(mode: .off, noVoice: true)
    return request
}

/// Decoded states as the page reads them.
func states(_ texts: [String]) throws -> [JSONNode] { try texts.map { try JSONParser.parse($0) } }

@Suite struct LiveStateTests {
    @Test func anIdleHubSaysSoAndTakesNoCommands() throws {
        let hub = LiveStateHub()
        let state = try JSONParser.parse(hub.current)
        #expect(state["status"]?.stringValue == "idle")
        #expect(state["seq"]?.numberValue == 1)
        #expect(!hub.send(.pause))
    }

    /// Two phones tapping Next on the same step, or one tapping before it heard the step
    /// change, ended two steps.
    @Test func nextEndsTheStepItNamesOnce() {
        let hub = LiveStateHub()
        hub.sessionStarted(wake: nil)
        hub.publish([("status", .string("running"))], step: 2, of: 7)
        // A step past the plan's last was told it "already ended"; one not begun yet still is.
        #expect(hub.send(.next, endingStep: 99) == .noSuchStep(count: 7))
        #expect(hub.send(.next, endingStep: 2) == .queued)
        #expect(hub.send(.next, endingStep: 2) == .stepAlreadyEnded, "the second phone's tap")
        #expect(hub.takeCommands() == [.next])
        hub.publish([("status", .string("running"))], step: 3)
        #expect(hub.send(.next, endingStep: 2) == .stepAlreadyEnded, "a tap on the step that ended")
        #expect(hub.send(.next, endingStep: 3) == .queued)
        // Without a step (a script), as before.
        #expect(hub.send(.next, endingStep: nil) == .queued)
        #expect(hub.send(.pause, endingStep: nil) == .queued)
        #expect(hub.takeCommands() == [.next, .next, .pause])
        hub.sessionEnded()
        #expect(hub.send(.next, endingStep: 3) == .noSession)
    }

    /// Until its first state, a start answered 201 left the last session's state shown, and a
    /// command sent then was refused, "no session is running", and lost.
    @Test func aSessionAcceptedSaysSoAndKeepsTheCommandsSentBeforeItRuns() throws {
        let hub = LiveStateHub()
        hub.sessionStarted(wake: nil)
        hub.publish([("status", .string("finished")), ("sessionId", .int(41))], step: 3)
        hub.sessionEnded()
        hub.sessionAccepted(plan: "Tiny", steps: 4)
        let starting = try JSONParser.parse(hub.current)
        #expect(starting["status"]?.stringValue == "starting" && starting["plan"]?.stringValue == "Tiny")
        #expect(starting["sessionId"]?.isNull == true)
        #expect(hub.isRunning && hub.isStarting)
        #expect(hub.send(.next, endingStep: 5) == .noSuchStep(count: 4), "a step past the plan's last")
        #expect(hub.send(.next, endingStep: 1) == .queued, "the first step's Next")
        #expect(hub.send(.finish, endingStep: nil) == .queued)
        let rung = Mutex(false)
        hub.sessionStarted(wake: { rung.withLock { $0 = true } })
        #expect(rung.withLock { $0 }, "the runner is woken for what waits")
        #expect(hub.takeCommands() == [.next, .finish])
    }

    @Test func aSessionAcceptedThatDoesNotStartSaysWhy() throws {
        let hub = LiveStateHub()
        hub.sessionAccepted(plan: "Tiny", steps: 4)
        #expect(hub.send(.pause))
        hub.sessionNotStarted("no sensor found")
        let idle = try JSONParser.parse(hub.current)
        #expect(idle["status"]?.stringValue == "idle" && idle["notice"]?.stringValue == "no sensor found")
        #expect(!hub.isRunning && !hub.isStarting)
        #expect(hub.send(.pause, endingStep: nil) == .noSession)
        #expect(hub.takeCommands().isEmpty)
    }

    /// Deleting the session the summary shows left its id in the state, and every phone's
    /// Report link on a 404.
    @Test func aDeletedSessionIsNoLongerNamed() throws {
        let hub = LiveStateHub()
        let plan = try PlanDecoder.decode(Array(ladder.utf8), file: "two.json")
        let summary = SessionSummary(plan: plan.name, source: .simulation, steps: [], completed: true)
        hub.sessionFinished(summary, at: .seconds(240), sessionID: 5, notSaved: nil)
        hub.sessionDeleted(6)
        #expect(try JSONParser.parse(hub.current)["sessionId"]?.numberValue == 5)
        hub.sessionDeleted(5)
        let state = try JSONParser.parse(hub.current)
        #expect(state["sessionId"]?.isNull == true)
        #expect(state["status"]?.stringValue == "finished" && state["summary"] != nil)
    }

    /// The page's last line rounded the summary's tenths again: 151.5 (of 151.46) read 152
    /// where `show` said 151.
    @Test func theFinishedAveragesAreRoundedOnceFromTheExactFigures() throws {
        let hub = LiveStateHub()
        let step = TimelineStep(index: 0, kind: .work, end: .time(.seconds(100)))
        var result = StepResult(step: step)
        result.cadenceWeighted = 15_146
        result.cadenceTime = 100
        result.heartRateWeighted = 14_046
        result.heartRateTime = 100
        let summary = SessionSummary(plan: "One", source: .simulation, steps: [result], completed: true)
        hub.sessionFinished(summary, at: .seconds(100), sessionID: 1, notSaved: nil)
        let state = try JSONParser.parse(hub.current)
        #expect(state["summary"]?["totals"]?["avg_cadence_spm"]?.numberValue == 151.5)
        #expect(state["averageCadence"]?.numberValue == 151)
        #expect(state["averageHeartRate"]?.numberValue == 140)
    }

    /// A server's session on a full disk ended without a word to the phone: no id, no notice.
    @Test func aSessionNotSavedSaysSo() throws {
        let hub = LiveStateHub()
        let summary = SessionSummary(plan: "Two", source: .simulation, steps: [], completed: true)
        hub.sessionFinished(summary, at: .seconds(240), sessionID: nil, notSaved: "not saved: the disk is full")
        let state = try JSONParser.parse(hub.current)
        #expect(state["notice"]?.stringValue == "not saved: the disk is full")
        #expect(state["sessionId"]?.isNull == true)
    }

    /// A server's session whose saving stopped (a full disk) went on with notice null: the
    /// phone never heard it was not being saved.
    @Test func aNoticeForTheRunningSessionReachesThePage() async throws {
        let hub = LiveStateHub()
        let stream = hub.subscribe()
        hub.notice("not saved: the disk is full; the session goes on")
        _ = try await SessionLauncher.run(try request(fast: true, planText: shortLadder), follower: hub)
        hub.stop()
        var texts: [String] = []
        for await text in stream { texts.append(text) }
        let running = try states(texts).filter { $0["status"]?.stringValue == "running" }
        #expect(!running.isEmpty)
        #expect(running.contains { $0["notice"]?.stringValue == "not saved: the disk is full; the session goes on" })
    }

    /// Phones' sockets closing while a fast replay published: the hub's lock was held across
    /// `yield`, which takes the reader task's lock, held in turn by a cancelled reader's
    /// `onTermination` waiting for the hub's lock. Every route hung until SIGKILL.
    @Test(.timeLimit(.minutes(1)))
    func readersLeavingWhileStatesArePublishedNeverStopTheHub() async throws {
        let hub = LiveStateHub()
        let publisher = Task.detached {
            for i in 0..<200_000 where !Task.isCancelled { hub.notice("state \(i)") ; hub.publish([("status", .string("running"))]) }
        }
        for _ in 0..<3_000 {
            let reader = Task { for await _ in hub.subscribe() {} }
            await Task.yield()
            reader.cancel()
        }
        publisher.cancel()
        await publisher.value
        #expect(hub.current.contains("running"))
    }

    @Test func aSessionPublishesEveryStateInOrderAndEndsWithItsSummary() async throws {
        let hub = LiveStateHub()
        let stream = hub.subscribe()
        let outcome = try await SessionLauncher.run(try request(fast: true, planText: shortLadder), follower: hub)
        hub.stop()
        var texts: [String] = []
        for await text in stream { texts.append(text) }
        let all = try states(texts)
        let seqs = all.compactMap { $0["seq"]?.numberValue }
        #expect(seqs == Array(1...seqs.count).map(Double.init), "no state is skipped")
        #expect(all.first?["status"]?.stringValue == "idle")
        let running = all.filter { $0["status"]?.stringValue == "running" }
        // Each step is shown, in order, with its number and title.
        let numbers = running.compactMap { $0["step"]?["number"]?.numberValue }
        #expect(Set(numbers) == [1, 2, 3])
        #expect(numbers == numbers.sorted())
        // Each step's first state is its start: the whole step left.
        var firstLeft: [Double: Double] = [:]
        for state in running {
            guard let number = state["step"]?["number"]?.numberValue, firstLeft[number] == nil else { continue }
            firstLeft[number] = state["step"]?["timeLeft"]?.numberValue
        }
        #expect(firstLeft == [1: 40, 2: 60, 3: 40])
        let last = try #require(all.last)
        #expect(last["status"]?.stringValue == "finished")
        #expect(last["sessionTime"]?.numberValue == outcome.summary.duration.seconds)
        let summaryPercent = last["summary"]?["totals"]?["in_zone_pct"]?.numberValue
        #expect(summaryPercent == outcome.summary.inZonePercent.map { $0.rounded(toPlaces: 2) })
        #expect(!hub.isRunning)
        #expect(!hub.send(.next), "a finished session takes no commands")
    }

    @Test func commandsFromTheHubReachTheRunningSession() async throws {
        let hub = LiveStateHub()
        let stream = hub.subscribe()
        // An hour of plan at 20x: three minutes at most, so that a reader starved by a loaded
        // machine still sends its pause while the session runs (240 s of plan, 12 s at 20x,
        // once ended before the reader's pause reached it). Finish ends it within seconds.
        let session = Task { try await SessionLauncher.run(try request(speed: 20, planText: hourLadder), follower: hub) }
        var sentPause = false
        var pausedAt: Double?
        var sawPausedHold = false
        for await text in stream {
            let state = try JSONParser.parse(text)
            guard state["status"]?.stringValue == "running" else {
                if state["status"]?.stringValue == "finished" { break }
                continue
            }
            let time = try #require(state["sessionTime"]?.numberValue)
            if !sentPause {
                #expect(hub.send(.pause))
                sentPause = true
            } else if !sawPausedHold, case .bool(true) = state["paused"]?.kind {
                // Finish is sent once: a reader that lags (a loaded machine) still has paused
                // states queued after it, published before the session took the command.
                if let pausedAt {
                    #expect(time == pausedAt, "the session's clock stops while paused")
                    sawPausedHold = true
                    #expect(hub.send(.finish))
                } else {
                    pausedAt = time
                    // A second paused state comes with the next refresh or reading.
                }
            }
        }
        let outcome = try await session.value
        #expect(sawPausedHold || pausedAt != nil)
        #expect(!outcome.summary.completed, "finished from the hub before the plan's end")
        #expect(outcome.summary.duration < .seconds(3_600))
    }

    @Test func aViewShownTheSameIsNotAChange() throws {
        let plan = try PlanDecoder.decode(Array(ladder.utf8), file: "two.json")
        var engine = SessionEngine(plan: plan, source: .simulation)
        _ = engine.handle(.tick, now: .zero)
        _ = engine.handle(.tick, now: .seconds(1.2))
        let a = SessionView(engine, at: .seconds(1.2))
        _ = engine.handle(.tick, now: .seconds(1.7))
        let b = SessionView(engine, at: .seconds(1.7))
        _ = engine.handle(.tick, now: .seconds(2.1))
        let c = SessionView(engine, at: .seconds(2.1))
        #expect(a.sameShown(as: b), "within the same second and nothing else changed")
        #expect(!a.sameShown(as: c), "the countdown moved a second")
        #expect(a.step?.secondsLeft == 59)
        #expect(c.step?.secondsLeft == 58)
        #expect(c.runTime == .seconds(2.1))
    }
}
