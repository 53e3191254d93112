public import IntervalProCore

/// 1 Hz samples carrying `intervals` (milliseconds) in the seconds their beats end in, as the
/// engine reports a strap's RR intervals (1/1024 s): what the alpha 1 tests feed a session.
public func beatSamples(
    _ intervals: [Double], cadence: Int = 170, step: (Int) -> Int = { _ in 0 }
) -> [SessionSample] {
    var bySecond: [[UInt16]] = []
    var elapsed = 0.0
    for interval in intervals {
        elapsed += interval
        let second = Int((elapsed / 1000).rounded(.up))
        while bySecond.count <= second { bySecond.append([]) }
        bySecond[second].append(UInt16((interval * 1.024).rounded()))
    }
    return bySecond.indices.map { second in
        SessionSample(
            second: second, stepIndex: step(second), rawCadence: cadence, cadence: cadence, heartRate: 150,
            speed: nil, distance: nil, zoneStatus: .noZone, rrIntervals: bySecond[second])
    }
}
