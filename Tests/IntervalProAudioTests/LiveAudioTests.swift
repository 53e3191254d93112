import Foundation
import Glibc
import IntervalProCore
import IntervalProSound
import Testing

@testable import IntervalProAudio

/// Live playback on a device the test paces: a FIFO it reads as a sound card plays, on the
/// session's virtual time. A stall is session time going on while nothing is read (the
/// process stopped: the card played silence, which never reaches the FIFO).
@Suite("LiveAudio: a device that falls behind", .serialized)
final class LiveAudioTests {
    static let rate = 8_000
    static let timeline = [
        TimelineStep(index: 0, kind: .warmup, end: .time(.seconds(10))),
        TimelineStep(index: 1, kind: .work, end: .time(.seconds(60)), zone: CadenceZone(target: 170, tolerance: 5)),
    ]

    let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("paced-\(UUID().uuidString)").path
    let reader: Int32
    let engine = SessionEngine(planName: "p", timeline: LiveAudioTests.timeline, source: .simulation)
    var warnings: [String] = []
    /// Frames the card has played: those read, and the silence of a stall.
    var played = 0
    /// The session time at which the card played each click's first loud sample.
    var clicksHeardAt: [SessionTime] = []
    var quietFrames = 1_000_000
    var workStarted = false
    /// A card that stopped taking sound: nothing more is read.
    var cardStopped = false
    /// When the card first waited in vain for samples.
    var starvedAt: SessionTime?

    init() throws {
        #expect(alsaConfigured)
        #expect(mkfifo(fifo, 0o600) == 0)
        reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        // A small pipe, so that what the device holds is a fraction of a second (1031: F_SETPIPE_SZ).
        _ = fcntl(reader, 1031, 4_096)
        setenv("INTERVALPRO_TEST_PACED", fifo, 1)
        signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        close(reader)
        unlink(fifo)
    }

    /// - Parameter speaking: with English cues, else clicks alone.
    func makeAudio(_ settings: MetronomeSettings = MetronomeSettings(), speaking: Bool = false) throws -> (LiveAudio, AudioPlayer) {
        let player = try AudioPlayer(
            device: "intervalpro_paced", request: AudioFormatRequest(sampleRate: Self.rate, channels: 1), volume: 1)
        let voice = speaking ? try CueVoice(language: .en, outputRate: Self.rate) : nil
        let audio = LiveAudio(settings: settings, timeline: Self.timeline, player: player, voice: voice) { [self] in
            warnings.append($0)
        }
        return (audio, player)
    }

    /// Stops the card at session time `time` and calls in until the device is said to take no
    /// sound: once the thread has not moved for its buffer and 2 s (wall time: a stall's burst
    /// of calls must not count), within 4 s. Returns the session time reached.
    func stopTheCard(_ audio: LiveAudio, at time: Double) -> Double {
        cardStopped = true
        var time = time
        for _ in 0..<40 where warnings.isEmpty {
            time += 0.25
            audio.refresh(engine, at: .seconds(time))
            usleep(100_000)
        }
        return time
    }

    /// Plays (reads) the device up to session time `time`, calling in every 250 ms as a run does.
    func run(_ audio: LiveAudio, from start: Double, to end: Double) {
        var time = start
        while time < end, starvedAt == nil {
            time = min(end, time + 0.25)
            audio.refresh(engine, at: .seconds(time))
            if time >= 10, !workStarted {
                workStarted = true
                var result = StepResult(step: Self.timeline[0])
                result.duration = .seconds(10)
                audio.engine(engine, performed: [.stepFinished(result, at: .seconds(10)), .stepStarted(Self.timeline[1], at: .seconds(10))], at: .seconds(time))
            }
            play(upTo: .seconds(time))
        }
    }

    /// Reads what the card has played by session time `time`.
    func play(upTo time: SessionTime) {
        let target = Int(time.microseconds) * Self.rate / 1_000_000
        var buffer = [Int16](repeating: 0, count: 1_024)
        while played < target, !cardStopped {
            var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 2_000) > 0 else {
                starvedAt = starvedAt ?? time
                return
            }
            let wanted = min(buffer.count, target - played)
            let bytes = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress!, wanted * 2) }
            guard bytes > 0 else { return }
            for i in 0..<(bytes / 2) {
                if abs(Int(buffer[i])) > 200 {
                    if quietFrames > 400 { clicksHeardAt.append(time - .seconds(Double(target - played - i) / Double(Self.rate))) }
                    quietFrames = 0
                } else {
                    quietFrames += 1
                }
            }
            played += bytes / 2
        }
    }

    /// A stall of 5 s at 4 s: without a skip, every click after it sounded 5 s late.
    @Test func afterAStallTheClicksAreOnTimeAgain() throws {
        let (audio, player) = try makeAudio()
        audio.engine(engine, performed: [.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        play(upTo: .zero)
        run(audio, from: 0, to: 4)
        // Stopped for 5 s: session time goes on, and the card plays 5 s of silence, none of it
        // from the FIFO.
        let playedBefore = played
        played += 5 * Self.rate
        run(audio, from: 9, to: 20)
        let first = try #require(clicksHeardAt.first)
        // The device plays session time `startDelay` late, give or take what it holds.
        let late = first - .seconds(10) - LiveAudio.startDelay
        #expect(abs(late.seconds) < 0.3, "the step's first click, due at 10.5 s, was heard at \(first.seconds) s")
        #expect(player.skippedFrames > 4 * Int64(Self.rate), "\(player.skippedFrames)")
        #expect(playedBefore > 3 * Self.rate)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(starvedAt == nil)
        audio.finish()
    }

    /// After Ctrl-Z the readings that waited are taken in a burst: session time ran on 3 s
    /// before the render thread had a turn, and the device was taken for a dead one.
    @Test func aBurstOfSessionTimeAfterAStallIsNotADeadDevice() throws {
        let (audio, player) = try makeAudio()
        audio.engine(engine, performed: [.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        run(audio, from: 0, to: 4)
        // Stopped from 4 s to 12 s: the card played silence all along, and the calls for
        // 9 s to 12 s come at once.
        played += 8 * Self.rate
        for k in 1...12 { audio.refresh(engine, at: .seconds(9 + 0.25 * Double(k))) }
        #expect(warnings.isEmpty, "\(warnings)")
        run(audio, from: 12, to: 16)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(player.lostStatus == nil)
        #expect(starvedAt == nil)
        #expect(player.skippedFrames > 4 * Int64(Self.rate), "\(player.skippedFrames)")
        audio.finish()
    }

    /// A device that stopped taking sound was said only once the session ended. It is said
    /// as it happens, and again when it takes sound again (a headset reconnected).
    @Test func aDeviceThatStopsTakingSoundIsSaidAtOnceAndAgainWhenItTakesSoundAgain() throws {
        let (audio, player) = try makeAudio()
        audio.engine(engine, performed: [.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        run(audio, from: 0, to: 4)
        #expect(warnings.isEmpty)
        let time = stopTheCard(audio, at: 4)
        #expect(warnings == [
            "audio device 'intervalpro_paced' stopped taking sound; the session goes on, and its sound with it if the device takes it again"
        ])
        #expect(player.lostStatus == nil)
        // The card plays again, from the session's present.
        cardStopped = false
        played = Int(time * Double(Self.rate))
        run(audio, from: time, to: time + 3)
        #expect(warnings.count == 2 && warnings.last == "audio device 'intervalpro_paced' takes sound again", "\(warnings)")
        #expect(starvedAt == nil)
        audio.finish()
        #expect(warnings.count == 2)
    }

    /// The music was ducked for every cue after the device stopped taking sound: cues the
    /// runner could not hear.
    @Test func theCuesOfADeviceThatTakesNoSoundDuckNoMusic() throws {
        let (audio, _) = try makeAudio(speaking: true)
        var sent: [SessionTime] = []
        audio.cueSent = { soundsAt, _ in sent.append(soundsAt) }
        audio.engine(engine, performed: [.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        run(audio, from: 0, to: 4)
        #expect(sent.count >= 1, "the warm-up's cue, played")
        let time = stopTheCard(audio, at: 4)
        #expect(warnings.count == 1, "\(warnings)")
        // Those sent before it was said (the countdown to 10 s, sent ahead) stand; the work
        // step's cue at 10 s goes to a device that plays nothing.
        let sentBefore = sent.count
        run(audio, from: time, to: max(time, 10) + 2)
        #expect(workStarted)
        #expect(sent.count == sentBefore, "ducked for \(sent.dropFirst(sentBefore))")
        audio.finish()
    }

    /// With no grace and the shortest cooldown, reminders due while the step's cue spoke
    /// waited for it and then spoke back to back, 1.7 s apart: "the least seconds between two
    /// coaching cues" was 3 s only on paper.
    @Test func remindersDueWhileACueSpeaksDoNotPileUpBehindIt() throws {
        var settings = MetronomeSettings()
        settings.coachingGrace = .zero
        settings.coachingCooldown = .zero
        let (audio, _) = try makeAudio(settings, speaking: true)
        var sent: [SessionTime] = []
        audio.cueSent = { soundsAt, _ in sent.append(soundsAt) }
        audio.engine(engine, performed: [.stepStarted(Self.timeline[1], at: .zero), .feedbackChanged(.faster(20))], at: .zero)
        run(audio, from: 0, to: 9.5)
        // The step's cue, then reminders no closer than the shortest cooldown.
        #expect(sent.count >= 3, "\(sent)")
        let reminders = sent.dropFirst()
        for (earlier, later) in zip(reminders, reminders.dropFirst()) {
            #expect((later - earlier).seconds >= AudioDirector.shortestCoachingCooldown.seconds - 0.001, "\(sent)")
        }
        audio.finish()
    }

    /// The summary waited 12 s for a device that took nothing: the whole limit, then a stop.
    /// Here the limit is a minute; not waiting for it is what is checked, not a speed.
    @Test func aDeviceThatStopsTakingSoundIsNotWaitedForAtTheEnd() throws {
        let (audio, player) = try makeAudio()
        audio.engine(engine, performed: [.stepStarted(Self.timeline[0], at: .zero)], at: .zero)
        run(audio, from: 0, to: 4)
        var result = StepResult(step: Self.timeline[0])
        result.duration = .seconds(4)
        let summary = SessionSummary(plan: "p", source: .simulation, steps: [result], completed: false)
        audio.engine(engine, performed: [.stepFinished(result, at: .seconds(4)), .sessionFinished(summary)], at: .seconds(4))
        cardStopped = true
        let started = ContinuousClock.now
        audio.finish(waitingUpTo: .seconds(60))
        let waited = started.duration(to: .now)
        #expect(waited < .seconds(30), "\(waited)")
        #expect(player.lostStatus == .stalled)
        #expect(warnings == ["audio device 'intervalpro_paced' was lost (it stopped taking sound); what it had still to play was left"])
    }
}
