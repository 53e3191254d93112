/// A music player as MPRIS describes it (org.mpris.MediaPlayer2.Player).
public struct MusicPlayer: Equatable, Sendable {
    public enum Status: String, Sendable {
        case playing = "Playing", paused = "Paused", stopped = "Stopped"
    }

    /// Its bus name: org.mpris.MediaPlayer2.NAME.
    public var busName: String
    public var status: Status
    /// Nil: the player has no Volume.
    public var volume: Double?
    public var volumeWritable: Bool
    /// MPRIS's CanControl: false, the player takes no Pause, Play nor Volume (the specification
    /// has clients treat every property as read-only); it is only listened to.
    public var canControl: Bool
    public var title: String?
    public var artist: String?

    public init(
        busName: String, status: Status, volume: Double? = nil, volumeWritable: Bool = false, canControl: Bool = true,
        title: String? = nil, artist: String? = nil
    ) {
        self.busName = busName
        self.status = status
        self.volume = volume
        self.volumeWritable = volumeWritable && canControl
        self.canControl = canControl
        self.title = title
        self.artist = artist
    }

    public static let busPrefix = "org.mpris.MediaPlayer2."

    /// What following it leaves out, said with "following".
    var controlNote: String { canControl ? "" : " (it takes no control, MPRIS CanControl false: neither paused nor ducked)" }

    /// "vlc" for org.mpris.MediaPlayer2.vlc.
    public var name: String { Self.name(ofBus: busName) }

    /// The name a player's bus name gives it: `vlc` for org.mpris.MediaPlayer2.vlc.
    public static func name(ofBus busName: String) -> String {
        busName.hasPrefix(busPrefix) ? String(busName.dropFirst(busPrefix.count)) : busName
    }

    /// "artist – title", or what there is of it.
    public var nowPlaying: String? {
        // Players that do not know the artist send an empty one: it read " – Only Title".
        let artist = artist.flatMap { $0.isEmpty ? nil : $0 }, title = title.flatMap { $0.isEmpty ? nil : $0 }
        return switch (artist, title) {
        case (let artist?, let title?): "\(artist) – \(title)"
        case (nil, let title?): title
        case (let artist?, nil): artist
        case (nil, nil): nil
        }
    }
}

/// What changed of a player (a PropertiesChanged signal).
public struct MusicPlayerChange: Equatable, Sendable {
    public var status: MusicPlayer.Status?
    public var volume: Double?
    /// Metadata changed: the new title and artist (nil where absent).
    public var metadata: (title: String?, artist: String?)?

    public init(status: MusicPlayer.Status? = nil, volume: Double? = nil, metadata: (title: String?, artist: String?)? = nil) {
        self.status = status
        self.volume = volume
        self.metadata = metadata
    }

    public static func == (a: MusicPlayerChange, b: MusicPlayerChange) -> Bool {
        a.status == b.status && a.volume == b.volume && a.metadata?.title == b.metadata?.title
            && a.metadata?.artist == b.metadata?.artist && (a.metadata == nil) == (b.metadata == nil)
    }
}

/// Plays the session over the runner's music: lowers the player's volume around each voice
/// cue with a short ramp and restores exactly what the user had, pauses and resumes the
/// music with the session. I/O-free: events in, player calls out; times on one monotonic
/// clock, given by the driver.
///
/// The user's hand wins: a volume the player reports that is not the one last set here is
/// the user's, and is left as it is (no restore over it). A player whose Volume cannot be
/// written is never written.
public struct MusicFollower: Sendable {
    public enum Choice: Equatable, Sendable {
        /// The first player found playing (or that starts playing).
        case auto
        /// org.mpris.MediaPlayer2.NAME, or an instance of it (NAME.instance123).
        case named(String)

        /// The choice as typed: `auto`, or a player's MPRIS name, with or without its bus name's
        /// prefix (`org.mpris.MediaPlayer2.vlc`, as `busctl --user list` shows it, was taken and
        /// never matched the player it named).
        public init(typed text: String) {
            guard text != "auto" else {
                self = .auto
                return
            }
            self = .named(MusicPlayer.name(ofBus: text))
        }

        /// Whether the choice names `player` (`auto` names none).
        public func names(_ player: MusicPlayer) -> Bool {
            guard case .named(let name) = self else { return false }
            return player.name == name || player.name.hasPrefix(name + ".")
        }
    }

    public struct Settings: Equatable, Sendable {
        public var choice: Choice
        /// The volume during a cue, as a fraction of the user's.
        public var duck: Double
        /// Pause and resume the music with the session.
        public var follow: Bool
        /// How long the volume takes to go down or back up.
        public var ramp: Duration = .milliseconds(250)
        /// How far ahead of a cue the volume is down, and how long after it it stays down.
        public var lead: Duration = .milliseconds(150)
        public var tail: Duration = .milliseconds(250)
        /// Steps of a ramp.
        public var rampStep: Duration = .milliseconds(50)

        public init(choice: Choice = .auto, duck: Double = 0.3, follow: Bool = true) {
            self.choice = choice
            self.duck = duck
            self.follow = follow
        }

        public static let duckRange = 0.0...1.0
    }

    public enum Event: Sendable {
        /// A player is on the bus (at start, or it appeared).
        case found(MusicPlayer)
        case changed(busName: String, MusicPlayerChange)
        case vanished(busName: String)
        /// Setting the player's Volume was refused: it is read-only after all.
        case volumeRefused(busName: String)
        /// The player did not answer a Set of its Volume in time (frozen, or busy): the Set
        /// still waits in its queue, and is applied when it answers again.
        case volumeUnanswered(busName: String)
        /// A voice cue will sound from `start` to `end`.
        case cue(start: Duration, end: Duration)
        case sessionPaused
        case sessionResumed
        /// The session is over (finished, Ctrl-C): no cue comes after those already given,
        /// which still play ducked (the summary); music paused for the session plays again.
        case sessionEnded
        /// Following ends now: the volume goes back at once.
        case stop
        /// `nextDeadline` came.
        case tick
    }

    public enum Action: Equatable, Sendable {
        case setVolume(busName: String, Double)
        case pause(busName: String)
        case play(busName: String)
        /// A line for the -v log.
        case note(String)
    }

    public let settings: Settings
    public private(set) var players: [MusicPlayer] = []
    public private(set) var chosen: String?
    /// Cues still to duck for (start, end), in order.
    private var cues: [(start: Duration, end: Duration)] = []
    /// Players that did not answer a Set of their Volume, with the volume sent them last (nil:
    /// none): they are back once they report it, after the Sets that waited before it.
    private var unanswered: [String: Double?] = [:]
    /// The user's volume while ducked (what is restored); nil when not ducked.
    private var userVolume: Double?
    /// What was set last, not to set it again.
    private var lastSet: Double?
    /// What was set in the last `echoWindow`, to tell the player's echoes from the user's
    /// hand. A player that reports a Set on its own main loop reports it after the ramp's next
    /// Set: compared with the last alone, each late echo was taken for the user's hand, the
    /// ramp stopped, the volume was never put back, and every cue left it lower (0.8 to 0.03).
    private var recentlySet: [(volume: Double, at: Duration)] = []
    static let echoWindow = Duration.seconds(1)
    /// How far a player's echo may be from what was set: players keep their volume in steps
    /// (a hundredth, VLC's 256ths, some in twentieths) and report the step. Compared to half a
    /// thousandth, 0.688 coming back as 0.69 was the user's hand: each cue then ducked from the
    /// duck, and the music ended at 0.11 of the 0.8 it began at.
    static let echoTolerance = 0.051
    private var pausedForSession = false
    private var ended = false

    public init(settings: Settings) {
        self.settings = settings
    }

    public var chosenPlayer: MusicPlayer? { players.first { $0.busName == chosen } }

    /// Nothing left to do: no cue to duck for, the volume where the user had it.
    public var isIdle: Bool {
        guard userVolume == nil else { return false }
        guard let player = chosenPlayer, player.volumeWritable, player.volume != nil else { return true }
        return cues.isEmpty
    }

    /// When the driver must deliver `.tick`: the next ramp step or the next ramp's start.
    public var nextDeadline: Duration? { nextDeadline(after: lastNow) }

    private var lastNow: Duration = .zero

    public mutating func handle(_ event: Event, now: Duration) -> [Action] {
        lastNow = now
        var actions: [Action] = []
        switch event {
        case .found(let player):
            players.removeAll { $0.busName == player.busName }
            players.append(player)
            if chosen == nil, wants(player) {
                chosen = player.busName
                actions.append(.note("music: following \(player.name)" + player.controlNote))
            }
        case .changed(let busName, let change):
            guard let index = players.firstIndex(where: { $0.busName == busName }) else { break }
            if let expected = unanswered[busName] {
                let settled: Bool
                if let expected {
                    settled = change.volume.map { abs($0 - expected) < Self.echoTolerance } ?? false
                } else {
                    settled = true
                }
                if settled {
                    unanswered[busName] = nil
                    players[index].volumeWritable = true
                    if busName == chosen { actions.append(.note("music: \(players[index].name) answers again")) }
                }
            }
            if let status = change.status { players[index].status = status }
            if let metadata = change.metadata {
                players[index].title = metadata.title
                players[index].artist = metadata.artist
            }
            // An echo of what was set, however late, leaves the player where it was set last.
            if let volume = change.volume, busName != chosen || !isEcho(volume) {
                players[index].volume = volume
                if busName == chosen { userChanged(volume, into: &actions) }
            }
            if chosen == nil, wants(players[index]) {
                chosen = busName
                actions.append(.note("music: following \(players[index].name)" + players[index].controlNote))
            }
        case .vanished(let busName):
            players.removeAll { $0.busName == busName }
            if chosen == busName {
                chosen = nil
                userVolume = nil
                lastSet = nil
                recentlySet = []
                pausedForSession = false
                actions.append(.note("music: \(MusicPlayer.name(ofBus: busName)) left"))
                if let next = players.first(where: wants) {
                    chosen = next.busName
                    actions.append(.note("music: following \(next.name)" + next.controlNote))
                }
            }
        case .volumeUnanswered(let busName):
            // A ramp's Sets wait in the player's queue, and a frozen player that thawed took
            // the last one sent (0.688 for its 0.8) and kept it. The user's volume is sent
            // last, so that it is the one applied; cues play over the player until it answers.
            guard let index = players.firstIndex(where: { $0.busName == busName }), players[index].volumeWritable else { break }
            players[index].volumeWritable = false
            unanswered[busName] = .some(busName == chosen ? userVolume : nil)
            if busName == chosen {
                if let userVolume { actions.append(.setVolume(busName: busName, userVolume)) }
                userVolume = nil
                lastSet = nil
                recentlySet = []
                actions.append(.note("music: \(players[index].name) does not answer; its volume is put back when it does"))
            }
        case .volumeRefused(let busName):
            if let index = players.firstIndex(where: { $0.busName == busName }) { players[index].volumeWritable = false }
            if busName == chosen {
                userVolume = nil
                lastSet = nil
                recentlySet = []
                actions.append(.note("music: the player's volume cannot be set; cues play over it"))
            }
        case .cue(let start, let end):
            guard !ended else { break }
            add(start, end)
        case .sessionPaused:
            if settings.follow, let player = chosenPlayer, player.status == .playing, player.canControl {
                pausedForSession = true
                actions.append(.pause(busName: player.busName))
            }
        case .sessionResumed:
            if pausedForSession, let chosen {
                pausedForSession = false
                actions.append(.play(busName: chosen))
            }
        case .sessionEnded:
            ended = true
            if pausedForSession, let chosen {
                pausedForSession = false
                actions.append(.play(busName: chosen))
            }
        case .stop:
            ended = true
            cues.removeAll()
            if let userVolume, let index = players.firstIndex(where: { $0.busName == chosen }) {
                set(userVolume, at: index, into: &actions)
            }
            userVolume = nil
            if pausedForSession, let chosen {
                pausedForSession = false
                actions.append(.play(busName: chosen))
            }
        case .tick:
            break
        }
        adjustVolume(at: now, into: &actions)
        return actions
    }

    /// Keeps cues in order, one span for cues too close to come back up between them.
    private mutating func add(_ start: Duration, _ end: Duration) {
        cues.append((start, end))
        cues.sort { $0.start < $1.start }
        var merged: [(start: Duration, end: Duration)] = []
        let bridge = settings.tail + settings.ramp * 2 + settings.lead
        for cue in cues {
            if let last = merged.last, cue.start - last.end < bridge {
                merged[merged.count - 1].end = max(last.end, cue.end)
            } else {
                merged.append(cue)
            }
        }
        cues = merged
    }

    private func wants(_ player: MusicPlayer) -> Bool {
        switch settings.choice {
        case .auto: player.status == .playing
        case .named: settings.choice.names(player)
        }
    }

    /// Whether a volume the player reports is the last set, or one set in the last `echoWindow`.
    private func isEcho(_ volume: Double) -> Bool {
        if let lastSet, abs(lastSet - volume) < Self.echoTolerance { return true }
        return recentlySet.contains { lastNow - $0.at <= Self.echoWindow && abs($0.volume - volume) < Self.echoTolerance }
    }

    /// A volume the player reports, not an echo of what was set: the user's hand.
    private mutating func userChanged(_ volume: Double, into actions: inout [Action]) {
        guard userVolume != nil else { return }
        // The user moved it during a cue: theirs stands, and this cue's ducking is over.
        userVolume = nil
        lastSet = nil
        recentlySet = []
        cues.removeAll { $0.start - settings.lead - settings.ramp <= lastNow }
        actions.append(.note("music: the volume was changed by hand; left as it is"))
    }

    /// The fraction of the user's volume wanted at `now`: 1, the duck, or on a ramp between.
    func level(at now: Duration) -> Double {
        var level = 1.0
        for cue in cues {
            let downFrom = cue.start - settings.lead - settings.ramp
            let downAt = cue.start - settings.lead
            let upFrom = cue.end + settings.tail
            let upAt = upFrom + settings.ramp
            let here: Double
            if now < downFrom || now >= upAt {
                here = 1
            } else if now < downAt {
                here = 1 - (1 - settings.duck) * fraction(stepStart(now, rampFrom: downFrom) - downFrom, of: settings.ramp)
            } else if now < upFrom {
                here = settings.duck
            } else {
                here = settings.duck + (1 - settings.duck) * fraction(stepStart(now, rampFrom: upFrom) - upFrom, of: settings.ramp)
            }
            level = min(level, here)
        }
        return level
    }

    /// The start of the ramp step `now` is in. A ramp moves in whole steps: the player's echo
    /// of each Set arrives within the step and asks for the same volume, so it is not set again
    /// (a level taken at the echo's own time would be new each time, and set, echoed, set...).
    private func stepStart(_ now: Duration, rampFrom start: Duration) -> Duration {
        guard settings.rampStep > .zero, now > start else { return start }
        return start + settings.rampStep * Int(((now - start) / settings.rampStep).rounded(.down))
    }

    private func fraction(_ part: Duration, of whole: Duration) -> Double {
        guard whole > .zero else { return 1 }
        return min(1, max(0, part / whole))
    }

    private mutating func adjustVolume(at now: Duration, into actions: inout [Action]) {
        // Cues whose ramp back up is over are done.
        cues.removeAll { $0.end + settings.tail + settings.ramp <= now }
        guard let index = players.firstIndex(where: { $0.busName == chosen }), players[index].volumeWritable,
            let current = players[index].volume
        else { return }
        let level = level(at: now)
        if level < 1 {
            let base = userVolume ?? current
            userVolume = base
            let target = base * level
            if lastSet.map({ abs($0 - target) >= 0.001 }) ?? true {
                set(target, at: index, into: &actions)
            }
        } else if let base = userVolume {
            // Back exactly where the user had it.
            userVolume = nil
            set(base, at: index, into: &actions)
        }
    }

    /// Sets the volume, and takes it as the player's until it says otherwise.
    private mutating func set(_ volume: Double, at index: Int, into actions: inout [Action]) {
        lastSet = volume
        recentlySet.removeAll { lastNow - $0.at > Self.echoWindow }
        recentlySet.append((volume, lastNow))
        players[index].volume = volume
        actions.append(.setVolume(busName: players[index].busName, volume))
    }

    private func nextDeadline(after now: Duration) -> Duration? {
        guard let player = chosenPlayer, player.volumeWritable, player.volume != nil else { return nil }
        var next: Duration?
        func consider(_ time: Duration) {
            if time > now, next.map({ time < $0 }) ?? true { next = time }
        }
        for cue in cues {
            let downFrom = cue.start - settings.lead - settings.ramp
            let downAt = cue.start - settings.lead
            let upFrom = cue.end + settings.tail
            let upAt = upFrom + settings.ramp
            if now < downFrom {
                consider(downFrom)
            } else if now < downAt {
                consider(min(downAt, stepStart(now, rampFrom: downFrom) + settings.rampStep))
            } else if now < upFrom {
                consider(upFrom)
            } else if now < upAt {
                consider(min(upAt, stepStart(now, rampFrom: upFrom) + settings.rampStep))
            }
        }
        return next
    }
}
