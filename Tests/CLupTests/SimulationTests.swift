@testable import CLupSimulation
import Foundation
import Testing

/// `clup simulate`: store days replayed through the database code, and the estimate measured.
@Suite("Simulated store days")
struct SimulationTests {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Scenarios")

    static func scenario(_ name: String) throws -> Scenario {
        try JSONDecoder().decode(Scenario.self, from: Data(contentsOf: scenarios.appendingPathComponent(name)))
    }

    @Test("the short scenario replays the same way twice, and CLup's estimate beats the naive one")
    func shortRun() throws {
        let scenario = try Self.scenario("short.json")
        let first = Accuracy(scenario: scenario, run: try Simulator(scenario: scenario).run())
        let second = Accuracy(scenario: scenario, run: try Simulator(scenario: scenario).run())
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func comparable(_ report: Accuracy) throws -> Data {
            var report = report
            report.seconds = 0
            return try encoder.encode(report)
        }
        #expect(try comparable(first) == comparable(second))

        #expect(first.lineUps > 20 && first.walkIns > 5 && first.measuredTickets > 20)
        #expect(first.atIssue.clup.predictions == first.measuredTickets)
        #expect(first.whileWaiting.clup.predictions > first.atIssue.clup.predictions)
        #expect(first.atIssue.clup.meanAbsolute < first.atIssue.naive.meanAbsolute)
        #expect(first.whileWaiting.clup.meanAbsolute < first.whileWaiting.naive.meanAbsolute)
        let coverage = try #require(first.atIssue.rangeCoverage)
        #expect(coverage > 0.5 && coverage <= 1)
        #expect(first.table.contains("naive") && first.table.contains("two-hour rule"))
    }

    @Test("regulars come back as themselves: the same account and the same pace on every visit")
    func regulars() throws {
        var scenario = try Self.scenario("short.json")
        scenario.days = 2
        scenario.regulars = 12
        scenario.stay.customerBiasSigma = 0.5
        let run = try Simulator(scenario: scenario).run()
        let visits = Dictionary(grouping: run.customers.filter { $0.regular != nil }, by: { $0.regular! })
        #expect(visits.values.contains { $0.count >= 3 })
        for (regular, theirs) in visits {
            #expect(Set(theirs.map(\.userId)).count == 1 && Set(theirs.map(\.bias)).count == 1, "regular \(regular)")
        }
        // Each has a pace of their own, and no two share an account.
        #expect(Set(visits.values.map { $0[0].bias }).count == visits.count)
        #expect(Set(visits.values.map { $0[0].userId }).count == visits.count)
        // Walk-ins are nobody's regulars; line-ups and bookings that were made all are.
        #expect(run.customers.allSatisfy { $0.kind == .walkIn ? $0.regular == nil : ($0.issuedAt == nil || $0.regular != nil) })
        // The same seed, the same days.
        let again = try Simulator(scenario: scenario).run()
        #expect(again.customers.map(\.regular) == run.customers.map(\.regular))
        #expect(again.customers.map(\.enteredAt) == run.customers.map(\.enteredAt))
    }

    @Test("another seed replays another day")
    func seeds() throws {
        var scenario = try Self.scenario("short.json")
        let first = Accuracy(scenario: scenario, run: try Simulator(scenario: scenario).run())
        scenario.seed += 1
        let other = Accuracy(scenario: scenario, run: try Simulator(scenario: scenario).run())
        #expect(first.lineUps != other.lineUps || first.atIssue.clup.meanAbsolute != other.atIssue.clup.meanAbsolute)
    }

    @Test("every shipped scenario reads and passes its checks")
    func shipped() throws {
        // Those of docs/accuracy.md's table, and the rush taken apart step by step (`ablation/`).
        let names = try FileManager.default.subpathsOfDirectory(atPath: Self.scenarios.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 9 && names.contains("ablation/1-exact.json"))
        for name in names { try Self.scenario(name).validate() }
    }

    @Test("a scenario that cannot be run says what is wrong")
    func refused() throws {
        var scenario = try Self.scenario("short.json")
        scenario.store.capacity = 0
        #expect(throws: ScenarioError.self) { try scenario.validate() }
        scenario = try Self.scenario("short.json")
        scenario.arrivals[0].to = "08:00"
        do {
            try scenario.validate()
            Issue.record("an arrival window ending before it starts was accepted")
        } catch {
            #expect(error.description.contains("arrival windows"))
        }
        scenario = try Self.scenario("short.json")
        scenario.noShowRate = 1.5
        #expect(throws: ScenarioError.self) { try scenario.validate() }
        scenario = try Self.scenario("short.json")
        scenario.regulars = 0
        #expect(throws: ScenarioError.self) { try scenario.validate() }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Scenario.self, from: Data(#"{"name": "no store"}"#.utf8))
        }
    }
}
