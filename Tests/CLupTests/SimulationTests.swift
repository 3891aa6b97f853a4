@testable import CLupSimulation
import CLupDomain
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

    @Test("the oracle: the day plays out the same beside it, it predicts every ticket, and it is the closest")
    func oracle() throws {
        let scenario = try Self.scenario("short.json")
        let plainRun = try Simulator(scenario: scenario).run()
        let measuredRun = try Simulator(scenario: scenario, oracleRuns: 100).run()
        let plain = Accuracy(scenario: scenario, run: plainRun)
        let measured = Accuracy(scenario: scenario, run: measuredRun)
        // Its own random stream: CLup's estimates and the customers' days are unchanged.
        #expect(plain.atIssue.clup.meanAbsolute == measured.atIssue.clup.meanAbsolute)
        #expect(plain.whileWaiting.clup.predictions == measured.whileWaiting.clup.predictions)
        #expect(plain.atIssue.oracle == nil && plain.atIssue.clupOverOracle == nil)
        let oracle = try #require(measured.atIssue.oracle)
        let waiting = try #require(measured.whileWaiting.oracle)
        #expect(oracle.predictions == measured.atIssue.clup.predictions)
        #expect(waiting.predictions == measured.whileWaiting.clup.predictions)
        // Knowing the laws and the true state, it does better than CLup and the naive estimate,
        // and its 10–90 % range holds about four entries in five.
        #expect(oracle.meanAbsolute < measured.atIssue.clup.meanAbsolute)
        #expect(waiting.meanAbsolute < measured.whileWaiting.clup.meanAbsolute)
        #expect(waiting.meanAbsolute < measured.whileWaiting.naive.meanAbsolute)
        let ratio = try #require(measured.whileWaiting.clupOverOracle)
        #expect(ratio > 1 && ratio < 2)
        let coverage = try #require(measured.whileWaiting.oracleCoverage)
        #expect(coverage > 0.65 && coverage < 0.95)
        #expect(measured.table.contains("CLup/oracle"))
        // The CSV has the oracle's prediction and range beside CLup's on every line, and
        // nothing there when the oracle did not run.
        let lines = Accuracy.csv(measuredRun).split(separator: "\n")
        #expect(lines.first?.hasSuffix(",measured,oracle,oracleLow,oracleHigh") == true)
        #expect(lines.count > measured.atIssue.clup.predictions)
        #expect(lines.dropFirst().allSatisfy { line in
            let oracle = line.split(separator: ",", omittingEmptySubsequences: false).suffix(3).compactMap { Int($0) }
            return oracle.count == 3 && oracle[1] <= oracle[0] && oracle[0] <= oracle[2]
        })
        #expect(Accuracy.csv(plainRun).split(separator: "\n").dropFirst().allSatisfy { $0.hasSuffix(",,,") })
    }

    @Test("the oracle takes a visit long past its length for one left unscanned, as the day's laws say")
    func oracleUnscannedVisit() throws {
        // One place, held by a 30-minute visit under way for 90 minutes. Visits varying by
        // 0.38 in all last that long about once in 900; 2 % are never scanned out, and CLup
        // closes those two hours after they began. So the visit is nineteen times in twenty
        // one left unscanned, and the ticket behind it waits the 30 minutes left to that.
        var scenario = try Self.scenario("short.json")
        scenario.stay = .init(meanFactor: 1, sigma: 0.35, customerBiasSigma: 0.15)
        scenario.missedScanOutRate = 0.02
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let live = [
            LiveReservation(id: 1, state: .inside(since: now - 90 * 60), people: 1, residence: 1800),
            LiveReservation(id: 2, state: .waiting, people: 1, residence: 1800),
        ]
        let known = [ReservationID(1): Oracle.Known(declaredMinutes: 30, issuedAt: now - 95 * 60, travel: 0),
                     ReservationID(2): Oracle.Known(declaredMinutes: 30, issuedAt: now, travel: 0)]
        func predicted(_ scenario: Scenario) throws -> TimeInterval {
            let oracle = Oracle(scenario: scenario, settings: StoreSettings(capacity: 1, walkInPercent: 0),
                                model: VisitModel(), runs: 200)
            var random = SeededRandom(seed: 7)
            return try #require(oracle.predict(2, live: live, known: known, now: now, random: &random)).entry
                .timeIntervalSince(now)
        }
        let wait = try predicted(scenario)
        #expect(wait >= 30 * 60 && wait <= 33 * 60)
        // With none left unscanned, the visit ends soon after what it has lasted.
        scenario.missedScanOutRate = 0
        #expect(try predicted(scenario) < 10 * 60)
    }

    @Test("a normal drawn above a floor stays above it, with the mean the truncated law has")
    func normalAbove() {
        var random = SeededRandom(seed: 3)
        // E[Z | Z > a] = φ(a) / (1 − Φ(a)): near the middle, and in the tail.
        for (floor, mean) in [(-1.0, 0.2876), (2.0, 2.3732), (4.0, 4.2256)] {
            let draws = (0..<20000).map { _ in random.normal(above: floor) }
            #expect(draws.allSatisfy { $0 > floor })
            #expect(abs(draws.reduce(0, +) / Double(draws.count) - mean) < 0.01)
        }
    }

    @Test("the oracle draws who has not come yet given that they have not: later, or never")
    func oracleNotYetCome() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var random = SeededRandom(seed: 5)
        // Arrivals uniform over the ten minutes either side of now, one party in ten never
        // coming: given not come by now, they come uniformly over the next ten minutes, and
        // never with a chance of 0.1 / (0.1 + 0.9 × 0.5), about 0.18.
        var later: [TimeInterval] = []
        var never = 0
        for _ in 0..<20000 {
            let arrival = Oracle.given(notBy: now, random: &random) { random -> Date? in
                random.chance(0.1) ? nil : now + random.uniform(Scenario.Span(min: -600, max: 600))
            }
            if let arrival { later.append(arrival.timeIntervalSince(now)) } else { never += 1 }
        }
        #expect(later.allSatisfy { $0 > 0 && $0 <= 600 })
        #expect(abs(later.reduce(0, +) / Double(later.count) - 300) < 10)
        #expect(abs(Double(never) / 20000 - 0.1 / 0.55) < 0.01)
        // Someone who could only have come already is taken never to come.
        #expect(Oracle.given(notBy: now, random: &random) { _ in now - 60 } == nil)
    }

    @Test("the oracle's customers at home are told to leave as CLup tells them: ahead, on a turn")
    func oracleDeparture() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(Oracle.told(toLeaveBy: now + 600, now: now) == now + 420)
        #expect(Oracle.told(toLeaveBy: now + 602, now: now) == now + 425)
        #expect(Oracle.told(toLeaveBy: now + 60, now: now) == now)
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

    @Test("customers who scan out of a visit already closed as never scanned out are counted")
    func closedWithCustomerInside() throws {
        // Visits eight times as long as declared outlast the bound: the estimate takes a visit
        // to last at most twice what was said (`ResidenceRatio.bounds`), and closes visits that
        // vary this little at three times that and half an hour. Visits as long as declared
        // never reach it.
        var long = try Self.scenario("short.json")
        long.stay = .init(meanFactor: 8, sigma: 0.2, customerBiasSigma: 0)
        long.missedScanOutRate = 0
        let closed = Accuracy(scenario: long, run: try Simulator(scenario: long).run())
        #expect(closed.closedWithCustomerInside > 0 && closed.closedWithCustomerInside < closed.entered)
        #expect(closed.table.contains("with the customer inside: \(closed.closedWithCustomerInside) of \(closed.entered)"))
        var usual = long
        usual.stay = .init(meanFactor: 1, sigma: 0.2, customerBiasSigma: 0)
        #expect(Accuracy(scenario: usual, run: try Simulator(scenario: usual).run()).closedWithCustomerInside == 0)
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

    @Test("a scenario that cannot be run is refused naming the field and the value found")
    func refused() throws {
        let changes: [(change: (inout Scenario) -> Void, message: String)] = [
            ({ $0.store.capacity = 0 }, "store.capacity must be 1–1000 people (it is 0)"),
            ({ $0.store.closes = "07:00" }, "store.closes must come after store.opens (07:00 ≤ 09:00)"),
            ({ $0.store.opens = "8h" }, #"store.opens must be HH:MM (it is "8h")"#),
            ({ $0.arrivals[0].to = "08:00" }, "arrivals[0].to must come after its from (08:00 ≤ 09:00)"),
            ({ $0.arrivals[0].walkIns = -3 }, "arrivals[0].walkIns must be 0–2000 parties an hour (it is -3)"),
            ({ $0.noShowRate = -0.1 }, "noShowRate must be 0–1 (it is -0.1)"),
            ({ $0.travel.share = 1.5 }, "travel.share must be 0–1 (it is 1.5)"),
            ({ $0.regulars = 0 }, "regulars must be 1–100000 (it is 0)"),
            ({ $0.declaredMinutes[1].weight = 0 }, "declaredMinutes[1].weight must be positive (it is 0)"),
            ({ $0.stay.sigma = -1 }, "stay.sigma must not be negative (it is -1)"),
            ({ $0.lateMinutes = Scenario.Span(min: 5, max: 2) }, "lateMinutes.max must not be below its min (2 < 5)"),
        ]
        for (change, message) in changes {
            var scenario = try Self.scenario("short.json")
            change(&scenario)
            do {
                try scenario.validate()
                Issue.record("accepted: \(message)")
            } catch {
                #expect(error.description == "\(scenario.name): \(message)")
            }
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Scenario.self, from: Data(#"{"name": "no store"}"#.utf8))
        }
    }
}
