import Foundation
import Testing

/// The bash completion `--generate-completion-script` writes, run by bash as a shell runs it
/// at a Tab: files for the options that take one, values for those that take a choice.
@Suite struct CompletionTests {
    /// What the completion offers for `line`, the last word being completed, in `dir`.
    func completions(_ line: String, script: String, in dir: ScratchDirectory) throws -> [String] {
        let probe = """
            source "$1"
            read -ra words <<< "$2"
            [[ "$2" == *" " ]] && words+=("")
            COMP_WORDS=("${words[@]}"); COMP_CWORD=$(( ${#words[@]} - 1 )); COMP_LINE="$2"; COMP_POINT=${#2}
            _intervalpro intervalpro "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", probe, "probe", script, line]
        process.currentDirectoryURL = dir.url
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    /// `replay REC --plan <Tab>`, the usual way to score a recording, offered nothing, nor did
    /// `--record`, `--db` or `-o`; `--metronome`, `--voice` and `--cadence-unit` offered no values.
    @Test("bash completion: files for --plan, --record, --db and -o; the values of --metronome, --voice, --cadence-unit")
    func filesAndValues() throws {
        let dir = try ScratchDirectory()
        let generated = try intervalpro("--generate-completion-script", "bash")
        #expect(generated.status == 0)
        let script = try dir.write("completion.bash", generated.stdout)
        for name in ["tempo.json", "tempo.jsonl", "runs.sqlite", "notes.txt"] { try dir.write(name, "") }

        #expect(try completions("intervalpro replay tempo.jsonl --plan te", script: script, in: dir) == ["tempo.json"])
        // Watches write .FIT: the readers go by content, and completion left such files out.
        try dir.write("MORNING.FIT", "")
        #expect(try completions("intervalpro replay MO", script: script, in: dir) == ["MORNING.FIT"])
        #expect(try completions("intervalpro run tempo.json --record te", script: script, in: dir) == ["tempo.jsonl"])
        #expect(try completions("intervalpro show 1 --db ru", script: script, in: dir) == ["runs.sqlite"])
        #expect(try completions("intervalpro export 1 --format fit -o no", script: script, in: dir) == ["notes.txt"])
        #expect(try completions("intervalpro run tempo.json --metronome ", script: script, in: dir) == ["always", "off", "off-target"])
        #expect(try completions("intervalpro run tempo.json --voice ", script: script, in: dir) == ["en", "es"])
        #expect(try completions("intervalpro replay tempo.jsonl --cadence-unit st", script: script, in: dir) == ["steps", "strides"])
    }
}
