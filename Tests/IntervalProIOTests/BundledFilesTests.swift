import Foundation
import Testing

@testable import IntervalProIO

@Suite("BundledFiles")
struct BundledFilesTests {
    @Test(
        "stem(of:) drops the folders and the last extension",
        arguments: [
            ("Plans/cadence-ladder.json", "cadence-ladder"),
            ("cadence-ladder.json", "cadence-ladder"),
            ("/abs/path/to/pyramid.json", "pyramid"),
            ("./plan.v2.json", "plan.v2"),
            ("Plans/no-extension", "no-extension"),
            ("dir.d/plan", "plan"),
            (".hidden", ".hidden"),
            ("Plans/.hidden", ".hidden"),
            ("Plans/trailing.", "trailing"),
            ("Plans/sub/", "sub"),
            ("plain", "plain"),
        ])
    func stem(path: String, expected: String) {
        #expect(BundledFiles.stem(of: path) == expected)
    }

    @Test("isDirectory: directories yes, files and missing paths no, symlinks followed")
    func isDirectory() throws {
        let dir = try TemporaryDirectory()
        #expect(BundledFiles.isDirectory(dir.path))
        #expect(BundledFiles.isDirectory(dir.path + "/"))
        let file = try dir.write("file.json", Array("{}".utf8))
        #expect(!BundledFiles.isDirectory(file))
        #expect(!BundledFiles.isDirectory(dir.file("absent")))
        #expect(!BundledFiles.isDirectory(""))

        let sub = dir.file("sub")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        #expect(BundledFiles.isDirectory(sub))
        let link = dir.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sub)
        #expect(BundledFiles.isDirectory(link))
        let fileLink = dir.file("file-link")
        try FileManager.default.createSymbolicLink(atPath: fileLink, withDestinationPath: file)
        #expect(!BundledFiles.isDirectory(fileLink))
    }

    /// The page of an install under another prefix offered no plans: intervalpro-web, in
    /// PREFIX/libexec/intervalpro, looked in PREFIX/libexec/share.
    @Test("the bundled files are found from PREFIX/bin/intervalpro and from PREFIX/libexec/intervalpro/intervalpro-web")
    func foundFromEitherInstalledBinary() throws {
        let prefix = try TemporaryDirectory()
        // A name the working folder (the checkout, with its own Plans) does not hold.
        let examples = prefix.file("share/intervalpro/Examples")
        try FileManager.default.createDirectory(atPath: examples, withIntermediateDirectories: true)
        _ = try prefix.write("share/intervalpro/Examples/marker.json", Array("{}".utf8))
        for executable in ["bin/intervalpro", "libexec/intervalpro/intervalpro-web"] {
            #expect(
                BundledFiles.directory("Examples", holding: "marker.json", executable: prefix.file(executable)) == examples,
                "\(executable)")
        }
    }

    /// make test's debug build is in `.build/debug-tree`: its binaries, a folder deeper than
    /// SwiftPM's own, found no bundled plans or recordings.
    @Test("the bundled files are found from a binary anywhere under the checkout's .build")
    func foundFromAnyBuildFolder() throws {
        let checkout = try TemporaryDirectory()
        let examples = checkout.file("Examples")
        try FileManager.default.createDirectory(atPath: examples, withIntermediateDirectories: true)
        _ = try checkout.write("Examples/marker.json", Array("{}".utf8))
        for executable in [
            ".build/x86_64-unknown-linux-gnu/release/intervalpro", ".build/debug-tree/x86_64-unknown-linux-gnu/debug/intervalpro",
            ".build/release/intervalpro",
        ] {
            #expect(
                BundledFiles.directory("Examples", holding: "marker.json", executable: checkout.file(executable)) == examples,
                "\(executable)")
        }
        // Not a checkout: the folder four levels up is not taken for one.
        #expect(BundledFiles.directory("Examples", holding: "marker.json", executable: checkout.file("a/b/c/intervalpro")) == nil)
    }

    @Test("exists: files and directories, not missing paths")
    func exists() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("file.json", [])
        #expect(BundledFiles.exists(file))
        #expect(BundledFiles.exists(dir.path))
        #expect(!BundledFiles.exists(dir.file("absent")))
    }

    @Test("parent(of:)")
    func parent() {
        #expect(BundledFiles.parent(of: "/a/b/c") == "/a/b")
        #expect(BundledFiles.parent(of: "/a") == "/")
        #expect(BundledFiles.parent(of: "a") == ".")
    }

    @Test("the recordings directory is found from the test binary's checkout")
    func recordingsDirectory() throws {
        // The test binary sits in .build*/<triple>/debug like the executable, so the
        // checkout fallback applies whatever the working directory is.
        let found = try #require(BundledFiles.recordingsDirectory())
        #expect(BundledFiles.isDirectory(found))
        #expect(BundledFiles.exists(found + "/first-cadence-session.jsonl"))
    }

    /// `doctor` said it looked for "//libexec/intervalpro/intervalpro-web" for a binary in /tmp.
    @Test("the companion program is looked for beside the binary and in PREFIX/libexec, one slash apart")
    func companionCandidates() {
        #expect(CompanionProgram.candidates("intervalpro-web", besides: "/usr/bin/intervalpro") == [
            "/usr/bin/intervalpro-web", "/usr/libexec/intervalpro/intervalpro-web",
        ])
        #expect(CompanionProgram.candidates("intervalpro-web", besides: "/tmp/intervalpro") == [
            "/tmp/intervalpro-web", "/libexec/intervalpro/intervalpro-web",
        ])
        #expect(CompanionProgram.candidates("intervalpro-web", besides: "/intervalpro") == [
            "/intervalpro-web", "/libexec/intervalpro/intervalpro-web",
        ])
    }

    /// A stick copied from a Mac holds a resource fork beside every file.
    @Test("macOS's own files are told apart from a user's", arguments: [
        ("._run.gpx", true), ("runs/._run.gpx", true), (".DS_Store", true), ("__MACOSX/run.gpx", true),
        ("a/.Spotlight-V100/Store-V2/x", true), ("run.gpx", false), ("runs/my._run.gpx", false), ("._/run.gpx", false),
    ])
    func macMetadata(path: String, isMacs: Bool) {
        #expect(MacMetadata.holds(path) == isMacs)
    }
}
