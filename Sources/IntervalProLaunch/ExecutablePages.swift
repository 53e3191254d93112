import CLinux

/// The pages of IntervalPro's own code that the process has touched so far, given back to the
/// system (`MADV_PAGEOUT` over the binary's read-only mappings). Whatever runs again faults
/// back in from the binary.
///
/// A live command (`run` or `record` on sensors, a live `readiness`) holds on for up to hours,
/// and what start-up touched (the runtime's first type lookups, argument parsing, reading the
/// plan) would otherwise stay counted against it. Giving those pages back before the sensors
/// connect takes a live `run`'s peak RSS from 20.3 to 16.6 MB and its steady RSS from 20.0
/// to 12.9 MB (docs/dev/benchmarks.md). An idle `serve` does the same between sessions.
public enum ExecutablePages {
    /// The bytes advised; -1 when the mappings could not be read (nothing else happens then).
    @discardableResult
    public static func giveBack() -> Int64 { intervalpro_page_out_executable() }
}
