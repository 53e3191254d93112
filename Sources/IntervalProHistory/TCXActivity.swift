import IntervalProCore

/// A stored session as Training Center XML (TCX, version 2): one Lap per step, one
/// Trackpoint per stored second and one more at the session's end with the last second's
/// values (a reader takes the activity's time from its first trackpoint to its last).
///
/// Running cadence goes where Garmin writes it: the ActivityExtension v2 `RunCadence` of
/// each trackpoint and `AvgRunCadence`/`MaxRunCadence` of each lap, all per foot (strides
/// per minute, half the steps per minute IntervalPro shows).
public enum TCXActivity {
    public static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    public static let extensionNamespace = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

    /// The simulator's sensors, by address, after the notes' session and plan: imported
    /// elsewhere, the file is the simulator's run, left out of trends and uploads as it is here.
    static func simulatorNote(_ session: StoredSession) -> String {
        guard session.devices.areAllSimulators else { return "" }
        return " (\(RecordedDevice.simulatorsNote)\(session.devices.map(\.id).joined(separator: ", ")))"
    }

    public static func document(_ session: StoredSession) -> String {
        let start = session.startUnixSeconds
        func time(_ second: Int) -> String { UTCTimestamp.text(unixSeconds: start + Int64(second)) }
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="\(namespace)" xmlns:ax="\(extensionNamespace)" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
              <Activities>
                <Activity Sport="Running">
                  <Id>\(time(0))</Id>

            """
        let spans = session.lapSpans
        for (index, span) in spans.enumerated() {
            lap(
                span, closingAt: index == spans.count - 1 ? span.endSecond : nil, totalDistance: session.summary?.distance, time: time,
                into: &xml)
        }
        xml += """
                  <Notes>\(escaped(ProgramName.sessionNotes(id: session.listing.id, planName: session.listing.planName) + simulatorNote(session)))</Notes>
                  <Creator xsi:type="Device_t">
                    <Name>\(ProgramName.creator)</Name>
                    <UnitId>\(session.listing.id)</UnitId>
                    <ProductID>1</ProductID>
                    <Version><VersionMajor>0</VersionMajor><VersionMinor>1</VersionMinor></Version>
                  </Creator>
                </Activity>
              </Activities>
            </TrainingCenterDatabase>

            """
        return xml
    }

    /// Strides per minute, rounded half to even, for an unsignedByte field: an odd cadence's half
    /// stride goes up as often as down (rounded up, 167 came back as 168 and a run's average
    /// half a step higher).
    static func perFoot(_ stepsPerMinute: Double) -> Int { min(254, Int((stepsPerMinute / 2).rounded(.toNearestOrEven))) }

    private static func lap(
        _ span: StepSpan, closingAt end: Int?, totalDistance: Double?, time: (Int) -> String, into xml: inout String
    ) {
        let result = span.result
        let indent = "      "
        xml += "\(indent)<Lap StartTime=\"\(time(span.startSecond))\">\n"
        xml += "\(indent)  <TotalTimeSeconds>\(decimal(result.duration.seconds, 3))</TotalTimeSeconds>\n"
        xml += "\(indent)  <DistanceMeters>\(decimal(result.distance ?? 0, 1))</DistanceMeters>\n"
        xml += "\(indent)  <Calories>0</Calories>\n"
        if let hr = result.averageHeartRate {
            xml += "\(indent)  <AverageHeartRateBpm><Value>\(Int(hr.rounded()))</Value></AverageHeartRateBpm>\n"
        }
        if let hr = result.maxHeartRate {
            xml += "\(indent)  <MaximumHeartRateBpm><Value>\(hr)</Value></MaximumHeartRateBpm>\n"
        }
        xml += "\(indent)  <Intensity>\(result.step.kind == .rest ? "Resting" : "Active")</Intensity>\n"
        let trigger =
            switch result.endedBy {
            case .time: "Time"
            case .distance: "Distance"
            case .next, .finished, .sourceEnded: "Manual"
            }
        xml += "\(indent)  <TriggerMethod>\(trigger)</TriggerMethod>\n"
        // A Track per stretch the runner did not pause, as a watch splits them. Each ends where
        // the timer stopped, at the first paused second, as the session's end closes the last
        // one (FIT's stop event is there): ended at its last running second, imported again,
        // the run lost a second a pause.
        var stretches: [[SessionSample]] = [[]]
        for sample in span.samples {
            if sample.zoneStatus == .paused {
                if var closing = stretches[stretches.count - 1].last {
                    closing.second = sample.second
                    if let distance = sample.distance, distance > closing.distance ?? 0 { closing.distance = distance }
                    stretches[stretches.count - 1].append(closing)
                    stretches.append([])
                }
            } else {
                stretches[stretches.count - 1].append(sample)
            }
        }
        if let end, var closing = span.samples.last, closing.zoneStatus != .paused, closing.second < end {
            closing.second = end
            // At the session's end, the distance covered to its end: the last second's fell a
            // few metres short of the lap's, and the file disagreed with itself.
            if let totalDistance, totalDistance > closing.distance ?? 0 { closing.distance = totalDistance }
            stretches[stretches.count - 1].append(closing)
        }
        for stretch in stretches where !stretch.isEmpty {
            xml += "\(indent)  <Track>\n"
            for sample in stretch { trackpoint(sample, time: time, into: &xml) }
            xml += "\(indent)  </Track>\n"
        }
        xml += "\(indent)  <Notes>\(escaped(result.step.title))</Notes>\n"
        var lx = ""
        if let average = result.averageCadence { lx += "<ax:AvgRunCadence>\(perFoot(average))</ax:AvgRunCadence>" }
        if let maximum = span.maxCadence { lx += "<ax:MaxRunCadence>\(perFoot(Double(maximum)))</ax:MaxRunCadence>" }
        if !lx.isEmpty { xml += "\(indent)  <Extensions><ax:LX>\(lx)</ax:LX></Extensions>\n" }
        xml += "\(indent)</Lap>\n"
    }

    private static func trackpoint(_ sample: SessionSample, time: (Int) -> String, into xml: inout String) {
        var point = "          <Trackpoint><Time>\(time(sample.second))</Time>"
        if let distance = sample.distance { point += "<DistanceMeters>\(decimal(distance, 2))</DistanceMeters>" }
        if let hr = sample.heartRate, hr > 0 { point += "<HeartRateBpm><Value>\(min(hr, 255))</Value></HeartRateBpm>" }
        var tpx = ""
        if let speed = sample.speed { tpx += "<ax:Speed>\(decimal(speed, 3))</ax:Speed>" }
        if let cadence = sample.cadence { tpx += "<ax:RunCadence>\(perFoot(Double(cadence)))</ax:RunCadence>" }
        if !tpx.isEmpty { point += "<Extensions><ax:TPX>\(tpx)</ax:TPX></Extensions>" }
        xml += point + "</Trackpoint>\n"
    }

    static func decimal(_ value: Double, _ places: Int) -> String {
        JSONValue.format(value.rounded(toPlaces: places))
    }

    /// Text for XML (the TCX file, the HTML report): markup escaped, and the control
    /// characters XML 1.0 does not allow shown as U+FFFD (an ESC in a plan's label made the
    /// exported TCX no XML at all, and its own import read 20 of 60 points).
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text.printable(keepingLineBreaks: true) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
