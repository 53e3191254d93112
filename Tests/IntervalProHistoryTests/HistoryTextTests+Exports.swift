import IntervalProCore
import IntervalProFIT
@testable import IntervalProHistory
import Testing

/// The FIT and TCX files a stored session is exported as.
extension HistoryTextTests {
    @Test("FIT: each second's beats follow its record in hrv messages, five milliseconds to a message")
    func fitHRVMessages() throws {
        var session = Self.storedSession()
        let beats: [[UInt16]] = [[410, 420], [], [430, 440, 450, 460, 470, 480, 490]]
        for (index, intervals) in beats.enumerated() { session.samples[index].rrIntervals = intervals }
        let records = try FITFileReader.read(FITActivity.encode(session))
        let hrv = records.filter { $0.global == 78 }
        #expect(hrv.map { $0.integers(0) } == [[400, 410, nil, nil, nil], [420, 430, 439, 449, 459], [469, 479, nil, nil, nil]])
        // Placed after the record of their second: no timestamp of their own.
        let order = records.filter { [20, 78].contains($0.global) }.prefix(6).map(\.global)
        #expect(order == [20, 78, 20, 20, 78, 78])
        #expect(hrv.allSatisfy { !$0.has(253) })
        #expect(FITActivity.milliseconds(rr: 1024) == 1000 && FITActivity.milliseconds(rr: 1) == 1)
    }

    /// Without local_timestamp, Garmin Connect and a re-import dated a run by the reader's own
    /// zone: a Tokyo 06:30 run exported in Berlin read 22:30 the day before.
    @Test("FIT: the activity's local_timestamp is the runner's clock at its end; none when no clock is given")
    func fitLocalTimestamp() throws {
        let session = Self.storedSession()
        let records = try FITFileReader.read(FITActivity.encode(session, utcOffset: { _ in 9 * 3600 }))
        let activity = try #require(records.first { $0.global == 34 })
        let utc = try #require(activity.integer(253))
        #expect(activity.integer(5) == utc + 9 * 3600)
        #expect(try FITFileReader.read(FITActivity.encode(session)).first { $0.global == 34 }?.has(5) == false)
    }

    /// An imported run without cadence (a phone and a strap) had "0 strides" in its export.
    @Test("FIT: without a cadence reading, strides are left invalid, not 0")
    func fitStridesWithoutCadence() throws {
        var session = Self.storedSession()
        for index in session.samples.indices { session.samples[index].cadence = nil }
        let records = try FITFileReader.read(FITActivity.encode(session))
        let laps = records.filter { $0.global == 19 }, sessions = records.filter { $0.global == 18 }
        #expect(!laps.isEmpty && !sessions.isEmpty)
        #expect((laps + sessions).allSatisfy { $0.integer(10) == nil }, "total_cycles (10) invalid")
        let withCadence = try FITFileReader.read(FITActivity.encode(Self.storedSession())).filter { $0.global == 18 }
        #expect(withCadence.first?.integer(10) != nil)
    }

    /// A paused session exported with no sign of the pause: a reader counted the pause as
    /// running (its own import gave 7:28 for a session of 5:28).
    @Test("FIT and TCX: a pause stops the timer (no records) and splits the Track, as a watch writes them")
    func pausesAreWrittenAsAWatchWritesThem() throws {
        var session = Self.storedSession()
        let pausedSeconds = Array(session.samples.indices.dropFirst(3).prefix(3))
        for index in pausedSeconds { session.samples[index].zoneStatus = .paused }
        let pausedTimes = pausedSeconds.map { session.samples[$0].second }
        let records = try FITFileReader.read(FITActivity.encode(session))
        let start = session.startUnixSeconds - FITTime.epochOffset
        let timerEvents = records.filter { $0.global == 21 && $0.integer(0) == 0 }.map { ($0.integer(253).map { $0 - start }, $0.integer(1)) }
        #expect(timerEvents.map(\.1) == [0, 4, 0, 4], "start, stop at the pause, start after it, stop all at the end")
        #expect(timerEvents[1].0 == Int64(pausedTimes[0]) && timerEvents[2].0 == Int64(pausedTimes[2] + 1))
        let recordTimes = records.filter { $0.global == 20 }.compactMap { $0.integer(253).map { Int($0 - start) } }
        #expect(Set(recordTimes).isDisjoint(with: pausedTimes))
        let xml = TCXActivity.document(session)
        #expect(xml.occurrences(of: "<Track>") == 4, "the paused lap's Track in two, and the other laps'")
        // The Track before the pause ends where the timer stopped, at its first second (it ended
        // a second earlier, and a reader's pause began there); none while paused after that.
        let written = pausedTimes.map { xml.contains("<Time>\(UTCTimestamp.text(unixSeconds: session.startUnixSeconds + Int64($0)))</Time>") }
        #expect(written == [true, false, false])
    }

    /// Exported and imported again, a run lost the metres of its last second (the closing
    /// record kept the last second's distance; the session's is to its end), and TCX's per-foot
    /// cadence rounded every odd cadence up.
    @Test("FIT and TCX: the closing record carries the session's distance; odd cadences round half to even")
    func exportsEndAtTheSessionsDistance() throws {
        var session = Self.storedSession()
        let total = try #require(session.summary?.distance)
        // The last second's distance short of the session's, as the last fraction of a second runs on.
        session.samples[session.samples.count - 1].distance = total - 2.7
        let records = try FITFileReader.read(FITActivity.encode(session)).filter { $0.global == 20 }
        // distance (5) in centimetres
        #expect(records.last?.integer(5) == Int64((total * 100).rounded()), "total \(total)")
        let xml = TCXActivity.document(session)
        let lastPoint = xml.split(separator: "<Trackpoint>").last.map(String.init) ?? ""
        #expect(lastPoint.contains("<DistanceMeters>\(TCXActivity.decimal(total, 2))</DistanceMeters>"), "\(lastPoint)")
        #expect([165, 167, 169, 171].map { TCXActivity.perFoot(Double($0)) } == [82, 84, 84, 86])
    }

    /// A session that ended as its open cooldown began: the step of 0 s was the last lap,
    /// which took the closing record it had no sample to make, so the file ended a second short
    /// of the session (299 s of 300), with a lap of no time.
    @Test("FIT and TCX: a last step of no time (an open cooldown) is no lap; the file still ends at the session's end")
    func aLastStepOfNoTimeIsNoLap() throws {
        let plain = Self.storedSession()
        var session = plain
        var summary = try #require(session.summary)
        var open = try #require(summary.steps.last)
        open.step.index += 1
        (open.duration, open.inZone, open.below, open.above, open.noSignal, open.distance) = (.zero, .zero, .zero, .zero, .zero, nil)
        summary.steps.append(open)
        session.summary = summary
        let end = try #require(session.samples.last).second + 1
        let start = session.startUnixSeconds - FITTime.epochOffset
        let records = try FITFileReader.read(FITActivity.encode(session))
        #expect(records.filter { $0.global == 20 }.last?.integer(253).map { Int($0 - start) } == end)
        #expect(records.filter { $0.global == 19 }.count == plain.summary?.steps.count)
        let xml = TCXActivity.document(session)
        #expect(xml.contains("<Time>\(UTCTimestamp.text(unixSeconds: session.startUnixSeconds + Int64(end)))</Time>"))
        #expect(xml.occurrences(of: "<Lap ") == plain.summary?.steps.count)
        #expect(xml == TCXActivity.document(plain))
    }

    /// An ESC in a plan's label made the exported TCX no XML at all.
    @Test("TCX and the report: control characters XML does not allow are shown as U+FFFD")
    func controlCharactersStayOutOfXML() {
        #expect(TCXActivity.escaped("Fast\u{1B}[31m <b>\u{07}") == "Fast\u{FFFD}[31m &lt;b&gt;\u{FFFD}")
        #expect(TCXActivity.escaped("two\nlines") == "two\nlines")
    }

    @Test("TCX: a lap per step, per-foot RunCadence, escaped text")
    func tcx() {
        let xml = TCXActivity.document(Self.storedSession())
        #expect(xml.occurrences(of: "<Lap ") == 3)
        #expect(xml.contains("<Id>2026-03-01T07:30:00Z</Id>"))
        #expect(xml.contains("<Trackpoint><Time>2026-03-01T07:30:01Z</Time>"))
        #expect(xml.contains("<ax:RunCadence>75</ax:RunCadence>"), "150 spm is 75 strides/min")
        #expect(xml.contains("<ax:AvgRunCadence>"))
        #expect(xml.contains("Driven &lt;test&gt; &amp; co"))
    }
}
