import Foundation
import IntervalProCore
import IntervalProHistory
import IntervalProRuntime
import IntervalProStorage
import Testing

@testable import IntervalProLaunch

/// A disk full as the session began lost the whole session, room made seconds later or not:
/// only a disk that filled after the first second held what it could not write.
@Suite("saving a session the store could not begin at once")
struct SessionSavingTests {
    static let planText = #"{"name": "Held", "steps": [{"kind": "work", "duration": 60, "cadence": 170}]}"#

    @Test("held from its first second, begun once the store opens, saved whole in order")
    func aSessionHeldFromItsStartIsSavedWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("saving-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/h.sqlite"
        let plan = try PlanDecoder.decode(Array(Self.planText.utf8), file: "plan")
        var attempts = 0
        var notes: [String] = []
        let companion = SessionSavingCompanion(
            writer: nil,
            retrying: {
                attempts += 1
                // The disk full for the first three tries.
                guard attempts > 3 else { throw LaunchError("the disk is full", kind: .io) }
                let store = try SessionStore(path: path)
                let id = try store.beginSession(
                    startedAt: "2026-11-29T07:30:00Z", planName: plan.name, planText: Self.planText, source: .replay,
                    devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
                return SessionWriter(store: store, sessionID: id, warn: { _ in })
            },
            retriesEverySecond: true, note: { notes.append($0) })
        let engine = SessionEngine(plan: plan, source: .replay)
        for second in 0..<6 {
            for k in 0..<4 {
                companion.received(
                    .notification(
                        RawNotification(
                            time: .seconds(Double(second) + Double(k) / 4), device: "pod", characteristic: .rscMeasurement,
                            bytes: [0, 0, 3, 170])))
            }
            let sample = SessionSample(
                second: second, stepIndex: 0, rawCadence: 170, cadence: 170, heartRate: nil, speed: nil, distance: nil,
                zoneStatus: .inZone)
            companion.engine(engine, performed: [.sample(sample)], at: .seconds(Double(second) + 1))
            #expect((companion.writer != nil) == (second >= 3), "begun at the fourth try, second \(second)")
        }
        let writer = try #require(companion.finishing(engine))
        let summary = SessionSummary(plan: plan.name, source: .replay, steps: [], completed: false)
        #expect(writer.finish(summary) == nil)
        #expect(notes.count == 1 && notes[0].contains("saving again"), "\(notes)")
        let stored = try #require(try SessionStore(path: path).session(id: writer.sessionID))
        #expect(stored.samples.map(\.second) == [0, 1, 2, 3, 4, 5])
        #expect(stored.entries.count == 24)
        #expect(stored.entries.map(\.time) == stored.entries.map(\.time).sorted())
    }

    /// Full to the end: the last word was "held in memory and saved when there is room".
    @Test("a disk full to the end says the session is lost, and why")
    func aDiskFullToTheEndIsSaid() throws {
        let plan = try PlanDecoder.decode(Array(Self.planText.utf8), file: "plan")
        var notes: [String] = []
        let companion = SessionSavingCompanion(
            writer: nil, retrying: { throw LaunchError("session store 'h.sqlite': the disk is full", kind: .io) },
            retriesEverySecond: false, note: { notes.append($0) })
        let engine = SessionEngine(plan: plan, source: .replay)
        let sample = SessionSample(
            second: 0, stepIndex: 0, rawCadence: 170, cadence: 170, heartRate: nil, speed: nil, distance: nil, zoneStatus: .inZone)
        companion.engine(engine, performed: [.sample(sample)], at: .seconds(1))
        #expect(notes.isEmpty)
        #expect(companion.finishing(engine) == nil)
        #expect(
            notes == [
                "the session could not be saved as it ended, and what was held in memory is lost: session store 'h.sqlite': the disk is full"
            ])
    }
}
