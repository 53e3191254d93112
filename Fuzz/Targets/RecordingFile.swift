// libFuzzer target: recordings (RecordingParser.parse, the JSON Lines reader), then writing
// them back with RecordingLine and replaying them through the session engine.
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module. A
// thrown RecordingError is an expected outcome (its message is still built); a trap or
// sanitizer report is a failure.
//
// Properties checked on every recording that parses:
// - entry times never go backwards and stay within 0 s ..< 10^7 s;
// - every entry written back with RecordingLine.entry is one line, and the header plus
//   those lines parse back to an equal header and equal entries (write/read round trip);
// - known characteristics decode (or throw GATTParseError) and print as JSON;
// - a replay through SessionEngine on a fixed four-step timeline finishes once the source
//   ends, and each zoned step's in-zone + below + above + no-signal time equals its length.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let recording: (header: RecordingHeader, entries: [RecordingEntry])
    do {
        recording = try RecordingParser.parse(bytes, file: "fuzz.jsonl")
    } catch {
        _ = error.description
        return 0
    }
    checkEntries(recording.entries)
    checkRoundTrip(recording)
    decodeValues(recording.entries)
    replay(recording)
    return 0
}

private func checkEntries(_ entries: [RecordingEntry]) {
    var last = SessionTime.zero
    for entry in entries {
        fuzzCheck(entry.time >= last, "time went backwards: \(entry.time.microseconds) µs after \(last.microseconds) µs")
        // t < 1e7 s as written; rounded to microseconds, 9999999.9999995 becomes 1e7 s exactly.
        fuzzCheck(entry.time.microseconds <= 10_000_000_000_000, "time \(entry.time.microseconds) µs")
        last = entry.time
    }
}

private func checkRoundTrip(_ recording: (header: RecordingHeader, entries: [RecordingEntry])) {
    let headerLine = RecordingLine.header(recording.header)
    fuzzCheck(!headerLine.utf8.contains(0x0A), "header written over more than one line: \(headerLine)")
    var text = headerLine + "\n"
    for entry in recording.entries {
        let line = RecordingLine.entry(entry)
        fuzzCheck(!line.utf8.contains(0x0A), "entry written over more than one line: \(line)")
        text += line + "\n"
    }
    let again: (header: RecordingHeader, entries: [RecordingEntry])
    do {
        again = try RecordingParser.parse(Array(text.utf8), file: "written.jsonl")
    } catch {
        fatalError("the written recording does not parse: \(error)\n\(text)")
    }
    fuzzCheck(again.header == recording.header, "header changed: \(recording.header) -> \(again.header)")
    fuzzCheck(again.entries.count == recording.entries.count, "entry count changed")
    for (i, (before, after)) in zip(recording.entries, again.entries).enumerated() {
        fuzzCheck(before == after, "entry \(i) changed: \(before) -> \(after)")
    }
}

private func decodeValues(_ entries: [RecordingEntry]) {
    for case .notification(let n) in entries {
        guard let characteristic = n.characteristic else { continue }
        fuzzCheck(GATTCharacteristic(identifier: characteristic.shortID) == characteristic)
        fuzzCheck(GATTCharacteristic(identifier: characteristic.uuid) == characteristic)
        do {
            _ = try SensorReading.decode(characteristic, n.bytes).json.serialized()
        } catch {
            _ = error.description
        }
    }
}

private let replayTimeline = [
    TimelineStep(index: 0, kind: .warmup, end: .time(.seconds(60)), zone: CadenceZone(target: 165, tolerance: 5)),
    TimelineStep(
        index: 1, kind: .work, repetition: .init(number: 1, count: 1), end: .distance(400),
        zone: CadenceZone(target: 175, low: 170, high: 180)),
    TimelineStep(index: 2, kind: .rest, label: "Walk", end: .time(.seconds(30))),
    TimelineStep(index: 3, kind: .cooldown, end: .open, zone: CadenceZone(target: 160, tolerance: 8)),
]

private func replay(_ recording: (header: RecordingHeader, entries: [RecordingEntry])) {
    var units: [String: CadenceUnit] = [:]
    for device in recording.header.devices {
        if let unit = device.cadenceUnit { units[device.id] = unit }
    }
    var engine = SessionEngine(planName: "fuzz", timeline: replayTimeline, source: .replay, cadenceUnits: units)
    var summary: SessionSummary?
    func collect(_ actions: [SessionEngine.Action]) {
        for case .sessionFinished(let s) in actions { summary = s }
    }
    var now = SessionTime.zero
    for entry in recording.entries {
        now = entry.time
        switch entry {
        case .notification(let n): collect(engine.handle(.notification(n), now: now))
        case .event(let time, let device, let name): collect(engine.handle(.deviceEvent(device: device, name: name), now: time))
        }
        _ = engine.stream.currentSmoothedCadence(at: now)
    }
    collect(engine.handle(.sourceEnded, now: now))
    var ticks = 0
    while !engine.isFinished {
        ticks += 1
        guard ticks <= replayTimeline.count, let deadline = engine.nextDeadline else {
            fatalError("the replay did not finish after the source ended (step \(engine.stepIndex))")
        }
        collect(engine.handle(.tick, now: deadline))
    }
    guard let summary else { fatalError("finished without a summary") }
    for result in summary.steps where result.step.zone != nil {
        let scored = result.inZone + result.below + result.above + result.noSignal
        fuzzCheck(scored == result.duration, "step \(result.step.index): scored \(scored.microseconds) of \(result.duration.microseconds) µs")
    }
    _ = summary.json.serialized()
}
