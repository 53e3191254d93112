import IntervalProCore
import IntervalProSound
import Testing

@Suite("AudioDirector: what plays when")
struct AudioDirectorTests {
    typealias Item = AudioDirector.Item
    typealias Scheduled = AudioDirector.Scheduled

    static let timeline = [
        TimelineStep(index: 0, kind: .warmup, end: .time(.seconds(30))),
        TimelineStep(
            index: 1, kind: .work, repetition: .init(number: 3, count: 8), end: .time(.seconds(60)),
            zone: CadenceZone(target: 170, tolerance: 5)),
        TimelineStep(index: 2, kind: .rest, end: .time(.seconds(20)), zone: CadenceZone(target: 150, tolerance: 5)),
    ]

    /// A step's result, run out of zone at 140 spm throughout.
    func result(_ index: Int, _ seconds: Int) -> StepResult {
        var result = StepResult(step: Self.timeline[index])
        result.duration = .seconds(seconds)
        result.cadenceTime = result.duration.microseconds
        result.cadenceWeighted = 140 * result.cadenceTime
        return result
    }

    func summary(completed: Bool = true) -> SessionSummary {
        SessionSummary(plan: "p", source: .replay, steps: [result(0, 30), result(1, 60), result(2, 20)], completed: completed)
    }

    /// Runs the three steps on time, with extra actions between.
    func run(
        _ settings: MetronomeSettings, extra: [(Int, [SessionEngine.Action])] = []
    ) -> [Scheduled] {
        var director = AudioDirector(settings: settings, timeline: Self.timeline)
        var batches: [(Int, [SessionEngine.Action])] = [
            (0, [.stepStarted(Self.timeline[0], at: .zero)]),
            (30, [.stepFinished(result(0, 30), at: .seconds(30)), .stepStarted(Self.timeline[1], at: .seconds(30))]),
            (90, [.stepFinished(result(1, 60), at: .seconds(90)), .stepStarted(Self.timeline[2], at: .seconds(90))]),
            (110, [.stepFinished(result(2, 20), at: .seconds(110)), .sessionFinished(summary())]),
        ]
        batches += extra
        batches.sort { $0.0 < $1.0 }
        var items: [Scheduled] = []
        for (time, actions) in batches {
            director.perform(actions, at: .seconds(time))
            items += director.take(upTo: .seconds(time))
        }
        return items + director.takeAll()
    }

    func at(_ seconds: Double, _ item: Item) -> Scheduled { Scheduled(time: .seconds(seconds), item: item) }

    @Test func clicksFollowTheStepsAndVoiceAnnouncesThem() {
        let items = run(MetronomeSettings())
        let expected: [Scheduled] = [
            at(0, .silence), at(0, .cue(.step(Self.timeline[0]))),
            at(20, .cue(.step(Self.timeline[1]))),
            at(27, .cue(.count(3))), at(28, .cue(.count(2))), at(29, .cue(.count(1))),
            at(30, .clicksAudible(true)), at(30, .tempo(spm: 170, pattern: .plain)),
            at(60, .cue(.halfway)),
            at(80, .cue(.step(Self.timeline[2]))),
            at(87, .cue(.count(3))), at(88, .cue(.count(2))), at(89, .cue(.count(1))),
            at(90, .clicksAudible(true)), at(90, .tempo(spm: 150, pattern: .plain)),
            at(110, .silence), at(110, .cue(.summary(inZonePercent: 0, completed: true))),
        ]
        #expect(items == expected)
    }

    @Test func noVoiceAndAccents() {
        var settings = MetronomeSettings()
        settings.voice = false
        settings.accent = .stepStart
        #expect(run(settings) == [
            at(0, .silence),
            at(30, .clicksAudible(true)), at(30, .tempo(spm: 170, pattern: .accentFirst)),
            at(90, .clicksAudible(true)), at(90, .tempo(spm: 150, pattern: .accentFirst)),
            at(110, .silence),
        ])
        settings.accent = .alternate
        settings.mode = .off
        #expect(run(settings) == [at(0, .silence), at(30, .silence), at(90, .silence), at(110, .silence)])
    }

    /// With step-start accents, a step begun while paused (next, during a pause) clicked its
    /// first beat plain on resume; one paused after its first click resumes plain.
    @Test func aStepBegunWhilePausedAccentsItsFirstClick() {
        var settings = MetronomeSettings()
        settings.voice = false
        settings.accent = .stepStart
        var director = AudioDirector(settings: settings, timeline: Self.timeline)
        director.perform([.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        director.perform([.applied(.pause)], at: .seconds(5))
        director.perform([.stepFinished(result(0, 7), at: .seconds(7)), .stepStarted(Self.timeline[1], at: .seconds(7))], at: .seconds(7))
        director.perform([.applied(.resume)], at: .seconds(9))
        director.perform([.applied(.pause)], at: .seconds(20))
        director.perform([.applied(.resume)], at: .seconds(25))
        let tempos = director.takeAll().filter { if case .tempo = $0.item { true } else { false } }
        #expect(tempos == [at(9, .tempo(spm: 170, pattern: .accentFirst)), at(25, .tempo(spm: 170, pattern: .plain))])
    }

    @Test func coachingWaitsForItsGraceRepeatsAfterItsCooldownAndStopsInZone() {
        var settings = MetronomeSettings()
        settings.mode = .offTarget
        let items = run(settings, extra: [
            (31, [.feedbackChanged(.inZone)]),
            (40, [.feedbackChanged(.faster(6))]),
            (41, [.feedbackChanged(.faster(7))]),
            (75, [.feedbackChanged(.inZone)]),
        ]).filter { $0.time > .seconds(30) && $0.time < .seconds(90) }
        #expect(items == [
            at(45, .clicksAudible(true)),  // 40 + 5 s grace
            at(50, .cue(.faster(7))),  // 40 + 10 s grace, the latest advice
            at(60, .cue(.halfway)),
            at(70, .cue(.faster(7))),  // 20 s cooldown
            at(75, .clicksAudible(false)),
            at(80, .cue(.step(Self.timeline[2]))),
            at(87, .cue(.count(3))), at(88, .cue(.count(2))), at(89, .cue(.count(1))),
        ])
        // In off-target mode each targeted step starts muted.
        #expect(run(settings).contains(at(30, .clicksAudible(false))))
    }

    /// A cooldown of 0 repeated the cue at the same instant without end (the session died out
    /// of memory); one under a cue's length queued cues behind each other for hours.
    @Test(arguments: [0.0, 0.001, 1.0])
    func aCooldownShorterThanACueIsTheShortest(cooldown: Double) {
        var settings = MetronomeSettings()
        settings.coachingCooldown = .seconds(cooldown)
        let items = run(settings, extra: [(40, [.feedbackChanged(.faster(6))]), (56, [.feedbackChanged(.inZone)])])
        let coaching = items.filter { $0.item == .cue(.faster(6)) }.map(\.time)
        #expect(coaching == [.seconds(50), .seconds(53), .seconds(56)], "\(coaching)")
    }

    /// A step of the grace plus whole cooldowns, run out of zone: its last reminder fell on its
    /// end and was spoken 13 ms into the next step, in zone or a rest without a target.
    @Test func aReminderDueAsTheStepEndsIsNotSpokenInTheNext() {
        let items = run(MetronomeSettings(), extra: [(40, [.feedbackChanged(.faster(6))])])
        let coaching = items.filter { $0.item == .cue(.faster(6)) }.map(\.time)
        #expect(coaching == [.seconds(50), .seconds(70)], "\(coaching)")
    }

    /// A cue due just before the countdown was spoken inside it, "three, two, faster six more,
    /// one", and "one" came late. The work step's countdown begins at 87 s.
    @Test(arguments: [(75.0, [85.0]), (76.0, [])])
    func noCoachingCueRunsIntoTheCountdown(outOfZoneAt: Double, spokenAt: [Double]) {
        let items = run(MetronomeSettings(), extra: [(Int(outOfZoneAt), [.feedbackChanged(.faster(6))])])
        let coaching = items.filter { $0.item == .cue(.faster(6)) }.map(\.time)
        #expect(coaching == spokenAt.map { .seconds($0) }, "\(coaching)")
    }

    @Test func aReminderDueInTheCountdownIsNotSpoken() {
        var settings = MetronomeSettings()
        settings.coachingCooldown = .seconds(18)
        let items = run(settings, extra: [(40, [.feedbackChanged(.faster(6))])])
        let coaching = items.filter { $0.item == .cue(.faster(6)) }.map(\.time)
        #expect(coaching == [.seconds(50), .seconds(68)], "86 s is inside the countdown's quiet: \(coaching)")
        #expect(items.filter { if case .cue(.count) = $0.item { true } else { false } }.count == 6)
    }

    @Test func backInZoneBeforeTheGraceCancelsEverything() {
        var settings = MetronomeSettings()
        settings.mode = .offTarget
        let items = run(settings, extra: [(40, [.feedbackChanged(.slower(4))]), (44, [.feedbackChanged(.inZone)])])
        #expect(!items.contains { $0.item == .clicksAudible(true) || $0.item == .cue(.slower(4)) })
    }

    @Test func pauseSilencesAndResumeMovesTheCountdown() {
        var director = AudioDirector(settings: MetronomeSettings(), timeline: Self.timeline)
        director.perform([.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        director.perform([.stepFinished(result(0, 30), at: .seconds(30)), .stepStarted(Self.timeline[1], at: .seconds(30))], at: .seconds(30))
        director.perform([.applied(.pause)], at: .seconds(40))
        director.perform([.applied(.resume)], at: .seconds(50))
        // The batch arrives late (100.2 s): the boundary is the time the actions carry.
        director.perform(
            [.stepFinished(result(1, 60), at: .seconds(100)), .stepStarted(Self.timeline[2], at: .seconds(100))],
            at: .seconds(100.2))
        let items = director.takeAll().filter { $0.time > .seconds(30) }
        // 10 s of pause: the work step ends at 100 instead of 90.
        #expect(items == [
            at(40, .silence),
            at(50, .tempo(spm: 170, pattern: .plain)),
            at(70, .cue(.halfway)),
            at(90, .cue(.step(Self.timeline[2]))),
            at(97, .cue(.count(3))), at(98, .cue(.count(2))), at(99, .cue(.count(1))),
            at(100, .clicksAudible(true)), at(100, .tempo(spm: 150, pattern: .plain)),
        ])
    }

    /// Paused counted as out of zone: 5 s out of zone, a pause, and the coaching came the
    /// moment the runner resumed.
    @Test func aPauseIsNotTimeOutOfZone() {
        var director = AudioDirector(settings: MetronomeSettings(), timeline: Self.timeline)
        director.perform([.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        director.perform([.stepFinished(result(0, 30), at: .seconds(30)), .stepStarted(Self.timeline[1], at: .seconds(30))], at: .seconds(30))
        director.perform([.feedbackChanged(.faster(6))], at: .seconds(35))
        director.perform([.applied(.pause)], at: .seconds(40))
        director.perform([.applied(.resume)], at: .seconds(70))
        director.perform([.stepFinished(result(1, 60), at: .seconds(120)), .sessionFinished(summary())], at: .seconds(120))
        let coaching = director.takeAll().filter { $0.item == .cue(.faster(6)) }.map(\.time)
        #expect(coaching.first == .seconds(75), "5 s out of zone before the pause, 5 after: \(coaching)")
    }

    /// 99.5 % was spoken as "100 percent in zone"; 0.4 % as none.
    @Test(arguments: [(99.5, 99), (99.4, 99), (100, 100), (0.4, 1), (0, 0), (50.5, 51)])
    func theSummarysPercentIsWholeButNeverAllOrNoneWhenNotSo(exact: Double, spoken: Int) {
        var director = AudioDirector(settings: MetronomeSettings(), timeline: Self.timeline)
        var work = result(1, 200)
        work.inZone = .seconds(exact * 2)
        director.perform([.stepStarted(Self.timeline[1], at: .zero)], at: .zero)
        director.perform([.stepFinished(work, at: .seconds(200)), .sessionFinished(SessionSummary(plan: "p", source: .replay, steps: [work], completed: true))], at: .seconds(200))
        #expect(director.takeAll().contains { $0.item == .cue(.summary(inZonePercent: spoken, completed: true)) })
    }

    /// With no runner (`render-audio` without one) or a footpod that never spoke, no cadence
    /// came: "0 percent in zone" judged a runner who was not there.
    @Test func noCadenceAtAllEndsWithoutAPercent() {
        var director = AudioDirector(settings: MetronomeSettings(), timeline: Self.timeline)
        var work = StepResult(step: Self.timeline[1])
        work.duration = .seconds(60)
        work.noSignal = .seconds(60)
        director.perform([.stepStarted(Self.timeline[1], at: .zero)], at: .zero)
        let summary = SessionSummary(plan: "p", source: .simulation, steps: [work], completed: true)
        #expect(summary.inZonePercent == 0)
        director.perform([.stepFinished(work, at: .seconds(60)), .sessionFinished(summary)], at: .seconds(60))
        let cues = director.takeAll().filter { if case .cue(.summary) = $0.item { true } else { false } }
        #expect(cues == [at(60, .cue(.summary(inZonePercent: nil, completed: true)))])
        #expect(Cue.summary(inZonePercent: nil, completed: true).text(.en) == "Session complete.")
    }

    @Test func phrasesInEnglishAndSpanish() {
        let work = Self.timeline[1]
        #expect(Cue.step(work).text(.en) == "Work 3 of 8, 1 minute, cadence 170")
        #expect(Cue.step(work).text(.es) == "Trabajo 3 de 8, 1 minuto, cadencia 170")
        let long = TimelineStep(index: 0, kind: .warmup, label: "Easy", end: .time(.seconds(630)))
        #expect(Cue.step(long).text(.en) == "Warm-up, Easy, 10 minutes 30 seconds")
        #expect(Cue.step(long).text(.es) == "Calentamiento, Easy, 10 minutos y 30 segundos")
        let distance = TimelineStep(index: 0, kind: .rest, end: .distance(1500))
        #expect(Cue.step(distance).text(.en) == "Rest, 1.5 kilometres")
        #expect(Cue.step(distance).text(.es) == "Descanso, 1,5 kilómetros")
        #expect(Cue.faster(6).text(.en) == "Faster, 6 more")
        #expect(Cue.slower(4).text(.es) == "Más lento, 4 menos")
        #expect(Cue.summary(inZonePercent: 78, completed: true).text(.en) == "Session complete. 78 percent in zone.")
        #expect(Cue.summary(inZonePercent: nil, completed: false).text(.es) == "Sesión terminada.")
    }
}
