public import IntervalProCore
import IntervalProFIT

/// What a watch recorded at one moment: the fields a session scores and keeps.
public struct ActivityPoint: Equatable, Sendable {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var time: Int64
    /// Steps per minute (both feet).
    public var cadence: Double?
    public var heartRate: Int?
    /// Metres per second.
    public var speed: Double?
    /// Metres since the start.
    public var distance: Double?
    /// RR intervals of the beats recorded with this point, 1/1024 s (a FIT file's `hrv`
    /// messages, in milliseconds there).
    public var rrIntervals: [UInt16]
    /// The recording stopped after this point (a FIT timer stop, a new GPX track segment, a
    /// second TCX Track in a lap: the runner paused, or the signal was lost): the point is not
    /// held over the gap to the next, however short.
    public var pausedAfter = false
    /// When the timer stopped after this point, where the file says (a FIT timer stop event):
    /// the runner ran up to then, not only up to the point.
    public var stoppedAt: Int64?

    public init(
        time: Int64, cadence: Double? = nil, heartRate: Int? = nil, speed: Double? = nil, distance: Double? = nil,
        rrIntervals: [UInt16] = []
    ) {
        self.time = time
        self.cadence = cadence
        self.heartRate = heartRate
        self.speed = speed
        self.distance = distance
        self.rrIntervals = rrIntervals
    }
}

public enum ActivityFormat: String, Sendable {
    case recording = "IntervalPro recording"
    case fit = "FIT activity"
    case tcx = "TCX activity"
    case gpx = "GPX activity"
    /// Not an activity: beats only, read for a readiness measurement (`RRIntervalText`).
    case rrIntervals = "RR interval text"
}

/// How a file's bytes are to be read, from its first bytes.
public enum ActivityEncoding: Sendable {
    case recording
    case fit
    /// XML: a TCX or a GPX activity, told apart by the root element (`ActivityImport.readXML`).
    case markup
    /// RR intervals as text (`RRIntervalText`).
    case rrIntervalText
    /// None of these: a file of another kind (`ActivityImport.opening` says how it begins).
    case other
}

/// A run a watch recorded, read as an IntervalPro recording, so that it replays, scores and
/// is stored like any session.
public struct ImportedActivity: Sendable {
    public var recording: ParsedRecording
    public var format: ActivityFormat
    public var points: Int
    public var warnings: [ImportError]
    /// What recorded it, as the file says: a FIT file's manufacturer, product and serial number
    /// ("fit 1/3121/3987654321"), a TCX `<Creator>`'s name and unit id, a GPX `creator`. With
    /// the start time, it tells one activity from another (`history import` skips duplicates).
    public var creator: String?
    /// The activity's own name (a GPX track's `<name>`, "Morning Run"), when it has one.
    public var name: String?
    /// A session IntervalPro exported (FIT or TCX, named so by its creator): imported into the
    /// store it came from, it is that session again (`history import` skips it).
    public var exportedByIntervalPro = false
    /// Where the runner stopped the timer, in the recording's session time: from the last point
    /// before the stop to the first after it, in order; none of it the run's time.
    public var pauses: [Range<SessionTime>]
    /// The file's other legs that are runs as the one read is (1-based; a GPX of two runs'
    /// tracks, said runs or none saying its sport), when the first was read for want of a
    /// choice: `history import` imports each.
    public var otherRunLegs: [Int] = []
    /// The file's legs of other sports (1-based, with the sport), when a run was read for want
    /// of a choice: `history import` counts them with the other sports it leaves out.
    public var otherSportLegs: [(number: Int, sport: String)] = []
    /// The warning among `warnings` that says which leg was read, of a file of several.
    public var legsWarning: ImportError?
    /// Where the runner finished, when a recording says so.
    public var finishedAt: SessionTime?
    /// Read up to damage (a FIT file whose CRC does not match, or cut off; a TCX or GPX file
    /// cut off, or whose XML breaks part way): what was read may hold garbled values, a
    /// timestamp far past the run's end among them, so it is no better copy of a run than an
    /// intact file (`history import` keeps the intact one).
    public var isDamaged = false

    public init(
        recording: ParsedRecording, format: ActivityFormat, points: Int, warnings: [ImportError], creator: String? = nil,
        name: String? = nil, pauses: [Range<SessionTime>] = []
    ) {
        self.recording = recording
        self.format = format
        self.points = points
        self.warnings = warnings
        self.creator = creator
        self.name = name
        self.pauses = pauses
    }
}

extension ImportedActivity {
    /// Gives the activity's devices the simulator's addresses (00:00:5E:00:53:F0 on): an
    /// IntervalPro export of a session of the simulator's sensors is no runner's run, and,
    /// imported, is left out of trends and uploads as the session was (it was taken for a run).
    mutating func takeSimulatorAddresses() {
        var addresses: [String: String] = [:]
        for (index, device) in recording.header.devices.enumerated() {
            addresses[device.id] = RecordedDevice.simulatorAddressPrefix + "F" + String(min(index, 15), radix: 16, uppercase: true)
        }
        for index in recording.header.devices.indices {
            recording.header.devices[index].id = addresses[recording.header.devices[index].id] ?? recording.header.devices[index].id
        }
        recording.entries = recording.entries.map { entry in
            switch entry {
            case .notification(var notification):
                notification.device = addresses[notification.device] ?? notification.device
                return .notification(notification)
            case .event(let time, let device, let name):
                return .event(time: time, device: addresses[device] ?? device, name: name)
            }
        }
    }
}

/// Reads FIT, TCX and GPX activities. Garmin counts running cadence per foot (FIT `cadence` +
/// `fractional_cadence`, TCX `RunCadence`, GPX `gpxtpx:cad`): doubled here to steps per minute.
public enum ActivityImport {
    /// The device of an imported activity's samples.
    public static let deviceID = "watch"
    /// The watch's own distance, where its samples have cadence only some of the time.
    public static let distanceDeviceID = "watch-distance"

    public static func encoding(of bytes: [UInt8]) -> ActivityEncoding {
        if FITFileReader.looksLikeFIT(bytes) { return .fit }
        switch WorkoutImport.firstSignificantByte(bytes) {
        // An HTML page (IntervalPro's own report, a saved web page) holds no activity: it was
        // read as XML, "invalid XML", where other files are left out.
        case UInt8(ascii: "<"): return isHTML(bytes) ? .other : .markup
        // An empty file too: the recording reader says what it lacks.
        case UInt8(ascii: "{"), nil: return .recording
        default: return RRIntervalText.recognises(bytes) ? .rrIntervalText : .other
        }
    }

    static func isHTML(_ bytes: [UInt8]) -> Bool {
        let start = bytes.prefix(64).droppingUTF8ByteOrderMark.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let opening = String(decoding: start.prefix(14), as: UTF8.self).lowercased()
        return opening.hasPrefix("<!doctype html") || opening.hasPrefix("<html")
    }

    /// Whether `bytes` hold nothing but white space (after a byte order mark): an empty file,
    /// which `encoding(of:)` gives to the recording reader to say what it lacks.
    public static func holdsNothing(_ bytes: [UInt8]) -> Bool { WorkoutImport.firstSignificantByte(bytes) == nil }

    /// How a file of another kind begins, for the error that refuses it: its first line (up
    /// to 40 characters) when it is text, "binary data" when it is not.
    public static func opening(_ bytes: [UInt8]) -> String {
        let text = bytes.prefix(200).droppingUTF8ByteOrderMark
        var line = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        // A character the cut at 200 bytes split in two.
        if bytes.count > 200 { while line.last == "\u{FFFD}" { line.removeLast() } }
        // Control characters (other than a tab) or bytes that are not UTF-8: not text.
        let binary = line.unicodeScalars.contains { $0 == "\u{FFFD}" || ($0.properties.generalCategory == .control && $0 != "\t") }
        guard !line.isEmpty, !binary else { return "binary data" }
        let shown = line.trimmingWhitespace
        return "it begins \"\(shown.count > 40 ? shown.prefix(40) + "…" : shown)\""
    }

    /// A TCX (`<TrainingCenterDatabase>`) or GPX (`<gpx>`) activity.
    public static func readXML(_ root: MarkupElement, file: String, choice: ActivityChoice = .init()) throws(ImportError) -> ImportedActivity {
        if root.name.caseInsensitiveEquals("gpx") { return try readGPX(root, file: file, choice: choice) }
        // Beside the activities of a folder, as a FIT workout may be.
        if root.name.caseInsensitiveEquals("workout_file") {
            throw ImportError(
                file: file, message: "a Zwift workout (a plan), not an activity: run it with `intervalpro run \(file)`",
                kind: .notAnActivity)
        }
        guard root.name.caseInsensitiveEquals("TrainingCenterDatabase") else {
            throw ImportError(
                file: file, place: "\(root.line)",
                message: "an XML file whose root is <\(root.name)>, neither a TCX activity (<TrainingCenterDatabase>) nor a GPX track (<gpx>)")
        }
        return try readTCX(root, file: file, choice: choice)
    }

    // MARK: - FIT

    typealias Field = FITFieldNumber

    /// A FIT activity. A damaged file (a watch whose battery died, a file cut off) is read up
    /// to the damage with a warning that says what was wrong and how much was read, unless
    /// `choice.strict`, which refuses it as a whole. Each session message is a leg (a
    /// triathlon's swim, ride and run), its records those from its start to the next's.
    public static func readFIT(_ bytes: [UInt8], file: String, choice: ActivityChoice = .init()) throws(ImportError) -> ImportedActivity {
        let salvage: FITFileReader.Salvage
        do {
            salvage = try FITFileReader.readSalvaging(bytes)
        } catch {
            throw ImportError(file: file, place: "byte \(error.offset)", message: error.message)
        }
        if let damage = salvage.damage, choice.strict || salvage.records.isEmpty {
            throw ImportError(file: file, place: "byte \(damage.offset)", message: damage.message)
        }
        let records = salvage.records
        // file_id's type (field 0): 4 is an activity. A watch's other files (workouts,
        // settings, daily monitoring, courses) hold no run, whatever records they carry.
        if let type = records.first(where: { $0.global == FITMessageNumber.fileID })?.integer(Field.FileID.type), type != FITFileType.activity {
            guard type != FITFileType.workout else {
                throw ImportError(
                    file: file, message: "a FIT workout (a plan for the watch), not an activity: run it with `intervalpro run \(file)`",
                    kind: .notAnActivity)
            }
            throw ImportError(file: file, message: "a FIT \(fitFileTypeName(type)) file, not an activity", kind: .notAnActivity)
        }
        var warnings: [ImportError] = []
        var points: [ActivityPoint] = []
        var untimed = 0
        // `hrv` messages have no timestamp: their beats go with the record before them (the
        // first record's, before any).
        var beatsBeforeFirstRecord: [UInt16] = []
        var packedDistance = FITAccumulator(bits: 12)
        var timerStops: [Int64] = []
        var timerStarts: [Int64] = []
        for record in records where [FITMessageNumber.record, FITMessageNumber.hrv, FITMessageNumber.event].contains(record.global) {
            if record.global == FITMessageNumber.event {
                if record.integer(Field.Event.event) == Field.Event.timer, let type = record.integer(Field.Event.eventType),
                    let time = microseconds(fitTime: record.integer(Field.timestamp))
                {
                    if Field.Event.timerStops.contains(type) { timerStops.append(time) }
                    if type == Field.Event.timerStart { timerStarts.append(time) }
                }
                continue
            }
            if record.global == FITMessageNumber.hrv {
                let beats = record.integers(Field.HRV.time).compactMap { $0 }.map { rounded(Double($0) * 1.024) as UInt16 }
                if points.isEmpty { beatsBeforeFirstRecord += beats } else { points[points.count - 1].rrIntervals += beats }
                continue
            }
            guard let time = microseconds(fitTime: record.integer(Field.timestamp)) else {
                untimed += 1
                continue
            }
            var point = ActivityPoint(time: time)
            // Per foot as the profile has it; doubled with the leg's other points (`inStepsPerMinute`).
            if let whole = record.integer(Field.Record.cadence) {
                let fraction = Double(record.integer(Field.Record.fractionalCadence) ?? 0) / 128
                point.cadence = Double(whole) + fraction
            }
            point.heartRate = record.integer(Field.Record.heartRate).map { Int($0) }
            if let speed = record.integer(Field.Record.enhancedSpeed) ?? record.integer(Field.Record.speed) {
                point.speed = Double(speed) / 1000
            }
            point.distance = record.integer(Field.Record.distance).map { Double($0) / 100 }
            if let packed = record.bytes(Field.Record.compressedSpeedDistance), packed.count == 3, packed != [0xFF, 0xFF, 0xFF] {
                let bits = Int64(packed[0]) | Int64(packed[1]) << 8 | Int64(packed[2]) << 16
                if point.speed == nil { point.speed = Double(bits & 0xFFF) / 100 }
                let distance = packedDistance.add(bits >> 12)
                if point.distance == nil { point.distance = Double(distance) / 16 }
            }
            if points.isEmpty { point.rrIntervals = beatsBeforeFirstRecord }
            points.append(point)
        }
        leaveOutPointsWhileStopped(&points, timerStops: timerStops, timerStarts: timerStarts)
        markPauses(&points, timerStops: timerStops)
        leaveOutBeatsWhileStopped(&points)
        if untimed > 0 {
            warnings.append(ImportError(file: file, message: "\(untimed) record message\(untimed == 1 ? "" : "s") without a timestamp left out"))
        }
        var (legs, farWarnings) = leavingOutFarSamples(fitLegs(records, points), file: file)
        // Some apps write steps a minute where the profile has one foot's: taken as a GPX's
        // or a TCX's cadence is, leg by leg (doubled, 170 became 340 and was cut to 255).
        for index in legs.indices { warnings += inStepsPerMinute(&legs[index].points, file: file, place: legs[index].place) }
        if let damage = salvage.damage {
            let kept = legs.flatMap { $0.points.map(\.time) }
            let span = kept.isEmpty ? "" : ", " + formatClock(Double(kept.max()! - kept.min()!) / 1_000_000)
            warnings.append(
                ImportError(
                    file: file, place: "byte \(damage.offset)",
                    message: "\(damage.message); read what comes before it: \(salvage.readUpTo) of \(bytes.count) bytes, "
                        + "\(kept.count) record\(kept.count == 1 ? "" : "s")\(span) (`replay --strict` refuses the file)"))
        }
        warnings += farWarnings
        let chosen = try choose(legs, choice, file: file)
        var activity = chosen.told(try activity(chosen.leg.points, format: .fit, file: file, choice: choice, warnings: warnings + chosen.warnings))
        // file_id: manufacturer (1), product (2), serial_number (3).
        if let fileID = records.first(where: { $0.global == FITMessageNumber.fileID }) {
            let parts = [Field.FileID.manufacturer, Field.FileID.product, Field.FileID.serialNumber].map { fileID.integer($0).map(String.init) ?? "-" }
            if parts.contains(where: { $0 != "-" }) { activity.creator = "fit " + parts.joined(separator: "/") }
        }
        activity.isDamaged = salvage.damage != nil
        activity.exportedByIntervalPro = records.contains {
            $0.global == FITMessageNumber.deviceInfo && $0.string(Field.DeviceInfo.productName) == ProgramName.creator
        }
        // IntervalPro's export of a session of the simulator's sensors names them after itself.
        let sensors = records.filter { $0.global == FITMessageNumber.deviceInfo && ($0.integer(Field.DeviceInfo.deviceIndex) ?? 0) > 0 }
        if activity.exportedByIntervalPro, !sensors.isEmpty,
            sensors.allSatisfy({ RecordedDevice(id: $0.string(Field.DeviceInfo.descriptor) ?? "").isSimulator })
        {
            activity.takeSimulatorAddresses()
        }
        if let offset = localClockOffset(records), let start = activity.recording.header.startedAt {
            activity.recording.header.startedAt = withOffset(start, offset)
        }
        return activity
    }

    /// The offset from UTC of the watch's clock, from the activity's local_timestamp (a
    /// watch's clock at its timestamp): what a morning measured abroad is filed by. Nil when
    /// the file does not say, or says an offset no clock has (over 14 h, not whole minutes).
    static func localClockOffset(_ records: [FITRecord]) -> Int64? {
        guard let activity = records.last(where: { $0.global == FITMessageNumber.activity }),
            let utc = activity.integer(Field.timestamp), let local = activity.integer(Field.Activity.localTimestamp)
        else { return nil }
        let offset = local - utc
        return abs(offset) <= 14 * 3600 && offset % 60 == 0 ? offset : nil
    }

    /// `utc` ("2026-11-24T21:30:00Z") written on a clock `offset` seconds ahead of UTC
    /// ("2026-11-25T06:30:00+09:00"): the same moment.
    static func withOffset(_ utc: String, _ offset: Int64) -> String {
        guard let seconds = UTCTimestamp.unixSeconds(utc) else { return utc }
        let minutes = abs(offset) / 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return UTCTimestamp.text(unixSeconds: seconds + offset).dropLast() + (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }


    /// A watch goes on writing `hrv` messages while its timer is stopped, after the last record
    /// before the stop: those beats were beaten standing, and went with that record (902 beats
    /// of a 5-minute stop in one second, counted among the run's and in its alpha 1 windows).
    /// A point the timer stopped after keeps the beats that began before the stop.
    private static func leaveOutBeatsWhileStopped(_ points: inout [ActivityPoint]) {
        for index in points.indices where points[index].pausedAfter && !points[index].rrIntervals.isEmpty {
            guard let stoppedAt = points[index].stoppedAt else { continue }
            let running = stoppedAt - points[index].time
            var elapsed: Int64 = 0
            var kept = 0
            for interval in points[index].rrIntervals {
                guard elapsed < running else { break }
                elapsed += Int64(interval) * 1_000_000 / 1024
                kept += 1
            }
            points[index].rrIntervals.removeLast(points[index].rrIntervals.count - kept)
        }
    }

    /// Some watches go on writing records while the timer is stopped (cadence 0, the heart
    /// rate standing): they were read as running, the pause gone from the run's time and their
    /// zeros in its cadence (a 28:00 run with a 2:00 stop read 30:00, 159 spm for 170). A
    /// record after a stop and before the next start is left out, with its beats; the one at
    /// the stop's second is the run's, as is the one at the start's. Records after a stop that
    /// no start follows are kept, as before: a file that wrote no starts loses nothing.
    private static func leaveOutPointsWhileStopped(_ points: inout [ActivityPoint], timerStops: [Int64], timerStarts: [Int64]) {
        guard !timerStops.isEmpty, !timerStarts.isEmpty else { return }
        let stops = timerStops.sorted()
        let starts = timerStarts.sorted()
        points.removeAll { point in
            guard let stop = stops.last(where: { $0 < point.time }), let start = starts.first(where: { $0 > stop }) else { return false }
            return point.time < start
        }
    }

    /// Marks the points after which the timer stopped: a stop at or after a point's time and
    /// before the next point's (by time, whatever the order in the file).
    private static func markPauses(_ points: inout [ActivityPoint], timerStops: [Int64]) {
        guard !timerStops.isEmpty else { return }
        let stops = timerStops.sorted()
        let inTime = points.indices.sorted { (points[$0].time, $0) < (points[$1].time, $1) }
        var stop = 0
        for (earlier, later) in zip(inTime, inTime.dropFirst()) {
            while stop < stops.count, stops[stop] < points[earlier].time { stop += 1 }
            if stop < stops.count, stops[stop] < points[later].time {
                points[earlier].pausedAfter = true
                points[earlier].stoppedAt = stops[stop]
            }
        }
    }

    /// The FIT profile's `file` type names of the files a watch or an export holds.
    static func fitFileTypeName(_ type: Int64) -> String {
        switch type {
        case 1: "device"
        case 2: "settings"
        case 3: "sport"
        case 6: "course"
        case 7: "schedules"
        case 9: "weight"
        case 10: "totals"
        case 11: "goals"
        case 14: "blood pressure"
        case 15, 32: "monitoring"
        case 20: "activity summary"
        case 28: "daily monitoring"
        case 34: "segment"
        case 35: "segment list"
        default: "type \(type)"
        }
    }

    /// A FIT time (uint32 seconds since 1989-12-31) as microseconds since 1970; nil for a
    /// field of another size holding more, which is no time.
    private static func microseconds(fitTime seconds: Int64?) -> Int64? {
        guard let seconds, (0...Int64(UInt32.max)).contains(seconds) else { return nil }
        return (seconds + FITTime.epochOffset) * 1_000_000
    }

    /// The session messages as legs (start_time field 2, sport field 5), in time order; a file
    /// without sessions is one leg of its sport message's sport (field 0), if any.
    private static func fitLegs(_ records: [FITRecord], _ points: [ActivityPoint]) -> [ActivityLeg] {
        func leg(_ sport: Int64?, place: String?) -> ActivityLeg {
            let kind: ActivityLeg.Kind = switch sport {
                case .some(FITSport.running): .run
                case nil, .some(FITSport.generic): .unsaid
                default: .other
            }
            return ActivityLeg(sport: sport.map(FITSport.name), kind: kind, points: [], place: place)
        }
        let sessions = records.enumerated().filter { $0.element.global == FITMessageNumber.session }
            .map { (start: microseconds(fitTime: $0.element.integer(Field.Session.startTime)), sport: $0.element.integer(Field.Session.sport)) }
            .sorted { ($0.start ?? .min) < ($1.start ?? .min) }
        guard !sessions.isEmpty else {
            var only = leg(records.first { $0.global == FITMessageNumber.sport }?.integer(Field.Sport.sport), place: nil)
            only.points = points
            return [only]
        }
        var legs = sessions.enumerated().map { leg($0.element.sport, place: "session \($0.offset + 1)") }
        for point in points {
            // The last leg begun by the point's time; before the first, the first.
            let index = sessions.lastIndex { ($0.start ?? .min) <= point.time } ?? 0
            legs[index].points.append(point)
        }
        return legs
    }
}
