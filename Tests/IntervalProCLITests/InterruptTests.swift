import Foundation
import Testing

@Suite("finishing a session early")
struct InterruptTests {
    @Test("Ctrl-C during a paced run finishes with a JSON summary, completed false, exit 0")
    func interruptFinishesWithSummary() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        // Ten minutes at 50x take 12 s: plenty of time to interrupt the first step.
        let command = try RunningCommand(["run", plan, "--simulate", "--speed", "50", "--json"])
        let started = command.stderr.wait(upTo: 10) { $0.contains("Warmup (1/2)") }
        #expect(started, "stderr so far: \(String(decoding: command.stderr.snapshot, as: UTF8.self))")
        command.interrupt()
        let result = command.finish()

        #expect(result.exited, "killed by signal \(result.status)")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let summary = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        #expect(summary["completed"] as? Bool == false)
        #expect(summary["source"] as? String == "simulation")
        #expect(summary["plan"] as? String == "Ten minutes")
        let duration = try #require(number(summary["duration_s"]))
        #expect(duration < 600)
        let steps = try #require(summary["steps"] as? [[String: Any]])
        #expect(!steps.isEmpty)
        #expect(steps.last?["ended_by"] as? String == "finished")
        #expect(!looksLikeACrash(result.stderr), "stderr: \(result.stderr)")
    }

    /// A ten-minute simulated run at 50×, its keys read from a pseudo-terminal, its summary
    /// going to a pipe (`--json`), in its warmup.
    func tenMinutesSteeredFromATerminal() throws -> (PseudoTerminal, RunningCommand) {
        let terminal = try PseudoTerminal()
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let command = try RunningCommand(
            ["run", plan, "--simulate", "--speed", "50", "--json", "--no-save"], stdin: terminal.secondaryHandle)
        #expect(command.stderr.wait(upTo: 10) { $0.contains("Warmup (1/2)") })
        return (terminal, command)
    }

    /// Types n, and expects the work step to follow.
    func expectNextStep(on terminal: PseudoTerminal, of command: RunningCommand) {
        #expect(write(terminal.primary, "n", 1) == 1)
        let next = command.stderr.wait(upTo: 10) { $0.contains("Work (2/2)") }
        #expect(next, "stderr so far: \(String(decoding: command.stderr.snapshot, as: UTF8.self))")
    }

    /// Keys steered the live screen alone: with the summary going to a file (`--json`), n, space
    /// and q typed on the terminal did nothing, and an open step ended only with Ctrl-C.
    @Test(
        "keys on the terminal steer a session whose summary goes to a file (--json)",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")))
    func keysSteerWithoutTheScreen() throws {
        let (terminal, command) = try tenMinutesSteeredFromATerminal()
        expectNextStep(on: terminal, of: command)
        command.interrupt()
        let result = command.finish()
        let steps = try #require(jsonObject(result.stdoutData)?["steps"] as? [[String: Any]], "stdout: \(result.stdout)")
        #expect(steps.first?["ended_by"] as? String == "next")
        #expect(number(steps.first?["duration_s"]).map { $0 < 300 } == true)
    }

    /// At the API key's prompt, Ctrl-C was read as part of the key (glibc's getpass(3) turns
    /// signals off) and sent to intervals.icu; a kill there left the terminal without echo.
    @Test(
        "Ctrl-C at the API key's prompt ends the command, and the terminal echoes again",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")))
    func interruptAtTheKeysPrompt() throws {
        let terminal = try PseudoTerminal()
        let dir = try ScratchDirectory()
        let command = try RunningCommand(
            ["account", "add", "intervals.icu", "--athlete", "i12345"],
            environment: dir.ownFolders.merging(["INTERVALPRO_INTERVALS_ICU_URL": "http://127.0.0.1:9"]) { $1 },
            stdin: terminal.secondaryHandle)
        #expect(command.stderr.wait(upTo: 10) { $0.contains("intervals.icu API key: ") })
        var modes = termios()
        #expect(tcgetattr(terminal.primary, &modes) == 0)
        #expect(modes.c_lflag & tcflag_t(ECHO) == 0, "the key is not echoed")
        #expect(modes.c_lflag & tcflag_t(ISIG) != 0, "Ctrl-C still interrupts")
        command.interrupt()
        let result = command.finish()
        #expect(result.reason == .uncaughtSignal && result.status == SIGINT, "\(result.status): \(result.stderr)")
        #expect(tcgetattr(terminal.primary, &modes) == 0 && modes.c_lflag & tcflag_t(ECHO) != 0, "echo is back")
        #expect(!FileManager.default.fileExists(atPath: dir.path("config/intervalpro/accounts.json")))
    }

    /// Ctrl-Z stopped the process with the terminal in its raw mode, and `fg` left it in the
    /// shell's: the keys were echoed and waited for Enter (and the prompt had no cursor).
    @Test(
        "Ctrl-Z gives the terminal back to the shell before stopping, and fg takes it again: keys still steer",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")))
    func stopAndContinue() throws {
        let (terminal, command) = try tenMinutesSteeredFromATerminal()
        func lineMode() -> Bool {
            var modes = termios()
            return tcgetattr(terminal.primary, &modes) == 0 && modes.c_lflag & tcflag_t(ICANON | ECHO) == tcflag_t(ICANON | ECHO)
        }
        func waitFor(lineMode wanted: Bool) -> Bool {
            for _ in 0..<200 {
                if lineMode() == wanted { return true }
                usleep(25_000)
            }
            return false
        }
        #expect(waitFor(lineMode: false), "the keys are read one by one during the session")
        kill(command.process.processIdentifier, SIGTSTP)
        #expect(waitFor(lineMode: true), "stopped, the terminal is the shell's again")
        kill(command.process.processIdentifier, SIGCONT)
        #expect(waitFor(lineMode: false), "continued, the keys are read one by one again")
        expectNextStep(on: terminal, of: command)
        command.interrupt()
        #expect(command.finish().status == 0)
    }

    /// A hang-up killed the process (129): no summary, the session left running until the
    /// next command marked it interrupted.
    @Test("a hang-up (terminal closed, ssh dropped) finishes the session as Ctrl-C does, saved")
    func hangUpFinishesWithSummary() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let environment = dir.ownFolders
        let command = try RunningCommand(["run", plan, "--simulate", "--speed", "50", "--json"], environment: environment)
        #expect(command.stderr.wait(upTo: 10) { $0.contains("Warmup (1/2)") })
        command.hangUp()
        let result = command.finish()
        #expect(result.exited && result.status == 0, "status \(result.status), stderr: \(result.stderr)")
        let summary = try #require(jsonObject(result.stdoutData), "stdout: \(result.stdout)")
        #expect(summary["completed"] as? Bool == false)
        #expect(result.stderr.contains("saved as session 1"), "stderr: \(result.stderr)")
    }

    @Test("standard output closed (`| head`, a pager quit): the session runs to its end and is saved, exit 141 quietly")
    func closedOutputFinishesTheSession() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let environment = dir.ownFolders
        // A reader that has gone: every write to the pipe fails.
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let result = try RunningCommand(
            ["run", plan, "--simulate", "--fast"], environment: environment, stdout: pipe.fileHandleForWriting
        ).finish()
        // SIGPIPE ended it at the first line, the session kept as interrupted at 0:00.
        #expect(result.exited && result.status == 141, "status \(result.status), stderr: \(result.stderr)")
        #expect(!result.stderr.contains("error") && !looksLikeACrash(result.stderr), "stderr: \(result.stderr)")
        let history = try intervalpro("history", "--json", environment: environment)
        let sessions = try #require(jsonObject(history.stdoutData)?["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions.first?["status"] as? String == "finished" && sessions.first?["completed"] as? Bool == true)
        #expect(number(sessions.first?["duration_s"]) == 600)
    }

    /// `-o -` to a reader that went away said "cannot write to 'standard output': Broken pipe"
    /// and exited 74, an I/O failure to a script, where `show | head` exits 141 quietly.
    @Test("-o - to a closed standard output: exit 141 quietly, as for what is printed")
    func closedOutputOfAnExport() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let environment = dir.ownFolders
        #expect(try intervalpro("run", plan, "--simulate", "--fast", environment: environment).status == 0)
        for arguments in [["export", "last", "--format", "jsonl", "-o", "-"], ["report", "last", "-o", "-"]] {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            let result = try RunningCommand(arguments, environment: environment, stdout: pipe.fileHandleForWriting).finish()
            #expect(result.exited && result.status == 141, "\(arguments[0]): status \(result.status), stderr: \(result.stderr)")
            #expect(!result.stderr.contains("error"), "\(arguments[0]): \(result.stderr)")
        }
    }

    @Test("Ctrl-C in the text mode prints the summary marked as finished early")
    func interruptText() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let command = try RunningCommand(["run", plan, "--simulate", "--speed", "50"])
        let started = command.stdout.wait(upTo: 10) { $0.contains("Warmup (1/2)") }
        #expect(started)
        command.interrupt()
        let result = command.finish()
        #expect(result.exited)
        #expect(result.status == 0)
        #expect(result.stdout.contains("(finished early)"))
        #expect(result.stdout.contains("In zone:"))
        #expect(!looksLikeACrash(result.stderr))
    }

    @Test("a recording cut short by Ctrl-C keeps every line and replays")
    func interruptedRecordingReplays() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let recording = dir.path("cut.jsonl")
        let command = try RunningCommand(["run", plan, "--simulate", "--speed", "50", "--json", "--record", recording])
        let started = command.stderr.wait(upTo: 10) { $0.contains("Warmup (1/2)") }
        #expect(started)
        command.interrupt()
        let result = command.finish()
        #expect(result.status == 0)
        #expect(result.stderr.contains("recorded to \(recording)"))

        let replay = try intervalpro("replay", recording, "--json")
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        let lines = try nonBlankLines(recording)
        let notifications = lines.filter { $0.contains(#""char""#) }.count
        let statistics = try #require(jsonObject(replay.stdoutData))
        let devices = try #require(statistics["devices"] as? [[String: Any]])
        let counted = devices.flatMap { (($0["notifications"] as? [String: Any]) ?? [:]).values }
            .compactMap { ($0 as? NSNumber)?.intValue }.reduce(0, +)
        #expect(counted == notifications)

        // Scored against its plan, it is the session as it ran: it went on to the plan's end,
        // its last 9 minutes scored as no signal.
        let live = try #require(jsonObject(result.stdoutData))
        let scored = try intervalpro("replay", recording, "--plan", plan, "--fast", "--json", "--no-save")
        let again = try #require(jsonObject(scored.stdoutData), "\(scored.stderr)")
        #expect(again["completed"] as? Bool == false)
        #expect(number(again["duration_s"]) == number(live["duration_s"]))
        #expect(canonical(again["steps"] ?? []) == canonical(live["steps"] ?? []))
        #expect(lines.last?.contains(#""dev":"intervalpro","event":"finish""#) == true, "\(lines.last ?? "")")
    }
}
