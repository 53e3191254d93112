// Shared by the format fuzz targets: what every imported plan and activity promises.

/// An imported plan is a plan like any other: within the plan format's limits, written out
/// by `PlanWriter` it reads back through `PlanDecoder` to the same timeline (the history
/// keeps it that way), and a FIT workout made of it imports back to the same steps.
func checkImportedPlan(_ plan: Plan) {
    let timeline = plan.timeline()
    fuzzCheck(!timeline.isEmpty && timeline.count <= PlanDecoder.maxTimelineSteps, "\(timeline.count) steps")
    fuzzCheck(!plan.name.isEmpty, "an imported plan without a name")
    let text = PlanWriter.json(plan).serialized(pretty: true)
    let back: Plan
    do {
        back = try PlanDecoder.decode(Array(text.utf8), file: "written")
    } catch {
        fatalError("property failed: the imported plan, written out, does not decode: \(error)\n\(text)")
    }
    fuzzCheck(back.timeline() == timeline, "the written plan reads back to another timeline")
    guard timeline.count <= 200 else { return }  // keep each run short
    let fit = FITWorkout.encode(plan, createdUnixSeconds: 1_772_350_200)
    do {
        let again = try FITWorkout.read(fit, file: "exported.fit").plan.timeline()
        fuzzCheck(again.count == timeline.count, "FIT round trip: \(again.count) steps for \(timeline.count)")
        for (a, b) in zip(again, timeline) {
            let written = b.label.map(FITWorkout.fitString).flatMap { $0.isEmpty ? nil : $0 }
            fuzzCheck(a.kind == b.kind && a.end.roughlyEqual(b.end) && a.label == written, "FIT round trip: \(a) for \(b)")
        }
    } catch {
        fatalError("property failed: the plan's FIT workout does not read back: \(error)")
    }
}

extension StepEnd {
    /// FIT keeps milliseconds and centimetres.
    func roughlyEqual(_ other: StepEnd) -> Bool {
        switch (self, other) {
        case (.open, .open): true
        case (.time(let a), .time(let b)): abs(a.seconds - b.seconds) <= 0.0005
        case (.distance(let a), .distance(let b)): abs(a - b) <= 0.005
        default: false
        }
    }
}

/// An activity read as a recording: in time order from 0, every entry a notification whose
/// value decodes (the readers write RSC and Heart Rate Measurements).
func checkActivityRecording(_ recording: ParsedRecording) {
    var last = SessionTime.zero
    for entry in recording.entries {
        fuzzCheck(entry.time >= last, "entries out of time order")
        last = entry.time
        guard case .notification(let notification) = entry, let characteristic = notification.characteristic else {
            fatalError("property failed: an activity entry that is not a known notification")
        }
        fuzzCheck((try? SensorReading.decode(characteristic, notification.bytes)) != nil, "a value that does not decode")
    }
}
