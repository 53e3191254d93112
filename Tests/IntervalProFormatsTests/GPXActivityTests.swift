import IntervalProCore
import IntervalProFormats
import IntervalProIO
import Testing

struct GPXActivityTests {
    /// Reads `gpx` through libxml2 as `replay` does.
    func read(_ gpx: String, file: String = "run.gpx") throws -> ImportedActivity {
        try ActivityImport.readXML(try MarkupReader.read(Array(gpx.utf8)), file: file)
    }

    @Test func stravaTypeNumbersTheCreatorAndTheName() throws {
        func gpx(_ type: String) -> String {
            """
            <gpx creator="StravaGPX iPhone" version="1.1"><trk><name>Morning Run</name><type>\(type)</type><trkseg>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:00Z</time><extensions><cad>85</cad></extensions></trkpt></trkseg></trk></gpx>
            """
        }
        // Strava numbers its types in a GPX export: 9 is a run, 1 a ride.
        let run = try read(gpx("9"))
        #expect(run.creator == "gpx StravaGPX iPhone")
        #expect(run.name == "Morning Run")
        #expect(throws: ImportError.self) { try read(gpx("1")) }
        do {
            _ = try read(gpx("1"))
        } catch let problem as ImportError {
            // Strava's number for a ride, said as one ("a 1 activity", "1 1" in a summary).
            #expect(problem.kind == .notARun(sport: "cycling"))
        }
    }

    /// The notifications an activity became, decoded, with their seconds.
    /// The readings of one device: the watch's samples, unless said.
    func readings(_ activity: ImportedActivity, of device: String = ActivityImport.deviceID) throws -> [(seconds: Double, reading: SensorReading)] {
        try activity.recording.entries.compactMap { entry in
            guard case .notification(let notification) = entry, notification.device == device,
                let characteristic = notification.characteristic
            else { return nil }
            return (notification.time.seconds, try SensorReading.decode(characteristic, notification.bytes))
        }
    }

    @Test func stravaFormWithGarminsTrackPointExtension() throws {
        // 0.001° of latitude apart on a meridian: 111.195 m on the mean-radius sphere.
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx creator="StravaGPX" version="1.1" xmlns="http://www.topografix.com/GPX/1/1"
                xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <metadata><time>2026-03-01T07:30:00Z</time></metadata>
              <trk><name>Morning Run</name><type>running</type><trkseg>
                <trkpt lat="47.000000" lon="8.000000"><ele>410.2</ele><time>2026-03-01T08:30:00.500+01:00</time>
                  <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr><gpxtpx:cad>86</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>
                </trkpt>
                <trkpt lat="47.001000" lon="8.000000"><time>2026-03-01T07:30:40.500Z</time>
                  <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>150</gpxtpx:hr><gpxtpx:cad>88</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>
                </trkpt>
              </trkseg></trk>
            </gpx>
            """
        let activity = try read(gpx)
        #expect(activity.format == .gpx)
        #expect(activity.points == 2)
        #expect(activity.warnings.isEmpty)
        #expect(activity.recording.header.startedAt == "2026-03-01T07:30:00Z")
        let decoded = try readings(activity)
        #expect(decoded.map(\.seconds) == [0, 0, 40, 40])
        guard case .rsc(let first) = decoded[0].reading, case .heartRate(let firstBeat) = decoded[1].reading,
            case .rsc(let second) = decoded[2].reading, case .heartRate(let secondBeat) = decoded[3].reading
        else {
            Issue.record("expected RSC then heart rate at each point: \(decoded)")
            return
        }
        // Per foot in the file, both feet in the session.
        #expect(first.cadence == 172 && second.cadence == 176)
        #expect(firstBeat.heartRate == 140 && secondBeat.heartRate == 150)
        // Distance by the haversine formula, to RSC's 0.1 m; speed from it over the 40 s.
        let metres = 6_371_008.8 * Double.pi / 180 * 0.001
        #expect(first.totalDistanceM == 0)
        #expect(abs((second.totalDistanceM ?? 0) - metres) <= 0.05, "\(second.totalDistanceM ?? 0) m against \(metres)")
        #expect(abs(second.speedMps - metres / 40) <= 1.0 / 256, "\(second.speedMps) m/s")
    }

    @Test func otherExportersExtensionsAndGPX10Speed() throws {
        let gpx = """
            <gpx version="1.0"><trk><trkseg>
              <trkpt lat="0" lon="0"><time>2026-03-01T07:30:00Z</time><speed>3.5</speed>
                <extensions><heartrate>131</heartrate><cadence>84.5</cadence></extensions></trkpt>
              <trkpt lat="0" lon="0"><time>2026-03-01T07:30:01Z</time></trkpt>
            </trkseg><trkseg>
              <trkpt><time>2026-03-01T07:31:00Z</time><extensions><ns3:TrackPointExtension xmlns:ns3="x"><ns3:cad>90</ns3:cad></ns3:TrackPointExtension></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let activity = try read(gpx)
        #expect(activity.points == 3)
        let decoded = try readings(activity)
        guard case .rsc(let first) = decoded[0].reading, case .heartRate(let beat) = decoded[1].reading else {
            Issue.record("expected RSC then heart rate: \(decoded)")
            return
        }
        #expect(first.cadence == 169 && abs(first.speedMps - 3.5) < 1.0 / 256)
        #expect(beat.heartRate == 131)
        // The second point has neither cadence nor heart rate: no notification. Segments join.
        #expect(decoded.map(\.seconds) == [0, 0, 60])
        guard case .rsc(let last) = decoded[2].reading else {
            Issue.record("expected the last segment's cadence")
            return
        }
        #expect(last.cadence == 180)
    }

    @Test func aRideIsRefusedUnlessAnySportIsAsked() throws {
        let gpx = """
            <gpx version="1.1"><trk><type>cycling</type><trkseg><trkpt lat="1" lon="1"><time>2026-03-01T07:30:00Z</time>
            <extensions><cad>80</cad></extensions></trkpt></trkseg></trk></gpx>
            """
        #expect(throws: ImportError(file: "ride.gpx", place: "1", message: "a cycling activity, not a run: `--sport any` reads it anyway, its cadence doubled as a run's", kind: .notARun(sport: "cycling"))) {
            try read(gpx, file: "ride.gpx")
        }
        let ride = try ActivityImport.readXML(try MarkupReader.read(Array(gpx.utf8)), file: "ride.gpx", choice: ActivityChoice(anySport: true))
        #expect(ride.points == 1)
        #expect(ride.warnings.map(\.description) == ["ride.gpx:1: cycling, not a run: its cadence is doubled as a run's"])
    }

    @Test func aBrickSaysWhichTrackItReadAndLegPicksAnother() throws {
        let gpx = """
            <gpx version="1.1">
            <trk><type>cycling</type><trkseg><trkpt><time>2026-03-01T07:30:00Z</time><extensions><cad>80</cad></extensions></trkpt></trkseg></trk>
            <trk><type>running</type><trkseg><trkpt><time>2026-03-01T08:30:00Z</time><extensions><cad>88</cad></extensions></trkpt></trkseg></trk>
            </gpx>
            """
        let run = try read(gpx, file: "brick.gpx")
        #expect(run.recording.header.startedAt == "2026-03-01T08:30:00Z")
        #expect(run.warnings.map(\.description) == [
            "brick.gpx: a multisport activity of 2 legs (1 cycling, 2 running): leg 2 (running, from 1:00:00) is read; --leg N reads another"
        ])
        let root = try MarkupReader.read(Array(gpx.utf8))
        #expect(throws: ImportError(file: "brick.gpx", place: "2", message: "leg 1 (cycling, from 0:00) is not a run: `--sport any` reads it anyway, its cadence doubled as a run's", kind: .notARun(sport: "cycling"))) {
            try ActivityImport.readXML(root, file: "brick.gpx", choice: ActivityChoice(leg: 1))
        }
        #expect(try ActivityImport.readXML(root, file: "brick.gpx", choice: ActivityChoice(leg: 1, anySport: true)).recording.header.startedAt == "2026-03-01T07:30:00Z")
        #expect(throws: ImportError(file: "brick.gpx", message: "--leg 3: the activity has 2 legs")) {
            try ActivityImport.readXML(root, file: "brick.gpx", choice: ActivityChoice(leg: 3))
        }
    }

    /// A TCX of three runs on three days lost its first: the day apart was judged across the
    /// file, and the first run "left out, as damage". And a Garmin multisport session (its
    /// activities under MultiSportSession's FirstSport and NextSport) was refused whole.
    @Test func aTCXOfRunsOnSeveralDaysAndAMultisportSessionReadEachLeg() throws {
        func activity(_ sport: String, _ day: String, at clock: String = "07:30") -> String {
            let points = (0..<5).map {
                "<Trackpoint><Time>2026-03-\(day)T\(clock):0\($0)Z</Time><Cadence>85</Cadence></Trackpoint>"
            }.joined()
            return "<Activity Sport=\"\(sport)\"><Lap><Track>\(points)</Track></Lap></Activity>"
        }
        let days = "<TrainingCenterDatabase><Activities>" + activity("Running", "01") + activity("Running", "03")
            + activity("Running", "04") + "</Activities></TrainingCenterDatabase>"
        let root = try MarkupReader.read(Array(days.utf8))
        for (leg, day) in [(1, "01"), (2, "03"), (3, "04")] {
            let read = try ActivityImport.readXML(root, file: "runs.tcx", choice: ActivityChoice(leg: leg))
            #expect(read.recording.header.startedAt == "2026-03-\(day)T07:30:00Z" && read.points == 5, "leg \(leg)")
            #expect(!read.warnings.contains { $0.description.contains("as damage") }, "\(read.warnings)")
        }
        #expect(try ActivityImport.readXML(root, file: "runs.tcx").recording.header.startedAt == "2026-03-01T07:30:00Z")

        let brick = "<TrainingCenterDatabase><Activities><MultiSportSession><Id>2026-03-01T07:00:00Z</Id><FirstSport>"
            + activity("Biking", "01", at: "07:00") + "</FirstSport><NextSport>"
            + activity("Running", "01") + "</NextSport></MultiSportSession></Activities></TrainingCenterDatabase>"
        let run = try read(brick, file: "brick.tcx")
        #expect(run.recording.header.startedAt == "2026-03-01T07:30:00Z" && run.points == 5)
        #expect(run.warnings.first?.description.contains("leg 2 (Running") == true, "\(run.warnings)")
    }

    @Test func refusalsNameTheFileTheLineAndWhy() throws {
        let cases: [(String, ImportError)] = [
            ("<kml/>", ImportError(file: "x.gpx", place: "1", message: "an XML file whose root is <kml>, neither a TCX activity (<TrainingCenterDatabase>) nor a GPX track (<gpx>)")),
            ("<gpx>\n<wpt lat=\"1\" lon=\"2\"/></gpx>", ImportError(file: "x.gpx", place: "1", message: "no <trk>: a GPX file without a recorded track (routes and waypoints have no times)")),
            ("<gpx><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>", ImportError(file: "x.gpx", place: "2", message: "a <trkpt> without a <time>")),
            ("<gpx><trk><trkseg>\n<trkpt lat=\"91\" lon=\"2\"><time>2026-03-01T07:30:00Z</time></trkpt></trkseg></trk></gpx>",
             ImportError(file: "x.gpx", place: "2", message: "<trkpt lat=\"91\" lon=\"2\">: not a latitude and longitude in degrees")),
            ("<gpx><trk><trkseg></trkseg></trk></gpx>", ImportError(file: "x.gpx", message: "no track points (<trkpt>): the activity holds no samples")),
        ]
        for (gpx, problem) in cases {
            #expect(throws: problem, "\(gpx)") { try read(gpx, file: "x.gpx") }
        }
        // A reading that is no number is left out of its point, the run kept
        // (`aGarbledReadingOrTimeIsLeftOutOfTheRun`); refused with --strict, naming it.
        let negative = "<gpx><trk><trkseg><trkpt><time>2026-03-01T07:30:00Z</time><extensions>\n<hr>-3</hr></extensions></trkpt></trkseg></trk></gpx>"
        #expect(throws: ImportError(file: "x.gpx", place: "2", message: "<hr> holds \"-3\", not a number")) {
            try ActivityImport.readGPX(try MarkupReader.read(Array(negative.utf8)), file: "x.gpx", choice: ActivityChoice(strict: true))
        }
    }

    @Test func aFileCutAnywhereGivesTheWholePointsBeforeTheCut() throws {
        let gpx = Array("""
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:00Z</time><extensions><cad>80</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:01Z</time><extensions><cad>81</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:02Z</time><extensions><cad>82</cad></extensions></trkpt>
            </trkseg></trk></gpx>
            """.utf8)
        let times = ["2026-03-01T07:30:00Z", "2026-03-01T07:30:01Z", "2026-03-01T07:30:02Z"]
        var salvaged = 0
        var saidCut = 0
        for length in 1..<gpx.count {
            let cut = Array(gpx.prefix(length))
            #expect(throws: MarkupError.self) { try MarkupReader.read(cut) }
            guard let (root, damage) = try? MarkupReader.readSalvaging(cut) else { continue }
            #expect(damage != nil)
            // libxml2 2.9 said of most cuts between tags "Extra content at the end of the
            // document", which reads as something added to the file.
            #expect(damage?.message.contains("Extra content") == false, "cut at \(length): \(String(describing: damage))")
            if damage?.message.hasPrefix("the file ends inside <") == true, damage?.message.hasSuffix("> (cut off part way)") == true { saidCut += 1 }
            // Said at the line the file is cut in, not at the <trkseg> still open (line 1).
            let lastLine = cut.dropLast().filter { $0 == UInt8(ascii: "\n") }.count + 1
            if cut.count > 60 { #expect(damage?.line == lastLine, "cut at \(length): line \(String(describing: damage?.line)), not \(lastLine)") }
            let points = root.descendant("trk", "trkseg")?.children.filter { $0.name == "trkpt" } ?? []
            // Only points whose time is whole, in order from the first.
            #expect(points.compactMap { $0.child("time")?.text } == Array(times.prefix(points.count)), "cut at \(length)")
            if !points.isEmpty { salvaged += 1 }
        }
        #expect(salvaged > gpx.count / 2)
        #expect(saidCut > gpx.count / 4)
    }

    /// A sample dated decades away (a damaged file's garbage) is left out and said, on either
    /// side of the run: the run is what remains, not a session of 60 years.
    @Test func samplesDatedFarFromTheRestAreLeftOutAsDamage() throws {
        func point(_ time: String) -> String {
            #"<trkpt lat="1" lon="1"><time>\#(time)</time><extensions><cad>85</cad></extensions></trkpt>"#
        }
        let run = (0..<10).map { point("2026-03-01T07:30:0\($0)Z") }
        let cases = [
            (run + [point("2085-12-01T00:00:00Z")], "2085-12-01T00:00:00Z"),
            ([point("1990-01-01T00:00:00Z")] + run, "1990-01-01T00:00:00Z"),
        ]
        for (points, date) in cases {
            let activity = try read("<gpx><trk><trkseg>" + points.joined() + "</trkseg></trk></gpx>")
            #expect(activity.recording.header.startedAt == "2026-03-01T07:30:00Z")
            #expect(activity.recording.entries.map(\.time.seconds).max() == 9)
            #expect(activity.points == 10)
            #expect(
                activity.warnings.map(\.description) == [
                    "run.gpx: 1 sample dated more than 57 days from the rest of the activity (the first \(date)) left out, as damage"
                ])
        }
        // Within the 57 days, a day or more apart is not one run either: the stretch with the
        // most samples is (three samples weeks apart made a session of 2,688 hours, scored
        // second by second in 1.9 GB). Samples hours apart are one stretch.
        let apart = try read("<gpx><trk><trkseg>" + run.joined() + point("2026-03-04T07:30:00Z") + "</trkseg></trk></gpx>")
        #expect(apart.recording.entries.map(\.time.seconds).max() == 9)
        #expect(
            apart.warnings.map(\.description) == [
                "run.gpx: 1 sample a day or more apart from the rest of the activity (the first 2026-03-04T07:30:00Z) left out, as damage: a run is one stretch of time"
            ])
        let ultra = try read("<gpx><trk><trkseg>" + point("2026-03-01T00:00:00Z") + point("2026-03-01T23:59:59Z") + point("2026-03-02T23:00:00Z") + "</trkseg></trk></gpx>")
        #expect(ultra.warnings.isEmpty, "\(ultra.warnings)")
    }

    /// A point without a time cannot be placed in the run: left out with a warning that names
    /// the first (gpxpy's test track ends on one), as FIT records without a timestamp are.
    @Test func pointsWithoutATimeAreLeftOutAndSaid() throws {
        let gpx = """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:00Z</time><extensions><cad>80</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:01Z</time><extensions><cad>81</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"><extensions><cad>99</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"></trkpt>
            </trkseg></trk></gpx>
            """
        let activity = try read(gpx)
        #expect(activity.points == 2)
        #expect(activity.warnings.map(\.description) == ["run.gpx:4: 2 <trkpt>s without a <time> left out (the first here)"])
    }

    /// A time that names no zone is read as UTC (GPX's schema says its times are), and said
    /// once, at the first: a converter that wrote the watch's local clock so would otherwise
    /// file the run hours off in silence. TCX, whose writers put "Z", the same.
    @Test func aTimeWithoutAZoneIsReadAsUTCAndSaid() throws {
        let gpx = """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:00Z</time><extensions><cad>85</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:01</time><extensions><cad>85</cad></extensions></trkpt>
            <trkpt lat="1" lon="1"><time>2026-03-01T07:30:02.5</time><extensions><cad>85</cad></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let activity = try read(gpx)
        #expect(activity.points == 3)
        #expect(activity.recording.header.startedAt == "2026-03-01T07:30:00Z")
        #expect(
            activity.warnings.map(\.description) == [
                #"run.gpx:3: <time> "2026-03-01T07:30:01" names no time zone: read as UTC, as GPX's times are; were it the watch's local time, the run is filed hours off"#
            ])
        let tcx = """
            <TrainingCenterDatabase><Activities><Activity Sport="Running"><Lap StartTime="2026-03-01T07:30:00"><Track>
            <Trackpoint><Time>2026-03-01T07:30:00</Time><Cadence>85</Cadence></Trackpoint>
            <Trackpoint><Time>2026-03-01T07:30:01</Time><Cadence>85</Cadence></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        let fromTCX = try read(tcx, file: "run.tcx")
        #expect(fromTCX.recording.header.startedAt == "2026-03-01T07:30:00Z")
        #expect(
            fromTCX.warnings.map(\.description) == [
                #"run.tcx:2: <Time> "2026-03-01T07:30:00" names no time zone: read as UTC; were it the watch's local time, the run is filed hours off"#
            ])
        let zoned = try read(gpx.replacing("</time>", with: "+01:00</time>").replacing("Z+01:00", with: "Z"))
        #expect(zoned.warnings.isEmpty, "\(zoned.warnings)")
    }

    /// Some phone apps write a run's cadence in steps per minute, not per foot as Garmin and
    /// Strava do: a track whose moving cadence has its median over 120 is read as it is (per
    /// foot it would be a run at over 240 steps a minute), and the warning says so.
    @Test func cadenceAlreadyInStepsIsNotDoubled() throws {
        func track(_ cadences: [Int]) -> String {
            let points = cadences.enumerated().map {
                #"<trkpt lat="1" lon="1"><time>2026-03-01T07:30:0\#($0.offset)Z</time><extensions><cad>\#($0.element)</cad></extensions></trkpt>"#
            }
            return "<gpx><trk><trkseg>" + points.joined() + "</trkseg></trk></gpx>"
        }
        func cadences(_ activity: ImportedActivity) throws -> [Int] {
            try readings(activity).compactMap { if case .rsc(let rsc) = $0.reading { Int(rsc.cadence) } else { nil } }
        }
        // Stopped at the start (0), then running at 170-172 steps a minute.
        let inSteps = try read(track([0, 170, 171, 172]))
        #expect(try cadences(inSteps) == [0, 170, 171, 172])
        #expect(inSteps.warnings.map(\.description) == ["run.gpx:1: cadence 171 in the middle: steps per minute already, so not doubled"])
        let perFoot = try read(track([0, 85, 86, 86]))
        #expect(try cadences(perFoot) == [0, 170, 172, 172])
        #expect(perFoot.warnings.isEmpty)
        // A walk-run in steps a minute has its middle among the walking: doubled, it ran at 340.
        let walkRun = try read(track([110, 110, 110, 110, 110, 170, 170]))
        #expect(try cadences(walkRun) == [110, 110, 110, 110, 110, 170, 170])
        #expect(walkRun.warnings.map(\.description) == ["run.gpx:1: cadence over 145 (up to 170) in 2 of 7 samples: steps per minute already, so not doubled"])
        // Per foot, a walk-run with a sprint is doubled.
        let walkRunPerFoot = try read(track([55, 55, 55, 85, 85, 85, 85, 85, 85, 126]))
        #expect(try cadences(walkRunPerFoot) == [110, 110, 110, 170, 170, 170, 170, 170, 170, 252])
        #expect(walkRunPerFoot.warnings.isEmpty)
        // A sprint workout per foot: a fifth of it at 127 strides (254 steps a minute), doubled.
        let sprints = try read(track([85, 85, 86, 86, 127, 85, 85, 86, 86, 127]))
        #expect(try cadences(sprints) == [170, 170, 172, 172, 254, 170, 170, 172, 172, 254])
        #expect(sprints.warnings.isEmpty)
    }

    /// Points seconds apart are held (smart recording), but not across a new track segment,
    /// which GPX 1.1 starts where reception was lost or the receiver turned off.
    @Test func aPointIsNotHeldIntoTheNextSegment() throws {
        func point(_ second: Int) -> String {
            #"<trkpt lat="1" lon="1"><time>2026-03-01T07:30:\#(second < 10 ? "0" : "")\#(second)Z</time><extensions><cad>85</cad></extensions></trkpt>"#
        }
        let gpx = "<gpx><trk><trkseg>" + point(0) + point(5) + "</trkseg><trkseg>" + point(15) + point(16) + "</trkseg></trk></gpx>"
        let activity = try read(gpx)
        let rsc = try readings(activity).filter { if case .rsc = $0.reading { true } else { false } }
        #expect(rsc.map(\.seconds) == [0, 1, 2, 3, 4, 5, 15, 16])
        // The gap is a pause: the runner's time does not count it.
        #expect(activity.pauses == [.seconds(5) ..< .seconds(15)])
    }

    /// A track whose points the file lists out of time order is measured in the order it was
    /// run: two blocks of points swapped gave the detours between them as distance.
    @Test func distanceIsMeasuredInTimeOrder() throws {
        // Ten points 0.001° of latitude apart, a second apart; the file lists 5...9 before 0...4.
        func point(_ second: Int) -> String {
            #"<trkpt lat="\#(Double(second) * 0.001)" lon="8"><time>2026-03-01T07:30:0\#(second)Z</time><extensions><cad>85</cad></extensions></trkpt>"#
        }
        let order = [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]
        let activity = try read("<gpx><trk><trkseg>" + order.map(point).joined() + "</trkseg></trk></gpx>")
        let distances = try readings(activity).compactMap { entry -> Double? in
            guard case .rsc(let rsc) = entry.reading else { return nil }
            return rsc.totalDistanceM
        }
        let step = 6_371_008.8 * Double.pi / 180 * 0.001
        #expect(distances.count == 10)
        for (second, distance) in distances.enumerated() {
            #expect(abs(distance - Double(second) * step) <= 0.05, "second \(second): \(distance) m")
        }
    }

    /// No speed is worked out across a pause between segments: the first point after it was
    /// given the distance over the whole pause (a few cm/s).
    @Test func noSpeedAcrossAPause() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="0" lon="0"><time>2026-03-01T07:30:00Z</time><extensions><cad>85</cad></extensions></trkpt>
            <trkpt lat="0.001" lon="0"><time>2026-03-01T07:30:30Z</time><extensions><cad>85</cad></extensions></trkpt>
            </trkseg><trkseg>
            <trkpt lat="0.002" lon="0"><time>2026-03-01T07:40:00Z</time><extensions><cad>85</cad></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let speeds = try readings(try read(gpx)).compactMap { entry -> Double? in
            guard case .rsc(let rsc) = entry.reading else { return nil }
            return rsc.speedMps
        }
        let step = 6_371_008.8 * Double.pi / 180 * 0.001
        #expect(abs(speeds[1] - step / 30) <= 1.0 / 256, "\(speeds)")
        #expect(speeds.last == 0, "\(speeds)")
    }

    /// Nor distance: the metres between two segments were counted while their time was not
    /// (a pause of 100 s added 319 m, 6 % of a run's distance, to its pace); gpxpy's
    /// `length_2d` sums within segments too.
    @Test func noDistanceAcrossAPause() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="0" lon="0"><time>2026-03-01T07:30:00Z</time><extensions><cad>85</cad></extensions></trkpt>
            <trkpt lat="0.001" lon="0"><time>2026-03-01T07:30:05Z</time><extensions><cad>85</cad></extensions></trkpt>
            </trkseg><trkseg>
            <trkpt lat="0.005" lon="0"><time>2026-03-01T07:32:00Z</time><extensions><cad>85</cad></extensions></trkpt>
            <trkpt lat="0.006" lon="0"><time>2026-03-01T07:32:05Z</time><extensions><cad>85</cad></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let distances = try readings(try read(gpx)).compactMap { entry -> Double? in
            guard case .rsc(let rsc) = entry.reading else { return nil }
            return rsc.totalDistanceM
        }
        let step = 6_371_008.8 * Double.pi / 180 * 0.001
        #expect(abs((distances.last ?? 0) - 2 * step) <= 0.1, "\(distances): two legs of \(step) m, not the 0.004° between")
    }

    /// What writers put where they have no reading, and times in RFC 3339's lower case, read
    /// rather than refused.
    @Test func emptyValuesAndLowerCaseTimes() throws {
        let gpx = """
            <gpx><trk><trkseg>
            <trkpt lat="0" lon="0"><time>2026-03-01t07:30:00z</time><extensions><hr>140</hr><cad>85</cad></extensions></trkpt>
            <trkpt lat="0" lon="0"><time>2026-03-01T07:30:01Z</time><extensions><hr></hr><cad/></extensions></trkpt>
            <trkpt lat="0" lon="0"><time>2026-03-01T07:30:02Z</time><extensions><hr>141</hr><cad>86</cad></extensions></trkpt>
            </trkseg></trk></gpx>
            """
        let activity = try read(gpx)
        #expect(activity.points == 3)
        #expect(activity.recording.header.startedAt == "2026-03-01T07:30:00Z")
        let seconds = try readings(activity).map(\.seconds)
        // The middle point has neither: nothing at second 1 (the first is not held over one second).
        #expect(seconds == [0, 0, 2, 2], "\(seconds)")
        // Its place is the watch's distance, sent by a device of its own as every point's is.
        #expect(try readings(activity, of: ActivityImport.distanceDeviceID).map(\.seconds) == [0, 1, 2])
    }
}
