import CLinux

/// The pages of code the process has touched so far, given back to the system (`MADV_PAGEOUT`
/// over the read-only mappings of the binary and its libraries), and the heap's free pages
/// (`malloc_trim`). Whatever runs again faults back in from the file. The binary's alone were
/// not enough: after `doctor`'s checks and a report, an idle `serve` held 17 MB of libraries'
/// pages (libcrypto, gnutls, ALSA) and malloc's free ones.
///
/// A live command (`run` or `record` on sensors, a live `readiness`) holds on for up to hours,
/// and what start-up touched (the runtime's first type lookups, argument parsing, reading the
/// plan) would otherwise stay counted against it: given back before the sensors connect, a
/// live `run` peaks at 18 MB rather than 21, and holds 13 rather than 20 (docs/dev/benchmarks.md,
/// "Live sensors"). An idle `serve` does the same between sessions.
public enum CodePages {
    /// The bytes advised; -1 when the mappings could not be read (nothing else happens then).
    @discardableResult
    public static func giveBack() -> Int64 { intervalpro_page_out_code() }
}
