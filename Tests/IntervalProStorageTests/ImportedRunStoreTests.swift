import IntervalProCore
import IntervalProHistory
import IntervalProStorage
import Testing

@Suite("imported runs in the store (a real SQLite file)")
struct ImportedRunStoreTests {
    static let planText = ImportedRun.planText(name: "Morning Run")

    static func importedRun() throws -> (ImportedRun, [TimelineStep], [RecordingEntry]) {
        let timeline = try PlanDecoder.decode(Array(planText.utf8), file: "plan").timeline()
        let entries = (0..<30).map { notification(Double($0), 160 + UInt8($0 % 10)) }
        let run = ImportedRun(planName: "Morning Run", timeline: timeline, cadenceUnits: ["pod": .steps], entries: entries)
        return (run, timeline, entries)
    }

    @Test("stored once per start and device; the stored run replays to its summary; deleted, it can come back")
    func storedOnce() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let (run, timeline, entries) = try Self.importedRun()
        #expect(run.summary.steps.first?.endedBy == .sourceEnded)
        #expect(run.samples.count == 29)
        let origin = ActivityOrigin(startedAt: "2026-03-01T07:30:00Z", device: "fit 1/3121/3900000001", file: "a.fit")
        let devices = [RecordedDevice(id: "pod", cadenceUnit: .steps)]
        let id = try #require(
            try store.saveImported(run, origin: origin, planName: "Morning Run", planText: Self.planText, devices: devices, entries: entries))
        #expect(try store.importedSession(startedAt: origin.startedAt, device: origin.device) == id)

        // The same start from the same device again: nothing written.
        var copy = origin
        copy.file = "copy.fit"
        #expect(try store.saveImported(run, origin: copy, planName: "x", planText: Self.planText, devices: devices, entries: entries) == nil)
        // The same start from another device is another run.
        var other = origin
        other.device = "gpx StravaGPX"
        #expect(try store.saveImported(run, origin: other, planName: "x", planText: Self.planText, devices: devices, entries: entries) != nil)
        #expect(try store.listings().count == 2)

        let stored = try #require(try store.session(id: id))
        #expect(stored.listing.source == .imported)
        #expect(stored.listing.status == .finished)
        #expect(stored.listing.startedAt == origin.startedAt)
        #expect(stored.summary == run.summary)
        #expect(stored.samples == run.samples)
        let replayed = SessionReplay.summary(
            planName: "Morning Run", timeline: timeline, source: .imported, cadenceUnits: ["pod": .steps],
            entries: stored.entries, controls: stored.controls)
        #expect(replayed == run.summary)

        #expect(try store.delete(id: id) == .deleted)
        #expect(try store.importedSession(startedAt: origin.startedAt, device: origin.device) == nil)
        #expect(try store.saveImported(run, origin: origin, planName: "x", planText: Self.planText, devices: devices, entries: entries) != nil)
    }

    /// A TCX cut off before its `<Creator>` is kept as "tcx"; the whole file names what recorded
    /// it. Each is the other's copy, in the write's own transaction too (two workers at once).
    @Test("a copy kept under another key (a TCX cut before its creator) is found, and not written beside it")
    func copiesUnderAnotherKey() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let (run, _, entries) = try Self.importedRun()
        let devices = [RecordedDevice(id: "pod", cadenceUnit: .steps)]
        let start = "2026-03-01T07:30:00Z"
        let cut = ActivityOrigin(startedAt: start, device: "tcx", file: "cut.tcx", damaged: true, alsoKeptAs: .deviceStartingWith("tcx "))
        let whole = ActivityOrigin(startedAt: start, device: "tcx Forerunner 255/1", file: "whole.tcx", alsoKeptAs: .damaged(device: "tcx"))
        let id = try #require(try store.saveImported(run, origin: cut, planName: "x", planText: Self.planText, devices: devices, entries: entries))
        #expect(try store.importedSession(startedAt: start, keptAs: .damaged(device: "tcx")) == id)
        #expect(try store.importedSession(startedAt: start, keptAs: .deviceStartingWith("tcx ")) == nil)
        #expect(try store.saveImported(run, origin: whole, planName: "x", planText: Self.planText, devices: devices, entries: entries) == nil)
        // Another second, or an intact file that names no creator, is no such copy.
        #expect(try store.importedSession(startedAt: "2026-03-01T07:30:01Z", keptAs: .damaged(device: "tcx")) == nil)
        #expect(try store.delete(id: id) == .deleted)
        var intact = cut
        intact.damaged = false
        let kept = try #require(try store.saveImported(run, origin: intact, planName: "x", planText: Self.planText, devices: devices, entries: entries))
        #expect(try store.importedSession(startedAt: start, keptAs: .damaged(device: "tcx")) == nil)
        #expect(try store.delete(id: kept) == .deleted)

        let wholeID = try #require(try store.saveImported(run, origin: whole, planName: "x", planText: Self.planText, devices: devices, entries: entries))
        #expect(try store.importedSession(startedAt: start, keptAs: .deviceStartingWith("tcx ")) == wholeID)
        #expect(try store.saveImported(run, origin: cut, planName: "x", planText: Self.planText, devices: devices, entries: entries) == nil)
        #expect(try store.listings().count == 1)
    }

    /// A watch's timer stopped at a crossing: the run's time leaves the stop out, as the watch's
    /// does, rather than counting it as time without signal; stored, it replays the same.
    @Test("an activity's pauses are paused time, kept as the session's controls")
    func pausesAreNotRunTime() throws {
        let timeline = try PlanDecoder.decode(Array(Self.planText.utf8), file: "plan").timeline()
        // 0-9 s, stopped from 9 s to 30 s, 30-39 s.
        let entries = (0..<10).map { notification(Double($0), 170) } + (30..<40).map { notification(Double($0), 172) }
        let run = ImportedRun(
            planName: "Morning Run", timeline: timeline, cadenceUnits: ["pod": .steps], entries: entries,
            pauses: [.seconds(9) ..< .seconds(30)])
        let step = try #require(run.summary.steps.first)
        #expect(step.duration == .seconds(18))
        #expect(step.noSignal == .zero)
        #expect(run.controls.map(\.kind) == [.pause, .resume, .sourceEnded])
        #expect(run.controls.map(\.afterEntries) == [10, 10, 20])

        let unpaused = ImportedRun(planName: "Morning Run", timeline: timeline, cadenceUnits: ["pod": .steps], entries: entries)
        #expect(unpaused.summary.steps.first?.duration == .seconds(39))

        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let origin = ActivityOrigin(startedAt: "2026-03-01T07:30:00Z", device: "gpx Strava", file: "a.gpx")
        let id = try #require(
            try store.saveImported(
                run, origin: origin, planName: "Morning Run", planText: Self.planText,
                devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], entries: entries))
        let stored = try #require(try store.session(id: id))
        #expect(stored.summary == run.summary)
        #expect(stored.listing.duration == 18)
        let replayed = SessionReplay.summary(
            planName: "Morning Run", timeline: timeline, source: .imported, cadenceUnits: ["pod": .steps],
            entries: stored.entries, controls: stored.controls)
        #expect(replayed == run.summary)
    }
}
