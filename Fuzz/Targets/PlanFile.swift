// libFuzzer target: plan files (PlanDecoder.decode, then Plan.timeline and a run of the plan).
//
// Built by Fuzz/run.sh together with Sources/IntervalProCore/*.swift as one module, so the
// JSON reader, the plan decoder and the session engine are all instrumented. A thrown
// PlanError is an expected outcome (its message, with line and column, is still built); a
// trap or sanitizer report is a failure.
//
// Properties checked on every plan that decodes (what the plan format promises):
// - the timeline has 1...PlanDecoder.maxTimelineSteps steps, as many as the groups unroll to,
//   indexed 0, 1, 2, ... with repetition numbers within their group's count;
// - every timed step lasts more than 0 s and at most 24 h; every distance step is more
//   than 0 m and at most 1000 km; zones have low <= target <= high inside the cadence range
//   widened by the tolerance range;
// - a simulated session driven only by ticks at `nextDeadline` (and "next" for open and
//   distance steps) ends every step when asked and finishes, with step durations that add
//   up to the plan's timed duration.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let plan: Plan
    do {
        plan = try PlanDecoder.decode(bytes, file: "fuzz.json")
    } catch {
        _ = error.description
        return 0
    }
    checkTimeline(plan)
    runSession(plan)
    return 0
}

private func unrolledCount(_ nodes: [PlanNode]) -> Int {
    nodes.reduce(0) { total, node in
        switch node {
        case .step: total + 1
        case .group(let count, let children): total + count * unrolledCount(children)
        }
    }
}

private func checkTimeline(_ plan: Plan) {
    fuzzCheck(!plan.name.allSatisfy(\.isWhitespace), "blank plan name")
    fuzzCheck(PlanDecoder.toleranceRange.contains(plan.tolerance), "plan tolerance \(plan.tolerance)")
    let timeline = plan.timeline()
    fuzzCheck(!timeline.isEmpty && timeline.count <= PlanDecoder.maxTimelineSteps, "\(timeline.count) steps")
    fuzzCheck(timeline.count == unrolledCount(plan.nodes), "timeline length differs from the unrolled plan")

    let widest = (PlanDecoder.cadenceRange.lowerBound - PlanDecoder.toleranceRange.upperBound)...(
        PlanDecoder.cadenceRange.upperBound + PlanDecoder.toleranceRange.upperBound)
    var timed = SessionTime.zero
    for (i, step) in timeline.enumerated() {
        fuzzCheck(step.index == i, "step \(i) has index \(step.index)")
        fuzzCheck(!step.title.isEmpty)
        if let repetition = step.repetition {
            fuzzCheck(
                1 <= repetition.number && repetition.number <= repetition.count
                    && PlanDecoder.repeatRange.contains(repetition.count), "repetition \(repetition)")
        }
        switch step.end {
        case .time(let length):
            fuzzCheck(
                length > .zero && length <= .seconds(Int(PlanDecoder.maxStepSeconds)),
                "step \(i) (\(step.title)) has duration \(length.microseconds) µs; the decoder promises more than 0 and at most 24 h")
            timed += length
        case .distance(let metres):
            fuzzCheck(
                metres.isFinite && metres > 0 && metres <= PlanDecoder.maxDistanceMetres,
                "step \(i) (\(step.title)) has distance \(metres) m; the decoder promises more than 0 and at most 1000 km")
        case .open:
            break
        }
        if let zone = step.zone {
            fuzzCheck(
                zone.low <= zone.target && zone.target <= zone.high && widest.contains(zone.low)
                    && widest.contains(zone.high), "step \(i) zone \(zone)")
        }
    }
    fuzzCheck(timeline.timedDuration == timed, "timedDuration")
}

private func runSession(_ plan: Plan) {
    var engine = SessionEngine(plan: plan, source: .simulation)
    let count = engine.timeline.count
    var summary: SessionSummary?
    var now = SessionTime.zero
    func collect(_ actions: [SessionEngine.Action]) {
        for case .sessionFinished(let s) in actions { summary = s }
    }
    collect(engine.handle(.tick, now: now))
    var handled = 0
    while !engine.isFinished {
        handled += 1
        fuzzCheck(handled <= count, "the session needs more than one event per step")
        let before = engine.stepIndex
        if let deadline = engine.nextDeadline {
            fuzzCheck(deadline >= now, "deadline \(deadline.microseconds) µs is before now (\(now.microseconds) µs)")
            now = deadline
            collect(engine.handle(.tick, now: now))
        } else {
            collect(engine.handle(.command(.next), now: now))
        }
        fuzzCheck(
            engine.isFinished || engine.stepIndex > before,
            "step \(before) (\(engine.timeline[before].title)) did not end at its deadline / on \"next\"")
    }
    guard let summary else { fatalError("finished without a summary") }
    fuzzCheck(summary.completed && summary.steps.count == count, "summary of \(summary.steps.count)/\(count) steps")
    fuzzCheck(summary.duration == engine.timeline.timedDuration, "session length differs from the timed duration")
    _ = summary.json.serialized(pretty: true)
}
