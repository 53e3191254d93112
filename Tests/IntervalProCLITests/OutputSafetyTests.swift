import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a command's `-o` may replace: never a recording, the command's own input, nor a file
/// its owner made read-only. Each was replaced with exit 0.
@Suite struct OutputSafetyTests {
    /// `export 1 --format fit -o -` on a terminal wrote 54 KB of FIT onto the screen, and
    /// render-audio 46 MB of WAV.
    @Test("binary output is not written to a terminal; text is", .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")))
    func binaryIsNotWrittenToATerminal() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let plan = packagePath("Plans/pyramid.json")
        #expect(try intervalpro(arguments: ["run", plan, "--simulate", "--fast"], environment: env).status == 0)
        for (arguments, refusal) in [
            (["export", "last", "--format", "fit", "-o", "-"], "a FIT file is not written to a terminal"),
            (["render-audio", plan, "-o", "-"], "WAV audio is not written to a terminal"),
            (["export", "last", "--format", "tcx", "-o", "-"], nil),
        ] {
            let terminal = try PseudoTerminal()
            let command = try RunningCommand(arguments, environment: env, stdout: terminal.secondaryHandle)
            terminal.closeSecondary()
            let output = terminal.readToEnd()
            let result = command.finish()
            if let refusal {
                #expect(result.status == 64 && result.stderr.contains(refusal), "\(arguments): \(result.stderr)")
                #expect(output.isEmpty, "\(arguments): \(output.count) characters written")
            } else {
                #expect(result.status == 0 && output.contains("<TrainingCenterDatabase"), "\(arguments): \(result.stderr)")
            }
        }
    }

    @Test("render-audio and export never write over a recording, render-audio's own --replay among them")
    func aRecordingIsNeverAnOutput() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let recording = dir.path("pyramid.jsonl")
        try FileManager.default.copyItem(atPath: packagePath("Recordings/pyramid.jsonl"), toPath: recording)
        #expect(symlink(recording, dir.path("link.jsonl")) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: recording))
        let plan = packagePath("Plans/pyramid.json")
        for output in [recording, dir.path("link.jsonl")] {
            let rendered = try intervalpro(
                arguments: ["render-audio", plan, "--replay", recording, "--audio-rate", "8000", "--audio-channels", "1", "-o", output],
                environment: env)
            #expect(rendered.status == 74, "\(rendered.stderr)")
            #expect(rendered.stderr.contains("this command reads"), "\(rendered.stderr)")
        }
        #expect(try intervalpro(arguments: ["run", plan, "--replay", recording, "--fast"], environment: env).status == 0)
        let exported = try intervalpro(arguments: ["export", "last", "--format", "jsonl", "-o", recording], environment: env)
        #expect(exported.status == 74, "\(exported.stderr)")
        #expect(exported.stderr.contains("holds an IntervalPro recording, which is never written over"), "\(exported.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: recording)) == before)
        // A file of another kind is replaced as before.
        let old = try dir.write("old.jsonl", "an older export\n")
        #expect(try intervalpro(arguments: ["export", "last", "--format", "jsonl", "-o", old], environment: env).status == 0)
    }

    /// `export 1 --format jsonl -o run002.fit` replaced a watch's FIT file with the export.
    @Test("an activity another program wrote is never written over; IntervalPro's own exports are")
    func aWatchsActivityIsNeverAnOutput() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        #expect(try intervalpro(arguments: ["run", "Plans/first-cadence-session.json", "--simulate", "--fast"], environment: env).status == 0)
        // A FIT file's 14-byte header and a record of a watch, a GPX and a TCX of other
        // programs, a gzip file.
        let fit = dir.path("watch.fit")
        try Data([14, 0x20, 0x54, 0x08, 20, 0, 0, 0] + Array(".FIT".utf8) + [0, 0] + Array(repeating: 0x41, count: 20)).write(to: URL(fileURLWithPath: fit))
        let gpx = try dir.write("run.gpx", #"<?xml version="1.0"?><gpx creator="Garmin Connect" version="1.1"><trk></trk></gpx>"#)
        let tcx = try dir.write("run.tcx", #"<?xml version="1.0"?><TrainingCenterDatabase><Activities/><Author><Name>Connect Api</Name></Author></TrainingCenterDatabase>"#)
        let gzip = dir.path("run.gpx.gz")
        try Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0]).write(to: URL(fileURLWithPath: gzip))
        for (path, kind) in [(fit, "a FIT file"), (gpx, "a GPX file"), (tcx, "a TCX file"), (gzip, "a gzip file")] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let exported = try intervalpro(arguments: ["export", "last", "--format", "fit", "-o", path], environment: env)
            #expect(exported.status == 74, "\(path): \(exported.stderr)")
            #expect(exported.stderr.contains("holds \(kind) IntervalPro did not write"), "\(exported.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
        // Its own exports are replaced when exported again.
        for format in ["fit", "tcx"] {
            let own = dir.path("own.\(format)")
            for _ in 0..<2 {
                let exported = try intervalpro(arguments: ["export", "last", "--format", format, "-o", own], environment: env)
                #expect(exported.status == 0, "\(format): \(exported.stderr)")
            }
        }
        let workout = dir.path("workout.fit")
        for _ in 0..<2 {
            #expect(try intervalpro(arguments: ["plan", "export", "Plans/pyramid.json", "--format", "fit", "-o", workout], environment: env).status == 0)
        }
    }

    @Test("plan export, plan import and render-audio never write over the plan they read")
    func thePlanReadIsNeverAnOutput() throws {
        let dir = try ScratchDirectory()
        let env = dir.ownFolders
        let plan = try dir.write("ten.json", tenMinutePlanText)
        for arguments in [
            ["plan", "export", plan, "--format", "fit", "-o", plan],
            ["render-audio", plan, "--simulate", "--audio-rate", "8000", "--audio-channels", "1", "-o", plan],
        ] {
            let refused = try intervalpro(arguments: arguments, environment: env)
            #expect(refused.status == 74, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("it is the file this command reads"), "\(arguments): \(refused.stderr)")
        }
        #expect(try String(contentsOfFile: plan, encoding: .utf8) == tenMinutePlanText)
        // Nor plan import the workout it reads, --force or not.
        let workout = try dir.write("z.zwo", #"<workout_file><name>Z</name><sportType>run</sportType><workout><SteadyState Duration="60" Cadence="170"/></workout></workout_file>"#)
        let imported = try intervalpro(arguments: ["plan", "import", workout, "-o", workout, "--force"], environment: env)
        #expect(imported.status == 74, "\(imported.stderr)")
        #expect(imported.stderr.contains("it is the file this command reads"), "\(imported.stderr)")
        #expect(try String(contentsOfFile: workout, encoding: .utf8).hasPrefix("<workout_file>"))
    }

    /// The new file renamed over a 0444 one replaced it, where the shell and `cp` refuse.
    @Test("a file its owner made read-only is not replaced; as root modes do not bind, so run as nobody")
    func aReadOnlyFileIsKept() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let kept = try dir.write("kept.fit", "keep\n")
        #expect(chmod(dir.url.path, 0o777) == 0 && chmod(plan, 0o644) == 0 && chown(kept, 65534, 65534) == 0 && chmod(kept, 0o444) == 0)
        let result = try intervalpro(
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", executablePath, "plan", "export", plan, "--format", "fit", "-o", kept],
            environment: ["XDG_CONFIG_HOME": "/tmp", "XDG_DATA_HOME": "/tmp"], executable: "/usr/bin/setpriv")
        #expect(result.status == 74, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Permission denied"), "stderr: \(result.stderr)")
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "keep\n")
    }

    /// As root, where modes do not bind, the 0444 file was replaced all the same (exit 0).
    @Test("a file its owner made read-only is not replaced by root either")
    func aReadOnlyFileIsKeptFromRoot() throws {
        let dir = try ScratchDirectory()
        let plan = try dir.write("ten.json", tenMinutePlanText)
        let kept = try dir.write("kept.fit", "keep\n")
        #expect(chmod(kept, 0o444) == 0)
        let result = try intervalpro(arguments: ["plan", "export", plan, "--format", "fit", "-o", kept], environment: dir.ownFolders)
        #expect(result.status == 74, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("read-only"), "stderr: \(result.stderr)")
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "keep\n")
    }
}
