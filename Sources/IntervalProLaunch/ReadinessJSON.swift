public import IntervalProCore
public import IntervalProHRV
public import IntervalProStorage

/// Readiness as JSON: `readiness --json`, `readiness history --json`, `today --json` and the
/// web page's card read the same fields.
public enum ReadinessJSON {
    /// One stored measurement, as `readiness history --json` lists it.
    public static func measurement(_ record: ReadinessRecord) -> [(String, JSONValue)] {
        let f = record.figures
        return [
            ("id", record.id.map { .int(Int($0)) } ?? .null),
            ("taken_at", .string(record.takenAt)),
            ("date", .string(record.localDate)),
            ("local_time", record.localTime.map(JSONValue.string) ?? .null),
            ("source", .string(record.source.rawValue)),
            ("device", record.device.map(JSONValue.string) ?? .null),
            ("duration_s", .number(f.scoredDuration.seconds)),
            ("beats", .int(f.beatsReceived)),
            ("artifacts_corrected", .int(f.artifactsCorrected)),
            ("artifact_share", .number(f.artifactShare.rounded(toPlaces: 4))),
            ("mean_hr_bpm", .number(f.hrv.meanHeartRate.rounded(toPlaces: 2))),
            ("rmssd_ms", .number(f.hrv.rmssd.rounded(toPlaces: 3))),
            ("ln_rmssd", .number(f.hrv.lnRMSSD.rounded(toPlaces: 4))),
            ("sdnn_ms", .number(f.hrv.sdnn.rounded(toPlaces: 3))),
            ("method", .string(record.method)),
            ("in_baseline", .bool(record.countsInBaseline)),
        ]
    }

    /// `readiness history --json`: each measurement, and whether it is its day's value (a
    /// later morning's, or the morning's beside an evening's, is not).
    public static func history(_ records: [ReadinessRecord]) -> JSONValue {
        let daysValues = ReadinessRecord.daysValues(among: records)
        return .array(records.map { .object(measurement($0) + [("days_value", .bool($0.id.map(daysValues.contains) ?? false))]) })
    }

    public static func assessment(_ a: ReadinessAssessment) -> JSONValue {
        func value(_ x: Double?) -> JSONValue { x.map { .number($0.rounded(toPlaces: 4)) } ?? .null }
        return .object([
            ("verdict", .string(a.verdict.rawValue)),
            ("days_measured", .int(a.daysMeasured)),
            ("days_this_week", .int(a.daysThisWeek)),
            ("today_ln_rmssd", value(a.today)),
            ("baseline_ln_rmssd", value(a.baseline)),
            ("normal_mean", value(a.normalMean)),
            ("normal_low", value(a.normalLow)),
            ("normal_high", value(a.normalHigh)),
            ("drop_today", .bool(a.dropToday)),
            ("summary", .string(a.summary)),
            ("advice", .string(a.advice)),
        ])
    }


    /// Today's readiness: the latest measurement's fields, `measured_today`, `advice_today`, and the assessment.
    public static func today(_ readiness: ReadinessToday) -> JSONValue {
        var fields = measurement(readiness.latest)
        fields.append(("measured_today", .bool(readiness.measuredToday)))
        fields.append(("advice_today", readiness.adviceToday.map(JSONValue.string) ?? .null))
        fields.append(("assessment", assessment(readiness.assessment)))
        return .object(fields)
    }
}
