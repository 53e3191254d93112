import IntervalProCore
import IntervalProFormats
import IntervalProIO
import Testing

struct TCXActivityTests {
    @Test func garminFormWithNamespacesOffsetsAndFractions() throws {
        let tcx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
                xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
              <Activities><Activity Sport="Running"><Id>2026-03-01T07:30:00.000Z</Id>
                <Lap StartTime="2026-03-01T07:30:00.000Z"><Track>
                  <Trackpoint><Time>2026-03-01T08:30:00.500+01:00</Time><DistanceMeters>3.1</DistanceMeters>
                    <HeartRateBpm><Value>140</Value></HeartRateBpm>
                    <Extensions><ns3:TPX><ns3:Speed>3.1</ns3:Speed><ns3:RunCadence>86</ns3:RunCadence></ns3:TPX></Extensions>
                  </Trackpoint>
                  <Trackpoint><Time>2026-03-01T07:30:01.500Z</Time><Cadence>87</Cadence></Trackpoint>
                </Track></Lap>
              </Activity></Activities>
            </TrainingCenterDatabase>
            """
        let activity = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "run.tcx")
        #expect(activity.points == 2)
        #expect(activity.recording.header.startedAt == "2026-03-01T07:30:00Z")
        let times = activity.recording.entries.map(\.time)
        #expect(times == [.zero, .zero, .seconds(1)])
        guard case .notification(let first) = activity.recording.entries[0], case .rsc(let rsc) = try SensorReading.decode(.rscMeasurement, first.bytes) else {
            Issue.record("expected an RSC notification first")
            return
        }
        #expect(rsc.cadence == 172 && rsc.totalDistanceM == 3.1)
    }

    /// Smart recording: a record held each second until the next when that comes within
    /// 25 s, so the stream has no gap there; a longer gap (a pause) stays one. Points 0, 5
    /// (5 s later: held), 7 (2 s: current anyway), 40 (33 s: a gap), 41.
    @Test func smartRecordingIsHeldUpTo25Seconds() throws {
        let start: Int64 = 1_772_350_200_000_000
        let points = [0, 5, 7, 40, 41].map {
            ActivityPoint(time: start + Int64($0) * 1_000_000, cadence: 170, heartRate: 150, rrIntervals: $0 == 0 ? [410, 415] : [])
        }
        let recording = ActivityImport.recording(points, start: start, device: RecordedDevice(id: "watch", cadenceUnit: .steps))
        var rsc: [Double] = [], heartRate: [Double] = [], beats: [UInt16] = []
        for case .notification(let notification) in recording.entries {
            switch try SensorReading.decode(try #require(notification.characteristic), notification.bytes) {
            case .rsc: rsc.append(notification.time.seconds)
            case .heartRate(let measurement):
                heartRate.append(notification.time.seconds)
                beats += Array(measurement.rrIntervals)
            default: Issue.record("unexpected \(notification)")
            }
        }
        #expect(rsc == [0, 1, 2, 3, 4, 5, 7, 40, 41])
        #expect(heartRate == rsc)
        // The beats once, with the point they came with.
        #expect(beats == [410, 415])
        let statistics = StreamStatistics(header: recording.header, entries: recording.entries, units: [:])
        #expect(statistics.gaps.map(\.start) == [.seconds(10)])
        #expect(statistics.gaps.map(\.length) == [.seconds(30)])
    }

    /// A file whose footpod paired late and went flat early: cadence from 20 s to 60 s of
    /// 100, speed and distance throughout (3 m/s). The metres before and after the footpod
    /// were lost: a run of 10.8 km whose footpod died at 20:00 kept 3.6 km.
    @Test func distanceWithoutCadenceCountsBeforeAndAfterTheFootpod() throws {
        let points = (0..<100).map { second in
            "<Trackpoint><Time>2026-03-01T07:\(30 + second / 60):\(second % 60 < 10 ? "0" : "")\(second % 60)Z</Time>"
                + "<DistanceMeters>\(3 * second)</DistanceMeters>"
                + (20..<60 ~= second ? "<Cadence>85</Cadence>" : "") + "</Trackpoint>"
        }
        let tcx = """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
              <Activities><Activity Sport="Running"><Id>2026-03-01T07:30:00Z</Id><Lap StartTime="2026-03-01T07:30:00Z">
              <Track>\(points.joined())</Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let activity = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "run.tcx")
        let units = Dictionary(uniqueKeysWithValues: activity.recording.header.devices.map { ($0.id, $0.cadenceUnit ?? .auto) })
        var stream = CadenceStream(units: units)
        var distances: [Int: Double] = [:]
        for case .notification(let notification) in activity.recording.entries {
            stream.ingest(try SensorReading.decode(try #require(notification.characteristic), notification.bytes), from: notification.device, at: notification.time)
            distances[Int(notification.time.seconds)] = stream.distance
        }
        #expect(distances[19] == 57, "before the footpod")
        #expect(distances[59] == 177, "with it")
        // After it, the whole run: the seconds the footpod's last cadence stays current
        // (`CadenceStream.staleAfter`) are counted once it is stale (they were lost: 291 m).
        #expect(distances[99] == 297, "after it")
    }

    /// A record without a heart rate takes its beats' (61,440 × count / sum); an interval no
    /// heart beats at (Garmin's HRM plugin test file writes 5 s where the strap was lost)
    /// gives none: 12 bpm before.
    @Test func beatsGiveAHeartRateOnlyFromHeartbeats() throws {
        let start: Int64 = 1_772_350_200_000_000
        let beats: [[UInt16]] = [[1024, 1024], [5120], [5120, 768], [200]]
        let points = beats.enumerated().map {
            ActivityPoint(time: start + Int64($0.offset) * 1_000_000, cadence: 170, rrIntervals: $0.element)
        }
        let recording = ActivityImport.recording(points, start: start, device: RecordedDevice(id: "watch", cadenceUnit: .steps))
        var heartRates: [Double: UInt16] = [:]
        var sent: [UInt16] = []
        for case .notification(let notification) in recording.entries {
            guard case .heartRate(let measurement) = try SensorReading.decode(try #require(notification.characteristic), notification.bytes)
            else { continue }
            heartRates[notification.time.seconds] = measurement.heartRate
            sent += Array(measurement.rrIntervals)
        }
        #expect(heartRates == [0: 60, 2: 80])
        #expect(sent == [1024, 1024, 5120, 768], "a record's beats go with its heart rate, as a strap sends them")
    }

    /// A lap's second Track begins after a pause: the point before it is not held over the
    /// gap; a new lap is no pause.
    @Test func aPointIsNotHeldIntoALapsSecondTrack() throws {
        func point(_ second: Int) -> String {
            "<Trackpoint><Time>2026-03-01T07:30:\(second < 10 ? "0" : "")\(second)Z</Time><Cadence>85</Cadence></Trackpoint>"
        }
        let tcx = "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\">"
            + "<Lap><Track>" + point(0) + "</Track></Lap>"  // a new lap 5 s later: held
            + "<Lap><Track>" + point(5) + "</Track><Track>" + point(15) + point(16) + "</Track></Lap>"  // paused from 5 to 15
            + "</Activity></Activities></TrainingCenterDatabase>"
        let activity = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "r.tcx")
        #expect(activity.recording.entries.map(\.time.seconds) == [0, 1, 2, 3, 4, 5, 15, 16])
        #expect(activity.pauses == [.seconds(5) ..< .seconds(15)])
    }

    /// Garmin Connect's TCX: a pause is points that stop and start again in one Track, and
    /// the lap's TotalTimeSeconds (the watch's timer) short of their span. The pause was read
    /// as running with no signal. A gap the timer ran through (GPS lost) stays a gap.
    @Test func aLapsTimerShortOfItsPointsMarksItsLongestGapsAsPauses() throws {
        func point(_ second: Int) -> String {
            "<Trackpoint><Time>\(UTCTimestamp.text(unixSeconds: 1_772_350_200 + Int64(second)))</Time><Cadence>85</Cadence></Trackpoint>"
        }
        func tcx(timer: Int) -> String {
            // 0-299 and 600-899 a point a second (300 s away: a pause), then one 60 s later and 30 s on.
            let seconds = Array(0..<300) + Array(600..<900) + [960, 990]
            return "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\"><Lap><TotalTimeSeconds>\(timer)</TotalTimeSeconds><Track>"
                + seconds.map(point).joined() + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        }
        // The watch ran 690 s of the 990: the 300 s stop was a pause, the 60 s gap not.
        let paused = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx(timer: 690).utf8)), file: "garmin.tcx")
        #expect(paused.pauses == [.seconds(299) ..< .seconds(600)])
        // The timer ran through everything: no pause.
        let running = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx(timer: 990).utf8)), file: "garmin.tcx")
        #expect(running.pauses.isEmpty)
    }

    /// A watch stopped between two laps: the gap is in neither lap's timer. It was read as
    /// running with no signal (30:00, 9:57 of it "no signal", for a run of 20:00). A lap whose
    /// timer ran on past its points (the GPS lost), or a lap that started before its first
    /// point, covers the gap: no pause.
    @Test func aGapBetweenLapsThatNoTimerCoversIsAPause() throws {
        func point(_ second: Int) -> String {
            "<Trackpoint><Time>\(UTCTimestamp.text(unixSeconds: 1_772_350_200 + Int64(second)))</Time><Cadence>85</Cadence></Trackpoint>"
        }
        func lap(from first: Int, to last: Int, timer: Int, startedAt start: Int) -> String {
            "<Lap StartTime=\"\(UTCTimestamp.text(unixSeconds: 1_772_350_200 + Int64(start)))\"><TotalTimeSeconds>\(timer)</TotalTimeSeconds><Track>"
                + (first...last).map(point).joined() + "</Track></Lap>"
        }
        func read(_ laps: String...) throws -> ImportedActivity {
            let tcx = "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\">" + laps.joined() + "</Activity></Activities></TrainingCenterDatabase>"
            return try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "laps.tcx")
        }
        let stopped = try read(lap(from: 0, to: 599, timer: 600, startedAt: 0), lap(from: 1200, to: 1799, timer: 600, startedAt: 1200))
        #expect(stopped.pauses == [.seconds(599) ..< .seconds(1200)])
        // The first lap's timer ran 10 minutes on (the watch lost its points): a gap, no pause.
        #expect(try read(lap(from: 0, to: 599, timer: 1200, startedAt: 0), lap(from: 1200, to: 1799, timer: 600, startedAt: 1200)).pauses.isEmpty)
        // The second lap started at the first one's end: its timer ran through the gap.
        #expect(try read(lap(from: 0, to: 599, timer: 600, startedAt: 0), lap(from: 1200, to: 1799, timer: 1200, startedAt: 600)).pauses.isEmpty)
        // Laps one after the other: no pause.
        #expect(try read(lap(from: 0, to: 599, timer: 600, startedAt: 0), lap(from: 600, to: 1199, timer: 600, startedAt: 600)).pauses.isEmpty)
    }

    /// TCX cadence in steps per minute already (median over 120) is kept, as for GPX.
    @Test func cadenceAlreadyInStepsIsNotDoubled() throws {
        let points = [170, 172].enumerated().map {
            "<Trackpoint><Time>2026-03-01T07:30:0\($0.offset)Z</Time><Cadence>\($0.element)</Cadence></Trackpoint>"
        }
        let tcx = "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\"><Lap><Track>" + points.joined()
            + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        let activity = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "r.tcx")
        let cadences = activity.recording.entries.compactMap { entry -> UInt8? in
            guard case .notification(let n) = entry, case .rsc(let rsc) = try? SensorReading.decode(.rscMeasurement, n.bytes) else { return nil }
            return rsc.cadence
        }
        #expect(cadences == [170, 172])
        #expect(activity.warnings.map(\.description) == ["r.tcx:1: cadence 172 in the middle: steps per minute already, so not doubled"])
    }

    @Test func errorsNameTheLine() throws {
        let tcx = "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\"><Lap><Track>\n<Trackpoint><Time>yesterday</Time></Trackpoint></Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        #expect(throws: ImportError(file: "r.tcx", place: "2", message: "<Time> \"yesterday\" is not an ISO 8601 time")) {
            try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "r.tcx")
        }
    }

    /// One glitch (`<hr>` 300 in a Strava GPX) refused the whole run, where a FIT file's are
    /// left out with a warning.
    @Test func valuesNoWatchRecordsAreLeftOutAndRefusedWhenStrict() throws {
        let tcx = "<TrainingCenterDatabase><Activities><Activity Sport=\"Running\"><Lap><Track>\n"
            + "<Trackpoint><Time>2026-03-01T07:30:00Z</Time>\n<HeartRateBpm><Value>1e300</Value></HeartRateBpm><Cadence>85</Cadence></Trackpoint>\n"
            + "<Trackpoint><Time>2026-03-01T07:30:01Z</Time><HeartRateBpm><Value>141</Value></HeartRateBpm><Cadence>300</Cadence></Trackpoint>\n"
            + "<Trackpoint><Time>2026-03-01T07:30:02Z</Time><HeartRateBpm><Value>142</Value></HeartRateBpm><Cadence>86</Cadence></Trackpoint>"
            + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        #expect(throws: ImportError(file: "r.tcx", place: "3", message: "<Value> 1e300 is more than 255")) {
            try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "r.tcx", choice: ActivityChoice(strict: true))
        }
        let activity = try ActivityImport.readTCX(try MarkupReader.read(Array(tcx.utf8)), file: "r.tcx")
        #expect(activity.points == 3)
        #expect(activity.warnings.map(\.description).contains(
            "r.tcx:3: <Value> 1e300 is more than 255: 2 readings past what a watch records left out (`replay --strict` refuses the file)"),
            "\(activity.warnings)")
        let heartRates = activity.recording.entries.compactMap { entry -> Int? in
            guard case .notification(let n) = entry, case .heartRate(let hr) = try? SensorReading.decode(.heartRateMeasurement, n.bytes) else { return nil }
            return Int(hr.heartRate)
        }
        // The glitch left no reading (a 0 is "no heart rate" to the engine).
        #expect(heartRates.filter { $0 > 0 } == [141, 142], "\(heartRates)")
    }

    /// One garbled character (`<hr>x140</hr>`, a time with a digit lost) in a point of 1,800
    /// made the whole file unreadable, exit 65, the run lost: left out, with a warning, as a
    /// point without a time is; a garbled reading refused with --strict.
    @Test func aGarbledReadingOrTimeIsLeftOutOfTheRun() throws {
        let gpx = "<gpx version=\"1.1\" xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\"><trk><type>running</type><trkseg>\n"
            + "<trkpt lat=\"45.0\" lon=\"7.0\"><time>2026-03-01T07:30:00Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>\n"
            + "<trkpt lat=\"45.0\" lon=\"7.0001\"><time>2026-03-01T07:30:01Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>x141</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>\n"
            + "<trkpt lat=\"45.0\" lon=\"7.0002\"><time>2026-03-01T07:30:2</time></trkpt>\n"
            + "<trkpt lat=\"45.0\" lon=\"7.0003\"><time>2026-03-01T07:30:03Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>143</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>\n"
            + "</trkseg></trk></gpx>"
        let root = try MarkupReader.read(Array(gpx.utf8))
        let activity = try ActivityImport.readGPX(root, file: "r.gpx")
        #expect(activity.points == 3)
        #expect(
            activity.warnings.map(\.description).prefix(2) == [
                "r.gpx:4: <time> \"2026-03-01T07:30:2\" is not an ISO 8601 time: 1 <trkpt> whose <time> cannot be read left out (the first here)",
                "r.gpx:3: <hr> holds \"x141\", not a number: 1 reading that is no number left out (`replay --strict` refuses the file)",
            ], "\(activity.warnings)")
        let heartRates = activity.recording.entries.compactMap { entry -> Int? in
            guard case .notification(let n) = entry, n.characteristic == .heartRateMeasurement,
                case .heartRate(let hr) = try? SensorReading.decode(.heartRateMeasurement, n.bytes)
            else { return nil }
            return Int(hr.heartRate)
        }
        #expect(heartRates.filter { $0 > 0 } == [140, 143], "\(heartRates)")
        #expect(throws: ImportError(file: "r.gpx", place: "3", message: "<hr> holds \"x141\", not a number")) {
            try ActivityImport.readGPX(root, file: "r.gpx", choice: ActivityChoice(strict: true))
        }
    }

    @Test func iso8601Forms() {
        #expect(ISO8601.microseconds("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601.microseconds("1970-01-01T01:00:00.25+01:00") == 250_000)
        #expect(ISO8601.microseconds("1969-12-31T23:59:59Z") == -1_000_000)
        #expect(ISO8601.microseconds("2026-02-30") == nil)
        #expect(ISO8601.microseconds("2026-03-01T07:30:00Q") == nil)
        // ISO 8601's basic offsets and comma fractions, as some phone apps write them.
        #expect(ISO8601.microseconds("1970-01-01T01:00:00+0100") == 0)
        #expect(ISO8601.microseconds("1969-12-31T22:00:00-02") == 0)
        #expect(ISO8601.microseconds("1970-01-01T00:00:00,5Z") == 500_000)
        #expect(ISO8601.microseconds("1970-01-01T00:00:00+01:0") == nil)
        #expect(ISO8601.microseconds("1970-01-01T00:00:00+2500") == nil)
        #expect(ISO8601.microseconds("1970-01-01T00:00:00+010") == nil)
        // RFC 3339's lower case "t" and "z" (section 5.6).
        #expect(ISO8601.microseconds("1970-01-01t00:00:01.5z") == 1_500_000)
        #expect(ISO8601.microseconds("1970-01-01T00:00:00x") == nil)
        // No such day: they were taken as the next month's (February 30th as March 2nd).
        #expect(ISO8601.microseconds("2026-02-30T07:30:00Z") == nil)
        #expect(ISO8601.microseconds("2025-02-29T10:00:00Z") == nil)
        #expect(ISO8601.microseconds("2026-04-31T10:00:00Z") == nil)
        #expect(ISO8601.microseconds("2100-02-29T10:00:00Z") == nil)
        #expect(ISO8601.microseconds("2024-02-29T00:00:00Z") == ISO8601.microseconds("2024-03-01T00:00:00Z").map { $0 - 86_400_000_000 })
        #expect(ISO8601.microseconds("2000-02-29T00:00:00Z") != nil)
        // A time that names no zone: read as UTC here, said so that a caller can read it otherwise.
        #expect(ISO8601.namesNoZone("2026-11-10T23:50:00") && ISO8601.namesNoZone("2026-11-10T23:50:00.25"))
        #expect(!ISO8601.namesNoZone("2026-11-10T23:50:00Z") && !ISO8601.namesNoZone("2026-11-10T23:50:00+01"))
        #expect(!ISO8601.namesNoZone("2026-11-10T23:50:00.5-0200"))
    }
}

/// The repository, from this file's path (tests may run from any directory).
private let packageRoot: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

struct PlanWriterTests {
    @Test func everyBundledPlanWritesOutAndReadsBackToTheSameTimeline() throws {
        let plans = ["cadence-ladder", "first-cadence-session", "long-steady-run", "metronome-intervals", "pyramid"]
        for name in plans {
            let path = packageRoot + "/Plans/\(name).json"
            let plan = try PlanDecoder.decode(try FileIO.readAll(path), file: path)
            let text = PlanWriter.json(plan).serialized(pretty: true)
            let back = try PlanDecoder.decode(Array(text.utf8), file: "written")
            #expect(back.timeline() == plan.timeline(), "\(name)")
            #expect(back.metronome == plan.metronome && back.name == plan.name && back.tolerance == plan.tolerance)
            // Version 1 had no "version" key (its first readers refuse unknown keys); version 2 says it.
            #expect(text.contains(#""version""#) == (plan.metronome != nil), "\(name)")
        }
    }
}
