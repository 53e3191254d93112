public import IntervalProDBus
public import IntervalProEventLoop
public import IntervalProSound
import Synchronization

/// The runner's music players over MPRIS on the session bus, driven by a `MusicFollower` on
/// an event loop of its own: the bus socket and the follower's next deadline are its only
/// wake-ups. The session side hands it cues and pauses from any thread.
public final class MusicLink: @unchecked Sendable {
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// A player that does not answer within this is left alone for that call.
    static let callTimeout: Int32 = 500

    private let loop: EventLoop
    private let connection: DBusConnection
    private let clock: @Sendable () -> Duration
    private let trace: (@Sendable (String) -> Void)?
    // Loop-confined.
    private var follower: MusicFollower
    private var timer: EventLoop.TimerID?
    private var watch: EventLoop.WatchID?
    /// Which player each unique name (":1.42", a signal's sender) is.
    private var owners: [String: String] = [:]
    /// `finish` waiting for the last cue's volume to be back.
    private var whenIdle: CheckedContinuation<Void, Never>?
    private var giveUp: EventLoop.TimerID?
    private let shown = Mutex<(nowPlaying: String?, players: [MusicPlayer])>((nil, []))

    /// Starts following the players on `connection` (the session bus).
    /// - Parameters:
    ///   - clock: monotonic time since any fixed origin; cues are given on it too.
    ///   - trace: the -v log.
    public init(
        settings: MusicFollower.Settings, connection: DBusConnection, clock: @escaping @Sendable () -> Duration,
        trace: (@Sendable (String) -> Void)? = nil
    ) throws(EventLoopError) {
        self.connection = connection
        loop = try EventLoop(name: "intervalpro-music")
        follower = MusicFollower(settings: settings)
        self.clock = clock
        self.trace = trace
        loop.execute { [self] in begin() }
    }

    deinit { loop.shutdown() }

    /// The session bus of this login: DBUS_SESSION_BUS_ADDRESS.
    public static func sessionBus(address: String?) throws(DBusCallError) -> DBusConnection {
        guard let address, !address.isEmpty else {
            throw DBusCallError(.failed, "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
        }
        return try DBusConnection.bus(address: address)
    }

    /// "artist – title" of the followed player, for the screen and the page.
    public var nowPlaying: String? { shown.withLock { $0.nowPlaying } }

    /// The players on the bus, as last seen.
    public var players: [MusicPlayer] { shown.withLock { $0.players } }

    /// A voice cue sounds from `start` to `end` on the link's clock.
    public func cue(start: Duration, end: Duration) {
        loop.execute { [self] in
            // Said only for a followed player: with none there is nothing to say about cues.
            if follower.chosen != nil {
                trace?("music: a cue sounds from \(Self.seconds(start)) to \(Self.seconds(end)) (monotonic s)")
            }
            handle(.cue(start: start, end: end))
        }
    }
    public func sessionPaused() { post(.sessionPaused) }
    public func sessionResumed() { post(.sessionResumed) }

    /// The session is over: music paused for it plays again, the cues already given (the
    /// summary) play ducked, then the volume is back and following stops; after `limit` at
    /// the most, when the volume goes back at once.
    public func finish(waitingUpTo limit: Duration = .seconds(15)) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                handle(.sessionEnded)
                whenIdle = done
                giveUp = loop.schedule(after: limit) { [self] in handle(.stop) }
                handle(.tick)
            }
        }
        loop.shutdown()
    }

    /// The players on the bus now, for `doctor`; no following.
    public static func listPlayers(on connection: DBusConnection) -> [MusicPlayer] {
        let names = (try? connection.call(
            DBusMessage(
                methodCallTo: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "ListNames"), timeoutMilliseconds: callTimeout).arguments().first?.stringList) ?? []
        return names.filter { $0.hasPrefix(MusicPlayer.busPrefix) }.sorted().compactMap { player(named: $0, on: connection) }
    }

    // MARK: The loop's thread

    private func post(_ event: MusicFollower.Event) {
        loop.execute { [self] in handle(event) }
    }

    private func begin() {
        do {
            try connection.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'")
            try connection.addMatch(
                "type='signal',interface='\(Self.propertiesInterface)',member='PropertiesChanged',path='\(Self.objectPath)'")
        } catch {
            trace?("music: cannot watch the session bus: \(error)")
            return
        }
        if let descriptor = connection.fileDescriptor {
            watch = loop.watch(descriptor, .readable) { [self] _ in
                _ = connection.readWrite(timeoutMilliseconds: 0)
                drain()
            }
        }
        let players = Self.listPlayers(on: connection)
        // A player asked for by name is said to be missing, -v or not, by who asked (one line, not two).
        if players.isEmpty, follower.settings.choice == .auto { trace?("music: no MPRIS player on the session bus") }
        for player in players {
            if let owner = owner(of: player.busName) { owners[owner] = player.busName }
            handle(.found(player))
        }
        drain()
    }

    /// Takes the signals that arrived (also while a call waited for its reply).
    private func drain() {
        while let message = connection.popMessage() {
            guard message.type == .signal, let member = message.member, let arguments = try? message.arguments() else { continue }
            switch member {
            case "NameOwnerChanged":
                guard arguments.count == 3, let name = arguments[0].string, name.hasPrefix(MusicPlayer.busPrefix) else {
                    continue
                }
                if let old = arguments[1].string { owners[old] = nil }
                if let new = arguments[2].string, !new.isEmpty {
                    owners[new] = name
                    if let player = Self.player(named: name, on: connection) { handle(.found(player)) }
                } else {
                    handle(.vanished(busName: name))
                }
            case "PropertiesChanged":
                guard arguments.first?.string == Self.playerInterface, let changed = arguments.dropFirst().first?.properties,
                    let sender = message.sender, let busName = owners[sender]
                else { continue }
                handle(.changed(busName: busName, Self.change(from: changed)))
            default:
                continue
            }
        }
    }

    private func owner(of busName: String) -> String? {
        let reply = try? connection.call(
            DBusMessage(
                methodCallTo: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", arguments: [.string(busName)]), timeoutMilliseconds: Self.callTimeout)
        return (try? reply?.arguments())?.first?.string
    }

    private func handle(_ event: MusicFollower.Event) {
        let actions = follower.handle(event, now: clock())
        for action in actions { perform(action) }
        // Signals read while a call waited for its reply are queued, and the socket will not
        // say so again: take them next.
        if actions.contains(where: { if case .note = $0 { false } else { true } }) {
            loop.execute { [self] in drain() }
        }
        shown.withLock { $0 = (follower.chosenPlayer?.nowPlaying, follower.players) }
        schedule()
        if let done = whenIdle, follower.isIdle {
            whenIdle = nil
            connection.flush()
            if let watch { loop.unwatch(watch) }
            if let timer { loop.cancel(timer) }
            if let giveUp { loop.cancel(giveUp) }
            watch = nil
            timer = nil
            done.resume()
        }
    }

    private func perform(_ action: MusicFollower.Action) {
        switch action {
        case .note(let text):
            trace?(text)
        case .setVolume(let busName, let volume):
            let set = try? DBusMessage(
                methodCallTo: busName, path: Self.objectPath, interface: Self.propertiesInterface, member: "Set",
                arguments: [.string(Self.playerInterface), .string("Volume"), .variant(.double(volume))])
            do {
                guard let set else { return }
                _ = try connection.call(set, timeoutMilliseconds: Self.callTimeout)
                // What was done to the player, as -v promises: each step of a ramp.
                trace?("music: \(MusicPlayer.name(ofBus: busName))'s volume set to \((volume * 1000).rounded() / 1000)")
            } catch {
                trace?("music: setting \(busName)'s volume failed: \(error)")
                let unanswered = error.name == .noReply || error.name == .timeout || error.name == .timedOut
                handle(unanswered ? .volumeUnanswered(busName: busName) : .volumeRefused(busName: busName))
            }
        case .pause(let busName), .play(let busName):
            let member = if case .pause = action { "Pause" } else { "Play" }
            do {
                _ = try connection.call(
                    DBusMessage(methodCallTo: busName, path: Self.objectPath, interface: Self.playerInterface, member: member),
                    timeoutMilliseconds: Self.callTimeout)
                trace?("music: \(member) sent to \(MusicPlayer.name(ofBus: busName))")
            } catch {
                trace?("music: \(member) on \(busName) failed: \(error)")
            }
        }
    }

    private func schedule() {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard let deadline = follower.nextDeadline else { return }
        timer = loop.schedule(after: max(.zero, deadline - clock())) { [self] in
            timer = nil
            handle(.tick)
        }
    }

    static func seconds(_ time: Duration) -> String {
        let (whole, atto) = time.components
        let millis = String(atto / 1_000_000_000_000_000)
        return "\(whole).\(String(repeating: "0", count: 3 - millis.count))\(millis)"
    }

    // MARK: Reading players

    static func player(named busName: String, on connection: DBusConnection) -> MusicPlayer? {
        guard
            let reply = try? connection.call(
                DBusMessage(
                    methodCallTo: busName, path: objectPath, interface: propertiesInterface, member: "GetAll",
                    arguments: [.string(playerInterface)]), timeoutMilliseconds: callTimeout),
            let properties = try? reply.arguments().first?.properties
        else { return nil }
        let change = change(from: properties)
        let canControl = properties["CanControl"]?.unwrapped.bool ?? true
        return MusicPlayer(
            busName: busName, status: change.status ?? .stopped, volume: change.volume,
            volumeWritable: canControl && change.volume != nil && volumeWritable(busName, on: connection), canControl: canControl,
            title: change.metadata?.title, artist: change.metadata?.artist)
    }

    /// Whether introspection says Volume can be written (players that cannot set it say so there).
    static func volumeWritable(_ busName: String, on connection: DBusConnection) -> Bool {
        guard
            let reply = try? connection.call(
                DBusMessage(
                    methodCallTo: busName, path: objectPath, interface: "org.freedesktop.DBus.Introspectable",
                    member: "Introspect"), timeoutMilliseconds: callTimeout),
            let xml = try? reply.arguments().first?.string
        else { return true }
        // The <property .../> element that names Volume: its access says whether it is writable.
        for element in xml.split(separator: "<") where element.hasPrefix("property") && element.contains("name=\"Volume\"") {
            return !element.contains("access=\"read\"")
        }
        return true
    }

    static func change(from properties: [String: DBusValue]) -> MusicPlayerChange {
        var change = MusicPlayerChange()
        if let status = properties["PlaybackStatus"]?.string { change.status = MusicPlayer.Status(rawValue: status) }
        if case .double(let volume)? = properties["Volume"]?.unwrapped { change.volume = volume }
        if let metadata = properties["Metadata"]?.properties {
            let artists = metadata["xesam:artist"]?.stringList ?? metadata["xesam:artist"]?.string.map { [$0] }
            change.metadata = (metadata["xesam:title"]?.string, artists.map { $0.joined(separator: ", ") })
        }
        return change
    }
}
