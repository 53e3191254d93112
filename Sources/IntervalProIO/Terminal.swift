#if canImport(Glibc)
import Glibc
#endif
import Synchronization
public import IntervalProCore

/// The controlling terminal: whether we have one, its width, colour, and keys.
public enum Terminal {
    public static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    public static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour only on a terminal, never when NO_COLOR is set (https://no-color.org), and
    /// not on a dumb terminal.
    public static func wantsColour(isTerminal: Bool) -> Bool {
        guard isTerminal else { return false }
        if let noColor = getenv("NO_COLOR"), noColor.pointee != 0 { return false }
        return !isDumb
    }

    /// TERM=dumb (Emacs' shell, some IDE consoles): a terminal that cannot move its cursor.
    public static var isDumb: Bool {
        getenv("TERM").map { String(cString: $0) == "dumb" } ?? false
    }

    /// The terminal's width; where output is no terminal, `COLUMNS` when set (as `ls` and
    /// `man` take it: `trends | less` charted 80 columns whatever was asked), else 80.
    public static var columns: Int { columns(of: STDOUT_FILENO) }

    /// The width a table is to fit: the terminal's, or `COLUMNS` when set; nil on a pipe,
    /// where a script reads whole names.
    public static var fittingColumns: Int? { standardOutputIsTerminal ? columns : columnsVariable }

    /// The width of the terminal standard error is, for a progress line drawn there.
    public static var standardErrorColumns: Int { columns(of: STDERR_FILENO) }

    private static func columns(of descriptor: Int32) -> Int {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return columnsVariable ?? 80
    }

    /// `COLUMNS`, when it is set to a width.
    private static var columnsVariable: Int? {
        guard let text = getenv("COLUMNS").map({ String(cString: $0) }), let set = Int(text), set > 0 else { return nil }
        return min(set, 10_000)
    }

    public static func writeStandardOutput(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// A line from standard input, trimmed; typed without echo after `prompt` when standard
    /// input is a terminal (a key then stays out of the screen and the shell's history).
    public static func readSecret(prompt: String) -> String? {
        guard standardInputIsTerminal else { return readLine()?.trimmingCharacters(in: " \t") }
        return SecretPrompt.read(prompt: prompt)?.trimmingCharacters(in: " \t")
    }

    public static func writeStandardError(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            _ = Glibc.write(STDERR_FILENO, buffer.baseAddress, buffer.count)
        }
    }
}

/// Puts the terminal in non-canonical, no-echo mode for single-key commands, and puts
/// it back on `restore()` or deinit. Ctrl-C still raises SIGINT.
///
/// Keys are read where they are taken (`pendingCommands`), or as they arrive by a thread that
/// waits on `descriptor` (`readArrivedKeys`) and keeps them until then.
public final class RawKeyboard: @unchecked Sendable {
    private struct State {
        var active = false
        var arrived: [UserCommand] = []
    }

    // Written once, before the keys are read anywhere else.
    private var saved = termios()
    private let state = Mutex(State())

    public init?() {
        guard Terminal.standardInputIsTerminal, tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        state.withLock { $0.active = true }
        TerminalStop.keysAreRaw(cooked: saved, raw: raw)
    }

    /// The descriptor keys arrive on, for a loop that waits for them.
    public var descriptor: Int32 { STDIN_FILENO }

    /// Keys typed since the last call, as commands: space pauses or resumes, n goes to the
    /// next step, q finishes.
    public func pendingCommands() -> [UserCommand] {
        state.withLock { state in
            guard state.active else { return [] }
            defer { state.arrived.removeAll() }
            return state.arrived + Self.readKeys()
        }
    }

    /// Reads the keys typed so far and keeps them for `pendingCommands`, from a thread that
    /// waits for `descriptor` (which is then no longer readable). False once the keys are no
    /// longer read (`restore`): the thread stops waiting for them.
    public func readArrivedKeys() -> Bool {
        state.withLock { state in
            guard state.active else { return false }
            state.arrived += Self.readKeys()
            return true
        }
    }

    private static func readKeys() -> [UserCommand] {
        var commands: [UserCommand] = []
        var buffer = [UInt8](repeating: 0, count: 32)
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, 0) > 0, descriptor.revents & Int16(POLLIN) != 0 {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            guard count > 0 else { break }
            for byte in buffer[0..<count] {
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "p"): commands.append(.togglePause)
                case UInt8(ascii: "n"): commands.append(.next)
                case UInt8(ascii: "q"): commands.append(.finish)
                default: break
                }
            }
        }
        return commands
    }

    public func restore() {
        let wasActive = state.withLock { state in
            defer { state.active = false }
            return state.active
        }
        guard wasActive else { return }
        TerminalStop.keysAreCooked()
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    deinit {
        restore()
    }
}

/// Ctrl-Z (SIGTSTP) during a session: the terminal is given back as the shell expects it
/// (keys echoed and read by line, the cursor shown) before the process stops, and taken again
/// on `fg`. Stopped as it was, the shell's prompt had no cursor, and after `fg` the keys were
/// echoed and waited for Enter.
public enum TerminalStop {
    // Written before the handler is installed and while no stop can be handled (the keys' two
    // modes), read only by the handler.
    nonisolated(unsafe) private static var cooked = termios()
    nonisolated(unsafe) private static var raw = termios()
    private static let keysRaw = Atomic<Bool>(false)
    private static let cursorHidden = Atomic<Bool>(false)
    private static let installed = Atomic<Bool>(false)
    private static let continuations = Atomic<Int>(0)

    /// How many times the process was continued after a stop: a screen drawn before it is
    /// gone (the shell wrote below it) and is drawn afresh.
    public static var continued: Int { continuations.load(ordering: .acquiring) }

    static func keysAreRaw(cooked: termios, raw: termios) {
        keysRaw.store(false, ordering: .sequentiallyConsistent)
        Self.cooked = cooked
        Self.raw = raw
        keysRaw.store(true, ordering: .sequentiallyConsistent)
        install()
    }

    static func keysAreCooked() { keysRaw.store(false, ordering: .sequentiallyConsistent) }

    /// The live screen hides the cursor while it is drawn, and shows it when it ends.
    public static func screenHidesCursor(_ hidden: Bool) {
        cursorHidden.store(hidden, ordering: .sequentiallyConsistent)
        if hidden { install() }
    }

    private static func install() {
        guard !installed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        // Ignored (a shell without job control started us so): it stays ignored.
        var current = sigaction()
        guard sigaction(SIGTSTP, nil, &current) == 0,
            unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self)
        else { return }
        let handler: @convention(c) (Int32) -> Void = { _ in
            // Only async-signal-safe calls: write(2), tcsetattr(3), kill(2).
            let keys = TerminalStop.keysRaw.load(ordering: .sequentiallyConsistent)
            if keys { _ = tcsetattr(STDIN_FILENO, TCSANOW, &TerminalStop.cooked) }
            if TerminalStop.cursorHidden.load(ordering: .sequentiallyConsistent) {
                // Shown, on a line of its own below the screen, for the shell's "Stopped".
                var show: [UInt8] = Array("\u{1B}[?25h\n".utf8)
                _ = write(STDOUT_FILENO, &show, show.count)
            }
            // SIGSTOP stops at once, where SIGTSTP would wait for this handler to return.
            kill(getpid(), SIGSTOP)
            // Continued (`fg`).
            if keys { _ = tcsetattr(STDIN_FILENO, TCSANOW, &TerminalStop.raw) }
            TerminalStop.continuations.add(1, ordering: .releasing)
        }
        signal(SIGTSTP, handler)
    }
}

/// Turns SIGINT, SIGTERM and SIGHUP into a flag the run loop reads, so Ctrl-C (or a closed
/// terminal, a dropped ssh) finishes the session cleanly with its summary instead of killing
/// the process mid-write; and into a byte on a pipe, so a loop waiting in poll(2) wakes for it.
public enum InterruptSignal {
    private static let raised = Atomic<Bool>(false)
    private static let pipeWriteEnd = Atomic<Int32>(-1)
    private static let pipeReadEnd = Atomic<Int32>(-1)

    /// Whether a hang-up is ignored, as `nohup` leaves it: a server started so outlives its
    /// terminal, one started on a terminal stops cleanly with it.
    public static var hangUpIgnored: Bool {
        var current = sigaction()
        guard sigaction(SIGHUP, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    public static func install() {
        if pipeReadEnd.load(ordering: .acquiring) < 0 {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends {
                    _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                }
                pipeWriteEnd.store(ends[1], ordering: .releasing)
                pipeReadEnd.store(ends[0], ordering: .releasing)
            }
        }
        let handler: @convention(c) (Int32) -> Void = { _ in
            InterruptSignal.raised.store(true, ordering: .relaxed)
            // write(2) is async-signal-safe; a full pipe already wakes the reader.
            var byte: UInt8 = 1
            let fd = InterruptSignal.pipeWriteEnd.load(ordering: .relaxed)
            if fd >= 0 { _ = write(fd, &byte, 1) }
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        // A process started with them blocked (a test harness's thread, some supervisors)
        // never heard Ctrl-C: an import ran on to its last file. Unblocked on this thread.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        for stop in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopping, stop) }
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        // Under `nohup` a hang-up is ignored, and stays so.
        let previous = signal(SIGHUP, handler)
        if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { signal(SIGHUP, SIG_IGN) }
    }

    /// SIGINT and SIGTERM end the process again, as before `install`: for what follows a
    /// session that nothing reads the flag in (an upload after `run`, which a stop leaves queued).
    /// A hang-up ignored under `nohup` stays ignored.
    public static func restoreDefaults() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        if !hangUpIgnored { signal(SIGHUP, SIG_DFL) }
    }

    /// Readable after a signal arrived (once `install` ran); `drain` empties it.
    public static var descriptor: Int32? {
        let fd = pipeReadEnd.load(ordering: .acquiring)
        return fd >= 0 ? fd : nil
    }

    public static func drain() {
        guard let fd = descriptor else { return }
        var buffer = [UInt8](repeating: 0, count: 16)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    /// Whether a signal arrived and was not taken yet.
    public static var isRaised: Bool { raised.load(ordering: .relaxed) }

    /// True once after a signal arrived.
    public static func take() -> Bool {
        raised.exchange(false, ordering: .relaxed)
    }
}
