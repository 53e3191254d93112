import Foundation
import Testing

/// What a small Pi's limits and a script's closed descriptors did: a crash without a word, a
/// store made in a folder of another name, a process killed with its temporary file left.
@Suite("the process's surroundings")
struct SurroundingsTests {
    /// `intervalpro` started by a shell running `script` first (`$0` is the binary, `$@` the arguments).
    func shell(_ script: String, _ arguments: [String] = [], environment: [String: String?] = [:]) throws -> CommandResult {
        try intervalpro(
            arguments: ["-c", script, executablePath] + arguments, environment: environment, executable: "/bin/sh")
    }

    @Test("an argument that is not UTF-8 text is refused by its place, 64, not read as another path")
    func argumentNotText() throws {
        let dir = try ScratchDirectory()
        let result = try shell(#"exec "$0" history --db "$(printf 'st\377re.sqlite')""#, environment: dir.ownFolders)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(#"argument 3 ('st\xFFre.sqlite') is not UTF-8 text"#), "\(result.stderr)")
    }

    @Test("a path variable that is not UTF-8 text is refused by name, 64, and nothing is made in its stead")
    func variableNotText() throws {
        let dir = try ScratchDirectory()
        let result = try shell(
            #"XDG_DATA_HOME="$(printf '%s/d\377ta' "$FOLDER")" exec "$0" replay Recordings/cadence-ladder.jsonl --plan Plans/cadence-ladder.json --fast"#,
            environment: ["FOLDER": dir.url.path, "XDG_CONFIG_HOME": dir.path("config")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(#"XDG_DATA_HOME ('"# + dir.url.path + #"/d\xFFta') is not UTF-8 text"#), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix("d") }.isEmpty)
    }

    @Test("too few files allowed is said, 74; a soft limit is raised to what is needed")
    func openFilesLimit() throws {
        let dir = try ScratchDirectory()
        let hard = try shell(#"ulimit -n 7 && exec "$0" history"#, environment: dir.ownFolders)
        #expect(hard.exited && hard.status == 74, "status \(hard.status): \(hard.stderr)")
        #expect(hard.stderr.contains("this process may open only 7 files at once (`ulimit -n`)"), "\(hard.stderr)")
        let soft = try shell(#"ulimit -Sn 7 && exec "$0" replay Recordings/cadence-ladder.jsonl --plan Plans/cadence-ladder.json --fast --json"#, environment: dir.ownFolders)
        #expect(soft.exited && soft.status == 0, "status \(soft.status): \(soft.stderr)")
    }

    @Test("a file size limit fails the write, 74, the file named and no temporary file left")
    func fileSizeLimit() throws {
        let dir = try ScratchDirectory()
        #expect(try intervalpro("run", "Plans/cadence-ladder.json", "--simulate", "--fast", environment: dir.ownFolders).status == 0)
        let out = dir.path("out.jsonl")
        // SIGXFSZ as a login shell has it (a test runner may have it ignored, which exec keeps).
        let result = try shell(
            #"ulimit -f 200 && exec env --default-signal=XFSZ "$0" export last --format jsonl -o "$OUT""#,
            environment: dir.ownFolders.merging(["OUT": out]) { $1 })
        #expect(result.exited && result.status == 74, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("cannot write to '\(out)': File too large"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.hasPrefix("out") }.isEmpty)
    }

    @Test("closed standard descriptors fail as closed (EBADF), not as the file that took their number")
    func closedStandardDescriptors() throws {
        let dir = try ScratchDirectory()
        let output = try shell(#"exec "$0" plan check Plans/cadence-ladder.json >&-"#, environment: dir.ownFolders)
        #expect(output.status == 74 && output.stderr.contains("cannot write to standard output: Bad file descriptor"), "\(output.stderr)")
        // Standard input's number was an eventfd's: "Invalid argument" and "Resource temporarily unavailable".
        for command in ["replay -", "history import -"] {
            let input = try shell(#"exec "$0" "# + command + " <&-", environment: dir.ownFolders)
            #expect(input.stderr.contains("cannot read 'standard input': Bad file descriptor"), "\(command): \(input.stderr)")
        }
    }
}
