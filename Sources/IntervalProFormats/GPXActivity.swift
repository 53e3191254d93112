import IntervalProCore
import RealModule

/// GPX 1.0 and 1.1 tracks (topografix.com/GPX), as Strava, Garmin Connect and most apps
/// export a run: `<trk><trkseg><trkpt lat lon><time>` with heart rate and cadence in an
/// extension. Names are read without their namespace prefix, so Garmin's TrackPointExtension
/// v1 and v2 (`gpxtpx:hr`, `gpxtpx:cad`, v2's `gpxtpx:speed`) and the un-namespaced
/// `heartrate`/`cadence` (and `hr`/`cad`) that other exporters write read alike. GPX 1.0's
/// own `<speed>` child of a point is read too.
extension ActivityImport {
    /// Each `<trk>` is a leg, a run when its `<type>` says so ("running", "Run",
    /// "trail_running") or says nothing.
    public static func readGPX(_ root: MarkupElement, file: String, choice: ActivityChoice = .init()) throws(ImportError) -> ImportedActivity {
        let tracks = root.children.filter { $0.name.caseInsensitiveEquals("trk") }
        guard !tracks.isEmpty else {
            throw ImportError(file: file, place: "\(root.line)", message: "no <trk>: a GPX file without a recorded track (routes and waypoints have no times)")
        }
        var legs: [ActivityLeg] = []
        var times = PointTimes(tag: "time")
        var cadenceWarnings: [ImportError] = []
        var outOfRange = OutOfRange(strict: choice.strict)
        for track in tracks {
            var points: [ActivityPoint] = []
            var positions: [GreatCircleDistance.Position?] = []
            for segment in track.children where segment.name.caseInsensitiveEquals("trkseg") {
                // "To represent a single GPS track where GPS reception was lost, or the GPS
                // receiver was turned off, start a new Track Segment" (GPX 1.1, trksegType).
                if !points.isEmpty { points[points.count - 1].pausedAfter = true }
                for element in segment.children where element.name.caseInsensitiveEquals("trkpt") {
                    guard let time = times.time(of: element) else { continue }
                    points.append(try trackPoint(element, at: time, file: file, outOfRange: &outOfRange))
                    positions.append(try position(of: element, file: file))
                }
            }
            measurePath(&points, positions: positions)
            cadenceWarnings += inStepsPerMinute(&points, file: file, place: "\(track.line)")
            let type = track.child("type")?.text
            let kind: ActivityLeg.Kind = type.map { isRunType($0) ? .run : .other } ?? .unsaid
            let name = track.child("name")?.text
            legs.append(
                ActivityLeg(sport: type.map(sportName), kind: kind, points: points, place: "\(track.line)", name: name?.isEmpty == false ? name : nil))
        }
        let timeWarnings = try times.warnings(readAny: legs.contains { !$0.points.isEmpty }, file: file, format: .gpx)
        var activity = try activity(
            legs: legs, format: .gpx, file: file, choice: choice, warnings: timeWarnings + cadenceWarnings + [outOfRange.warning].compactMap { $0 })
        if let creator = root.attribute("creator"), !creator.isEmpty { activity.creator = "gpx " + creator }
        // The track read's own name, else the first a track has.
        if activity.name == nil { activity.name = tracks.lazy.compactMap { $0.child("name")?.text }.first { !$0.isEmpty } }
        return activity
    }

    /// A track `<type>` that says run: a word with "run" in it ("running", "Run",
    /// "trail_running"), or Strava's number for a run, 9 (its GPX export numbers activity
    /// types: 1 is a ride, 9 a run, as Strava's own files show).
    static func isRunType(_ type: String) -> Bool {
        let trimmed = type.trimmingWhitespace
        return trimmed == "9" || trimmed.lowercased().contains("run")
    }

    /// A track `<type>` as a runner reads it: Strava's numbers by name (a ride was listed as
    /// "1 activity of other sports: 1 1").
    static func sportName(_ type: String) -> String {
        switch type.trimmingWhitespace {
        case "1": "cycling"
        case "9": "running"
        case let number where !number.isEmpty && number.allSatisfy({ ("0"..."9").contains($0) }): "Strava type \(number)"
        default: type
        }
    }

    private static func trackPoint(_ element: MarkupElement, at time: Int64, file: String, outOfRange: inout OutOfRange) throws(ImportError) -> ActivityPoint {
        func number(_ element: MarkupElement?, upTo limit: Double) throws(ImportError) -> Double? {
            try outOfRange.number(element, upTo: limit, file: file)
        }
        var point = ActivityPoint(time: time)
        // The extension's children, wherever the exporter put them: inside a
        // TrackPointExtension, or straight under <extensions>.
        var fields: [MarkupElement] = []
        for extensions in element.children where extensions.name.caseInsensitiveEquals("extensions") {
            for child in extensions.children {
                fields.append(child)
                fields += child.children
            }
        }
        func field(_ names: String...) -> MarkupElement? {
            fields.first { field in names.contains { field.name.caseInsensitiveEquals($0) } }
        }
        point.heartRate = try number(field("hr", "heartrate"), upTo: 255).map { Int($0.rounded()) }
        // As the file gives it: per foot or both feet, decided for the whole track (`inStepsPerMinute`).
        point.cadence = try number(field("cad", "cadence"), upTo: 255)
        point.speed = try number(field("speed") ?? element.child("speed"), upTo: 100)
        return point
    }

    /// Each positioned point's distance from the start along the track, and its speed from
    /// the point before it where the file gives none, in time order: the order the runner ran
    /// it, whatever the order the file lists the points in. No speed is worked out across a
    /// pause (the end of a segment).
    private static func measurePath(_ points: inout [ActivityPoint], positions: [GreatCircleDistance.Position?]) {
        var path = GreatCircleDistance()
        var previous: ActivityPoint?
        for index in points.indices.sorted(by: { (points[$0].time, $0) < (points[$1].time, $1) }) {
            defer { previous = points[index] }
            guard let position = positions[index] else { continue }
            // Across a new segment the session is paused: its metres are not the run's, as its
            // time is not (counted, a pause of 100 s added 319 m, 6 % of the run, to its pace).
            if previous?.pausedAfter == true { path.liftPen() }
            points[index].distance = path.add(position)
            if points[index].speed == nil, let previous, !previous.pausedAfter, let before = previous.distance,
                points[index].time > previous.time
            {
                points[index].speed = (path.total - before) / (Double(points[index].time - previous.time) / 1_000_000)
            }
        }
    }

    /// `lat` and `lon` in degrees, when the point has them.
    private static func position(of element: MarkupElement, file: String) throws(ImportError) -> GreatCircleDistance.Position? {
        guard let latText = element.attribute("lat"), let lonText = element.attribute("lon") else { return nil }
        guard let lat = Double(latText), let lon = Double(lonText), (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw ImportError(
                file: file, place: "\(element.line)", message: "<trkpt lat=\"\(latText)\" lon=\"\(lonText)\">: not a latitude and longitude in degrees")
        }
        return .init(latitude: lat, longitude: lon)
    }
}

/// The distance along a path of points on the earth: the haversine formula on a sphere of
/// the mean earth radius (IUGG, 6,371,008.8 m), as GPS watches and Strava sum a track. Within
/// 0.5 % of the ellipsoid's distance, well inside a GPS track's own error.
struct GreatCircleDistance {
    struct Position {
        var latitude: Double
        var longitude: Double
    }

    static let earthRadius = 6_371_008.8

    private(set) var total = 0.0
    private var last: Position?

    /// The next position starts a new stretch: no leg to it from the last.
    mutating func liftPen() {
        last = nil
    }

    /// Adds the leg from the last point to `position`; the metres from the first point.
    mutating func add(_ position: Position) -> Double {
        if let last { total += Self.metres(from: last, to: position) }
        last = position
        return total
    }

    static func metres(from a: Position, to b: Position) -> Double {
        let radian = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radian
        let dLon = (b.longitude - a.longitude) * radian
        let h = sinSquared(dLat / 2) + .cos(a.latitude * radian) * .cos(b.latitude * radian) * sinSquared(dLon / 2)
        return 2 * earthRadius * .asin(min(1, h.squareRoot()))
    }

    private static func sinSquared(_ x: Double) -> Double {
        let s = Double.sin(x)
        return s * s
    }
}
