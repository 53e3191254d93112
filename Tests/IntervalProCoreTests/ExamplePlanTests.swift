import Foundation
import Testing
import IntervalProCore

private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite("PlanDecoder: example plans")
struct ExamplePlanTests {
    static func load(_ name: String) throws -> Plan {
        let url = packageRoot.appendingPathComponent("Plans").appendingPathComponent(name)
        let data = try Data(contentsOf: url)
        return try PlanDecoder.decode(Array(data), file: "Plans/\(name)")
    }

    @Test func everyExamplePlanDecodes() throws {
        let directory = packageRoot.appendingPathComponent("Plans")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "plan.schema.json" }
            .sorted()
        #expect(names.count >= 4)
        for name in names {
            let plan = try Self.load(name)
            #expect(!plan.name.isEmpty, "\(name)")
            #expect(!plan.timeline().isEmpty, "\(name)")
            #expect(plan.timeline().enumerated().allSatisfy { $0.offset == $0.element.index }, "\(name)")
        }
    }

    @Test func cadenceLadder() throws {
        let plan = try Self.load("cadence-ladder.json")
        #expect(plan.name == "Cadence ladder")
        #expect(plan.tolerance == 4)
        let timeline = plan.timeline()
        #expect(timeline.count == 15)
        #expect(timeline[0] == TimelineStep(index: 0, kind: .warmup, end: .time(.seconds(600)), zone: CadenceZone(target: 160, low: 154, high: 166)))
        let rungs = timeline.filter { $0.kind == .work && $0.repetition != nil }
        #expect(rungs.map { $0.zone?.target } == [165, 170, 175, 180, 175, 170])
        #expect(rungs.map { $0.zone?.low } == [161, 166, 171, 176, 171, 166])
        #expect(rungs.map { $0.repetition?.description } == ["1/6", "2/6", "3/6", "4/6", "5/6", "6/6"])
        #expect(rungs.allSatisfy { $0.end == .time(.seconds(120)) && $0.label == "Ladder rung" })
        #expect(timeline[2] == TimelineStep(index: 2, kind: .rest, label: "Easy jog", repetition: .init(number: 1, count: 6), end: .time(.seconds(60))))
        #expect(timeline[13].zone == CadenceZone(target: 175, low: 172, high: 178))
        #expect(timeline[13].repetition == nil)
        #expect(timeline[14].zone == CadenceZone(target: 158, low: 150, high: 166))
        #expect(timeline.timedDuration == .seconds(2220))
    }

    @Test func firstCadenceSession() throws {
        let plan = try Self.load("first-cadence-session.json")
        let timeline = plan.timeline()
        #expect(timeline.count == 12)
        #expect(timeline[0].zone == CadenceZone(target: 160, low: 152, high: 168))
        #expect(timeline[1].zone == CadenceZone(target: 170, low: 164, high: 176))
        #expect(timeline[1].title == "Work 1/5 · Find 170")
        #expect(timeline[10].title == "Rest 5/5 · Walk or jog, any cadence")
        #expect(timeline[10].zone == nil)
        #expect(timeline[11].zone == nil)
        #expect(timeline[11].kind == .cooldown)
        #expect(timeline.timedDuration == .seconds(1680))
        #expect(timeline.duration == .seconds(1680), "every step timed: the whole length")
    }

    @Test func longSteadyRun() throws {
        let plan = try Self.load("long-steady-run.json")
        #expect(plan.tolerance == Plan.defaultTolerance)
        let timeline = plan.timeline()
        #expect(timeline.map(\.end) == [.time(.seconds(600)), .time(.seconds(1920)), .open])
        #expect(timeline[0].zone == CadenceZone(target: 164, low: 158, high: 170))
        #expect(timeline[1].zone == CadenceZone(target: 173, low: 170, high: 176))
        #expect(timeline[2].title == "Cooldown · Cool down, stop when ready")
        #expect(timeline.timedDuration == .seconds(2520))
        #expect(timeline.duration == nil, "an open cooldown: no whole length")
    }

    @Test func pyramid() throws {
        let plan = try Self.load("pyramid.json")
        let timeline = plan.timeline()
        #expect(timeline.count == 12)
        let work = timeline.filter { $0.kind == .work }
        #expect(work.map(\.end) == [60, 120, 180, 120, 60].map { StepEnd.time(.seconds($0)) })
        #expect(work.allSatisfy { $0.zone == CadenceZone(target: 175, low: 172, high: 178) })
        let rest = timeline.filter { $0.kind == .rest }
        #expect(rest.map(\.end) == [30, 60, 90, 60, 30].map { StepEnd.time(.seconds($0)) })
        #expect(timeline[0].zone == CadenceZone(target: 162, low: 157, high: 167))
        #expect(timeline.timedDuration == .seconds(1890))
    }
}
