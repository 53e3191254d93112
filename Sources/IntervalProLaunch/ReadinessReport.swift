public import IntervalProCore
public import IntervalProHRV
public import IntervalProNetwork
public import IntervalProServices
public import IntervalProStorage
import IntervalProIO
import Logging

/// A readiness measurement and its verdict as `readiness` reports them (text and JSON), and
/// the day's wellness from intervals.icu that `readiness` and `today` show beside it.
public enum ReadinessReport {
    /// The intervals.icu account readiness reads the day's wellness with (and, with `required`,
    /// writes to): nil when there is none and none is required.
    public static func services(required: Bool, verbose: Bool) throws -> ServiceContext? {
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
    public static func wellness(on date: String, context: ServiceContext) async -> Wellness? {
        do throws(ServiceError) {
            return try await WellnessWriter.read(on: date, context: context)
        } catch {
            logger.warning("intervals.icu's wellness for \(date) not read: \(error.message)")
            return nil
        }
    }

    public static func json(_ wellness: Wellness?) -> JSONValue {
        guard let w = wellness else { return .null }
        func value(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
        return .object([
            ("hrv_ms", value(w.hrv)), ("hrv_sdnn_ms", value(w.hrvSDNN)), ("resting_hr_bpm", value(w.restingHR)),
            ("sleep_s", value(w.sleepSeconds)), ("sleep_score", value(w.sleepScore)), ("readiness", value(w.readiness)),
        ])
    }

    /// "HRV 58 ms, resting HR 48 bpm, sleep 7:12, sleep score 81, readiness 74", or nil when empty.
    public static func text(_ wellness: Wellness?) -> String? {
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

    public static func json(_ record: ReadinessRecord, assessment: ReadinessAssessment, settle: SessionTime, wellness: Wellness?)
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

    public static func text(
        _ record: ReadinessRecord, deviceLabel: String, assessment a: ReadinessAssessment, settle: SessionTime,
        wellness: Wellness?, isDaysValue: Bool = true, alreadySaved: Bool = false
    ) -> String {
        let f = record.figures
        let share = (f.artifactShare * 1000).rounded() / 10
        var lines = [
            "Readiness \(record.localDate), \(deviceLabel): \(formatClock(f.scoredDuration.seconds)) scored after \(Int(settle.seconds)) s settling",
            "  heart rate  \(JSONValue.format(f.hrv.meanHeartRate.rounded(toPlaces: 0))) bpm",
            "  rMSSD       \(formatFixed(f.hrv.rmssd, 1)) ms (ln \(formatFixed(f.hrv.lnRMSSD, 2)))",
            "  SDNN        \(formatFixed(f.hrv.sdnn, 1)) ms",
            "  beats       \(f.beatsReceived), \(f.artifactsCorrected) corrected (\(JSONValue.format(share)) %)",
            "  verdict     \(a.summary)",
        ]
        if let baseline = a.baseline, let low = a.normalLow, let high = a.normalHigh {
            // As many places as tell the baseline from the range's edges: "4.16 ... normal range
            // 4.16-4.23", said to be below it, read as a verdict against its own figures.
            let places = (2...4).first { places in
                formatFixed(baseline, places) != formatFixed(low, places) && formatFixed(baseline, places) != formatFixed(high, places)
            } ?? 4
            lines.append(
                "  baseline    ln rMSSD \(formatFixed(baseline, places)) over the \(a.daysThisWeek) mornings of the last 7 days; normal range \(formatFixed(low, places))-\(formatFixed(high, places))")
        }
        if record.replaysTheSimulator {
            lines.append("  kept        out of your baseline and normal range: \(Self.simulatorsStrap)")
        } else if !isDaysValue {
            lines.append("  kept        \(Self.notTheDaysValue)")
        }
        if a.dropToday { lines.append("  today       well below your usual (ln \(formatFixed(a.today ?? 0, 2)))") }
        lines.append("  advice      \(a.advice)")
        // Another source's figures for the day, labelled: the baseline stays the strap's.
        if let other = text(wellness) { lines.append("  intervals.icu wellness (a watch, ring or app): \(other)") }
        if let id = record.id {
            lines.append(
                alreadySaved
                    ? "already saved as readiness measurement \(id), the same morning: not saved again"
                    : "saved as readiness measurement \(id) (`intervalpro readiness history`)")
        }
        return lines.joined(separator: "\n")
    }

    /// Said of a measurement of the simulator's strap (`ReadinessRecord.replaysTheSimulator`).
    static let simulatorsStrap =
        "the simulator's strap (\(RecordedDevice.simulatorAddressPrefix)…, the bundled recordings'), no runner's morning"

    /// Said of a measurement another of its day stands for.
    static let notTheDaysValue =
        "not the day's value: a day's value is its last measurement before noon, or its last when none was before noon, since readiness is measured just after waking"
}

extension ReadinessRun.Status {
    /// The live line on a terminal while a measurement runs.
    public var line: String {
        let p = progress
        let heartRate = (p.heartRate.map { "HR \($0)" } ?? "HR -") + (p.aboveRestingRate ? " (not at rest yet: lie still)" : "")
        let left = formatClock(p.timeLeft.seconds)
        return switch p.phase {
        case .waiting: "waiting for the strap's first values..."
        case .settling: "settling, not scored yet: lie still  \(left) left  \(heartRate)"
        case .measuring:
            "measuring  \(left) left  \(heartRate)  \(p.beats) \(p.beats == 1 ? "beat" : "beats")  "
                + "\(artifactsSoFar) \(artifactsSoFar == 1 ? "artifact" : "artifacts")"
                + (p.intervalsFromHeartRate ? "  (RR intervals worked out from the heart rate: it will be refused)" : "")
        case .noContact: "no skin contact: wet the strap and put it on (paused, \(left) left)"
        case .noSignal: "no signal from the strap (paused, \(left) left)"
        case .complete: "complete"
        }
    }

    /// The line said where none can be drawn over the last (a pipe, TERM=dumb, a screen
    /// reader's plain output), after `previous`: at each change of phase ("no skin contact"
    /// among them), at each whole minute left, and when the heart rate goes over or back under
    /// a resting rate. Nil when nothing new is to be said. Without it such a terminal showed
    /// nothing for the whole measurement, a strap without contact included.
    public func plainLine(after previous: Self?) -> String? {
        guard let previous else { return line }
        let (now, before) = (progress, previous.progress)
        // "1:00 left" is the first status of its minute: whole minutes left, counted up.
        func minutes(_ left: SessionTime) -> Int { (Int(left.seconds.rounded(.up)) + 59) / 60 }
        let changed =
            now.phase != before.phase || now.aboveRestingRate != before.aboveRestingRate
            || now.intervalsFromHeartRate != before.intervalsFromHeartRate
            || ([.settling, .measuring].contains(now.phase) && minutes(now.timeLeft) != minutes(before.timeLeft))
        return changed ? line : nil
    }
}

/// A readiness measurement from start to verdict, as `readiness` takes it: the account
/// checked before the runner lies down (when the measurement is to be written to intervals.icu),
/// the measurement (live or from a recording), scored and saved, the day's wellness read
/// before anything is written, and the write to the day's wellness when asked for.
public struct ReadinessCheck: Sendable {
    public enum Source: Sendable {
        case live(SensorRequest)
        /// A recording; `device` picks its strap.
        case replay(path: String, device: String?)
    }

    public var source: Source
    public var settings: ReadinessMeasurement.Settings
    /// The local date it is filed under (nil: today).
    public var date: String?
    /// The store read for the baseline, and saved to unless `save` is false.
    public var store: StoreLocation
    public var save = true
    /// Write it to intervals.icu's wellness (the account's setting can ask for that too).
    public var upload = false
    public var verbose = false

    public init(source: Source, settings: ReadinessMeasurement.Settings, store: StoreLocation) {
        self.source = source
        self.settings = settings
        self.store = store
    }

    public struct Result: Sendable {
        public var scored: ReadinessRun.Scored
        public var deviceLabel: String
        /// What a watch or ring gave intervals.icu for the day, read before anything is written.
        public var wellness: Wellness?
        /// The account, when intervals.icu has one.
        var services: ServiceContext?
    }

    /// Runs the measurement; `status` hears its progress (live only). Throws `cancelled` when
    /// the runner stops it, and what `ReadinessRun` throws for a measurement it refuses.
    public func run(status: @escaping @Sendable (ReadinessRun.Status) -> Void) async throws -> Result {
        let services = try ReadinessReport.services(required: upload, verbose: verbose)
        var outcome: ReadinessRun.Outcome
        switch source {
        case .replay(let path, let device):
            outcome = try ReadinessRun.replay(path, device: device, settings: settings)
            // As `readiness import` reads it: replayed, an app's morning went under today.
            outcome.takeTime(fromName: path)
        case .live(let sensors):
            guard let measured = try await ReadinessRun.live(sensors, settings: settings, status: status) else {
                throw LaunchError("measurement cancelled; nothing was saved", kind: .cancelled)
            }
            outcome = measured
        }
        let replayed: String? = if case .replay(let path, _) = source { path } else { nil }
        // A replayed morning is filed at the time it was taken, when the file says, not when it
        // was replayed, and at its own clock time (a morning abroad stays a morning).
        var endedAt = outcome.endedAt
        let localEnd = outcome.localEnd
        // As `readiness import` refuses it: replayed, a name a year out was saved under that day.
        if date == nil, let replayed, let localEnd,
            let notYetCome = ReadinessRun.notYetCome(localEnd.date, endedAt: endedAt, now: WallClock.nowUnixSeconds())
        {
            throw LaunchError("\(replayed): \(notYetCome)", kind: .invalidData)
        }
        // Filed under another day, at its clock time there: a morning kept at its own day's
        // moment was judged by that moment against the day's other mornings. On the file's own
        // clock where it names one, else this machine's.
        if let date, let ended = endedAt {
            if let offset = outcome.utcOffset, let day = UTCTimestamp.dayNumber(ofDate: date) {
                // The second of the file's own day it ended at, on day D of that clock.
                let secondOfDay = ((ended + offset) % 86_400 + 86_400) % 86_400
                endedAt = day * 86_400 + secondOfDay - offset
            } else {
                endedAt = WallClock.sameLocalTime(as: ended, onLocalDate: date) ?? ended
            }
        }
        // Dated by the clock (live, or a file that gives no time): a Pi's clock not yet set filed it in 1970.
        if endedAt == nil, date == nil, let notSet = ReadinessRun.clockNotSet() { logger.warning("\(notSet)") }
        // One reading of the clock: the day, the moment and the clock time of a morning dated by it.
        let now = UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0
        // A file that gives no time, filed under --date's day: at this clock time on that day, as
        // a live measurement filed there is. At the moment the command was typed, the same file
        // replayed within one second for two days was one morning, the second day passed over.
        let undatedMoment = date.flatMap { WallClock.sameLocalTime(as: now, onLocalDate: $0) } ?? now
        let scored = try ReadinessRun.score(
            outcome, source: replayed != nil ? .replay : .live,
            localDate: date ?? localEnd?.date ?? WallClock.localDate(unixSeconds: now),
            takenAt: endedAt.map(UTCTimestamp.text(unixSeconds:)) ?? UTCTimestamp.text(unixSeconds: undatedMoment),
            // A file that does not say when has no time of day: replayed in the evening, it
            // was filed as an evening's. Live, it ended now.
            localTime: localEnd?.time ?? (replayed == nil ? WallClock.localTime(unixSeconds: now) : nil), save: save ? store : nil,
            // A file replayed twice was the same morning saved twice (`readiness import` skips it).
            unlessHeld: replayed != nil, store: store, file: replayed)
        var result = Result(scored: scored, deviceLabel: outcome.device?.label ?? "the strap", services: services)
        if let services { result.wellness = await ReadinessReport.wellness(on: scored.record.localDate, context: services) }
        return result
    }

    /// Writes the saved measurement to the day's wellness when `upload` or the account's
    /// setting asks for it; nil when nothing was sent.
    public func sendToWellness(_ result: Result) async throws -> WellnessWriter.Result? {
        guard let services = result.services, let id = result.scored.record.id else { return nil }
        return try await Self.sendToWellness(readiness: id, store: store, services: services, asked: upload)
    }

    /// Writes a saved measurement to the day's wellness when asked (`--upload`) or when the
    /// account says to send every one (the page's Measure now as the command's).
    public static func sendToWellness(
        readiness id: Int64, store: StoreLocation, services: ServiceContext, asked: Bool
    ) async throws -> WellnessWriter.Result? {
        guard asked || services.accounts.intervalsICU?.readinessToWellness == true else { return nil }
        let writer = WellnessWriter(store: try store.open(), context: services)
        return try await asyncStoreCall { () async throws(StoreError) in try await writer.send(readiness: id) }
    }

    public func json(_ result: Result) -> JSONValue {
        guard case .object(var fields) = ReadinessReport.json(
            result.scored.record, assessment: result.scored.assessment, settle: settings.settle, wellness: result.wellness)
        else { return .null }
        let at = fields.firstIndex { $0.0 == "assessment" } ?? fields.endIndex
        fields.insert(("days_value", .bool(result.scored.isDaysValue)), at: at)
        // What the text says as "already saved as readiness measurement N": the JSON was a new save's.
        fields.insert(("already_saved", .bool(result.scored.wasHeld)), at: at + 1)
        return .object(fields)
    }

    public func text(_ result: Result) -> String {
        ReadinessReport.text(
            result.scored.record, deviceLabel: result.deviceLabel, assessment: result.scored.assessment,
            settle: settings.settle, wellness: result.wellness, isDaysValue: result.scored.isDaysValue,
            alreadySaved: result.scored.wasHeld)
    }
}
