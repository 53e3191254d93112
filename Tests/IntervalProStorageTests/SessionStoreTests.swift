import Foundation
import GRDB
import IntervalProCore
import IntervalProHistory
import IntervalProRuntime
import IntervalProStorage
import Testing

/// A scratch directory for one test's database file.
final class StoreDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("intervalpro-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A store in a scratch folder with one session begun (owner "process-1"), of 14 s of
/// readings at 162 saved: the session a process cut off leaves.
func storeWithACutOffSession() throws -> (StoreDirectory, SessionStore, Int64) {
    let directory = try StoreDirectory()
    let store = try SessionStore(path: directory.path + "/h.sqlite")
    return (directory, store, try cutOffSession(in: store, planText: plan, owner: "process-1"))
}

/// A session of `planText` whose process (`owner`) saved 14 s of readings at 162, then stopped.
func cutOffSession(in store: SessionStore, planText: String, owner: String) throws -> Int64 {
    let id = try store.beginSession(
        startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: planText, source: .replay,
        devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: owner)
    var batch = StoreBatch()
    batch.entries = (0..<28).map { notification(Double($0) * 0.5, 162) }
    batch.lastTime = .seconds(14)
    try store.save(batch, session: id)
    return id
}

let plan = """
    {"name": "Store test", "steps": [
      {"kind": "warmup", "duration": 10, "cadence": 160},
      {"kind": "work", "duration": 10, "cadence": 170}
    ]}
    """

func notification(_ time: Double, _ cadence: UInt8) -> RecordingEntry {
    .notification(RawNotification(time: .seconds(time), device: "pod", characteristic: .rscMeasurement, bytes: [0, 0, 3, cadence]))
}

@Suite("the session store (a real SQLite file)")
struct SessionStoreTests {
    func timeline() throws -> [TimelineStep] {
        try PlanDecoder.decode(Array(plan.utf8), file: "plan").timeline()
    }

    @Test("a new store is a private file; opening it again runs no migration twice")
    func createAndReopen() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/nested/history.sqlite"
        let store = try SessionStore(path: path)
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .simulation,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let reopened = try SessionStore(path: path)
        #expect(try reopened.listings().map(\.id) == [id])
        #expect(try reopened.listing(id: id)?.status == .running)
    }

    /// The web server opens the store for each page while a session writes in it. Opening
    /// closed a descriptor of the database, which dropped the session's locks (POSIX locks
    /// belong to the process); the next process to close the store, finding itself the last,
    /// checkpointed and deleted the write-ahead log the session still wrote to, and the
    /// session's writes, then every session, were lost.
    @Test("opening the store again keeps the other connections' locks: another process leaves the log a session writes to")
    func openingAgainKeepsTheLocks() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        let store = try SessionStore(path: path)
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .simulation,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        // The page's history, read in the process the session runs in.
        do {
            let page = try SessionStore(path: path)
            #expect(try page.listings().map(\.id) == [id])
        }
        // `intervalpro history` in a shell: another process opens the store and closes it.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        other.arguments = [
            "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('select count(*) from session').fetchall(); c.close()",
            path,
        ]
        try other.run()
        other.waitUntilExit()
        #expect(other.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the session's log was deleted under it")
        var batch = StoreBatch()
        batch.entries = [notification(0, 80)]
        batch.lastTime = .seconds(1)
        try store.save(batch, session: id)
        #expect(try SessionStore(readingOnly: path).session(id: id)?.entries.count == 1)
    }

    @Test("batches read back as they were written; a finished session keeps its exact summary")
    func roundTrip() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let timeline = try timeline()
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", name: "Footpod", cadenceUnit: .strides)], owner: "me")
        let entries = (0..<40).map { notification(Double($0) * 0.5, $0 < 20 ? 80 : 85) }
        var first = StoreBatch()
        first.entries = Array(entries[0..<25])
        first.samples = [
            SessionSample(
                second: 0, stepIndex: 0, rawCadence: 80, cadence: 160, heartRate: nil, speed: 3, distance: 0,
                zoneStatus: .inZone),
            // RR intervals kept as sent, 1/1024 s, the largest a strap can send among them.
            SessionSample(
                second: 1, stepIndex: 0, rawCadence: 80, cadence: 160, heartRate: 150, speed: 3, distance: 3,
                zoneStatus: .inZone, rrIntervals: [410, 65535, 1]),
        ]
        first.lastTime = .seconds(12)
        try store.save(first, session: id)
        var second = StoreBatch()
        second.entries = Array(entries[25...])
        second.firstEntrySequence = 25
        second.controls = [SessionControl(kind: .next, time: .seconds(15), afterEntries: 31)]
        try store.save(second, session: id)

        let summary = SessionReplay.summary(
            planName: "Store test", timeline: timeline, source: .replay, cadenceUnits: ["pod": .strides],
            entries: entries, controls: second.controls)
        try store.finish(session: id, summary: summary, status: .finished)

        let stored = try #require(try store.session(id: id))
        #expect(stored.entries == entries)
        #expect(stored.controls == second.controls)
        #expect(stored.samples == first.samples)
        #expect(stored.devices == [RecordedDevice(id: "pod", name: "Footpod", cadenceUnit: .strides)])
        #expect(stored.planText == plan)
        // The samples' beats give the summary its beat-to-beat figures: of the three kept as
        // sent, one a heart beats at (65535 and 1 are not: `RRIntervals.heartbeat`), no window.
        #expect(stored.summary?.hrv?.beats == 1)
        #expect(stored.summary?.hrv?.scoredWindows == 0)
        // Alpha 1 is computed only when asked for: a FIT export loads the samples alone.
        let beatsOnly = try #require(try store.session(id: id, loading: .samples))
        #expect(beatsOnly.samples == first.samples && beatsOnly.summary?.hrv == nil)
        #expect(try store.session(id: id, loading: .alphaOne)?.summary?.hrv == stored.summary?.hrv)
        var scored = summary
        scored.hrv = stored.summary?.hrv
        #expect(stored.summary == scored)
        #expect(stored.summary?.json.serialized() == scored.json.serialized())
        #expect(stored.replayedSummary() == summary)
        #expect(stored.listing.status == .finished)
        #expect(stored.listing.averageCadence == summary.averageCadence)
    }

    /// `run -` and `replay REC --plan -` kept an empty plan until the plan was read once: such
    /// a session could not be shown, exported or reported at all.
    @Test("a session whose stored plan does not decode still gives its recording, and the error says so")
    func aLostPlanStillGivesTheRecording() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: "", source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        var batch = StoreBatch()
        batch.entries = (0..<40).map { notification(Double($0) * 0.5, 162) }
        batch.lastTime = .seconds(20)
        try store.save(batch, session: id)
        let summary = SessionReplay.summary(
            planName: "Store test", timeline: try timeline(), source: .replay, cadenceUnits: ["pod": .steps],
            entries: batch.entries, controls: [])
        try store.finish(session: id, summary: summary, status: .finished)

        for parts: SessionStore.Parts in [.all, .samples, [.samples, .alphaOne], []] {
            let error = try #require(throws: StoreError.self) { try store.session(id: id, loading: parts) }
            #expect(error.description.contains("the stored plan of session \(id) does not decode"), "\(error)")
            #expect(error.description.contains("intervalpro export \(id) --format jsonl -o FILE"), "\(error)")
        }
        let recording = try #require(try store.session(id: id, loading: .entries))
        #expect(recording.entries == batch.entries)
        #expect(recording.devices == [RecordedDevice(id: "pod", cadenceUnit: .steps)])
        #expect(recording.summary == nil && recording.timeline.isEmpty)
        // Replayed with its plan, the recording gives the session's summary back.
        #expect(
            SessionReplay.summary(
                planName: "Store test", timeline: try timeline(), source: .replay, cadenceUnits: ["pod": .steps],
                entries: recording.entries, controls: recording.controls) == summary)
    }

    /// Another process holding the database past the wait (a busy machine, a long import) does
    /// not cost the session: what could not be committed goes with the next commit, and the end
    /// is tried again; only a store still held after those tries gives the session up.
    /// A start edited by hand with SQLite's own `datetime('now')` was listed as UTC under the
    /// local column and exported as 1970; text that is no time was exported as 1970 too.
    @Test("a start edited by hand: another form of a time is that time; text that is no time leaves the session undated, said")
    func aStartEditedByHand() throws {
        let (directory, store, id) = try storeWithACutOffSession()
        let other = try DatabaseQueue(path: directory.path + "/h.sqlite")
        try other.write { try $0.execute(sql: "UPDATE session SET started_at = '2026-11-29 03:32:51' WHERE id = ?", arguments: [id]) }
        #expect(try store.listing(id: id)?.startedAt == "2026-11-29T03:32:51Z")
        #expect(try store.session(id: id, loading: [])?.undatedBecause == nil)
        try other.write { try $0.execute(sql: "UPDATE session SET started_at = 'yesterday morning' WHERE id = ?", arguments: [id]) }
        let undated = try #require(try store.session(id: id, loading: []))
        #expect(undated.undatedBecause == "session \(id): its start \"yesterday morning\" is no time (like 2026-03-01T07:30:00Z): was the store edited by hand?")
    }

    @Test("a busy store keeps the batch for the next commit, and the end is tried again")
    func busyStoreKeepsTheBatch() throws {
        let running = try RunningSession(seconds: 3, busyTimeout: 0.05)
        let (store, id, writer, other) = (running.store, running.id, running.writer, running.other)
        try running.hold()
        running.run(second: 0)
        running.run(second: 1)
        #expect(writer.failure == nil)
        #expect(running.warnings.errors.isEmpty)
        #expect(try store.session(id: id)?.entries.isEmpty == true)

        // Let go: the next second commits what waited with it.
        try running.release()
        running.run(second: 2)
        #expect(try store.session(id: id)?.entries == running.entries)
        #expect(try store.session(id: id)?.samples == running.samples)

        // Held at the end, through every try: the session is given up, and said so once.
        try running.hold()
        let summary = SessionReplay.summary(
            planName: "Store test", timeline: try timeline(), source: .replay, cadenceUnits: ["pod": .steps],
            entries: running.entries, controls: [])
        #expect(writer.finish(summary)?.isBusy == true)
        #expect(running.warnings.errors.count == 1)
        try running.release()
        #expect(try store.listing(id: id)?.status == .running)

        // Held at the end for less than the tries take (six of a second each, here): the summary
        // is saved.
        let patientStore = try SessionStore(path: running.path, busyTimeout: 1)
        let second = try patientStore.beginSession(
            startedAt: "2026-03-01T08:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "me")
        let warnings = running.warnings
        let patient = SessionWriter(store: patientStore, sessionID: second) { warnings.errors.append($0) }
        try running.hold()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.12) {
            _ = try? other.inDatabase { try $0.execute(sql: "COMMIT") }
        }
        #expect(patient.finish(summary) == nil)
        #expect(try patientStore.listing(id: second)?.status == .finished)
        #expect(running.warnings.errors.count == 1)
    }

    @Test("a session left running by a dead process is closed as interrupted, scored to its last saved time")
    func closesInterrupted() throws {
        let (directory, store, id) = try storeWithACutOffSession()
        defer { withExtendedLifetime(directory) {} }

        #expect(try store.closeInterruptedSessions(isRunning: { $0 == "process-1" }).isEmpty, "its process still runs")
        #expect(try store.listing(id: id)?.status == .running)
        let closed = try store.closeInterruptedSessions(isRunning: { _ in false })
        #expect(closed.map(\.id) == [id])
        let stored = try #require(try store.session(id: id))
        #expect(stored.listing.status == .interrupted)
        let summary = try #require(stored.summary)
        #expect(!summary.completed)
        #expect(summary.duration == .seconds(13.5), "up to the last notification saved")
        #expect(summary.steps.count == 2)
        #expect(summary.steps[0].inZone == .seconds(10))
        #expect(summary.steps[1].endedBy == .finished)
        #expect(try store.closeInterruptedSessions(isRunning: { _ in false }).isEmpty, "closed once")
    }

    @Test("a session its living process gave up saving (a server on a full disk) is closed when asked, once")
    func closesAbandoned() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], owner: "the server")
        var batch = StoreBatch()
        batch.entries = (0..<28).map { notification(Double($0) * 0.5, 162) }
        batch.lastTime = .seconds(14)
        try store.save(batch, session: id)
        // Its process lives on: nothing else closes it (it stayed running for the server's life).
        #expect(try store.closeInterruptedSessions(isRunning: { _ in true }).isEmpty)
        let closed = try #require(try store.closeAbandoned(session: id))
        #expect(closed.id == id && closed.status == .interrupted)
        #expect(try store.session(id: id)?.summary?.duration == .seconds(13.5), "scored up to what was saved")
        #expect(try store.closeAbandoned(session: id) == nil, "closed once")
    }

    /// A later version's session cut off mid-run (a power cut) under a plan format this one
    /// cannot read refused every command that opened the store, and every new session's save.
    @Test("a session cut off under a later version's plan is left as it is; the others are closed")
    func aLaterVersionsCutOffSessionIsLeftAlone() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let later = #"{"version": 3, "name": "Later", "rest_cue": true, "steps": [{"kind": "work", "duration": 60}]}"#
        let ids = try [later, plan].map { try cutOffSession(in: store, planText: $0, owner: "a process gone") }
        #expect(try store.closeInterruptedSessions(isRunning: { _ in false }).map(\.id) == [ids[1]])
        #expect(try store.listing(id: ids[0])?.status == .running, "left for the version that reads its plan")
        #expect(try store.listing(id: ids[1])?.status == .interrupted)
        // Read alone, it is bad data (65), not a failed write (74).
        #expect { try store.session(id: ids[0]) } throws: { ($0 as? StoreError)?.isBadData == true }
    }

    /// `trends` counted replays of the bundled recordings (the simulator's sensors) as runs,
    /// and `history` listed them as a runner's replays.
    @Test("listings mark the sessions of the simulator's sensors alone, whatever their source")
    func sessionsOfTheSimulatorsSensors() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let simulator = RecordedDevice(id: RecordedDevice.simulatorAddressPrefix + "01", cadenceUnit: .steps)
        let strap = RecordedDevice(id: "D0:5F:B8:4C:21:01")
        func begin(_ startedAt: String, _ devices: [RecordedDevice]) throws -> Int64 {
            try store.beginSession(
                startedAt: startedAt, planName: "Store test", planText: plan, source: .replay, devices: devices, owner: "me")
        }
        let before = try begin("2026-02-28T07:30:00Z", [simulator])
        let replay = try begin("2026-03-01T07:30:00Z", [simulator, simulator])
        _ = try begin("2026-03-02T07:30:00Z", [simulator, strap])
        _ = try begin("2026-03-03T07:30:00Z", [strap])
        _ = try begin("2026-03-04T07:30:00Z", [])
        func marked(_ listings: [SessionListing]) -> [Int64] { listings.filter(\.simulatorsSensors).map(\.id) }
        #expect(marked(try store.listings(since: "2026-03-01T00:00:00Z")) == [replay])
        #expect(marked(try store.listings(since: "2026-01-01T00:00:00Z")) == [before, replay])
        #expect(marked(try store.listings()) == [replay, before])
        #expect(marked(try store.listings(limit: 1, skipping: 3)) == [replay])
        #expect(try store.listings(limit: 2).allSatisfy { !$0.isSimulated })
        #expect(try store.session(id: replay)?.listing.sourceText == "replay (simulator)")
        #expect(try store.session(id: before + 3)?.listing.sourceText == "replay")
    }

    @Test("delete removes a session and everything kept of it")
    func delete() throws {
        let directory = try StoreDirectory()
        let store = try SessionStore(path: directory.path + "/h.sqlite")
        let id = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay, devices: [],
            owner: "me")
        var batch = StoreBatch()
        batch.entries = [notification(0, 160)]
        try store.save(batch, session: id)
        // Running, it is kept: deleted, what it records from then on would be lost.
        #expect(try store.delete(id: id) == .running)
        #expect(try store.session(id: id)?.entries.count == 1)
        try store.finish(session: id, summary: try #require(try store.session(id: id)).replayedSummary(interruptedAt: .seconds(1)), status: .finished)
        #expect(try store.delete(id: id) == .deleted)
        #expect(try store.session(id: id) == nil)
        #expect(try store.delete(id: id) == .noSuchSession)
        let next = try store.beginSession(
            startedAt: "2026-03-01T08:00:00Z", planName: "Store test", planText: plan, source: .replay, devices: [],
            owner: "me")
        #expect(next > id, "ids are never reused")
        #expect(try store.session(id: next)?.entries.isEmpty == true)
    }

    @Test("processes opening a new database at once take turns to migrate it; none fails")
    func concurrentFirstOpen() throws {
        for _ in 0..<5 {
            let directory = try StoreDirectory()
            let path = directory.path + "/h.sqlite"
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    _ = try SessionStore(path: path)
                } catch {
                    failures.add("\(error)")
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
        }
    }

    @Test("uploads: queued rows outlive the process, done ones leave the queue, a deleted session takes its rows")
    func uploads() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/h.sqlite"
        let store = try SessionStore(path: path)
        let first = try store.beginSession(
            startedAt: "2026-03-01T07:30:00Z", planName: "Store test", planText: plan, source: .replay, devices: [],
            owner: "me")
        let second = try store.beginSession(
            startedAt: "2026-03-02T07:30:00Z", planName: "Store test", planText: plan, source: .replay, devices: [],
            owner: "me")
        try store.saveUpload(UploadRecord(sessionID: second, service: "strava", status: .pending, updatedAt: "t1"))
        try store.saveUpload(
            UploadRecord(
                sessionID: first, service: "strava", status: .processing, remoteUploadID: "5001", attempts: 1,
                lastError: "HTTP 503", updatedAt: "t2"))
        try store.saveUpload(
            UploadRecord(
                sessionID: first, service: "intervals.icu", status: .done, activityID: "i9001",
                activityURL: "https://intervals.icu/activities/i9001", attempts: 2, updatedAt: "t3"))

        let reopened = try SessionStore(path: path)
        #expect(try reopened.pendingUploads().map { "\($0.sessionID) \($0.service)" } == ["\(first) strava", "\(second) strava"])
        #expect(try reopened.upload(session: first, service: "strava")?.remoteUploadID == "5001")
        #expect(try reopened.upload(session: first, service: "intervals.icu")?.activityURL == "https://intervals.icu/activities/i9001")
        #expect(try reopened.uploads(session: first).map(\.service) == ["intervals.icu", "strava"])

        var done = try #require(try reopened.upload(session: second, service: "strava"))
        done.status = .done
        done.activityID = "8001"
        try reopened.saveUpload(done)
        #expect(try reopened.pendingUploads().map(\.sessionID) == [first])

        try reopened.finish(session: first, summary: try #require(try reopened.session(id: first)).replayedSummary(), status: .finished)
        #expect(try reopened.delete(id: first) == .deleted)
        #expect(try reopened.uploads(session: first).isEmpty)
        #expect(try reopened.pendingUploads().isEmpty)
    }

    @Test("another program's SQLite database is refused and left as it was; one without tables becomes a store")
    func anotherProgramsDatabaseIsLeftAlone() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/contacts.sqlite"
        do {
            let foreign = try DatabaseQueue(path: path)
            try foreign.write { db in
                try db.execute(sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ana')")
            }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // Migrated, it took ten tables and WAL: a mistyped --db changed another program's file.
        #expect {
            _ = try SessionStore(path: path)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.isNotAStore && error.reason.contains("another program (tables contacts)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        // A database with no tables yet is taken, as an empty file is.
        let empty = directory.path + "/new.sqlite"
        do { _ = try DatabaseQueue(path: empty).read { db in try db.tableExists("x") } }
        let store = try SessionStore(path: empty)
        #expect(try store.listings().isEmpty)
    }

    @Test("a file that is not a database is refused with a clear error")
    func notADatabase() throws {
        let directory = try StoreDirectory()
        let path = directory.path + "/notes.txt"
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SessionStore(path: path)
        } throws: { error in
            (error as? StoreError)?.reason.contains("not an IntervalPro database") == true
        }
    }
}

/// Errors gathered from several threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ failure: String) {
        lock.lock()
        list.append(failure)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
