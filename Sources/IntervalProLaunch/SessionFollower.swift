public import IntervalProCore
public import IntervalProRuntime

/// Someone who follows a session from outside its own screen (the web page does): told when
/// it starts and ends, given a companion of its own beside the screen, and handed the
/// finished summary. The launcher knows nothing of how the follower shows them.
public protocol SessionFollower: Sendable {
    /// A companion of the running session: it sees what the screen sees (the same view), and
    /// may send commands. `devices` are the session's, which notices name; `nowPlaying` says what
    /// the music player plays.
    func companion(devices: [RecordedDevice], nowPlaying: @escaping @Sendable () -> String?) -> any SessionObserver
    /// The session starts: `wake` rouses a runner that waits on its source rather than on
    /// a timer, when a command arrives.
    func sessionStarted(wake: (@Sendable () -> Void)?)
    func sessionEnded()
    /// Something the runner should know that the terminal hears on stderr (the store refused
    /// a write: the session goes on unsaved), to show beside the running session.
    func notice(_ text: String)
    /// The finished session, at `position` of its plan, and its id when it was saved; or, when
    /// saving was asked for and failed, why (`notSaved`).
    func sessionFinished(_ summary: SessionSummary, at position: SessionTime, sessionID: Int64?, notSaved: String?)
}
