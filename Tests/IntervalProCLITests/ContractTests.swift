import Foundation
import Testing

/// Every file in Tests/Contracts was valid under a published format version; each must go
/// on being accepted, whatever changes later (Tests/Contracts/README.md).
@Suite struct ContractTests {
    static func files(_ folder: String, _ suffix: String) -> [String] {
        let directory = packagePath("Tests/Contracts/\(folder)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { "\(directory)/\($0)" }
    }

    @Test("the corpus is there")
    func corpusPresent() {
        #expect(Self.files("plans", ".json").count >= 4)
        #expect(Self.files("recordings", ".jsonl").count >= 2)
    }

    @Test("every contract plan passes plan check and runs", arguments: files("plans", ".json"))
    func plansAccepted(path: String) throws {
        let check = try intervalpro("plan", "check", path)
        #expect(check.status == 0, "\(path): \(check.stderr)")
        let run = try intervalpro("run", path, "--simulate", "--fast", "--json", "--no-save")
        #expect(run.status == 0, "\(path): \(run.stderr)")
        #expect(jsonObject(run.stdoutData)?["completed"] as? Bool == true)
    }

    @Test("every contract recording replays, alone and against a plan", arguments: files("recordings", ".jsonl"))
    func recordingsAccepted(path: String) throws {
        let replay = try intervalpro("replay", path, "--json")
        #expect(replay.status == 0, "\(path): \(replay.stderr)")
        let statistics = try #require(jsonObject(replay.stdoutData))
        #expect(number(statistics["avg_cadence_spm"]).map { (165...180).contains($0) } ?? false, "\(statistics)")
        let plan = packagePath("Tests/Contracts/plans/v1-explicit-metronome.json")
        let run = try intervalpro("run", plan, "--replay", path, "--fast", "--json", "--no-save")
        #expect(run.status == 0, "\(path): \(run.stderr)")
        let steps = try #require(jsonObject(run.stdoutData)?["steps"] as? [[String: Any]])
        #expect(number(steps.first?["in_zone_s"]).map { $0 > 60 } ?? false, "\(steps)")
    }
}
