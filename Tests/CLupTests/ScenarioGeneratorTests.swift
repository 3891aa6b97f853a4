@testable import CLupSimulation
import Foundation
import Testing

/// `clup simulate --generate`: varied store days, each decided by its seed, split once into a
/// tuning half and a held-out half.
@Suite("Generated store days", .enabled(if: Fixture.engineFreePass))
struct ScenarioGeneratorTests {
    @Test("a seed decides its day and its half; the halves share no day and split about evenly")
    func seeds() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(ScenarioGenerator.day(seed: 42)) == encoder.encode(ScenarioGenerator.day(seed: 42)))
        #expect(try encoder.encode(ScenarioGenerator.day(seed: 42)) != encoder.encode(ScenarioGenerator.day(seed: 43)))
        let tuning = ScenarioGenerator.days(50, of: .tuning, seed: 7).map(\.seed)
        let heldOut = ScenarioGenerator.days(50, of: .heldOut, seed: 7).map(\.seed)
        #expect(Set(tuning).isDisjoint(with: heldOut))
        #expect(tuning.allSatisfy { ScenarioGenerator.half(of: $0) == .tuning })
        #expect(heldOut.allSatisfy { ScenarioGenerator.half(of: $0) == .heldOut })
        let halves = (0..<UInt64(1000)).map(ScenarioGenerator.half(of:))
        #expect((430...570).contains(halves.count { $0 == .heldOut }))
    }

    @Test("every generated day is a valid scenario within the evaluation's ranges, and reads back from JSON")
    func ranges() throws {
        var capacities: [Int] = []
        var bursts = 0
        for seed in UInt64(1)...300 {
            let day = ScenarioGenerator.day(seed: seed)
            try day.validate()
            capacities.append(day.store.capacity)
            #expect((10...200).contains(day.store.capacity))
            #expect((0.6...1.5).contains(day.stay.meanFactor) && (0.2...0.6).contains(day.stay.sigma))
            #expect((0...0.2).contains(day.noShowRate) && (0...0.6).contains(day.twoPeopleShare))
            if day.arrivals.count > 1 { bursts += 1 }
            let decoded = try JSONDecoder().decode(Scenario.self, from: JSONEncoder().encode(day))
            #expect(decoded.name == day.name && decoded.arrivals.map(\.lineUps) == day.arrivals.map(\.lineUps)
                && decoded.regulars == day.regulars && decoded.stay.sigma == day.stay.sigma)
        }
        // Small and large stores alike, and most days with a burst.
        #expect(capacities.count { $0 < 40 } > 60 && capacities.count { $0 > 100 } > 60)
        #expect(bursts > 150)
    }

    @Test("a generated day replays, and its report names every day of its half")
    func replays() throws {
        // The smallest of a few: a quick day to replay.
        let day = try #require(ScenarioGenerator.days(10, of: .heldOut, seed: 3).min { $0.store.capacity < $1.store.capacity })
        let accuracy = Accuracy(scenario: day, run: try Simulator(scenario: day).run())
        #expect(accuracy.lineUps + accuracy.walkIns > 0)
        let table = GeneratedDays(half: .heldOut, days: [(day, accuracy)]).table
        #expect(table.hasPrefix("1 generated days, held-out half"))
        #expect(table.contains(String(day.seed, radix: 16)))
        #expect(table.contains("ranges covering 75–85 %:"))
        // Each count of days in range says how the others missed it.
        #expect(table.contains(" under, ") && table.contains(" over; mean "))
        #expect(table.contains("by chance alone: "))

        // Played again with other luck, on both cores: the first play is the day's own, the
        // same as played alone.
        let played = try GeneratedDays.play([day], of: .heldOut, plays: 3)
        #expect(played.days.count == 1 && played.plays.count == 1 && played.plays[0].count == 3)
        var (together, alone) = (played.days[0].accuracy, accuracy)
        (together.seconds, alone.seconds) = (0, 0)  // how long it took is all that may differ
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(together) == encoder.encode(alone))
        #expect(played.plays[0][0].rangeCoverage == accuracy.atIssue.rangeCoverage)
        let report = played.table
        #expect(report.contains("each day played 3 times with other luck"))
        #expect(report.contains("CLup over the plays: in 75–85 % in "))
    }

    @Test("other luck for a day is a seed of its own for each play, the day's own first")
    func luck() {
        #expect(ScenarioGenerator.luck(of: 42, play: 0) == 42)
        let seeds = (1...20).map { ScenarioGenerator.luck(of: 42, play: $0) }
        #expect(Set(seeds).count == 20 && !seeds.contains(42))
        #expect(seeds == (1...20).map { ScenarioGenerator.luck(of: 42, play: $0) })
        #expect(ScenarioGenerator.luck(of: 43, play: 1) != seeds[0])
    }

    @Test("by chance alone, a day's coverage lands in 75–85 % as a binomial of its predictions says")
    func chance() {
        #expect(GeneratedDays.chanceInTarget(predictions: 0) == 0)
        // Of 10, only 8 in range is 75–85 %: 45 × 0.8⁸ × 0.2².
        #expect(abs(GeneratedDays.chanceInTarget(predictions: 10) - 45 * pow(0.8, 8) * 0.04) < 1e-12)
        // Of 4, 3 is exactly 75 %: 4 × 0.8³ × 0.2.
        #expect(abs(GeneratedDays.chanceInTarget(predictions: 4) - 4 * pow(0.8, 3) * 0.2) < 1e-12)
        // Many tickets: nearly always; forty: about two times in three.
        #expect(GeneratedDays.chanceInTarget(predictions: 2000) > 0.999)
        #expect((0.6...0.75).contains(GeneratedDays.chanceInTarget(predictions: 40)))
    }
}
