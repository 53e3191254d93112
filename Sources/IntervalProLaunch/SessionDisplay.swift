public import IntervalProIO

/// Where a session's live output goes, handed over by whoever starts the session: the
/// command line writes to its terminal, a server to its log. The launcher only chooses
/// between the live screen and plain lines (the screen needs real time).
public struct SessionDisplay: Sendable {
    /// One place text is written to, and whether it takes colour.
    public struct Stream: Sendable {
        public var colour: Bool
        public var write: @Sendable (String) -> Void
        /// Where a live screen drawn here is kept, for what else writes to the terminal.
        public var region: ScreenRegion?

        public init(colour: Bool, region: ScreenRegion? = nil, write: @escaping @Sendable (String) -> Void) {
            self.colour = colour
            self.region = region
            self.write = write
        }
    }

    /// Where the live screen is drawn (a terminal that shows nothing else); nil: plain lines.
    public var screen: Stream?
    /// Where plain lines go when there is no screen: a pipe, a replay on virtual time, a log.
    public var lines: Stream
    /// Keys (with the screen) and Ctrl-C steer the session: a terminal's, not a server's.
    public var steering: Bool

    public init(screen: Stream?, lines: Stream, steering: Bool) {
        self.screen = screen
        self.lines = lines
        self.steering = steering
    }

    /// Nothing shown and nothing steered.
    public static let none = SessionDisplay(screen: nil, lines: Stream(colour: false) { _ in }, steering: false)
}
