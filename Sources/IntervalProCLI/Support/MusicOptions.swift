import ArgumentParser
import IntervalProLaunch
import IntervalProSound

/// The runner's music player: `run`, `replay --plan` and `serve`.
struct MusicOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The music player to duck for cues and pause with the session: an MPRIS name (vlc, spotify, ...), auto (the one playing) or none.",
            valueName: "player"))
    var music = "auto"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The music's volume during a voice cue, as a fraction of yours.", valueName: "fraction"))
    var duck = 0.3

    // One text for both flags: the man pages give each of them the whole of it.
    @Flag(inversion: .prefixedNo, help: "Pause and resume the music with the session (--no-music-follow: leave it as it is).")
    var musicFollow = true

    /// Whether any of them was given other than as the default.
    var isGiven: Bool { music != "auto" || duck != 0.3 || !musicFollow }

    func validate() throws {
        guard MusicFollower.Settings.duckRange.contains(duck) else { throw ValidationError("--duck must be between 0 and 1") }
        guard !music.isEmpty, music.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" }) else {
            throw ValidationError("--music takes a player's MPRIS name (as `intervalpro doctor` lists them), auto or none")
        }
    }

    /// Nil with --music none.
    func request(verbose: Bool) -> MusicRequest? {
        guard music != "none" else { return nil }
        return MusicRequest(
            settings: MusicFollower.Settings(choice: MusicFollower.Choice(typed: music), duck: duck, follow: musicFollow), verbose: verbose,
            explicitlyRequested: isGiven)
    }
}
