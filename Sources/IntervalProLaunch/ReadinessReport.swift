import IntervalProCore
import IntervalProHRV
import IntervalProIO
import IntervalProLaunch
import IntervalProNetwork
import IntervalProServices
import IntervalProStorage

/// How a readiness measurement and the verdict are printed: text and `--json`.
enum ReadinessReport {
    /// The intervals.icu account readiness reads the day's wellness with (and, with `required`,
    /// writes to): nil when there is none and none is required.
    static func services(required: Bool, verbose: Bool) throws -> ServiceContext? {
        if required {
            let context = try ServiceContext.standard(verbose: verbose)
            do throws(ServiceError) { _ = try context.intervalsICU() } catch { throw LaunchError(error) }
            return context
        }
        guard let context = try? ServiceContext.standard(verbose: verbose), (try? context.intervalsICU()) != nil else {
            return nil
        }
        return context
    }

    /// The day's wellness on intervals.icu; a failure is said and left at that.
    static func wellness(on date: String, context: ServiceContext) async -> Wellness? {
        do throws(ServiceError) {
            return try await WellnessWriter.read(on: date, context: context)
        } catch {
            Terminal.writeStandardError("intervalpro: warning: intervals.icu's wellness for \(date) not read: \(error.message)\n")
            return nil
        }
    }

    static func json(_ wellness: Wellness?) -> JSONValue {
        guard let w = wellness else { return .null }
        func value(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
        return .object([
            ("hrv_ms", value(w.hrv)), ("hrv_sdnn_ms", value(w.hrvSDNN)), ("resting_hr_bpm", value(w.restingHR)),
            ("sleep_s", value(w.sleepSeconds)), ("sleep_score", value(w.sleepScore)), ("readiness", value(w.readiness)),
        ])
    }

    /// "HRV 58 ms, resting HR 48 bpm, sleep 7:12, sleep score 81, readiness 74", or nil when empty.
    static func text(_ wellness: Wellness?) -> String? {
        guard let w = wellness, !w.isEmpty else { return nil }
        var parts: [String] = []
        if let hrv = w.hrv { parts.append("HRV \(JSONValue.format(hrv.rounded(toPlaces: 1))) ms") }
        if let rest = w.restingHR { parts.append("resting HR \(JSONValue.format(rest.rounded())) bpm") }
        if let sleep = w.sleepSeconds {
            let minutes = Int((sleep / 60).rounded())
            parts.append("sleep \(minutes / 60) h \(minutes % 60) min")
        }
        if let score = w.sleepScore { parts.append("sleep score \(JSONValue.format(score.rounded()))") }
        if let readiness = w.readiness { parts.append("readiness \(JSONValue.format(readiness.rounded()))") }
        return parts.joined(separator: ", ")
    }

    static func json(_ record: ReadinessRecord, assessment: ReadinessAssessment, settle: SessionTime, wellness: Wellness?)
        -> JSONValue
    {
        var fields = ReadinessJSON.measurement(record)
        fields.insert(("settle_s", .number(settle.seconds)), at: 6)
        fields.append(("rr_segments", .array(record.rrSegments.map { .array($0.map { .int(Int($0)) }) })))
        fields.append(
            ("corrected_rr_ms", .array(record.figures.correctedIntervals.map { .array($0.map { .number($0.rounded(toPlaces: 4)) }) })))
        fields.append(("assessment", ReadinessJSON.assessment(assessment)))
        fields.append(("intervals_icu_wellness", json(wellness)))
        return .object(fields)
    }

    static func text(
        _ record: ReadinessRecord, deviceLabel: String, assessment a: ReadinessAssessment, settle: SessionTime,
        wellness: Wellness?
    ) -> String {
        let f = record.figures
        let share = (f.artifactShare * 1000).rounded() / 10
        var lines = [
            "Readiness \(record.localDate), \(deviceLabel): \(formatClock(f.scoredDuration.seconds)) scored after \(Int(settle.seconds)) s settling",
            "  heart rate  \(JSONValue.format(f.hrv.meanHeartRate.rounded(toPlaces: 0))) bpm",
            "  rMSSD       \(JSONValue.format(f.hrv.rmssd.rounded(toPlaces: 1))) ms (ln \(JSONValue.format(f.hrv.lnRMSSD.rounded(toPlaces: 2))))",
            "  SDNN        \(JSONValue.format(f.hrv.sdnn.rounded(toPlaces: 1))) ms",
            "  beats       \(f.beatsReceived), \(f.artifactsCorrected) corrected (\(JSONValue.format(share)) %)",
            "  verdict     \(a.summary)",
        ]
        if let baseline = a.baseline, let low = a.normalLow, let high = a.normalHigh {
            lines.append(
                "  baseline    ln rMSSD \(two(baseline)) over 7 days; normal range \(two(low))-\(two(high))")
        }
        if a.dropToday { lines.append("  today       well below your usual (ln \(two(a.today ?? 0)))") }
        lines.append("  advice      \(a.advice)")
        // Another source's figures for the day, labelled: the baseline stays the strap's.
        if let other = text(wellness) { lines.append("  intervals.icu wellness (a watch, ring or app): \(other)") }
        if let id = record.id { lines.append("saved as readiness measurement \(id) (`intervalpro readiness history`)") }
        return lines.joined(separator: "\n")
    }

    private static func two(_ x: Double) -> String {
        let hundredths = Int((x * 100).rounded())
        let fraction = abs(hundredths) % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// The live line on a terminal while a measurement runs.
final class ReadinessScreen: @unchecked Sendable {
    func show(_ status: ReadinessRun.Status) {
        let p = status.progress
        let heartRate = p.heartRate.map { "HR \($0)" } ?? "HR -"
        let left = formatClock(p.timeLeft.seconds)
        let line: String =
            switch p.phase {
            case .waiting: "waiting for the strap's first values..."
            case .settling: "settling, not scored yet: lie still  \(left) left  \(heartRate)"
            case .measuring: "measuring  \(left) left  \(heartRate)  \(p.beats) beats  \(status.artifactsSoFar) artifacts"
            case .noContact: "no skin contact: wet the strap and put it on (paused, \(left) left)"
            case .noSignal: "no signal from the strap (paused, \(left) left)"
            case .complete: "complete"
            }
        Terminal.writeStandardError("\r\u{1B}[K" + line)
    }

    func clear() {
        Terminal.writeStandardError("\r\u{1B}[K")
    }
}
