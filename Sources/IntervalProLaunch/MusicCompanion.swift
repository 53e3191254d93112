import IntervalProCore
import IntervalProDBus
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import IntervalProIO
import IntervalProMPRIS
import IntervalProRuntime
public import IntervalProSound
import Logging

/// What the user asked of their music player (`--music`, `--duck`, `--music-follow`).
public struct MusicRequest: Sendable {
    public var settings: MusicFollower.Settings
    /// Say on stderr what happens to the music (-v).
    public var verbose: Bool
    /// Asked for in so many words (not the defaults): a session that cannot follow the music
    /// (not in real time) says so.
    public var explicitlyRequested: Bool

    public init(settings: MusicFollower.Settings, verbose: Bool = false, explicitlyRequested: Bool = false) {
        self.settings = settings
        self.verbose = verbose
        self.explicitlyRequested = explicitlyRequested
    }
}

/// The session's side of following the music: pauses and resumes go to the `MusicLink`,
/// and so does each cue `LiveAudio` sends, on the link's clock.
struct MusicCompanion: SessionObserver {
    let link: MusicLink
    let cueSent: (SessionTime, Duration) -> Void
    let origin: SessionOrigin

    /// Nil, said only with -v, when there is no session bus to find players on.
    static func start(_ request: MusicRequest) -> MusicCompanion? {
        var trace: (@Sendable (String) -> Void)?
        if request.verbose {
            trace = { line in logger.notice("\(line)") }
        }
        let now = monotonicNow
        do {
            let connection = try MusicLink.sessionBus(address: ProcessEnvironment.value("DBUS_SESSION_BUS_ADDRESS"))
            // A player named that is not there (a typo) was passed over without a word, -v or not.
            if case .named(let name) = request.settings.choice {
                let players = MusicLink.listPlayers(on: connection)
                if !players.contains(where: request.settings.choice.names) {
                    let there = players.isEmpty ? "none is" : "there: " + players.map(\.name).joined(separator: ", ")
                    logger.warning("music: no player named \(name) on the session bus (\(there)); it is followed if it starts")
                }
            }
            let link = try MusicLink(settings: request.settings, connection: connection, clock: now, trace: trace)
            let origin = SessionOrigin(clock: now)
            let cueSent: (SessionTime, Duration) -> Void = { soundsAt, lasts in
                let start = origin.clockTime(of: soundsAt)
                link.cue(start: start, end: start + lasts)
            }
            return MusicCompanion(link: link, cueSent: cueSent, origin: origin)
        } catch {
            trace?("music: \(error); the music is left alone")
            return nil
        }
    }

    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        origin.note(now)
        for action in actions {
            switch action {
            case .applied(.pause): link.sessionPaused()
            case .applied(.resume): link.sessionResumed()
            default: break
            }
        }
    }

    mutating func refresh(_ engine: SessionEngine, at now: SessionTime) { origin.note(now) }
}

/// Where session time 0 was on the music link's clock: taken the first time the session
/// tells the time, before the audio companion hears it (the launcher lists music first), so
/// that a cue's time does not move with how long the audio then spent synthesising it.
final class SessionOrigin: Sendable {
    private let clock: @Sendable () -> Duration
    private let zero = Mutex<Duration?>(nil)

    init(clock: @escaping @Sendable () -> Duration) { self.clock = clock }

    func note(_ now: SessionTime) {
        zero.withLock { zero in
            if zero == nil { zero = clock() - .microseconds(now.microseconds) }
        }
    }

    /// Before the session has told the time (it always has by then), session time 0 is taken as now.
    func clockTime(of time: SessionTime) -> Duration {
        (zero.withLock { $0 } ?? clock()) + .microseconds(time.microseconds)
    }
}

/// CLOCK_MONOTONIC, as the -v log gives the cues' times (other programs can read the same clock).
@Sendable func monotonicNow() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}
