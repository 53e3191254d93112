public import IntervalProCore
public import IntervalProHRV
public import IntervalProStorage
import IntervalProBlueZ
import IntervalProEventLoop
import IntervalProFormats
import IntervalProIO
import IntervalProRuntime
import Logging

/// A readiness measurement run to its end, from a recording on virtual time or from live
/// sensors: the policy `readiness` and (later) the web page share. The figures come from
/// `ReadinessMeasurement`; this only feeds it heart-rate values and the clock.
public enum ReadinessRun {
    /// A finished measurement, scored or not, with the strap it came from.
    public struct Outcome: Sendable {
        public var measurement: ReadinessMeasurement
        public var device: RecordedDevice?
        /// When a replayed recording or activity began, as seconds since 1970 (nil live, and for a
        /// file that does not say: RR interval text).
        public var startedAt: Int64?

        /// The offset from UTC (seconds east) of the runner's clock then, where the file says
        /// (`RecordingStart.utcOffset`); nil: this machine's zone's at that moment.
        public var utcOffset: Int64?

        /// When a replayed measurement ended, as seconds since 1970, if its file says when it began.
        var endedAt: Int64? {
            startedAt.map { $0 + Int64((measurement.lastValueTime ?? .zero).seconds.rounded(.down)) }
        }

        /// The runner's date and clock time when it ended ("2026-11-25", "06:32:31"), if the file
        /// says when it began: on the file's own clock where it names one. A Tokyo morning
        /// imported in Berlin was filed at 22:32 the evening before, and left out as no morning.
        var localEnd: (date: String, time: String)? {
            endedAt.map { Self.localClock(at: $0, utcOffset: utcOffset) }
        }

        /// The date and clock time at `seconds` on a clock `utcOffset` ahead of UTC; nil: this
        /// machine's zone's.
        static func localClock(at seconds: Int64, utcOffset: Int64?) -> (date: String, time: String) {
            guard let utcOffset else { return (WallClock.localDate(unixSeconds: seconds), WallClock.localTime(unixSeconds: seconds)) }
            let clock = UTCTimestamp.text(unixSeconds: seconds + utcOffset)
            return (String(clock.prefix(10)), String(clock.dropFirst(11).prefix(8)))
        }

        /// RR interval text does not say when it began: its file's name may, in local time
        /// (Elite HRV's "2026-11-25 06-30-00.txt"; `RRIntervalText.time(inName:)`). That clock
        /// time is the morning's, here or in another zone: one that summer time skips (02:30 the
        /// night clocks go forward) was filed at 03:30 here, and at 02:30 in UTC, twice.
        mutating func takeTime(fromName name: String) {
            guard startedAt == nil, let named = RRIntervalText.time(inName: name),
                let start = WallClock.unixSeconds(
                    localYear: named.year, month: named.month, day: named.day, hour: named.hour, minute: named.minute,
                    second: named.second)
            else { return }
            startedAt = start
            let clock = UTCTimestamp.daysSinceEpoch(year: Int64(named.year), month: Int64(named.month), day: Int64(named.day)) * 86_400
                + Int64(named.hour * 3600 + named.minute * 60 + named.second)
            utcOffset = clock - start
        }
    }

    /// Why a morning the file dates `localDate` is not filed on `today` (local dates): a day
    /// after it, from a slip of the year in a name or a phone's clock set wrong, sat where no
    /// verdict read it, then counted in the baseline once that day came (`--date` refuses one
    /// too). Nil when it may be filed.
    static func notYetCome(_ localDate: String, endedAt: Int64?, now: Int64) -> String? {
        let today = WallClock.localDate(unixSeconds: now)
        let fix = "its name or its clock is wrong; `intervalpro readiness --replay FILE --date YYYY-MM-DD` files it under the day it was taken"
        if let day = UTCTimestamp.dayNumber(ofDate: localDate), let todayNumber = UTCTimestamp.dayNumber(ofDate: today), day > todayNumber {
            return "measured on \(localDate), after today (\(today)): \(fix)"
        }
        // Later today: a Tokyo morning's file imported at 03:25 there was saved as the day's
        // morning, hours ahead (a phone's clock a few minutes off is no such file).
        guard let endedAt, endedAt > now + laterThanNowAllowed else { return nil }
        return "measured at \(WallClock.localTime(unixSeconds: endedAt).prefix(5)) today, later than now (\(WallClock.localTime(unixSeconds: now).prefix(5))): \(fix)"
    }

    /// How far a measurement's end may be past this machine's clock: another device's clock
    /// a few minutes off.
    static let laterThanNowAllowed: Int64 = 10 * 60

    /// What a live measurement shows while it runs, once a second.
    public struct Status: Sendable {
        public var progress: ReadinessMeasurement.Progress
        public var artifactsSoFar: Int
        public var device: RecordedDevice?
    }

    /// Feeds a recording's Heart Rate Measurements from `device` (an id or a name; by default
    /// the first device that sent any) into a measurement, in virtual time.
    public static func replay(_ path: String, device wanted: String?, settings: ReadinessMeasurement.Settings) throws
        -> Outcome
    {
        let recording = try loadRecording(path, choice: ActivityChoice(heartRateOnly: true))
        let outcome = try feed(recording, file: path, device: wanted, settings: settings)
        if !holdsWhole(outcome.measurement) && !outcome.measurement.sendsNoRR {
            let device = outcome.device?.label ?? "the strap"
            // An app's two-minute morning holds 1:30 after settling: say the duration that fits.
            let fits = fittingDuration(outcome.measurement).map { "; `--duration \(JSONValue.format($0.seconds / 60))` scores what it holds" } ?? ""
            throw LaunchError(
                "\(path): the recording holds \(formatClock(outcome.measurement.contactTime.seconds)) of heart-rate values with skin contact from \(device); the measurement needs \(formatClock(settings.total.seconds)) (\(Int(settings.settle.seconds)) s settling, then \(formatClock(settings.duration.seconds)))\(fits)",
                kind: .invalidData)
        }
        return outcome
    }

    /// A recording's measurement, complete or not (a recording too short, a strap without RR
    /// intervals); throws when the recording holds no heart-rate value from `device`.
    static func feed(_ recording: ParsedRecording, file path: String, device wanted: String?, settings: ReadinessMeasurement.Settings)
        throws -> Outcome
    {
        let devices = recording.header.devices
        var chosen: String?
        if let wanted {
            chosen = devices.first { $0.id == wanted || $0.name == wanted }?.id ?? wanted
        }
        var measurement = ReadinessMeasurement(settings: settings)
        var values = 0
        var decoder = NotificationDecoder()
        for case .notification(let notification) in recording.entries where carriesHeartRate(notification) {
            if chosen == nil { chosen = notification.device }
            guard notification.device == chosen else { continue }
            // A value that does not decode is left out, as a live session leaves it out.
            guard let value = heartRate(notification, decoder: &decoder) else { continue }
            values += 1
            measurement.receive(value, at: notification.time)
            if measurement.isComplete || measurement.sendsNoRR { break }
        }
        let device = devices.first { $0.id == chosen } ?? chosen.map { RecordedDevice(id: $0, name: nil) }
        guard values > 0, let device else {
            let whose = wanted.map { " from '\($0)'" } ?? ""
            throw LaunchError("\(path): no heart-rate values (0x2A37)\(whose) in the recording", kind: .invalidData)
        }
        let start = recording.header.startedAt.flatMap(RecordingStart.init)
        return Outcome(
            measurement: measurement, device: device, startedAt: start.map { RecordingStart.seconds($0.microseconds) },
            utcOffset: start?.utcOffset)
    }

    /// How long a replayed measurement holds: its time in contact up to its last beat, and a
    /// beat more, as long as its longest. A file stops between two beats (an app's two-minute
    /// export holds the beats that ended before 2:00, 1:59.3 of them, say), the next beat cut;
    /// without it such a morning was scored 1:00, not the 1:30 it was measured for.
    static func heldTime(_ measurement: ReadinessMeasurement) -> SessionTime {
        let longest = measurement.segments.joined().max().map { SessionTime.seconds(Double($0) / 1024) } ?? .zero
        return measurement.contactTime + longest
    }

    /// Whether a replayed measurement holds the whole duration asked (`heldTime`).
    static func holdsWhole(_ measurement: ReadinessMeasurement) -> Bool {
        measurement.isComplete || heldTime(measurement) >= measurement.settings.total
    }

    /// The longest duration, in whole half minutes from one minute, that a measurement cut
    /// short holds after its settling (`heldTime`); nil when it holds less than a minute.
    static func fittingDuration(_ measurement: ReadinessMeasurement) -> SessionTime? {
        let halfMinutes = ((heldTime(measurement) - measurement.settings.settle).seconds / 30).rounded(.down)
        return halfMinutes >= 2 ? .seconds(halfMinutes * 30) : nil
    }

    /// A Bluetooth Heart Rate Measurement, or an ANT+ strap's page (its RR interval from the
    /// beat times before it, through `decoder`).
    static func carriesHeartRate(_ notification: RawNotification) -> Bool {
        notification.characteristic == .heartRateMeasurement || notification.characteristicID == ANTPlusProfile.heartRate.rawValue
    }

    static func heartRate(_ notification: RawNotification, decoder: inout NotificationDecoder) -> HeartRateMeasurement? {
        guard case .heartRate(let value)? = try? decoder.decode(notification) else { return nil }
        return value
    }

    /// Measures from the live heart-rate strap until the measurement is complete, the strap
    /// shows it sends no RR intervals, Ctrl-C (with `interruptible`) or `stop` says so (nil:
    /// nothing to keep). `stop` is asked at least once a second.
    public static func live(
        _ request: SensorRequest, settings: ReadinessMeasurement.Settings, interruptible: Bool = true,
        stop: @escaping @Sendable () -> Bool = { false }, status: @escaping @Sendable (Status) -> Void
    ) async throws -> Outcome? {
        // From the start: Ctrl-C while the strap is found and connected cancels too, the strap
        // disconnected, instead of killing the process. (A server keeps its own handling.)
        let interrupt: LiveSensors.Interrupt? = interruptible ? .ctrlC() : nil
        // The strap alone: no footpod is looked for, waited for or connected.
        var request = request
        (request.roles, request.cadence) = ([.heartRate], nil)
        let sensors: LiveSensorSet
        do {
            // Values are read together once a second, each with its arrival time: nothing here
            // needs them sooner, and it saves a wake-up per value.
            sensors = try await LiveSensorSet.connect(
                request, cadenceUnit: nil, coalescing: .seconds(1), interrupt: interrupt)
        } catch let unavailable as LiveSensorConnection.UnavailableError {
            throw LaunchError("\(unavailable)", kind: .unavailable)
        } catch is LiveSensorConnection.InterruptedError {
            return nil
        }
        if interruptible, let interrupt = InterruptSignal.descriptor {
            sensors.wakeOnInput(interrupt, drain: InterruptSignal.drain)
        }
        let feed = sensors.feed
        feed.begin()
        let box = MeasurementBox(measurement: ReadinessMeasurement(settings: settings))
        let devices = sensors.devices
        try await sensors.run {
            var timeout: Duration? = .zero
            while true {
                await sensors.arrivals.wait(timeout: timeout)
                if (interruptible && InterruptSignal.take()) || stop() {
                    box.interrupted = true
                    break
                }
                let poll = feed.poll()
                for notice in poll.notices { logger.notice("\(notice)") }
                for case .notification(let notification) in poll.entries where carriesHeartRate(notification) {
                    if box.device == nil { box.device = notification.device }
                    guard notification.device == box.device, let value = heartRate(notification, decoder: &box.decoder)
                    else { continue }
                    box.measurement.receive(value, at: notification.time)
                }
                box.measurement.advance(to: poll.now)
                let device = devices.first { $0.id == box.device }
                status(Status(progress: box.measurement.progress, artifactsSoFar: box.measurement.artifactsSoFar(), device: device))
                if box.measurement.isComplete || box.measurement.sendsNoRR { break }
                // The screen's clock: the next whole second.
                let next = SessionTime.seconds((poll.now.seconds + 1).rounded(.down))
                timeout = .microseconds(max(0, (next - poll.now).microseconds))
            }
        }
        await sensors.stop()
        guard !box.interrupted else { return nil }
        return Outcome(measurement: box.measurement, device: devices.first { $0.id == box.device })
    }

    /// A scored measurement, as saved (unless not), and judged against the runner's others.
    public struct Scored: Sendable {
        public var record: ReadinessRecord
        public var assessment: ReadinessAssessment
        /// False when another measurement of its day is the day's value: one taken that morning
        /// when this one was later (an evening's), or a later one of the morning.
        public var isDaysValue = true
        /// Why it was not saved, when saving was asked for and the store refused (a full disk):
        /// the figures are the runner's all the same, shown before the failure is said.
        public var saveFailure: String? = nil
        /// Not saved: the store already held it (`unlessHeld`), saved by another process.
        public var wasHeld = false
    }

    /// What to say of a morning dated by the clock when the clock is not set (a Pi before the
    /// network sets it): it takes that date, 1970's.
    public static func clockNotSet() -> String? {
        WallClock.notSetBecause(now: UTCTimestamp.unixSeconds(WallClock.iso8601Now()) ?? 0)
            .map { "\($0): this morning is dated so (a Pi without a real-time clock sets it from the network)" }
    }

    /// Scores a finished measurement, saves it in `save` (nil: not saved) and judges it against
    /// the measurements in `store`; a refusal is a `LaunchError` that says so (nothing saved),
    /// naming `file`, the measurement's, when given.
    public static func score(
        _ outcome: Outcome, source: ReadinessRecord.Source, localDate: String, takenAt: String, localTime: String?,
        save: StoreLocation?, unlessHeld: Bool = false, store: StoreLocation, file: String? = nil
    ) throws -> Scored {
        let deviceLabel = outcome.device?.label ?? "the strap"
        let inFile = file.map { "\($0): " } ?? ""
        let figures: ReadinessFigures
        switch outcome.measurement.result() {
        case .success(let scored): figures = scored
        case .failure(.noRRIntervals):
            throw LaunchError(
                "\(inFile)\(deviceLabel) sends heart rate but no RR intervals, which the measurement needs; nothing was saved",
                kind: .unavailable)
        case .failure(let refusal):
            throw LaunchError("\(inFile)measurement refused: \(refusal); nothing was saved", kind: .invalidData)
        }
        var record = ReadinessRecord(
            takenAt: takenAt, localDate: localDate, localTime: localTime,
            source: source, device: outcome.device?.id, figures: figures,
            rrSegments: outcome.measurement.segments)
        let since = ReadinessBaseline.windowStart(today: localDate) ?? localDate
        var earlier: [ReadinessRecord] = []
        var saveFailure: String?
        var wasHeld = false
        if let save {
            do {
                let opened = try save.open()
                if unlessHeld {
                    let saved = try storeCall { () throws(StoreError) in try opened.saveReadinessUnlessHeld(record) }
                    if let saved {
                        record.id = saved
                    } else {
                        // The same morning, kept before: judged as that one, not as two.
                        wasHeld = true
                        let kept = try storeCall { () throws(StoreError) in try opened.readinessRecords(since: since) }
                        if let same = kept.last(where: { $0.isSameMorning(as: record) }) { record = same }
                    }
                } else {
                    record.id = try storeCall { () throws(StoreError) in try opened.saveReadiness(record) }
                }
                earlier = try storeCall { () throws(StoreError) in try opened.readinessRecords(since: since) }
                    .filter { $0.id != record.id }
            } catch let failure as LaunchError where failure.kind == .io {
                // A full or read-only store lost the morning's figures with it: judged against
                // what can be read, shown, and said not saved.
                record.id = nil
                saveFailure = failure.message
                earlier = ReadinessToday.stored(in: store, since: since)
            }
        } else {
            earlier = ReadinessToday.stored(in: store, since: since)
            // Not saved now, but maybe before: said as a replay that saves says it (`--no-save`
            // said "already_saved": false of a morning the store held).
            if unlessHeld, let same = earlier.last(where: { $0.isSameMorning(as: record) }) {
                wasHeld = true
                record = same
                earlier.removeAll { $0.id == same.id }
            }
        }
        // In the order they were taken, as the store lists them: a morning replayed after a
        // later one of its day is not the day's value.
        let measurements = (earlier + [record]).sorted { ($0.localDate, $0.takenAt) < ($1.localDate, $1.takenAt) }
        let assessment = ReadinessBaseline.assess(
            measurements.map(\.baselineMeasurement),
            today: localDate)
        let daysValue = ReadinessRecord.dayValue(
            of: measurements.filter { $0.localDate == record.localDate })
        return Scored(
            record: record, assessment: assessment, isDaysValue: daysValue?.takenAt == record.takenAt, saveFailure: saveFailure,
            wasHeld: wasHeld)
    }

    /// The loop's state, kept on the sensors' thread.
    private final class MeasurementBox: @unchecked Sendable {
        var measurement: ReadinessMeasurement
        var device: String?
        var decoder = NotificationDecoder()
        var interrupted = false

        init(measurement: ReadinessMeasurement) {
            self.measurement = measurement
        }
    }
}

extension RecordedDevice {
    /// "Polar H10 (A0:9E:1A:12:34:56)", or the id alone.
    public var label: String { name.map { "\($0) (\(id))" } ?? id }
}
