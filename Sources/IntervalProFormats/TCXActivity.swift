import IntervalProCore

/// Training Center XML activities (Garmin's TCX): `<Activities><Activity Sport><Lap><Track>
/// <Trackpoint>`, with heart rate, distance, and cadence per foot in `TPX/RunCadence`.
extension ActivityImport {
    /// Each `<Activity>` is a leg, its `Sport` "Running" (or "Other", or none) a run.
    public static func readTCX(_ root: MarkupElement, file: String, choice: ActivityChoice = .init()) throws(ImportError) -> ImportedActivity {
        guard root.name.caseInsensitiveEquals("TrainingCenterDatabase") else {
            throw ImportError(
                file: file, place: "\(root.line)",
                message: "an XML file whose root is <\(root.name)>, not a TCX activity (<TrainingCenterDatabase>)")
        }
        // A multisport session's activities (FirstSport, NextSport) are legs: a brick was refused.
        let activities = (root.child("Activities")?.children ?? []).flatMap { element in
            element.name.caseInsensitiveEquals("MultiSportSession") ? element.children.compactMap { $0.child("Activity") } : [element]
        }.filter { $0.name.caseInsensitiveEquals("Activity") }
        guard !activities.isEmpty else {
            throw ImportError(file: file, place: "\(root.line)", message: "no <Activities><Activity>: a TCX file without a recorded activity")
        }
        var legs: [ActivityLeg] = []
        var times = PointTimes(tag: "Time")
        var cadenceWarnings: [ImportError] = []
        var outOfRange = OutOfRange(strict: choice.strict)
        for activity in activities {
            let sport = activity.attribute("Sport")
            var points: [ActivityPoint] = []
            var lapBefore: LapEnd?
            for lap in activity.children where lap.name.caseInsensitiveEquals("Lap") {
                // A lap's second Track begins after a pause (a new lap alone is no pause).
                let lapStart = points.count
                for track in lap.children where track.name.caseInsensitiveEquals("Track") {
                    if points.count > lapStart { points[points.count - 1].pausedAfter = true }
                    for trackpoint in track.children where trackpoint.name.caseInsensitiveEquals("Trackpoint") {
                        guard let time = times.time(of: trackpoint) else { continue }
                        points.append(try self.trackpoint(trackpoint, at: time, file: file, outOfRange: &outOfRange))
                    }
                }
                // A lap time that is no number was never read: it refuses nothing.
                let timer = (try? number(lap.child("TotalTimeSeconds"), upTo: 86_400 * 115, file: file)) ?? nil
                if let timer { markPauses(in: &points, lap: lapStart..<points.count, timerSeconds: timer) }
                guard points.count > lapStart else { continue }
                let started = lap.attribute("StartTime").flatMap(ISO8601.microseconds)
                if let lapBefore, lapBefore.isPause(until: points[lapStart].time, lapStartedAt: started) {
                    points[lapBefore.lastPoint].pausedAfter = true
                }
                lapBefore = timer.map { LapEnd(lastPoint: points.count - 1, points: points[lapStart...], timerSeconds: $0) }
            }
            let kind: ActivityLeg.Kind =
                if let sport { sport.caseInsensitiveEquals("Running") ? .run : sport.caseInsensitiveEquals("Other") ? .unsaid : .other } else { .unsaid }
            cadenceWarnings += inStepsPerMinute(&points, file: file, place: "\(activity.line)")
            legs.append(ActivityLeg(sport: sport, kind: kind, points: points, place: "\(activity.line)"))
        }
        let timeWarnings = try times.warnings(readAny: legs.contains { !$0.points.isEmpty }, file: file, format: .tcx)
        var activity = try self.activity(
            legs: legs, format: .tcx, file: file, choice: choice, warnings: timeWarnings + cadenceWarnings + [outOfRange.warning].compactMap { $0 })
        if let creator = activities.lazy.compactMap({ $0.child("Creator") }).first {
            let parts = [creator.child("Name")?.text, creator.child("UnitId")?.text].compactMap { $0 }.filter { !$0.isEmpty }
            if !parts.isEmpty { activity.creator = "tcx " + parts.joined(separator: "/") }
            activity.exportedByIntervalPro = creator.child("Name")?.text == ProgramName.creator
        }
        // IntervalPro's export of a session of the simulator's sensors says so in its notes.
        let simulatorNote = RecordedDevice.simulatorsNote + RecordedDevice.simulatorAddressPrefix
        if activity.exportedByIntervalPro, activities.contains(where: { $0.child("Notes")?.text.contains(simulatorNote) == true }) {
            activity.takeSimulatorAddresses()
        }
        // Its notes name the session's plan: imported in another store, the run keeps the name.
        if activity.exportedByIntervalPro, let notes = activities.lazy.compactMap({ $0.child("Notes")?.text }).first,
            let name = ProgramName.planName(inSessionNotes: notes, ending: " (" + RecordedDevice.simulatorsNote)
        {
            activity.name = name
        }
        return activity
    }

    /// The pauses a lap's timer says its points hide: Garmin Connect's TCX marks none, its
    /// points stop and start again in one Track, and the lap's `TotalTimeSeconds` (the watch's
    /// timer) falls short of their span (a run of 22:10 on the watch read as 35:06, 12:27 of it
    /// "no signal"). The longest gaps that make up the shortfall are pauses; a gap the timer
    /// ran through (the GPS lost in a tunnel) leaves no shortfall, and stays a gap.
    static func markPauses(in points: inout [ActivityPoint], lap: Range<Int>, timerSeconds: Double) {
        guard lap.count > 1, timerSeconds > 0 else { return }
        // A point a second at most: a gap of n seconds hides n - 1 of them.
        func hidden(_ index: Int) -> Double { Double(points[index + 1].time - points[index].time) / 1_000_000 - 1 }
        let gaps = lap.dropLast()
        var shortfall = Double(points[lap.last!].time - points[lap.first!].time) / 1_000_000 - timerSeconds
        for index in gaps where points[index].pausedAfter { shortfall -= hidden(index) }
        // Less than a smart recording's gaps between points: no pause to find.
        let shortest = LapEnd.shortestPause
        guard shortfall >= shortest else { return }
        for index in gaps.filter({ !points[$0].pausedAfter && hidden($0) >= shortest }).sorted(by: { hidden($0) > hidden($1) }) {
            guard shortfall >= shortest else { break }
            // A gap longer than what the timer lacks is not all pause: left as it is.
            guard hidden(index) <= shortfall + 2 else { continue }
            points[index].pausedAfter = true
            shortfall -= hidden(index)
        }
    }

    /// The end of a lap whose timer is known, for the gap before the next: a lap's timer
    /// covers its own time, so a gap between two laps that neither timer covers was a pause
    /// (a run of 20:00 on the watch, stopped 10 minutes between its laps, read as 30:00, 9:57
    /// of it "no signal").
    struct LapEnd {
        var lastPoint: Int
        var lastTime: Int64
        /// The timer ran on past the lap's last point (the GPS lost, the lap ended later).
        var timerRanOn: Bool

        init(lastPoint: Int, points: ArraySlice<ActivityPoint>, timerSeconds: Double) {
            self.lastPoint = lastPoint
            lastTime = points.last?.time ?? 0
            let span = Double(lastTime - (points.first?.time ?? 0)) / 1_000_000
            timerRanOn = timerSeconds >= span + Self.shortestPause
        }

        /// Whether the gap to the next lap's first point, at `next`, is a pause: as long as
        /// `markPauses` takes one, and that lap's timer (its `StartTime`, when the file gives
        /// it) started at that point, not before.
        func isPause(until next: Int64, lapStartedAt started: Int64?) -> Bool {
            let shortest = Int64(Self.shortestPause * 1_000_000)
            guard !timerRanOn, let started, next - lastTime > shortest else { return false }
            return started >= next - shortest
        }

        /// As `markPauses`: shorter than a smart recording's gaps between points, no pause.
        static let shortestPause = 10.0
    }

    private static func trackpoint(_ element: MarkupElement, at time: Int64, file: String, outOfRange: inout OutOfRange) throws(ImportError) -> ActivityPoint {
        func number(_ element: MarkupElement?, upTo limit: Double) throws(ImportError) -> Double? {
            try outOfRange.number(element, upTo: limit, file: file)
        }
        var point = ActivityPoint(time: time)
        point.heartRate = try number(element.descendant("HeartRateBpm", "Value"), upTo: 255).map { Int($0.rounded()) }
        point.distance = try number(element.child("DistanceMeters"), upTo: 10_000_000)
        let tpx = element.descendant("Extensions", "TPX")
        // RunCadence (Garmin), or Cadence (some exporters); as the file gives it, doubled or not
        // for the whole activity (`inStepsPerMinute`).
        point.cadence = try number(tpx?.child("RunCadence"), upTo: 255)
        if point.cadence == nil { point.cadence = try number(element.child("Cadence"), upTo: 255) }
        point.speed = try number(tpx?.child("Speed"), upTo: 100)
        return point
    }
}
