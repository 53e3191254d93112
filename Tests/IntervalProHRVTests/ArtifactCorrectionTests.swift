import Testing
@testable import IntervalProHRV

/// A resting series: a breathing rhythm of 5 s on 1000 ms, with a little deterministic jitter.
func restingIntervals(count: Int, mean: Double = 1000, swing: Double = 40) -> [Double] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { k in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let jitter = Double(state >> 40) / Double(1 << 24) * 10 - 5
        let phase = Double(k) / 5 * 2 * Double.pi
        return mean + swing * sine(phase) + jitter
    }
}

/// sin(x) by its series on [-π, π]: enough for test data, no libm needed.
func sine(_ x: Double) -> Double {
    var x = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if x > Double.pi { x -= 2 * Double.pi }
    var term = x
    var sum = x
    for n in stride(from: 3, to: 40, by: 2) {
        term *= -x * x / Double((n - 1) * n)
        sum += term
    }
    return sum
}

/// A resting series rounded to 20 ms, so that its windows hold many ties.
func tiedIntervals(count: Int) -> [Double] {
    restingIntervals(count: count).map { ($0 / 20).rounded() * 20 }
}

/// Both quartiles of a sorted window in one figure, to compare sliding windows' figures by.
func quartiles(_ window: UnsafeBufferPointer<Double>) -> Double {
    ArtifactCorrection.quantile(window, 0.25) * 1000 + ArtifactCorrection.quantile(window, 0.75)
}

/// A series' length in milliseconds. (`reduce(0, +)` twice inside `#expect` took the type
/// checker 5 s for each test that said it.)
func totalMilliseconds(_ intervals: [Double]) -> Double {
    intervals.reduce(0, +)
}

/// Artifacts are named by beat: beat k ends interval k − 1 (the first beat starts the series).
@Suite("Artifact correction (Lipponen & Tarvainen 2019)")
struct ArtifactCorrectionTests {
    @Test func aCleanSeriesIsLeftAlone() {
        let intervals = restingIntervals(count: 150)
        let result = ArtifactCorrection.correct(intervals)
        #expect(result.corrected == 0)
        #expect(result.intervals == intervals)
    }

    @Test func identicalIntervalsHaveNoSpreadAndNothingToCorrect() {
        let result = ArtifactCorrection.correct(Array(repeating: 1000, count: 100))
        #expect(result.corrected == 0)
        #expect(result.intervals.count == 100)
    }

    @Test func aMissedBeatIsPutBack() throws {
        var intervals = restingIntervals(count: 120)
        let merged = intervals[60] + intervals[61]
        intervals.replaceSubrange(60...61, with: [merged])
        let result = ArtifactCorrection.correct(intervals)
        let first = try #require(result.passes.first)
        #expect(first.missed == [61])
        #expect(result.intervals.count == 120)
        #expect(abs(result.intervals[60] - merged / 2) < 0.001)
        #expect(abs(totalMilliseconds(result.intervals) - totalMilliseconds(intervals)) < 0.001, "no time is lost or added")
    }

    @Test func anExtraBeatIsRemoved() throws {
        let clean = restingIntervals(count: 120)
        var intervals = clean
        intervals.replaceSubrange(70...70, with: [clean[70] * 0.35, clean[70] * 0.65])
        let result = ArtifactCorrection.correct(intervals)
        let first = try #require(result.passes.first)
        #expect(first.extra == [71])
        #expect(result.intervals.count == 120)
        #expect(abs(totalMilliseconds(result.intervals) - totalMilliseconds(intervals)) < 0.001, "no time is lost or added")
        // The interval after the split is also out of line (long/short), so it is evened out
        // with the restored one, as NeuroKit2 does.
        for k in 68...72 { #expect(abs(result.intervals[k] - clean[k]) < 30, "interval \(k)") }
    }

    @Test func anEctopicBeatIsMovedBackIntoLine() throws {
        let clean = restingIntervals(count: 120)
        var intervals = clean
        // A premature beat (beat 51): a short interval, then the compensatory pause.
        let pair = intervals[50] + intervals[51]
        intervals[50] = pair * 0.35
        intervals[51] = pair * 0.65
        let result = ArtifactCorrection.correct(intervals)
        let first = try #require(result.passes.first)
        // The pause that follows it has the ectopic pattern; the short interval is long/short.
        #expect(first.ectopic == [52])
        #expect(first.longShort == [51])
        #expect(result.intervals.count == 120)
        #expect(abs(totalMilliseconds(result.intervals) - totalMilliseconds(intervals)) < 0.001, "beats moved, none added")
        for k in 48...53 { #expect(abs(result.intervals[k] - clean[k]) < 100, "interval \(k)") }
    }

    /// A beat flagged in one pass and again in the next is one beat corrected: counted per
    /// pass, one premature beat's neighbours made four or five "corrections" of a two-minute
    /// morning, past the 4 % that refuses it.
    @Test func aBeatFlaggedInTwoPassesCountsOnce() throws {
        var flaggedAgain = 0
        for position in 30..<90 {
            var intervals = restingIntervals(count: 120)
            let pair = intervals[position] + intervals[position + 1]
            intervals[position] = pair * 0.4
            intervals[position + 1] = pair * 0.6
            let result = ArtifactCorrection.correct(intervals)
            let perPass = result.passes.reduce(0) { $0 + $1.count }
            // The beats flagged, each once: as many as the distinct beats of the passes when no
            // pass removed or put back a beat (a premature beat is moved, not removed).
            let distinct = Set(result.passes.flatMap { $0.ectopic + $0.longShort + $0.missed + $0.extra })
            if result.passes.allSatisfy({ $0.missed.isEmpty && $0.extra.isEmpty }) {
                #expect(result.corrected == distinct.count, "premature beat at \(position): \(result.passes)")
            }
            #expect(result.corrected <= perPass)
            if result.corrected < perPass { flaggedAgain += 1 }
        }
        #expect(flaggedAgain > 0, "some premature beat has its neighbours flagged in a second pass")
    }

    @Test func aLongBeatWithoutCompensationIsLongShort() throws {
        var intervals = restingIntervals(count: 120)
        intervals[80] *= 1.45
        let result = ArtifactCorrection.correct(intervals)
        let first = try #require(result.passes.first)
        #expect(first.longShort.contains(80) || first.longShort.contains(81))
        #expect(first.count >= 1)
        #expect(result.corrected >= 1)
        #expect(result.intervals.allSatisfy { $0 < 1300 })
    }

    @Test func quantilesInterpolateBetweenRanksAsNumpyDoes() {
        #expect(ArtifactCorrection.quantile([1, 2, 3, 4], 0.25) == 1.75)
        #expect(ArtifactCorrection.quantile([1, 2, 3, 4], 0.75) == 3.25)
        #expect(ArtifactCorrection.quantile([5], 0.5) == 5)
        #expect(ArtifactCorrection.quantile([1, 3], 0.5) == 2)
    }

    @Test("the sliding window gives what sorting each window anew gives, ties and ends included")
    func slidingWindowsMatchSortingEachWindow() {
        let series = tiedIntervals(count: 230)
        for count in [0, 1, 2, 5, 11, 12, 46, 91, 92, 230] {
            let values = Array(series.prefix(count))
            for width in [1, 3, 11, 91] {
                let half = width / 2
                let expected = values.indices.map { k in
                    let window = values[max(0, k - half)...min(values.count - 1, k + half)].sorted()
                    return ArtifactCorrection.quantile(window, 0.25) * 1000 + ArtifactCorrection.quantile(window, 0.75)
                }
                let slid = ArtifactCorrection.slidingWindows(values, width: width, quartiles)
                #expect(slid == expected, "\(count) values, width \(width)")
            }
        }
    }

    @Test("figures taken from a reference are those the values give, however the reference lines up")
    func slidingWindowsReusingAReferenceMatchWorkingThemOut() {
        let series = tiedIntervals(count: 300)
        for width in [1, 3, 11, 91] {
            let reference = ArtifactCorrection.slidingWindows(series, width: width, quartiles)
            // Each case: values, and where each comes from in the series (-1: from nowhere).
            var cases: [(name: String, values: [Double], origins: [Int])] = []
            cases.append(("the same", series, Array(series.indices)))
            cases.append(("a stretch", Array(series[60..<250]), Array(60..<250)))
            var changed = series
            changed[150] += 7
            changed[151] -= 7
            cases.append(("two values changed", changed, Array(series.indices)))
            var removed = series
            removed.remove(at: 120)
            cases.append(("one removed", removed, Array(0..<120) + Array(121..<300)))
            var inserted = series
            inserted.insert(990, at: 200)
            cases.append(("one put in", inserted, Array(0..<200) + [-1] + Array(200..<300)))
            cases.append(("a stretch from its start", Array(series[0..<100]), Array(0..<100)))
            cases.append(("nothing in common", Array(series.reversed()), Array(series.indices)))
            for (name, values, origins) in cases {
                let expected = ArtifactCorrection.slidingWindows(values, width: width, quartiles)
                let taken = ArtifactCorrection.slidingWindows(
                    values, width: width, reusing: (series, reference, origins), quartiles)
                #expect(taken == expected, "\(name), width \(width)")
                // Figures not worked out (NaN) are worked out here.
                var gaps = reference
                for k in stride(from: 0, to: gaps.count, by: 7) { gaps[k] = .nan }
                let filled = ArtifactCorrection.slidingWindows(
                    values, width: width, reusing: (series, gaps, origins), quartiles)
                #expect(filled == expected, "\(name), width \(width), with gaps")
            }
        }
    }

    @Test("only the figures wanted are worked out, each what working them all out gives")
    func slidingWindowsWorkOutTheWantedFigures() {
        let series = tiedIntervals(count: 300)
        func mask(_ count: Int, _ indices: [Int]) -> [Bool] {
            var wanted = [Bool](repeating: false, count: count)
            for k in indices where k < count { wanted[k] = true }
            return wanted
        }
        // As detection asks: a beat and the one after, here and there, the ends included.
        let pairs = [0, 1, 40, 41, 97, 98, 99, 150, 151, 180, 181, 298, 299]
        for width in [1, 11, 91] {
            let reference = ArtifactCorrection.slidingWindows(series, width: width, quartiles)
            var changed = series
            changed[150] += 7
            var inserted = series
            inserted.insert(990, at: 200)
            let cases: [(name: String, values: [Double], origins: [Int]?)] = [
                ("alone", series, nil), ("the same", series, Array(series.indices)),
                ("a value changed", changed, Array(series.indices)),
                ("one put in", inserted, Array(0..<200) + [-1] + Array(200..<300)),
                ("a stretch", Array(series[60..<250]), Array(60..<250)),
            ]
            for (name, values, origins) in cases {
                let expected = ArtifactCorrection.slidingWindows(values, width: width, quartiles)
                for (maskName, wanted) in [
                    ("none", mask(values.count, [])), ("pairs", mask(values.count, pairs)),
                    ("every 13th", mask(values.count, Array(stride(from: 5, to: values.count, by: 13)))),
                    ("all", mask(values.count, Array(values.indices))),
                ] {
                    let result =
                        if let origins {
                            ArtifactCorrection.slidingWindows(
                                values, width: width, reusing: (series, reference, origins), wanted: wanted, quartiles)
                        } else {
                            ArtifactCorrection.slidingWindows(values, width: width, wanted: wanted, quartiles)
                        }
                    let label = "\(name), width \(width), \(maskName)"
                    #expect(result.count == values.count, "\(label)")
                    for k in values.indices where wanted[k] {
                        #expect(result[k] == expected[k], "\(label): index \(k)")
                    }
                    // Any other is NaN or, taken from the reference, the same figure.
                    for k in values.indices where !wanted[k] {
                        #expect(result[k].isNaN || result[k] == expected[k], "\(label): index \(k)")
                    }
                    // Alone, none wanted is none worked out, and a few far apart leave most.
                    if origins == nil, maskName == "none" { #expect(result.allSatisfy { $0.isNaN }, "\(label)") }
                    if origins == nil, maskName == "pairs", width < 91 {
                        #expect(result.filter { $0.isNaN }.count > values.count / 2, "\(label)")
                    }
                }
            }
        }
    }

    @Test("a window corrected with the session's figures comes out the same, bit for bit")
    func aWindowTakingTheSessionsFiguresIsCorrectedTheSame() {
        // In 1/1024 s as a strap sends them, so that beat times add up exactly; with an extra
        // beat, a missed one and ectopic ones.
        var intervals = restingIntervals(count: 900, mean: 600, swing: 30).map { ($0 * 1.024).rounded() / 1.024 }
        intervals[200] = (intervals[200] * 0.4 * 1.024).rounded() / 1.024
        intervals[201] = (intervals[201] * 0.6 * 1.024).rounded() / 1.024
        intervals[420] = (intervals[420] * 2 * 1.024).rounded() / 1.024
        intervals[610] = (intervals[610] * 0.7 * 1.024).rounded() / 1.024
        intervals[611] = (intervals[611] * 1.3 * 1.024).rounded() / 1.024
        var session = ArtifactCorrection.SessionFigures()
        var dropped = 0
        var windows = 0
        var reusedAny = false
        for end in stride(from: 260, through: intervals.count, by: 11) {
            let start = end - 250
            if start - dropped > 300 {
                session.dropFirst(start - dropped)
                dropped = start
            }
            session.extend(with: Array(intervals[dropped..<end]))
            let window = Array(intervals[start..<end])
            let origins = [-1] + Array((start - dropped)..<(end - dropped))
            let reuse = ArtifactCorrection.Reuse(figures: session.figures, origins: origins)
            let taken = ArtifactCorrection.correct(window, reusing: reuse)
            let alone = ArtifactCorrection.correct(window)
            #expect(taken == alone, "window \(start)..<\(end)")
            reusedAny = reusedAny || !session.figures.changeThresholds.allSatisfy(\.isNaN)
            windows += 1
        }
        #expect(windows > 50)
        #expect(reusedAny)
    }

    @Test("sessions of every kind: each window corrected with the session's figures as alone")
    func windowsOfRandomSessionsTakingTheSessionsFiguresAreCorrectedTheSame() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ range: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(range))
        }
        for session in 0..<12 {
            // In 1/1024 s as a strap sends them: resting to racing, with ties, flat stretches
            // (no spread: NaN figures), missed, extra and ectopic beats, some sessions riddled.
            let base = 350 + next(700)
            let artifactEvery = [7, 40, 200, 100_000][session % 4]
            var ticks: [Int] = []
            for k in 0..<(600 + next(900)) {
                var tick = base + next(40) - 20
                if (k / 90) % 5 == 4 { tick = base }
                if next(artifactEvery) == 0 { tick = [tick * 2, tick / 2, tick * 13 / 10, tick * 7 / 10][next(4)] }
                ticks.append(max(200, min(2400, tick)))
            }
            let intervals = ticks.map { Double($0) * 1000 / 1024 }
            var figures = ArtifactCorrection.SessionFigures()
            var dropped = 0
            var start = 0
            while start + 30 < intervals.count {
                let end = min(intervals.count, start + 30 + next(300))
                if start - dropped > 100 + next(300) {
                    figures.dropFirst(start - dropped)
                    dropped = start
                }
                figures.extend(with: Array(intervals[dropped..<end]))
                let window = Array(intervals[start..<end])
                let origins = [-1] + Array((start - dropped)..<(end - dropped))
                let taken = ArtifactCorrection.correct(window, reusing: .init(figures: figures.figures, origins: origins))
                #expect(taken == ArtifactCorrection.correct(window), "session \(session), window \(start)..<\(end)")
                start += 1 + next(25)
            }
        }
    }

    @Test func tooShortASeriesIsReturnedAsItIs() {
        #expect(ArtifactCorrection.correct([]).intervals == [])
        #expect(ArtifactCorrection.correct([900]).intervals == [900])
        #expect(ArtifactCorrection.correct([900, 1800]).corrected == 0)
    }
}
