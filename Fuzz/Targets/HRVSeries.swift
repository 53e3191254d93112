// libFuzzer target: beat-to-beat intervals into the HRV pipeline. The input as RR interval
// text (`RRIntervalText.read`, what `readiness measure --from` reads) when it reads as that,
// else as a strap's RR values (little-endian UInt16, 1/1024 s). The intervals then go through
// a readiness measurement, the artifact correction, DFA alpha 1 and the time-domain figures,
// and, as a session's 1 Hz samples, through alpha 1's windows.
//
// Checked: every figure is finite; the correction keeps beat times in order; a window
// corrected with the session's figures (`SessionFigures`) is the window corrected alone, bit
// for bit; a session's windows cut into pieces (`analyse(_:parts:perform:)`) are its windows
// computed in one run.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let ticks: [UInt16]
    if RRIntervalText.recognises(bytes), let milliseconds = try? RRIntervalText.read(bytes, file: "fuzz.txt") {
        fuzzCheck(milliseconds.allSatisfy(\.isFinite), "RR text read a value that is not finite")
        // As the recording of a readiness measurement holds them (`RRIntervalText.recording`).
        ticks = milliseconds.map { UInt16(min(max(($0 * 1.024).rounded(), 0), 65535)) }
    } else {
        ticks = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }
    checkReadiness(ticks)
    let intervals = ticks.filter { $0 > 0 }.map { Double($0) * 1000 / 1024 }
    checkCorrection(intervals, windowStep: 7 + Int(bytes.first ?? 0) % 40)
    checkAlphaOne(ticks, inPieces: (bytes.first ?? 0) % 4 == 0)
    return 0
}

/// A readiness measurement of the beats, a value a beat with its interval, as a strap sends them.
private func checkReadiness(_ ticks: [UInt16]) {
    var measurement = ReadinessMeasurement(settings: .init(duration: .seconds(60)))
    var time = SessionTime.zero
    for tick in ticks.prefix(2000) {
        time = time + .seconds(Double(max(tick, 1)) / 1024)
        measurement.receive(HeartRateMeasurement(heartRate: 60, sensorContact: .detected, rrIntervals: [tick]), at: time)
    }
    guard case .success(let figures) = measurement.result() else { return }
    let hrv = figures.hrv
    for figure in [hrv.meanInterval, hrv.meanHeartRate, hrv.rmssd, hrv.lnRMSSD, hrv.sdnn] {
        fuzzCheck(figure.isFinite, "a readiness figure is not finite: \(hrv)")
    }
    fuzzCheck(figures.artifactsCorrected <= figures.beatsReceived, "more artifacts than beats: \(figures.artifactsCorrected)")
}

/// The correction of the whole series and of windows of it, with the session's figures and alone.
private func checkCorrection(_ intervals: [Double], windowStep: Int) {
    guard !intervals.isEmpty else { return }
    let whole = ArtifactCorrection.correct(intervals)
    fuzzCheck(whole.intervals.allSatisfy { $0.isFinite && $0 >= 0 }, "a corrected interval is negative or not finite")
    fuzzCheck((whole.corrected == 0) == whole.passes.isEmpty, "\(whole.corrected) corrected in \(whole.passes.count) passes")
    if let alpha1 = DetrendedFluctuation.alpha1(whole.intervals) { fuzzCheck(alpha1.isFinite, "alpha 1 \(alpha1)") }
    if let figures = TimeDomainHRV(segments: [whole.intervals]) {
        fuzzCheck(figures.rmssd.isFinite && figures.sdnn.isFinite, "time-domain figures \(figures)")
    }
    // Windows as alpha 1 takes them: the session's figures extended to each window's end (over
    // the first beats: each window is corrected twice).
    var session = ArtifactCorrection.SessionFigures()
    var start = 0
    while start < min(intervals.count, 600) {
        let end = min(intervals.count, start + 150 + windowStep)
        session.extend(with: Array(intervals[..<end]))
        let window = Array(intervals[start..<end])
        let origins = [-1] + Array(start..<end)
        let taken = ArtifactCorrection.correct(window, reusing: .init(figures: session.figures, origins: origins))
        fuzzCheck(taken == ArtifactCorrection.correct(window), "window \(start)..<\(end) corrected otherwise with the session's figures")
        start += 3 * windowStep
    }
}

/// The beats as a session's samples, a second (or a few, the strap silent) a beat: its windows,
/// and (a quarter of the inputs: it doubles the run's time) the same in pieces.
private func checkAlphaOne(_ ticks: [UInt16], inPieces: Bool) {
    var samples: [SessionSample] = []
    var second = 0
    for tick in ticks {
        second += 1 + Int(tick >> 14)
        samples.append(
            SessionSample(
                second: second, stepIndex: second / 600, rawCadence: 170, cadence: 170, heartRate: 150, speed: nil,
                distance: nil, zoneStatus: tick & 0xF == 0 ? .paused : .inZone, rrIntervals: [tick & 0x0FFF]))
    }
    let whole = AlphaOneTracker.analyse(samples)
    if inPieces {
        let serially: (Int, @Sendable (Int) -> Void) -> Void = { count, body in (0..<count).forEach(body) }
        let pieces = AlphaOneTracker.analyse(samples, parts: 3, perform: serially)
        fuzzCheck(whole.windows == pieces.windows && whole.summary == pieces.summary, "pieces give other windows")
    }
    for window in whole.windows {
        if let alpha1 = window.alpha1 { fuzzCheck(alpha1.isFinite, "a window's alpha 1 \(alpha1)") }
        fuzzCheck(window.artifacts <= window.beats, "\(window.artifacts) artifacts of \(window.beats) beats")
    }
}
