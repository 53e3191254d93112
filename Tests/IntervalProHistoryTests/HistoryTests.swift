import IntervalProCore
import IntervalProFIT
@testable import IntervalProHistory
import IntervalProHRV
import Testing

extension String {
    /// How many times `piece` occurs, not overlapping.
    func occurrences(of piece: String) -> Int {
        let text = Array(utf8)
        let pattern = Array(piece.utf8)
        var count = 0
        var i = 0
        while i + pattern.count <= text.count {
            if Array(text[i..<(i + pattern.count)]) == pattern {
                count += 1
                i += pattern.count
            } else {
                i += 1
            }
        }
        return count
    }
}

/// A two-step plan (10 s at 160, 10 s at 170) and a footpod and strap sending every
/// half second and second, driven as the runner drives it, with a pause and a skip.
struct DrivenSession {
    static let timeline = [
        TimelineStep(index: 0, kind: .warmup, end: .time(.seconds(10)), zone: CadenceZone(target: 160, tolerance: 5)),
        TimelineStep(index: 1, kind: .work, end: .time(.seconds(10)), zone: CadenceZone(target: 170, tolerance: 5)),
        TimelineStep(index: 2, kind: .cooldown, end: .time(.seconds(5))),
    ]

    var entries: [RecordingEntry] = []
    var controls: [SessionControl] = []
    var samples: [SessionSample] = []
    var summary: SessionSummary?

    static func rsc(_ time: Double, cadence: UInt8) -> RecordingEntry {
        // Flags 0: speed (1/256 m/s, 3 m/s) and cadence only.
        .notification(RawNotification(time: .seconds(time), device: "pod", characteristic: .rscMeasurement, bytes: [0, 0, 3, cadence]))
    }

    static func heartRate(_ time: Double, _ bpm: UInt8) -> RecordingEntry {
        .notification(RawNotification(time: .seconds(time), device: "strap", characteristic: .heartRateMeasurement, bytes: [0, bpm]))
    }

    /// Drives an engine as `SessionRunner` does and keeps what the store's companion keeps:
    /// entries, the controls the actions reveal, the engine's samples.
    static func run(commands: [(Double, UserCommand)]) -> DrivenSession {
        var session = DrivenSession()
        var engine = SessionEngine(planName: "Driven", timeline: timeline, source: .replay, reportsSamples: true)
        var feed: [RecordingEntry] = []
        for tick in 0..<44 {
            let t = Double(tick) * 0.5
            // Cadence drifts out of the first zone for a while, then settles.
            feed.append(rsc(t, cadence: t < 4 ? 150 : t < 14 ? 162 : 171))
            if tick % 2 == 1 { feed.append(heartRate(t, 120 + UInt8(tick))) }
        }
        var pending = commands
        func handle(_ event: SessionEngine.Event, at time: SessionTime) {
            let actions = engine.handle(event, now: time)
            if let summary = actions.compactMap({ if case .sessionFinished(let s) = $0 { s } else { nil } }).first {
                session.summary = summary
            }
            for case .applied(let kind) in actions {
                session.controls.append(SessionControl(kind: kind, time: engine.cursor, afterEntries: session.entries.count))
            }
            session.samples += actions.compactMap { if case .sample(let sample) = $0 { sample } else { nil } }
        }
        for entry in feed where session.summary == nil {
            while let (time, command) = pending.first, SessionTime.seconds(time) <= entry.time {
                pending.removeFirst()
                handle(.command(command), at: .seconds(time))
            }
            session.entries.append(entry)
            if case .notification(let n) = entry { handle(.notification(n), at: n.time) }
        }
        while session.summary == nil {
            guard let deadline = engine.nextDeadline else { break }
            handle(.tick, at: deadline)
        }
        return session
    }
}

@Suite("stored sessions replay exactly; 1 Hz samples")
struct SamplerTests {
    @Test("entries and controls replay to the very summary the session had, pauses and skips included")
    func replayIsExact() throws {
        let session = DrivenSession.run(commands: [(3, .pause), (5.5, .resume), (14, .next)])
        let summary = try #require(session.summary)
        #expect(session.controls.map(\.kind) == [.pause, .resume, .next])
        let replayed = SessionReplay.summary(
            planName: "Driven", timeline: DrivenSession.timeline, source: .replay, cadenceUnits: [:],
            entries: session.entries, controls: session.controls)
        #expect(replayed == summary)
        #expect(summary.steps[1].endedBy == .next)
    }

    @Test("one sample per second, each the state at its second")
    func samplesPerSecond() throws {
        let session = DrivenSession.run(commands: [(3, .pause), (5.5, .resume)])
        let samples = session.samples
        #expect(samples.map(\.second) == Array(0..<samples.count))
        // 10 s + 2.5 s paused + 10 s + 5 s of cooldown: 27.5 s, sampled at 0...27.
        #expect(samples.count == 28)
        #expect(samples[1].zoneStatus == .below)
        #expect(samples[1].cadence == 150 && samples[1].rawCadence == 150)
        #expect(samples[4].zoneStatus == .paused)
        #expect(samples[8].zoneStatus == .inZone)
        #expect(samples[8].speed == 3)
        #expect(samples[3].heartRate == 125)
        #expect(samples[13].stepIndex == 1)
        #expect(samples[16].zoneStatus == .inZone && samples[16].cadence == 171)
        #expect(samples[24].zoneStatus == .noZone)
        #expect(samples[26].cadence == nil, "no reading after 21.5 s: stale from 24.5 s")
    }

    @Test("an interrupted session is scored up to where it was cut off")
    func interruptedReplay() {
        let session = DrivenSession.run(commands: [])
        let cut = session.entries.filter { $0.time <= .seconds(7) }
        let partial = SessionReplay.summary(
            planName: "Driven", timeline: DrivenSession.timeline, source: .replay, cadenceUnits: [:], entries: cut,
            controls: [], interruptedAt: .seconds(7.5))
        #expect(!partial.completed)
        #expect(partial.steps.count == 1)
        #expect(partial.duration == .seconds(7.5))
        #expect(partial.steps[0].endedBy == .finished)
    }
}

@Suite("FIT encoding")
struct FITTests {
    @Test("the CRC is CRC-16/ARC: check value 0xBB3D")
    func checksum() {
        #expect(FITChecksum.crc(Array("123456789".utf8)) == 0xBB3D)
    }

    @Test("a file has a 14-byte header, a data size, a header CRC and a file CRC; definitions only when the layout changes")
    func fileLayout() {
        var writer = FITFileWriter()
        let record = FITMessage(20, [FITField(253, .uint32, .int(1000)), FITField(3, .uint8, .int(150))])
        writer.write(record)
        writer.write(record)
        writer.write(FITMessage(20, [FITField(253, .uint32, .int(1001)), FITField(3, .uint8, .int(nil))]))
        writer.write(FITMessage(20, [FITField(253, .uint32, .int(1002))]))
        let file = writer.fileBytes()
        #expect(file[0] == 14)
        #expect(Array(file[8..<12]) == Array(".FIT".utf8))
        let dataSize = Int(file[4]) | Int(file[5]) << 8 | Int(file[6]) << 16 | Int(file[7]) << 24
        #expect(dataSize == file.count - 16)
        #expect(FITChecksum.crc(Array(file[0..<14])) == 0, "a CRC over its own data and CRC leaves zero")
        #expect(FITChecksum.crc(file) == 0)
        let body = Array(file[14..<(file.count - 2)])
        // Definition (6 + 2 × 3 bytes) + 3 data messages of 6 bytes + redefinition (6 + 3) + 5.
        #expect(body.count == 12 + 18 + 9 + 5)
        #expect(body[0] == 0x40)
        #expect(body[24 + 5] == 0xFF, "an absent uint8 is written as 0xFF")
        #expect(body[30] == 0x40, "a new layout is defined again")
    }

    @Test("steps per minute become strides per minute with the half in 1/128ths")
    func strideCadence() {
        #expect(FITActivity.strideCadence(171) == (85, 64))
        #expect(FITActivity.strideCadence(170) == (85, 0))
        #expect(FITActivity.strideCadence(163.4) == (81, 90))
        #expect(FITActivity.strideCadence(169.999) == (85, 0))
        #expect(strides(cadenceSeconds: 60 * 170) == 85)
    }
}

@Suite("dates, trends, TCX and the report")
struct HistoryTextTests {
    @Test("UTC timestamps to and from seconds since 1970")
    func timestamps() {
        #expect(UTCTimestamp.unixSeconds("1970-01-01T00:00:00Z") == 0)
        #expect(UTCTimestamp.unixSeconds("2000-03-01T00:00:00Z") == 951_868_800)
        #expect(UTCTimestamp.unixSeconds("2024-02-29T12:34:56Z").map(UTCTimestamp.text) == "2024-02-29T12:34:56Z")
        #expect(UTCTimestamp.text(unixSeconds: 1_798_761_600) == "2027-01-01T00:00:00Z")
        #expect(UTCTimestamp.unixSeconds("2026-13-01T00:00:00Z") == nil)
        #expect(UTCTimestamp.unixSeconds("yesterday") == nil)
    }

    @Test("a calendar day as YYYY-MM-DD: days since 1970 for a day that exists, nil for one that does not")
    func calendarDays() {
        #expect(UTCTimestamp.dayNumber(ofDate: "1970-01-01") == 0)
        #expect(UTCTimestamp.dayNumber(ofDate: "2026-11-27") == 20_784)
        #expect(UTCTimestamp.dayNumber(ofDate: "2028-02-29") == 21_243)
        #expect(UTCTimestamp.dayNumber(ofDate: "2000-02-29") != nil)
        // Days that day arithmetic alone would roll over into the next month.
        for day in ["2026-02-29", "2026-02-31", "2026-04-31", "2100-02-29", "2026-13-01", "2026-00-10", "2026-11-00"] {
            #expect(UTCTimestamp.dayNumber(ofDate: day) == nil, "\(day)")
        }
        for text in ["26-11-27", "2026-1-27", "2026-11-27T00:00:00Z", "+026-11-27", "2026-11-2x", "", "today"] {
            #expect(UTCTimestamp.dayNumber(ofDate: text) == nil, "\(text)")
        }
    }

    func listing(
        _ id: Int64, _ date: String, inZone: Double?, cadence: Double?, status: SessionStatus = .finished,
        source: SessionSourceKind = .live
    ) -> SessionListing {
        SessionListing(
            id: id, startedAt: date, planName: "Ladder", source: source, status: status, completed: true,
            duration: 1800, inZonePercent: inZone, averageWorkCadence: cadence)
    }

    @Test("trends: sessions in the window, weekly means from Monday, work cadence slope per week")
    func trends() throws {
        let now = try #require(UTCTimestamp.unixSeconds("2026-03-22T12:00:00Z"))
        let trends = Trends(
            listings: [
                listing(4, "2026-03-16T07:00:00Z", inZone: 90, cadence: 174),
                listing(1, "2025-12-01T07:00:00Z", inZone: 50, cadence: 160),
                listing(2, "2026-03-02T07:00:00Z", inZone: 80, cadence: 170),
                listing(3, "2026-03-08T07:00:00Z", inZone: 70, cadence: nil),
                listing(5, "2026-03-20T07:00:00Z", inZone: nil, cadence: nil, status: .running),
            ], weeks: 4, now: now)
        #expect(trends.points.map(\.id) == [2, 3, 4])
        #expect(trends.weekly.map(\.monday) == ["2026-03-02", "2026-03-16"])
        #expect(trends.weekly.map(\.sessions) == [2, 1])
        #expect(trends.weekly[0].inZonePercent == 75)
        #expect(trends.weekly[0].averageWorkCadence == 170)
        let slope = try #require(trends.workCadencePerWeek)
        #expect(abs(slope - 2) < 1e-9, "170 → 174 over two weeks")
        let chart = trends.chart(width: 40, height: 4)
        #expect(chart.contains { $0.contains("█") })
        #expect(chart.contains { $0.contains("●") })
        #expect(chart.last == "Work cadence trend: +2 spm per week")
    }

    @Test("trends of a year: more sessions than columns chart one column per week, empty weeks empty")
    func trendsOfAYear() throws {
        let now = try #require(UTCTimestamp.unixSeconds("2026-11-25T12:00:00Z"))
        // Three runs a week for a year, none in the ten weeks before the last two, no zones (imported).
        var listings: [SessionListing] = []
        let monday = try #require(UTCTimestamp.unixSeconds("2026-11-23T07:00:00Z"))
        for week in 0..<52 where !(2..<12).contains(week) {
            for day in 0..<3 {
                let start = monday - Int64(week * 7 - day) * 86_400
                listings.append(listing(Int64(listings.count + 1), UTCTimestamp.text(unixSeconds: start), inZone: nil, cadence: 160 + Double(week % 5)))
            }
        }
        let trends = Trends(listings: listings, weeks: 52, now: now)
        #expect(trends.points.count > 60)
        let chart = trends.chart(width: 60, height: 4)
        #expect(chart.contains("Average work cadence per week (mean of its sessions) (spm)"))
        #expect(chart.contains("In zone %: no session with a cadence zone (imported runs have none)"))
        // One column per week from the first to the last: 52 Mondays, ten of them empty.
        let axisRow = try #require(chart.first { $0.contains("└") })
        let columns = axisRow.split(separator: "└")[1].count
        #expect(columns == 52, "\(axisRow)")
        let rows = chart.filter { $0.contains("│") }
        let filled = (0..<columns).filter { column in
            rows.contains { row in Array(row.split(separator: "│", maxSplits: 1)[1])[column] == "●" }
        }
        #expect(filled.count == columns - 10, "\(chart.joined(separator: "\n"))")
    }

    /// A run dated 2028 (a watch's clock set wrong) was in "the last 52 weeks", and the weekly
    /// chart ran to it, this year's weeks off its end.
    @Test("trends leave out sessions dated more than a day after now; a clock a little ahead is kept")
    func trendsLeaveOutTheFuture() throws {
        let now = try #require(UTCTimestamp.unixSeconds("2026-11-25T12:00:00Z"))
        let listings = [
            listing(1, "2026-11-20T07:00:00Z", inZone: nil, cadence: 170), listing(2, "2026-11-25T18:00:00Z", inZone: nil, cadence: 171),
            listing(3, "2028-02-29T07:00:00Z", inZone: nil, cadence: 180),
        ]
        let trends = Trends(listings: listings, weeks: 52, now: now)
        #expect(trends.points.map(\.id) == [1, 2])
        #expect(trends.weekly.map(\.monday) == ["2026-11-16", "2026-11-23"])
    }

    /// Weeks were counted in UTC: a New York runner's Sunday evening runs fell in the next week.
    /// And a chart narrower than the weeks left the older ones out without a word, its axis
    /// without years ("07-14" to "01-29").
    @Test("trends: weeks are the runner's, Monday to Sunday in local time; a chart too narrow says what it leaves out")
    func trendsInLocalWeeksAndNarrowCharts() throws {
        let now = try #require(UTCTimestamp.unixSeconds("2026-11-25T12:00:00Z"))
        // Sunday 2026-11-01 21:00 in New York (UTC-5) is Monday 02:00 UTC.
        let sunday = listing(1, "2026-11-02T02:00:00Z", inZone: nil, cadence: 170)
        let newYork = Trends(listings: [sunday], weeks: 52, now: now, utcOffset: { _ in -5 * 3600 })
        #expect(newYork.weekly.map(\.monday) == ["2026-10-26"])
        #expect(Trends(listings: [sunday], weeks: 52, now: now).weekly.map(\.monday) == ["2026-11-02"])
        let axis = newYork.chart(width: 40, height: 4).filter { $0.contains("11-0") }  // the chart's dates, not UTC's
        #expect(!axis.isEmpty && axis.allSatisfy { $0.contains("11-01") && !$0.contains("11-02") }, "\(axis)")

        // Two runs a week over two years, on a chart of 40 columns.
        var listings: [SessionListing] = []
        let last = try #require(UTCTimestamp.unixSeconds("2026-11-23T07:00:00Z"))
        for week in 0..<100 {
            for day in 0..<2 {
                listings.append(listing(Int64(listings.count + 1), UTCTimestamp.text(unixSeconds: last - Int64(week * 7 - day) * 86_400), inZone: nil, cadence: 165))
            }
        }
        let chart = Trends(listings: listings, weeks: 104, now: now).chart(width: 40, height: 4)
        #expect(chart.contains("The last 40 of 100 weeks: a wider terminal (or COLUMNS) shows more, and `--json` lists them all."), "\(chart)")
        let years = Trends(listings: listings, weeks: 104, now: now).chart(width: 100, height: 4)
        #expect(years.contains { $0.contains("2024-12-30") && $0.contains("2026-11-23") }, "\(years.joined(separator: "\n"))")
    }

    /// Interrupted sessions are charted: "No finished sessions" was said of the weeks without any.
    @Test("trends without a session says none ended")
    func trendsOfNone() {
        let none = Trends(listings: [], weeks: 4, now: 1_800_000_000)
        #expect(none.chart(width: 60, height: 4) == ["No sessions ended in the last 4 weeks."])
    }

    /// The README's tour saves a simulated session: its made-up cadence counted in the runner's
    /// weekly means and trend.
    @Test("trends leave out simulated sessions, and say how many")
    func trendsLeaveOutSimulations() throws {
        let now = try #require(UTCTimestamp.unixSeconds("2026-11-25T12:00:00Z"))
        let listings = [
            listing(1, "2026-11-10T07:00:00Z", inZone: 80, cadence: 170),
            listing(2, "2026-11-11T07:00:00Z", inZone: 20, cadence: 150, source: .simulation),
            listing(3, "2026-11-20T07:00:00Z", inZone: 60, cadence: 172, source: .replay),
            listing(4, "2026-11-21T07:00:00Z", inZone: nil, cadence: 174, source: .imported),
        ]
        let trends = Trends(listings: listings, weeks: 12, now: now)
        #expect(trends.points.map(\.id) == [1, 3, 4])
        #expect(trends.weekly.map(\.sessions) == [1, 2])
        #expect(trends.weekly.first?.averageWorkCadence == 170)
        #expect(trends.simulatedLeftOut == 1)
        #expect(trends.chart(width: 60, height: 4).last == "1 simulated session left out: a simulated runner's cadence is not yours.")
        let onlySimulated = Trends(listings: [listings[1], listings[1]], weeks: 12, now: now)
        #expect(onlySimulated.chart(width: 60, height: 4) == [
            "No sessions but simulated ones ended in the last 12 weeks.", "2 simulated sessions left out: a simulated runner's cadence is not yours.",
        ])
        #expect(trends.json.serialized(pretty: false).contains("\"simulated_left_out\":1"))
    }

    /// A replay of a bundled recording is the simulated runner's cadence too, though its
    /// source is `replay`: it counted in the weekly means.
    @Test("trends leave out the sessions of the simulator's sensors, whatever their source")
    func trendsLeaveOutTheSimulatorsSensors() throws {
        let now = try #require(UTCTimestamp.unixSeconds("2026-11-25T12:00:00Z"))
        var listings = [
            listing(1, "2026-11-10T07:00:00Z", inZone: 80, cadence: 170, source: .replay),
            listing(2, "2026-11-11T07:00:00Z", inZone: 20, cadence: 150, source: .replay),
            listing(3, "2026-11-12T07:00:00Z", inZone: 30, cadence: 160, source: .simulation),
        ]
        listings[1].simulatorsSensors = true
        let trends = Trends(listings: listings, weeks: 12, now: now)
        #expect(trends.points.map(\.id) == [1])
        #expect(trends.weekly.first?.averageWorkCadence == 170)
        #expect(trends.simulatedLeftOut == 2)
    }

    @Test("text charts scale values to rows")
    func textChart() {
        let lines = TextChart.columns([0, 50, 100, nil], low: 0, high: 100, height: 2, style: .bars, label: { "\(Int($0))" })
        #expect(lines == ["100 │  █ ", "    │ ██ ", "  0 └────"])
    }

    static func storedSession() -> StoredSession {
        let driven = DrivenSession.run(commands: [])
        let listing = SessionListing(
            id: 7, startedAt: "2026-03-01T07:30:00Z", planName: "Driven <test> & co", source: .replay, status: .finished)
        return StoredSession(
            listing: listing, planText: "{}", timeline: DrivenSession.timeline,
            devices: [RecordedDevice(id: "pod", cadenceUnit: .steps)], summary: driven.summary, samples: driven.samples,
            entries: driven.entries, controls: driven.controls)
    }

    /// The summary's keys were left out while the session ran: `show last --json | jq '.steps[]'`
    /// failed during a run.
    @Test("a running session's JSON has the summary's keys, nothing scored yet")
    func aRunningSessionsJSON() throws {
        var session = Self.storedSession()
        session.summary = nil
        session.listing.status = .running
        guard case .object(let members) = session.json else { throw JSONShape() }
        let running = members.map(\.0)
        guard case .object(let finished) = Self.storedSession().json else { throw JSONShape() }
        #expect(running == finished.map(\.0).filter { $0 != "hrv" }, "\(running)")
        #expect(session.json.serialized().contains(#""plan":"Driven <test> & co","source":"replay","duration_s":null,"completed":null,"steps":[],"totals":null"#))
    }

    struct JSONShape: Error {}
}
