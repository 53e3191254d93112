import IntervalProCore
import IntervalProIO
import IntervalProRuntime

/// For the live benchmark (INTERVALPRO_LATENCY_PROBE=FILE): how long each notification
/// took from its recv(2) (the feed's stamp) to being handed to the engine, written to FILE
/// as p50 and p99 in microseconds when the session finishes. Off unless asked for.
struct LatencyProbe: SessionObserver {
    let feed: LiveFeed
    let path: String
    private var samples: [Int64] = []

    init?(feed: LiveFeed) {
        guard let path = ProcessEnvironment.value("INTERVALPRO_LATENCY_PROBE"), !path.isEmpty else { return nil }
        self.feed = feed
        self.path = path
        samples.reserveCapacity(100_000)
    }

    mutating func received(_ entry: RecordingEntry) {
        guard case .notification(let notification) = entry else { return }
        samples.append((feed.now - notification.time).microseconds)
    }

    mutating func engine(_ engine: SessionEngine, performed actions: [SessionEngine.Action], at now: SessionTime) {
        guard actions.contains(where: { if case .sessionFinished = $0 { true } else { false } }), !samples.isEmpty
        else { return }
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Int64 { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        let text = "{\"count\": \(sorted.count), \"p50_us\": \(percentile(0.5)), \"p99_us\": \(percentile(0.99)), "
            + "\"max_us\": \(sorted.last!)}"
        try? RecordingWriter(path: path, headerLine: text).close()
    }
}
