public import IntervalProCore

/// Where each step lies in the stored 1 Hz samples: exports and the report draw from it.
public struct StepSpan: Equatable, Sendable {
    public var result: StepResult
    /// First and one-past-last sample second of the step (equal for a step that took no time).
    public var startSecond: Int
    public var endSecond: Int
    /// The step's samples, in order.
    public var samples: ArraySlice<SessionSample>

    /// Largest normalised cadence among the step's samples (spm).
    public var maxCadence: Int? { samples.compactMap(\.cadence).max() }

    /// Steps counted over the step's seconds: Σ cadence/60, kept as spm-seconds so that
    /// sums stay exact.
    public var cadenceSeconds: Int { samples.reduce(0) { $0 + ($1.cadence ?? 0) } }
    /// Whether any of its seconds had a cadence reading.
    public var hasCadence: Bool { samples.contains { $0.cadence != nil } }
}

/// Strides (one foot) in `cadenceSeconds` spm-seconds: /60 for steps, /2 for strides,
/// rounded half up.
public func strides(cadenceSeconds: Int) -> Int { (cadenceSeconds + 60) / 120 }

extension StoredSession {
    /// The stored session's steps laid over its samples. Empty while it is running.
    public var stepSpans: [StepSpan] {
        guard let summary else { return [] }
        var spans: [StepSpan] = []
        var position = 0
        for result in summary.steps {
            let start = position
            while position < samples.count, samples[position].stepIndex == result.step.index { position += 1 }
            // Samples of a step that is not among the results (none expected) are skipped.
            let first = start < samples.count ? samples[start].second : (samples.last.map { $0.second + 1 } ?? 0)
            let end = position < samples.count ? samples[position].second : (samples.last.map { $0.second + 1 } ?? 0)
            spans.append(
                StepSpan(result: result, startSecond: first, endSecond: max(first, end), samples: samples[start..<position]))
        }
        return spans
    }

    /// The spans an export writes as laps, the last closed at the session's end: a step the
    /// session ended on as it began (an open cooldown), of no time and no sample, is none. Its
    /// lap of 0 s took the closing record, which it had no sample to make, and the file ended
    /// a second short.
    public var lapSpans: [StepSpan] {
        let spans = stepSpans
        let laps = spans.filter { $0.endSecond > $0.startSecond || !$0.samples.isEmpty }
        return laps.isEmpty ? spans : laps
    }

    /// When the session began, in seconds since 1970 (0 when the stored time is unreadable).
    public var startUnixSeconds: Int64 { UTCTimestamp.unixSeconds(listing.startedAt) ?? 0 }

    /// Why the session cannot be dated, when its start is no time (a store edited by hand):
    /// exported, it was dated 1970 (TCX) or 2106 (FIT).
    public var undatedBecause: String? {
        guard UTCTimestamp.unixSeconds(listing.startedAt) == nil else { return nil }
        return "session \(listing.id): its start \"\(listing.startedAt.printable)\" is no time (like 2026-03-01T07:30:00Z): was the store edited by hand?"
    }
}
