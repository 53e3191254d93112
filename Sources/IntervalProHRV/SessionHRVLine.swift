public import IntervalProCore

extension SessionHRV {
    /// "Beats 5402, 0.4% corrected; alpha 1 crossed 0.75 at 24:10 (HR 152, 168 spm); not 0.5."
    /// `runSeconds`: the session's time, which a window needs two minutes of. The screen's
    /// summary, `show` and the HTML report say it alike.
    public func line(runSeconds: Double? = nil) -> String {
        // To a tenth, but never over the share that is not trusted when under it: 2.99 % was
        // "3% corrected" without the warning 3 % gives.
        var percent = (100 * artifactShare).rounded(toPlaces: 1)
        if isTrusted, percent >= 100 * Self.trustedArtifactShare { percent = (1000 * artifactShare).rounded(.down) / 10 }
        let share = JSONValue.format(percent)
        var line = "Beats \(beats), \(share)% corrected"
        if !isTrusted {
            line += " (too many to trust alpha 1: wet the strap's electrodes before the run)"
        }
        guard scoredWindows > 0 else {
            // The first window ends at 2:00, with that second's sample, which a session of
            // exactly 2:00 ends before: it blamed the strap.
            if let runSeconds, runSeconds <= Double(AlphaOneTracker.windowSeconds) {
                return line + "; no alpha 1: the first window takes the two minutes of beats after the start, and the session was no longer."
            }
            return line
                + "; no two-minute window could be scored for alpha 1 (too many corrected beats, or too few beats: "
                + "a strap without contact, or one that sends only some of its intervals)."
        }
        var crossed: [String] = [], notCrossed: [String] = []
        for threshold in SessionHRV.thresholds {
            guard let crossing = crossings.first(where: { $0.threshold == threshold }) else {
                notCrossed.append(JSONValue.format(threshold))
                continue
            }
            let window = crossing.window
            var at = "\(JSONValue.format(threshold)) at \(formatClock(Double(window.second)))"
            let detail = [
                window.heartRate.map { "HR \(Int($0.rounded()))" }, window.cadence.map { "\(Int($0.rounded())) spm" },
            ].compactMap { $0 }
            if !detail.isEmpty { at += " (" + detail.joined(separator: ", ") + ")" }
            crossed.append(at)
        }
        // "crossed 0.75 at 12:25 (…); not 0.5", "crossed neither 0.75 nor 0.5".
        switch (crossed.isEmpty, notCrossed.isEmpty) {
        case (true, _): return line + "; alpha 1 crossed neither " + notCrossed.joined(separator: " nor ") + "."
        case (false, true): return line + "; alpha 1 crossed " + crossed.joined(separator: ", ") + "."
        case (false, false):
            return line + "; alpha 1 crossed " + crossed.joined(separator: ", ") + "; not " + notCrossed.joined(separator: " nor ") + "."
        }
    }
}
