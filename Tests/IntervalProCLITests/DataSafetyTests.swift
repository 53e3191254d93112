import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a runner's slips and a full disk do to what was recorded: nothing.
@Suite struct DataSafetyTests {
    /// `export 1 -o` naming the history's own file wrote a FIT file over it: every session gone.
    @Test("export, report and --record never write over the session store")
    func theStoreIsNeverWrittenOver() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let env = dir.ownFolders
        #expect(try intervalpro("run", plan, "--simulate", "--fast", environment: env).status == 0)
        let store = dir.path("data") + "/intervalpro/intervalpro.sqlite"
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        for arguments in [["export", "1", "--format", "fit", "-o", store], ["report", "1", "-o", store]] {
            let refused = try intervalpro(arguments: arguments, environment: env)
            #expect(refused.status == 74, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("SQLite database"), "\(arguments): \(refused.stderr)")
        }
        let recorded = try intervalpro("run", plan, "--simulate", "--fast", "--no-save", "--record", store, environment: env)
        #expect(recorded.status == 74, "stderr: \(recorded.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        #expect(try intervalpro("history", environment: env).stdout.contains("Ten minutes"))
    }

    /// `run --db FOLDER` ran the whole session unsaved, then exited 74; `history --db FOLDER` says 64 at once.
    @Test("a --db that names a folder is refused before the session runs, with 64")
    func aFolderForTheStoreIsRefusedFirst() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        for arguments in [["run", plan, "--simulate", "--fast"], ["replay", "Recordings/pyramid.jsonl", "--plan", "Plans/pyramid.json", "--fast"]] {
            let refused = try intervalpro(arguments: arguments + ["--db", dir.url.path], environment: dir.ownFolders)
            #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("is a folder, not a session store"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty, "no session ran: \(refused.stdout)")
        }
        // Unsaved, the folder is nothing to it.
        #expect(try intervalpro(arguments: ["run", plan, "--simulate", "--fast", "--no-save", "--db", dir.url.path], environment: dir.ownFolders).status == 0)
    }

    /// A second `--record` with the same name replaced the first recording without a word.
    @Test("a recording is never written over: 74 before the session starts, the file as it was")
    func aRecordingIsKept() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let recording = dir.path("run.jsonl")
        let env = dir.ownFolders
        #expect(try intervalpro("run", plan, "--simulate", "--fast", "--no-save", "--record", recording, environment: env).status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: recording))
        let again = try intervalpro("run", plan, "--simulate", "--fast", "--seed", "9", "--record", recording, environment: env)
        #expect(again.status == 74)
        #expect(again.stderr.contains("recording never writes over a file"), "stderr: \(again.stderr)")
        #expect(again.stdout.isEmpty, "no session ran: \(again.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: recording)) == first)
    }

    /// On a full disk `history --json > file` printed nothing, said nothing, and exited 0; and
    /// `run --record` warned once and exited 0 with the recording cut.
    @Test("a full disk under standard output or the recording: 74, said")
    func aFullDiskIsSaid() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let env = dir.ownFolders
        #expect(try intervalpro("run", plan, "--simulate", "--fast", environment: env).status == 0)

        // Help, --version and a completion script too: they exited 0 with nothing written (an
        // install's completion file left empty without a word).
        for arguments in [["history", "--json"], ["--help"], ["--version"], ["--generate-completion-script", "bash"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executablePath)
            process.arguments = arguments
            var processEnvironment = ProcessInfo.processInfo.environment
            for (key, value) in env { processEnvironment[key] = value }
            process.environment = processEnvironment
            process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            process.waitUntilExit()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 74, "\(arguments): stderr: \(said)")
            #expect(said.contains("cannot write to standard output"), "\(arguments): stderr: \(said)")
        }

        let recorded = try intervalpro("run", plan, "--simulate", "--fast", "--no-save", "--record", "/dev/full", environment: env)
        #expect(recorded.status == 74, "stderr: \(recorded.stderr)")
        // A recording cut short as it is written (files limited to 8 KiB, as a full disk would
        // stop it): it warned once and exited 0.
        let cut = dir.path("cut.jsonl")
        let limited = try intervalpro(
            arguments: ["-c", "trap '' XFSZ; ulimit -f 16; exec \"$0\" run \"$1\" --simulate --fast --no-save --record \"$2\"", executablePath, plan, cut],
            environment: env, executable: "/bin/sh")
        #expect(limited.status == 74, "stderr: \(limited.stderr)")
        #expect(limited.stderr.contains("the recording \(cut) was cut short"), "stderr: \(limited.stderr)")
        // Cut at its last whole line, not in half a line.
        let kept = try Data(contentsOf: URL(fileURLWithPath: cut))
        #expect(kept.last == UInt8(ascii: "\n"), "ends in: \(String(decoding: kept.suffix(60), as: UTF8.self))")

        // A store that cannot be written: said when it happens, and again after the summary
        // (on the live screen, the first was drawn over).
        let unsaved = try intervalpro("run", plan, "--simulate", "--fast", "--db", "/dev/full/history.sqlite", environment: env)
        #expect(unsaved.status == 74, "stderr: \(unsaved.stderr)")
        #expect(unsaved.stderr.hasSuffix("the session was not saved in the history: its store could not be written (said when it happened)\n"), "stderr: \(unsaved.stderr)")
    }

    /// A name starting "file:" was read by SQLite as a URI: the session went to runs.sqlite,
    /// readable by everyone, and `history --db file:runs.sqlite` found none.
    @Test("--db file:NAME is the file of that name, kept private")
    func aNameStartingFileIsAFile() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let plan = try dir.write("plan.json", shortPlanText)
        let saved = try intervalpro(arguments: ["run", plan, "--simulate", "--fast", "--db", "file:runs.sqlite"], in: dir.url, environment: env)
        #expect(saved.status == 0 && saved.stderr.contains("saved as session 1"), "\(saved.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("runs.sqlite")))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.path("file:runs.sqlite"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let listed = try intervalpro(arguments: ["history", "--json", "--db", "file:runs.sqlite"], in: dir.url, environment: env)
        #expect((jsonObject(listed.stdoutData)?["total"] as? Int) == 1, "\(listed.stdout) \(listed.stderr)")
    }

    /// `upload --pending` on a fresh setup made an empty store, and so did `upload 1` and
    /// `history import` of a path that is not there or of an empty folder.
    @Test("upload, and an import of a missing path or an empty folder, create no store where nothing was saved")
    func uploadsAndFailedImportsCreateNoStore() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let commands: [([String], Int32)] = [
            (["upload", "--pending"], 0), (["upload", "1", "--to", "intervals.icu"], 66), (["history", "import", dir.path("gone")], 66),
            (["history", "import", dir.path("empty")], 0), (["readiness", "import", dir.path("empty")], 0),
        ]
        try FileManager.default.createDirectory(atPath: dir.path("empty"), withIntermediateDirectories: true)
        for (command, status) in commands {
            let result = try intervalpro(arguments: command, environment: env)
            #expect(result.status == status, "\(command): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.path("data")), "\(command) made \(dir.path("data"))")
        }
    }

    /// `--db` naming a folder (the data folder, not its file) said only "disk I/O error", 74.
    @Test("--db naming a folder: 64, said as a folder")
    func aFolderIsNotAStore() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        for command in [["history"], ["show", "last"], ["trends"]] {
            let result = try intervalpro(arguments: command + ["--db", dir.url.path], environment: env)
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("is a folder, not a session store"), "\(command): \(result.stderr)")
        }
        // A device was read as a store "that needs an upgrade" (74).
        let device = try intervalpro(arguments: ["history", "--db", "/dev/null"], environment: env)
        #expect(device.status == 65 && device.stderr.contains("not an IntervalPro database"), "\(device.stderr)")
    }

    @Test("--db naming an empty file: a read leaves it empty (it became a 90 KB database); a file that is no store: 65")
    func anEmptyFileIsNoStoreToRead() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let empty = try dir.write("notes.txt", "")
        for command in [["history"], ["trends"], ["readiness", "history"]] {
            let result = try intervalpro(arguments: command + ["--db", empty], environment: env)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect((try FileManager.default.attributesOfItem(atPath: empty)[.size] as? Int) == 0, "\(command)")
        }
        let notes = try dir.write("notes.json", #"{"name": "not a store"}"# + "\n")
        let refused = try intervalpro(arguments: ["history", "--db", notes], environment: env)
        #expect(refused.status == 65, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("not an IntervalPro database"), "stderr: \(refused.stderr)")
        // A store whose header was written over is said to be damaged, with what to keep.
        #expect(refused.stderr.contains("if it was the store, its header is damaged: keep a copy"), "stderr: \(refused.stderr)")
    }

    @Test("imports on a full disk stop, say the store could not be written and exit 74; importing again takes the rest")
    func importsStopOnAFullDisk() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let store = dir.path("store.sqlite")
        let first = try intervalpro(
            "history", "import", packagePath("Recordings/first-cadence-session.jsonl"), "--db", store, environment: env)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        // A file size limit makes the disk refuse the store's writes, as a full disk would.
        func limited(_ kilobytes: Int, _ arguments: [String]) throws -> CommandResult {
            try intervalpro(
                arguments: ["-c", "trap '' XFSZ; ulimit -f \(kilobytes); exec \"$0\" \"$@\"", executablePath] + arguments,
                environment: env, executable: "/bin/sh")
        }
        // The watch's files were said to be unreadable (65), or the mornings refused (0).
        let runs = try limited(256, ["history", "import", packagePath("Recordings"), "--db", store])
        #expect(runs.status == 74, "stderr: \(runs.stderr)")
        #expect(runs.stdout.contains("Stopped: session store") && !runs.stdout.contains("Could not read"), "\(runs.stdout)")
        let again = try intervalpro("history", "import", packagePath("Recordings"), "--db", store, "--json", environment: env)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let report = try #require(jsonObject(again.stdoutData))
        #expect((report["imported"] as? [Any])?.count == 3 && report["store_failure"] is NSNull, "\(report)")

        try FileManager.default.createDirectory(atPath: dir.path("mornings"), withIntermediateDirectories: true)
        let cycle = [1000, 1030, 1055, 1045, 1015, 985, 960, 950, 965, 995]
        for day in 10...29 {
            try dir.write(
                "mornings/2026-10-\(day) 06-30-00.txt", (0..<170).map { String(cycle[$0 % cycle.count]) }.joined(separator: "\n") + "\n")
        }
        try FileManager.default.createDirectory(atPath: dir.path("first"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir.path("mornings/2026-10-10 06-30-00.txt"), toPath: dir.path("first/2026-10-10 06-30-00.txt"))
        #expect(try intervalpro("readiness", "import", dir.path("first"), "--db", dir.path("readiness.sqlite"), environment: env).status == 0)
        let mornings = try limited(64, ["readiness", "import", dir.path("mornings"), "--db", dir.path("readiness.sqlite")])
        #expect(mornings.status == 74, "stderr: \(mornings.stderr)")
        #expect(mornings.stdout.contains("Stopped: ") && !mornings.stdout.contains("Refused"), "\(mornings.stdout)")
        // One morning measured onto a full store: its figures shown all the same (it printed
        // nothing but the store's failure), then said not saved.
        let one = try limited(
            64, ["readiness", "--replay", dir.path("mornings/2026-10-29 06-30-00.txt"), "--db", dir.path("readiness.sqlite")])
        #expect(one.status == 74, "stderr: \(one.stderr)")
        #expect(one.stdout.contains("rMSSD") && one.stdout.contains("verdict"), "\(one.stdout)")
        #expect(one.stderr.contains("the measurement was not saved"), "\(one.stderr)")
    }

    @Test("record and run --record naming a folder: 74 at once, before any sensor is looked for")
    func aFolderIsNoRecording() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let plan = try dir.write("ten.json", tenMinutePlanText)
        // Found out only once the sensors were up (or said as a missing system bus, 69).
        for arguments in [["record", dir.url.path, "--duration", "1"], ["run", plan, "--record", dir.url.path]] {
            let result = try intervalpro(arguments: arguments, environment: env)
            #expect(result.status == 74, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("Is a directory") || result.stderr.contains("is a directory"), "\(arguments[0]): \(result.stderr)")
        }
    }

    @Test("a recording another one is writing is refused (74): two started at once both wrote, two headers")
    func aRecordingBeingWrittenIsNotShared() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let path = try dir.write("same.jsonl", "")
        // What the other recording holds while it writes.
        let held = open(path, O_RDONLY)
        #expect(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        defer { close(held) }
        let second = try intervalpro("run", plan, "--simulate", "--fast", "--no-save", "--record", path, environment: dir.ownFolders)
        #expect(second.status == 74, "stderr: \(second.stderr)")
        #expect(second.stderr.contains("another recording is being written to it"), "stderr: \(second.stderr)")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0)
    }

    @Test("a recording whose cut last line is NUL bytes (a power cut): the warning shows them, never writes them raw")
    func aCutLineOfZerosIsShownNotWritten() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        var text = #"{"intervalpro_recording":1,"started_at":"2026-03-01T07:30:00Z","devices":[{"id":"pod","cadence_unit":"steps"}]}"# + "\n"
        for second in 0..<30 { text += #"{"t":\#(second).000,"dev":"pod","char":"2a53","hex":"04a802aa"}"# + "\n" }
        let recording = try dir.write("cut.jsonl", text + String(repeating: "\u{0}", count: 16))
        let replay = try intervalpro("replay", recording, "--plan", plan, "--fast", "--no-save", environment: dir.ownFolders)
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        #expect(replay.stderr.contains("cut short"), "stderr: \(replay.stderr)")
        #expect(!replay.stderrData.contains(0), "a NUL reached the terminal")
    }

    /// A data folder `sudo intervalpro run` left behind, which the runner may not open, read as
    /// "No sessions saved yet" with exit 0.
    @Test("a store read while read-only, then made writable again, saves again; as root modes do not bind, so run as nobody")
    func journalsOfAReadOnlyReadAreMadeWritable() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let dir = try ScratchDirectory()
        let data = dir.path("data")
        let plan = try dir.write("ten.json", tenMinutePlanText)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        #expect(chmod(dir.url.path, 0o755) == 0 && chmod(plan, 0o644) == 0 && chown(data, 65534, 65534) == 0)
        #expect(try asNobody(["run", plan, "--simulate", "--fast"], data: data).status == 0)
        let store = data + "/intervalpro/intervalpro.sqlite"
        for journal in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + journal) }
        #expect(chmod(store, 0o400) == 0)
        #expect(try asNobody(["history"], data: data).status == 0)
        #expect(chmod(store, 0o600) == 0)
        // Its -wal and -shm stayed 0400: every save failed, "the database is read-only".
        let saved = try asNobody(["run", plan, "--simulate", "--fast"], data: data)
        #expect(saved.status == 0, "stderr: \(saved.stderr)")
        #expect(saved.stderr.contains("saved as session 2"), "stderr: \(saved.stderr)")
    }

    /// A first run on a full disk left a store with no tables (its first migration failed):
    /// read where it could not be written, it was "read-only and needs an upgrade", to be copied.
    @Test("a store made but never written, read where it cannot be written, holds no sessions; as root modes do not bind, so run as nobody")
    func aStoreNeverWrittenHoldsNothing() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let dir = try ScratchDirectory()
        let data = dir.path("data")
        let folder = data + "/intervalpro"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = folder + "/intervalpro.sqlite"
        let made = Process()
        made.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        made.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); c.close()", store]
        try made.run()
        made.waitUntilExit()
        for journal in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + journal) }
        #expect(made.terminationStatus == 0 && chown(store, 65534, 65534) == 0 && chmod(store, 0o400) == 0)
        #expect(chmod(dir.url.path, 0o755) == 0 && chown(data, 65534, 65534) == 0 && chown(folder, 65534, 65534) == 0)
        let result = try asNobody(["history"], data: data)
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("No sessions saved yet"), "stdout: \(result.stdout) stderr: \(result.stderr)")
    }

    /// A store this account may not read exited 74, "cannot open the database file" or "the
    /// database is read-only (its folder cannot be written)", though nothing was to be written.
    @Test("a store that may not be read: 66, Permission denied; as root modes do not bind, so run as nobody")
    func aStoreThatMayNotBeRead() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let dir = try ScratchDirectory()
        let store = try dir.write("theirs.sqlite", "")
        #expect(try intervalpro(arguments: ["run", try dir.write("ten.json", tenMinutePlanText), "--simulate", "--fast", "--db", store]).status == 0)
        #expect(chmod(dir.url.path, 0o755) == 0 && chmod(store, 0o000) == 0)
        let result = try asNobody(["history", "--db", store])
        #expect(result.status == 66, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("Permission denied"), "stderr: \(result.stderr)")
    }

    /// A writable store in a folder that is not: SQLite says read-only, and so did the save's
    /// warning, which sent its owner to chmod the file.
    @Test("a writable store in a read-only folder: the save's warning says the folder; as root modes do not bind, so run as nobody")
    func aStoreInAReadOnlyFolder() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let dir = try ScratchDirectory()
        let folder = dir.path("store")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let plan = try dir.write("ten.json", tenMinutePlanText)
        #expect(try intervalpro(arguments: ["run", plan, "--simulate", "--fast", "--db", folder + "/s.sqlite"]).status == 0)
        for journal in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder + "/s.sqlite" + journal) }
        #expect(chown(folder + "/s.sqlite", 65534, 65534) == 0 && chown(folder, 65534, 65534) == 0)
        #expect(chmod(dir.url.path, 0o755) == 0 && chmod(folder, 0o500) == 0 && chmod(folder + "/s.sqlite", 0o600) == 0)
        let result = try asNobody(["run", plan, "--simulate", "--fast", "--db", folder + "/s.sqlite"])
        #expect(result.stderr.contains("the database is read-only (its folder cannot be written)"), "stderr: \(result.stderr)")
        #expect(chmod(folder, 0o700) == 0)
    }

    @Test("a data folder that may not be opened: 66, said; as root, folders are always open, so run as nobody")
    func aFolderThatMayNotBeOpened() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let dir = try ScratchDirectory()
        let data = dir.path("data")
        try FileManager.default.createDirectory(atPath: data + "/intervalpro", withIntermediateDirectories: true)
        #expect(chmod(dir.url.path, 0o755) == 0 && chmod(data, 0o755) == 0 && chmod(data + "/intervalpro", 0o700) == 0)
        let result = try asNobody(["history"], data: data)
        #expect(result.status == 66, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("Permission denied"), "stderr: \(result.stderr)")
    }
}

/// `intervalpro ARGUMENTS` as the user nobody (through setpriv), its data folder `data`: as
/// root, file modes do not bind.
private func asNobody(_ arguments: [String], data: String = "/tmp") throws -> CommandResult {
    try intervalpro(
        arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", executablePath] + arguments,
        environment: ["XDG_CONFIG_HOME": "/tmp", "XDG_DATA_HOME": data], executable: "/usr/bin/setpriv")
}
