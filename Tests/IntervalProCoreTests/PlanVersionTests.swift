import IntervalProCore
import Testing

@Suite("PlanDecoder: format version 2 and the metronome object")
struct PlanVersionTests {
    static let steps = #""steps": [{"kind": "work", "duration": 60, "cadence": 170}]"#

    func decode(_ text: String) throws -> Plan {
        try PlanDecoder.decode(Array(text.utf8), file: "plan.json")
    }

    func error(_ text: String) -> PlanError? {
        do {
            _ = try PlanDecoder.decode(Array(text.utf8), file: "plan.json")
            return nil
        } catch {
            return error
        }
    }

    @Test func planWithoutVersionIsVersionOne() throws {
        let plan = try decode(#"{"name": "x", \#(Self.steps)}"#)
        #expect(plan.version == 1)
        #expect(plan.metronome == nil)
    }

    @Test func versionOneMayBeExplicit() throws {
        #expect(try decode(#"{"version": 1, "name": "x", \#(Self.steps)}"#).version == 1)
    }

    /// Plan format version 1 promised that a top-level "metronome" object is accepted.
    @Test func metronomeInVersionOneIsHonouredAsInVersionTwo() throws {
        let settings = #""metronome": {"mode": "always", "accent": "step-start", "volume": 0.4}"#
        let implicit = try decode(#"{"name": "x", \#(settings), \#(Self.steps)}"#)
        let explicit = try decode(#"{"version": 1, "name": "x", \#(settings), \#(Self.steps)}"#)
        let two = try decode(#"{"version": 2, "name": "x", \#(settings), \#(Self.steps)}"#)
        #expect(implicit.version == 1)
        #expect(implicit.metronome != nil)
        #expect(implicit.metronome == two.metronome)
        #expect(explicit.metronome == two.metronome)
    }

    /// ... any object: what version 2 does not know, or refuses, is passed over in version 1
    /// (a first-release plan's {"enabled": true, "bpm": 170} was refused), the rest honoured.
    @Test func versionOneKeepsItsPromiseOfAnyObject() throws {
        let plan = try decode(
            #"{"name": "x", "metronome": {"enabled": true, "bpm": 170, "volume": 1.5, "mode": "off-target"}, \#(Self.steps)}"#)
        var expected = MetronomeSettings()
        expected.mode = .offTarget
        #expect(plan.metronome == expected)
        #expect(error(#"{"name": "x", "metronome": true, \#(Self.steps)}"#)?.path == "metronome")
        #expect(error(#"{"version": 2, "name": "x", "metronome": {"bpm": 170}, \#(Self.steps)}"#)?.path == "metronome")
    }

    @Test func everySettingIsRead() throws {
        let plan = try decode(
            #"""
            {"version": 2, "name": "x", "metronome": {"mode": "off", "accent": "step-start", "volume": 0.5,
             "grace": 3, "voice": "es", "coaching_grace": 12, "coaching_cooldown": 30}, \#(Self.steps)}
            """#)
        let settings = try #require(plan.metronome)
        #expect(settings.mode == .off)
        #expect(settings.accent == .stepStart)
        #expect(settings.volume == 0.5)
        #expect(settings.grace == .seconds(3))
        #expect(settings.voice)
        #expect(settings.language == .es)
        #expect(settings.coachingGrace == .seconds(12))
        #expect(settings.coachingCooldown == .seconds(30))
    }

    @Test func emptyMetronomeKeepsDefaults() throws {
        let plan = try decode(#"{"version": 2, "name": "x", "metronome": {}, \#(Self.steps)}"#)
        #expect(plan.metronome == MetronomeSettings())
    }

    @Test func voiceOff() throws {
        for off in [#"false"#, #""off""#] {
            let plan = try decode(#"{"version": 2, "name": "x", "metronome": {"voice": \#(off)}, \#(Self.steps)}"#)
            #expect(plan.metronome?.voice == false)
        }
    }

    @Test(arguments: [
        // A later version's plan is said to be one, before its new keys are taken for typos.
        (#"{"version": 3, "name": "x", "#, "version", "plan format version 3 is a later IntervalPro's; this one reads versions 1 to 2"),
        (#"{"coach_notes": "easy", "version": 3, "name": "x", "#, "version",
         "plan format version 3 is a later IntervalPro's; this one reads versions 1 to 2"),
        (#"{"version": 0, "name": "x", "#, "version", "0 is out of range (1-2) at version"),
        (#"{"version": "2", "name": "x", "#, "version", "expected a whole number, found a string at version"),
        (#"{"version": 2, "metronome": {"mode": "sometimes"}, "name": "x", "#, "metronome.mode",
         "expected one of always, off-target, off at metronome.mode"),
        (#"{"version": 2, "metronome": {"accent": 1}, "name": "x", "#, "metronome.accent",
         "expected one of none, alternate, step-start at metronome.accent"),
        (#"{"version": 2, "metronome": {"volume": 1.5}, "name": "x", "#, "metronome.volume",
         "1.5 (volume) is out of range (0-1) at metronome.volume"),
        (#"{"version": 2, "metronome": {"voice": "fr"}, "name": "x", "#, "metronome.voice",
         #"expected "en", "es" or "off" at metronome.voice"#),
        (#"{"version": 2, "metronome": {"grace": -1}, "name": "x", "#, "metronome.grace",
         "-1 s is out of range (0-600) at metronome.grace"),
        (#"{"version": 2, "metronome": {"modes": "off"}, "name": "x", "#, "metronome",
         "unknown key 'modes' at metronome; did you mean 'mode'?"),
    ])
    func badValues(prefix: String, path: String, message: String) throws {
        let failure = try #require(error(prefix + Self.steps + "}"))
        #expect(failure.path == path)
        #expect(failure.message.hasSuffix(message), "\(failure.message)")
    }
}
