import IntervalProCore

/// How to read an activity file, as `replay` and `run --replay` are asked.
public struct ActivityChoice: Sendable, Equatable {
    /// Refuse a damaged FIT file as a whole instead of reading it up to the damage.
    public var strict: Bool
    /// The leg to read, 1-based among all the file's legs; nil: the first run.
    public var leg: Int?
    /// Read a leg that is not a run too (`--sport any`): its cadence is doubled as a run's.
    public var anySport: Bool
    /// Read for the heart rate and beats only (a readiness measurement, which a watch may
    /// record as any sport): every sport, and nothing said of its cadence.
    public var heartRateOnly: Bool

    public init(strict: Bool = false, leg: Int? = nil, anySport: Bool = false, heartRateOnly: Bool = false) {
        self.strict = strict
        self.leg = leg
        self.anySport = anySport || heartRateOnly
        self.heartRateOnly = heartRateOnly
    }
}

/// One sport's part of an activity: a triathlon's swim, ride or run (FIT sessions, TCX
/// activities, GPX tracks). A file of one sport is one leg.
struct ActivityLeg {
    /// The sport as the file names it; nil when it does not say.
    var sport: String?
    var kind: Kind
    var points: [ActivityPoint]
    /// Where the leg is in the file ("session 2", a line).
    var place: String?
    /// Its own name, where the file gives each leg one (a GPX track's `<name>`).
    var name: String? = nil

    enum Kind {
        /// The file says run.
        case run
        /// The file does not say (FIT's "generic", TCX's "Other", no GPX `type`): read as a run,
        /// after the legs that say run.
        case unsaid
        /// Another sport: read only with `--sport any`.
        case other
    }

    var isRun: Bool { kind != .other }
}

extension ActivityImport {
    /// The legs without the samples dated too far from the rest to be part of the run, and a
    /// warning that says how many were left out. A damaged file can date a record decades
    /// away (a Strava app's FIT read up to its damage ends on a record 64 years on), and a
    /// session of that length was scored second by second. A recording spans at most 115
    /// days (`RecordingParser.latestTime`); samples more than half that from the middle
    /// sample's time (the median, which a few wild dates do not move) are the damage.
    ///
    /// Nor is an activity two stretches of time a day or more apart: a few bytes out of place
    /// in a watch's file gave records 47 days on and a run of 1,147 hours and 411,323 km, and
    /// three samples weeks apart a session of 2,688 hours that took 1.9 GB to score second by
    /// second. The stretch with the most samples is the run; the others are left out, said.
    ///
    /// Leg by leg: a TCX of three runs on three days is three stretches, each its run (the
    /// first, a day before the others, was left out as damage).
    static func leavingOutFarSamples(_ legs: [ActivityLeg], file: String) -> ([ActivityLeg], [ImportError]) {
        var warnings: [ImportError] = []
        let kept = legs.map { leg in
            var leg = leg
            warnings += leavingOutFarSamples(&leg.points, file: file, place: legs.count > 1 ? leg.place : nil)
            return leg
        }
        return (kept, warnings)
    }

    private static func leavingOutFarSamples(_ points: inout [ActivityPoint], file: String, place: String?) -> [ImportError] {
        let times = points.map(\.time).sorted()
        guard !times.isEmpty else { return [] }
        let middle = times[times.count / 2]
        let reach = Int64(RecordingParser.latestTime / 2 * 1_000_000)
        let near = (middle - reach)...(middle + reach)
        var warnings: [ImportError] = []
        /// Leaves out the samples whose time `keeps` does not, said with how many and the first.
        func leaveOut(unless keeps: (Int64) -> Bool, _ why: String, _ because: String = "") {
            let out = points.map(\.time).filter { !keeps($0) }
            guard let first = out.min() else { return }
            points.removeAll { !keeps($0.time) }
            let date = UTCTimestamp.text(unixSeconds: floorDivide(first, 1_000_000))
            let count = "\(out.count) sample\(out.count == 1 ? "" : "s")"
            warnings.append(ImportError(file: file, place: place, message: "\(count) \(why) (the first \(date)) left out, as damage\(because)"))
        }
        leaveOut(unless: near.contains, "dated more than 57 days from the rest of the activity")
        let stretch = longestStretch(times.filter(near.contains))
        leaveOut(unless: stretch.contains, "a day or more apart from the rest of the activity", ": a run is one stretch of time")
        return warnings
    }

    /// Samples as far apart as this are not one run's.
    static let longestGap: Int64 = 86_400 * 1_000_000

    /// The times of the stretch with the most samples, where `sorted` is cut at every gap of
    /// `longestGap` or more (the first of equal ones).
    static func longestStretch(_ sorted: [Int64]) -> ClosedRange<Int64> {
        guard var start = sorted.first else { return 0...0 }
        var best = (range: start...start, count: 0)
        var count = 0
        for (index, time) in sorted.enumerated() {
            if index > 0, time - sorted[index - 1] >= longestGap {
                if count > best.count { best = (start...sorted[index - 1], count) }
                start = time
                count = 0
            }
            count += 1
        }
        if count > best.count { best = (start...sorted[sorted.count - 1], count) }
        return best.range
    }

    /// One foot's steps a minute no runner reaches: 290 steps a minute (Bolt's 9.58 s 100 m
    /// was 41 steps, 257 a minute). A sprint workout's strides (130 a foot, a sixth of the
    /// run) were above the 125 once here, and taken for steps: not doubled.
    static let mostStridesPerMinute = 145.0

    /// The cadence of a leg's points in steps per minute. A run's cadence is per foot, as
    /// Garmin's watches and Strava count it (TCX `RunCadence`, GPX `cad`), and is doubled;
    /// unless the median of its moving cadences (above 0) is over 120, which per foot would
    /// be a run at over 240 steps a minute: then it is in steps already, as some phone apps
    /// write it, and is kept as it is, with a warning that says so; so is one with more than a
    /// tenth of them over `mostStridesPerMinute`.
    static func inStepsPerMinute(_ points: inout [ActivityPoint], file: String, place: String?) -> [ImportError] {
        let moving = points.compactMap(\.cadence).filter { $0 > 0 }.sorted()
        if !moving.isEmpty, moving[moving.count / 2] > 120 {
            let median = formatFigure(moving[moving.count / 2])
            return [ImportError(file: file, place: place, message: "cadence \(median) in the middle: steps per minute already, so not doubled")]
        }
        // A walk-run in steps per minute has its middle among the walking (110): doubled, its
        // running would be 340. More than a tenth of a run over `mostStridesPerMinute` is no
        // one's strides (a stray reading is let be).
        let beyondStrides = moving.count - (moving.firstIndex { $0 > mostStridesPerMinute } ?? moving.count)
        if !moving.isEmpty, beyondStrides * 10 > moving.count {
            let highest = formatFigure(moving[moving.count - 1])
            return [ImportError(
                file: file, place: place,
                message: "cadence over \(formatFigure(mostStridesPerMinute)) (up to \(highest)) in \(beyondStrides) of \(moving.count) samples: steps per minute already, so not doubled")]
        }
        for index in points.indices { points[index].cadence = points[index].cadence.map { 2 * $0 } }
        return []
    }

    /// The activity of a TCX or GPX file's legs: samples dated far away left out, the leg
    /// `choice` asks for, and the warnings of reading them before those of choosing.
    static func activity(
        legs: [ActivityLeg], format: ActivityFormat, file: String, choice: ActivityChoice, warnings: [ImportError]
    ) throws(ImportError) -> ImportedActivity {
        let (kept, farWarnings) = leavingOutFarSamples(legs, file: file)
        let chosen = try choose(kept, choice, file: file)
        return chosen.told(try activity(chosen.leg.points, format: format, file: file, choice: choice, warnings: warnings + farWarnings + chosen.warnings))
    }

    /// The leg `choose` took, the warnings of taking it (the one that says which among them),
    /// and the file's other legs that say they are runs (1-based).
    struct Chosen {
        var leg: ActivityLeg
        var warnings: [ImportError]
        var legsWarning: ImportError?
        var otherRunLegs: [Int]
        var otherSportLegs: [(number: Int, sport: String)] = []

        /// `activity` as read from this leg: its other legs, and the warning that said which
        /// was read, are told to it.
        func told(_ activity: ImportedActivity) -> ImportedActivity {
            var activity = activity
            activity.otherRunLegs = otherRunLegs
            activity.otherSportLegs = otherSportLegs
            activity.legsWarning = legsWarning
            if let name = leg.name { activity.name = name }
            return activity
        }
    }

    /// The leg to score, by `choice`, and a warning that says which when there is a choice.
    static func choose(_ legs: [ActivityLeg], _ choice: ActivityChoice, file: String) throws(ImportError) -> Chosen {
        guard !legs.isEmpty else {
            return Chosen(leg: ActivityLeg(sport: nil, kind: .unsaid, points: [], place: nil), warnings: [], otherRunLegs: [])
        }
        let start = legs.flatMap(\.points).map(\.time).min() ?? 0
        func named(_ leg: ActivityLeg) -> String { leg.sport ?? "sport not given" }
        func described(_ number: Int) -> String {
            let leg = legs[number - 1]
            let from = leg.points.map(\.time).min().map { ", from " + formatClock(Double($0 - start) / 1_000_000) } ?? ""
            return "leg \(number) (\(named(leg))\(from))"
        }
        let number: Int
        if let asked = choice.leg {
            guard (1...legs.count).contains(asked) else {
                throw ImportError(file: file, message: "--leg \(asked): the activity has \(legs.count) leg\(legs.count == 1 ? "" : "s")")
            }
            number = asked
        } else if let first = (choice.anySport ? nil : legs.firstIndex { $0.kind == .run && !$0.points.isEmpty })
            ?? legs.firstIndex(where: { ($0.isRun || choice.anySport) && !$0.points.isEmpty })
        {
            number = first + 1
        } else if legs.allSatisfy({ $0.points.isEmpty }) {
            number = 1  // no samples anywhere: said as such
        } else {
            let sports = Set(legs.filter { !$0.points.isEmpty }.map(named)).sorted().joined(separator: ", ")
            throw ImportError(
                file: file, place: legs[0].place,
                message: "a \(sports) activity, not a run: `--sport any` reads it anyway, its cadence doubled as a run's",
                kind: .notARun(sport: sports))
        }
        let leg = legs[number - 1]
        guard leg.isRun || choice.anySport else {
            throw ImportError(
                file: file, place: leg.place,
                message: "\(described(number)) is not a run: `--sport any` reads it anyway, its cadence doubled as a run's",
                kind: .notARun(sport: named(leg)))
        }
        var warnings: [ImportError] = []
        var legsWarning: ImportError?
        if legs.count > 1 {
            let all = legs.indices.map { "\($0 + 1) \(named(legs[$0]))" }.joined(separator: ", ")
            let warning = ImportError(file: file, message: "a multisport activity of \(legs.count) legs (\(all)): \(described(number)) is read; --leg N reads another")
            warnings.append(warning)
            legsWarning = warning
        }
        if !leg.isRun, !choice.heartRateOnly {
            warnings.append(ImportError(file: file, place: leg.place, message: "\(named(leg)), not a run: its cadence is doubled as a run's"))
        }
        // Only where the first run was taken for want of a choice: a leg asked for is the one.
        // The others that are runs as it is: those that say so, or, when none does, those that
        // do not say their sport (a GPX of two tracks without `type`: the second was lost).
        let others = choice.leg != nil || choice.anySport ? [] : legs.indices.filter { $0 != number - 1 && !legs[$0].points.isEmpty }
        return Chosen(
            leg: leg, warnings: warnings, legsWarning: legsWarning,
            otherRunLegs: others.filter { legs[$0].kind == leg.kind }.map { $0 + 1 },
            otherSportLegs: others.filter { !legs[$0].isRun }.map { (number: $0 + 1, sport: named(legs[$0])) })
    }
}
