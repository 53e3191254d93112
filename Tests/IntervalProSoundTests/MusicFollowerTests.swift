import IntervalProSound
import Testing

let vlc = "org.mpris.MediaPlayer2.vlc"
let spotify = "org.mpris.MediaPlayer2.spotify"

func ms(_ value: Int) -> Duration { .milliseconds(value) }

/// Drives a follower as its event loop would: each event at its time, and `.tick` at every
/// deadline in between; what it did, with when.
struct Drive {
    var follower: MusicFollower
    var now = Duration.zero
    var log: [(at: Duration, action: MusicFollower.Action)] = []

    init(_ settings: MusicFollower.Settings = .init()) {
        follower = MusicFollower(settings: settings)
    }

    mutating func run(until end: Duration) {
        while let deadline = follower.nextDeadline, deadline <= end {
            now = deadline
            record(follower.handle(.tick, now: deadline))
        }
        now = max(now, end)
    }

    mutating func send(_ event: MusicFollower.Event, at time: Duration) {
        run(until: time)
        now = time
        record(follower.handle(event, now: time))
    }

    private mutating func record(_ actions: [MusicFollower.Action]) {
        for action in actions { log.append((now, action)) }
    }

    var volumeSets: [(at: Duration, value: Double)] {
        log.compactMap { if case .setVolume(_, let value) = $0.action { ($0.at, value) } else { nil } }
    }
}

func player(_ busName: String, _ status: MusicPlayer.Status, volume: Double? = 0.8, writable: Bool = true) -> MusicPlayer {
    MusicPlayer(busName: busName, status: status, volume: volume, volumeWritable: writable, title: "Song", artist: "Band")
}

@Suite struct MusicFollowerTests {
    @Test func autoFollowsThePlayerThatPlays() {
        var drive = Drive()
        drive.send(.found(player(vlc, .paused)), at: .zero)
        #expect(drive.follower.chosen == nil)
        drive.send(.found(player(spotify, .playing)), at: .zero)
        #expect(drive.follower.chosen == spotify)
        #expect(drive.follower.chosenPlayer?.nowPlaying == "Band – Song")
        var named = Drive(.init(choice: .named("vlc")))
        named.send(.found(player(spotify, .playing)), at: .zero)
        named.send(.found(player(vlc + ".instance42", .paused)), at: .zero)
        #expect(named.follower.chosen == vlc + ".instance42")
        // Typed as its whole bus name (`busctl --user list`), it was taken and matched nothing.
        #expect(MusicFollower.Choice(typed: "org.mpris.MediaPlayer2.vlc") == .named("vlc"))
        #expect(MusicFollower.Choice(typed: "vlc") == .named("vlc") && MusicFollower.Choice(typed: "auto") == .auto)
    }

    @Test func thePlayersEchoDuringARampIsNotSetAgain() {
        var drive = Drive(.init(duck: 0.3))
        drive.send(.found(player(vlc, .playing, volume: 0.77)), at: .zero)
        drive.send(.cue(start: .seconds(5), end: .seconds(7)), at: .seconds(4))
        // Each Set on the ramp down comes back as the player's change 1 ms later, as over D-Bus.
        var echoes = 0
        while let deadline = drive.follower.nextDeadline, deadline < .seconds(5) {
            drive.run(until: deadline)
            guard let last = drive.volumeSets.last, last.at == deadline else { continue }
            let before = drive.volumeSets.count
            drive.send(.changed(busName: vlc, MusicPlayerChange(volume: last.value)), at: deadline + ms(1))
            #expect(drive.volumeSets.count == before, "the echo of \(last.value) at \(deadline) was set again")
            echoes += 1
        }
        #expect(echoes >= 3)
        #expect(drive.volumeSets.count == echoes)
        #expect(abs((drive.volumeSets.last?.value ?? 0) - 0.77 * 0.3) < 1e-9)
    }

    /// A player that reports each Set on its own main loop, 120 ms later, after the ramp's next
    /// Set: each late echo was taken for the user's hand ("changed by hand; left as it is"),
    /// the volume was never put back and every cue left it lower (0.8 to 0.03 in 20 s).
    /// A player keeps its volume in steps and reports the step: a hundredth, VLC's 256ths, a
    /// twentieth. 0.688 echoed as 0.69 was taken for the user's hand, and every cue ducked
    /// from the duck before: the music ended at 0.11.
    @Test(arguments: [0.0, 0.01, 1.0 / 256, 0.05])
    func lateEchoesAreNotTheUsersHand(step: Double) {
        func reported(_ value: Double) -> Double { step == 0 ? value : (value / step).rounded() * step }
        var drive = Drive(.init(duck: 0.3))
        drive.send(.found(player(vlc, .playing, volume: 0.8)), at: .zero)
        for cue in 0..<3 {
            let start = Duration.seconds(5 + 5 * cue)
            drive.send(.cue(start: start, end: start + .seconds(1)), at: start - .seconds(2))
            // Each Set echoed 120 ms after it was made, the events taken in time order.
            let end = start + .seconds(3)
            var echoes: [(at: Duration, value: Double)] = []
            var seen = drive.volumeSets.count
            while true {
                let deadline = drive.follower.nextDeadline
                if let echo = echoes.first, echo.at <= end, deadline.map({ echo.at <= $0 }) ?? true {
                    echoes.removeFirst()
                    drive.send(.changed(busName: vlc, MusicPlayerChange(volume: reported(echo.value))), at: echo.at)
                } else if let deadline, deadline <= end {
                    drive.run(until: deadline)
                } else {
                    break
                }
                for set in drive.volumeSets[seen...] { echoes.append((set.at + ms(120), set.value)) }
                seen = drive.volumeSets.count
            }
            drive.run(until: end)
            #expect(drive.volumeSets.last?.value == 0.8, "after cue \(cue + 1): \(drive.volumeSets.last?.value ?? 0)")
        }
        #expect(!drive.log.contains { if case .note(let text) = $0.action { text.contains("by hand") } else { false } })
        #expect(abs((drive.follower.chosenPlayer?.volume ?? 0) - 0.8) <= step / 2 + 1e-9)
    }

    /// MPRIS has clients take every property of a player whose CanControl is false as
    /// read-only and call none of its methods: it was sent Volume, Pause and Play.
    @Test func aPlayerThatTakesNoControlIsOnlyListenedTo() {
        var drive = Drive()
        let listenOnly = MusicPlayer(busName: vlc, status: .playing, volume: 0.8, volumeWritable: true, canControl: false)
        #expect(!listenOnly.volumeWritable)
        drive.send(.found(listenOnly), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(3)), at: .seconds(1))
        drive.send(.sessionPaused, at: .seconds(5))
        drive.send(.sessionResumed, at: .seconds(6))
        drive.send(.sessionEnded, at: .seconds(7))
        drive.run(until: .seconds(9))
        #expect(drive.volumeSets.isEmpty)
        #expect(!drive.log.contains { if case .pause = $0.action { true } else if case .play = $0.action { true } else { false } })
        #expect(drive.log.contains { if case .note(let text) = $0.action { text.contains("CanControl false") } else { false } })
    }

    /// Players that do not know the artist send an empty one: it read " – Only Title".
    @Test func anEmptyArtistIsNone() {
        #expect(MusicPlayer(busName: vlc, status: .playing, title: "Only Title", artist: "").nowPlaying == "Only Title")
        #expect(MusicPlayer(busName: vlc, status: .playing, title: "", artist: "Band").nowPlaying == "Band")
    }

    @Test func aCueIsDuckedWithARampAndTheVolumeComesBackExactly() {
        var drive = Drive(.init(duck: 0.3))
        drive.send(.found(player(vlc, .playing, volume: 0.77)), at: .zero)
        drive.send(.cue(start: .seconds(5), end: .seconds(7)), at: .seconds(4))
        drive.run(until: .seconds(10))
        let sets = drive.volumeSets
        let settings = drive.follower.settings
        // Down before the cue, over the ramp, in steps; at the duck while it sounds.
        let down = sets.filter { $0.at < .seconds(5) }
        #expect(down.count >= 3)
        #expect(down.first!.at >= .seconds(5) - settings.lead - settings.ramp)
        #expect(down.last!.at == .seconds(5) - settings.lead)
        #expect(abs(down.last!.value - 0.77 * 0.3) < 1e-9)
        #expect(down.map(\.value) == down.map(\.value).sorted(by: >), "the ramp only goes down")
        // Nothing set while the cue sounds.
        #expect(!sets.contains { $0.at > .seconds(5) && $0.at < .seconds(7) })
        // Back up after it, ending exactly on the user's volume.
        let up = sets.filter { $0.at > .seconds(7) }
        #expect(up.first!.at >= .seconds(7) + settings.tail)
        #expect(up.last!.value == 0.77)
        #expect(up.last!.at <= .seconds(7) + settings.tail + settings.ramp)
        #expect(drive.follower.nextDeadline == nil, "nothing left to do")
    }

    @Test func overlappingCuesStayDownBetweenThem() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing)), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(3)), at: .seconds(1))
        drive.send(.cue(start: ms(3200), end: .seconds(4)), at: .seconds(1))
        drive.run(until: .seconds(6))
        let between = drive.volumeSets.filter { $0.at > .seconds(3) && $0.at < .seconds(4) }
        #expect(between.isEmpty, "the second cue follows too closely to come back up")
        #expect(drive.volumeSets.last?.value == 0.8)
    }

    @Test func theUsersHandWinsDuringACue() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing, volume: 0.6)), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(4)), at: .seconds(1))
        drive.run(until: .seconds(3))
        // The player echoes what was set: not the user's.
        drive.send(.changed(busName: vlc, MusicPlayerChange(volume: 0.6 * 0.3)), at: ms(3100))
        #expect(drive.follower.nextDeadline != nil, "an echo does not stop the ducking")
        drive.send(.changed(busName: vlc, MusicPlayerChange(volume: 0.9)), at: ms(3200))
        let before = drive.volumeSets.count
        drive.run(until: .seconds(8))
        #expect(drive.volumeSets.count == before, "no restore over the user's 0.9")
        #expect(drive.follower.chosenPlayer?.volume == 0.9)
        // The next cue ducks from the user's new volume.
        drive.send(.cue(start: .seconds(10), end: .seconds(11)), at: .seconds(9))
        drive.run(until: .seconds(13))
        #expect(drive.volumeSets.last?.value == 0.9)
        #expect(drive.volumeSets.contains { abs($0.value - 0.27) < 1e-9 })
    }

    @Test func aReadOnlyVolumeIsNeverWritten() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing, writable: false)), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(3)), at: .seconds(1))
        drive.run(until: .seconds(5))
        #expect(drive.volumeSets.isEmpty)
        #expect(drive.follower.isIdle, "nothing to wait for before stopping")
        var refused = Drive()
        refused.send(.found(player(vlc, .playing)), at: .zero)
        refused.send(.cue(start: .seconds(2), end: .seconds(3)), at: .seconds(1))
        refused.run(until: ms(1700))
        let tried = refused.volumeSets.count
        #expect(tried >= 1)
        refused.send(.volumeRefused(busName: vlc), at: ms(1700))
        refused.run(until: .seconds(5))
        #expect(refused.volumeSets.count == tried, "refused once, never tried again")
    }

    /// A player frozen mid-duck (SIGSTOP, a busy machine) applied the ramp's Sets queued for
    /// it when it thawed, and kept the last: 0.688 where the runner had 0.8. The user's volume
    /// is now sent after them; cues duck again once the player speaks.
    @Test func aPlayerThatDoesNotAnswerGetsTheUsersVolumeLastAndIsDuckedAgainOnceItAnswers() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing)), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(3)), at: .seconds(1))
        drive.run(until: ms(1700))
        #expect(drive.volumeSets.last.map { $0.value < 0.8 } == true, "ramping down: \(drive.volumeSets)")
        let before = drive.log.count
        drive.send(.volumeUnanswered(busName: vlc), at: ms(1700))
        #expect(drive.log.dropFirst(before).map(\.action) == [
            .setVolume(busName: vlc, 0.8), .note("music: vlc does not answer; its volume is put back when it does"),
        ])
        drive.run(until: .seconds(5))
        #expect(drive.volumeSets.last?.value == 0.8, "nothing after the user's volume")
        #expect(drive.follower.isIdle)
        // It thaws: the Sets queued for it echo, the last the user's; then the next cue ducks.
        for echo in [0.7, 0.5, 0.8] {
            drive.send(.changed(busName: vlc, MusicPlayerChange(volume: echo)), at: ms(5100))
        }
        #expect(drive.log.contains { $0.action == .note("music: vlc answers again") })
        drive.send(.cue(start: .seconds(8), end: .seconds(9)), at: .seconds(7))
        drive.run(until: ms(8500))
        #expect(drive.volumeSets.last.map { abs($0.value - 0.24) < 1e-9 } == true, "\(drive.volumeSets.suffix(3))")
        drive.run(until: .seconds(11))
        #expect(drive.volumeSets.last?.value == 0.8)
    }

    @Test func theMusicPausesAndResumesWithTheSession() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing)), at: .zero)
        drive.send(.sessionPaused, at: .seconds(1))
        drive.send(.changed(busName: vlc, MusicPlayerChange(status: .paused)), at: ms(1010))
        drive.send(.sessionResumed, at: .seconds(2))
        #expect(drive.log.map(\.action) == [.note("music: following vlc"), .pause(busName: vlc), .play(busName: vlc)])
        // Music the user had paused is not started by a resume.
        var paused = Drive(.init(choice: .named("vlc")))
        paused.send(.found(player(vlc, .paused)), at: .zero)
        paused.send(.sessionPaused, at: .seconds(1))
        paused.send(.sessionResumed, at: .seconds(2))
        #expect(!paused.log.contains { if case .play = $0.action { true } else { false } })
        var unfollowed = Drive(.init(follow: false))
        unfollowed.send(.found(player(vlc, .playing)), at: .zero)
        unfollowed.send(.sessionPaused, at: .seconds(1))
        #expect(!unfollowed.log.contains { if case .pause = $0.action { true } else { false } })
    }

    @Test func theEndLetsTheLastCuePlayDuckedThenPutsTheVolumeBack() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing, volume: 0.5)), at: .zero)
        drive.send(.sessionPaused, at: .seconds(1))
        // The summary, given as the session ends.
        drive.send(.cue(start: .seconds(2), end: .seconds(4)), at: ms(1500))
        drive.send(.sessionEnded, at: ms(1500))
        #expect(drive.log.last?.action == .play(busName: vlc), "music paused for the session plays again")
        #expect(!drive.follower.isIdle)
        drive.send(.cue(start: .seconds(8), end: .seconds(9)), at: ms(1600))
        drive.run(until: .seconds(10))
        #expect(drive.volumeSets.contains { $0.value == 0.15 && $0.at < .seconds(2) }, "the summary is ducked")
        #expect(drive.volumeSets.last?.value == 0.5)
        #expect(drive.volumeSets.last!.at < .seconds(5), "no cue is ducked after the end")
        #expect(drive.follower.isIdle)
    }

    @Test func stoppingPutsTheVolumeBackAtOnce() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing, volume: 0.5)), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(6)), at: .seconds(1))
        drive.run(until: .seconds(3))
        drive.send(.stop, at: ms(3500))
        #expect(drive.volumeSets.last?.value == 0.5)
        #expect(drive.volumeSets.last?.at == ms(3500))
        #expect(drive.follower.nextDeadline == nil)
        #expect(drive.follower.isIdle)
    }

    @Test func aPlayerThatLeavesIsDropped() {
        var drive = Drive()
        drive.send(.found(player(vlc, .playing)), at: .zero)
        drive.send(.found(player(spotify, .paused)), at: .zero)
        drive.send(.cue(start: .seconds(2), end: .seconds(3)), at: .seconds(1))
        drive.run(until: ms(1800))
        drive.send(.vanished(busName: vlc), at: ms(1800))
        let before = drive.volumeSets.count
        drive.run(until: .seconds(5))
        #expect(drive.follower.chosen == nil, "the other player is not playing")
        #expect(drive.volumeSets.count == before, "nothing is sent to a player that left")
        drive.send(.changed(busName: spotify, MusicPlayerChange(status: .playing)), at: .seconds(6))
        #expect(drive.follower.chosen == spotify)
    }
}
