import IntervalProCore
import IntervalProFIT
@testable import IntervalProFormats
import Testing

/// A triathlon as a watch writes it: a session message per leg, each with its sport and
/// start time. By default the run is read; the others only when asked for.
struct FITMultisportTests {
    /// Swim 0-9 s, ride 10-19 s, run 20-29 s: records at 45, 80 and 88 per foot.
    static func triathlon(_ legs: [(sport: Int, perFoot: Int)] = [(5, 45), (2, 80), (1, 88)]) -> [UInt8] {
        var writer = FITFileWriter()
        writer.write(FITMessage(0, [FITField(0, .enumeration, .int(4))]))
        let start = 1_772_350_200 - Int(FITTime.epochOffset)
        for (leg, (sport, perFoot)) in legs.enumerated() {
            for second in 0..<10 {
                writer.write(
                    FITMessage(20, [FITField(253, .uint32, .int(start + leg * 10 + second)), FITField(4, .uint8, .int(perFoot))]))
            }
            writer.write(
                FITMessage(
                    18,
                    [
                        FITField(253, .uint32, .int(start + leg * 10 + 9)), FITField(2, .uint32, .int(start + leg * 10)),
                        FITField(5, .enumeration, .int(sport)),
                    ]))
        }
        return writer.fileBytes()
    }

    func cadences(_ activity: ImportedActivity) -> Set<UInt8> {
        Set(activity.recording.entries.compactMap { entry in
            guard case .notification(let n) = entry, n.characteristic == .rscMeasurement else { return nil }
            return (try? RSCMeasurement.parse(n.bytes))?.cadence
        })
    }

    @Test func theRunLegIsReadAndTheWarningSaysSo() throws {
        let run = try ActivityImport.readFIT(Self.triathlon(), file: "tri.fit")
        #expect(run.points == 10 && cadences(run) == [176])
        #expect(run.recording.header.startedAt == "2026-03-01T07:30:20Z")
        #expect(run.warnings.map(\.description) == [
            "tri.fit: a multisport activity of 3 legs (1 swimming, 2 cycling, 3 running): leg 3 (running, from 0:20) is read; --leg N reads another"
        ])
    }

    @Test func anotherLegOnlyWithAnySport() throws {
        #expect(throws: ImportError(file: "tri.fit", place: "session 2", message: "leg 2 (cycling, from 0:10) is not a run: `--sport any` reads it anyway, its cadence doubled as a run's", kind: .notARun(sport: "cycling"))) {
            try ActivityImport.readFIT(Self.triathlon(), file: "tri.fit", choice: ActivityChoice(leg: 2))
        }
        let ride = try ActivityImport.readFIT(Self.triathlon(), file: "tri.fit", choice: ActivityChoice(leg: 2, anySport: true))
        #expect(ride.points == 10 && cadences(ride) == [160])
        let first = try ActivityImport.readFIT(Self.triathlon(), file: "tri.fit", choice: ActivityChoice(anySport: true))
        #expect(cadences(first) == [90], "with any sport, the first leg")
    }

    /// Every sport the FIT profile names is said by its name (Garmin's SDK test file of a
    /// paddle was "a sport 37 activity").
    @Test func aSportIsSaidByItsProfileName() {
        #expect(throws: ImportError(file: "sup.fit", place: "session 1", message: "a stand up paddleboarding activity, not a run: `--sport any` reads it anyway, its cadence doubled as a run's", kind: .notARun(sport: "stand up paddleboarding"))) {
            try ActivityImport.readFIT(Self.triathlon([(37, 40)]), file: "sup.fit")
        }
        #expect(throws: ImportError.self) { try ActivityImport.readFIT(Self.triathlon([(200, 40)]), file: "x.fit") }
        #expect(FITSport.name(88) == "canoeing" && FITSport.name(200) == "sport 200")
    }

    /// A watch's multisport file whose first leg does not name its sport (FIT's generic, as in
    /// a public Fenix 2 file: 3 h 15 at 29 spm before its running legs): the leg that says run
    /// is read; a generic leg only when none says run.
    @Test func aLegThatSaysRunComesBeforeOneThatDoesNotSay() throws {
        let run = try ActivityImport.readFIT(Self.triathlon([(0, 15), (3, 40), (1, 88)]), file: "multi.fit")
        #expect(cadences(run) == [176])
        #expect(run.warnings.map(\.description) == [
            "multi.fit: a multisport activity of 3 legs (1 generic, 2 transition, 3 running): leg 3 (running, from 0:20) is read; --leg N reads another"
        ])
        let generic = try ActivityImport.readFIT(Self.triathlon([(0, 84), (2, 80)]), file: "multi.fit")
        #expect(cadences(generic) == [168])
    }
}
