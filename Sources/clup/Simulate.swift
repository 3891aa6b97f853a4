import ArgumentParser
import CLupSimulation
import CLupSupport
import Foundation

/// `clup simulate --scenario FILE`: replays the scenario's store days through CLup's own
/// database code on a simulated clock and says how right the entry times shown were (JSON,
/// then a table for people). `--generate N` replays N generated days (`ScenarioGenerator`)
/// of one half, tuning or held out, instead.
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay store days from a scenario and measure the wait estimate against real entries.")

    @Option(help: "Scenario files (JSON; see Scenarios/ and docs/accuracy.md). Several run one after another.")
    var scenario: [String] = []

    @Option(help: "Replay this many generated store days instead of scenario files (1–500).")
    var generate: Int?

    @Option(help: "With --generate: the half to draw the days from, tuning or held-out (tune only on the first).")
    var half: ScenarioGenerator.Half = .heldOut

    @Option(help: "With --generate: also write each generated day's scenario as JSON into this folder.")
    var write: String?

    @Option(help: "With --generate: play each day this many times, with other luck, to see how far luck alone moves its range coverage (1–50).")
    var plays = 1

    @Option(help: "Replay this many days instead of the scenario's own number.")
    var days: Int?

    @Option(help: "Use this seed instead of the scenario's own; with --generate, it picks the days drawn (1 by default).")
    var seed: UInt64?

    @Option(help: "Run the oracle (the best estimate the day's randomness allows) this many times at each prediction, 0 for none.")
    var oracleRuns = 0

    @Flag(help: "Print only the table.")
    var tableOnly = false

    @Option(help: "Also write every prediction measured to this CSV file (the last scenario's, if several).")
    var csv: String?

    func validate() throws {
        if let generate, !(1...500).contains(generate) { throw ValidationError("--generate takes 1–500 days") }
        if generate == nil, scenario.isEmpty { throw ValidationError("give --scenario FILE, or --generate N") }
        if generate != nil, !scenario.isEmpty { throw ValidationError("give --scenario or --generate, not both") }
        if generate != nil, csv != nil { throw ValidationError("--csv writes a scenario's predictions: use it with --scenario") }
        if !(1...50).contains(plays) { throw ValidationError("--plays takes 1–50") }
        if plays > 1, generate == nil { throw ValidationError("--plays replays generated days: use it with --generate") }
        if !(0...2000).contains(oracleRuns) { throw ValidationError("--oracle-runs takes 0–2000") }
    }

    func run() throws {
        guard Sodium.ensureInitialized() else { throw ValidationError("libsodium could not be initialised") }
        if let generate { return try runGenerated(generate) }
        var reports: [Accuracy] = []
        for path in scenario {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read the scenario \(path)")
            }
            var scenario: Scenario
            do {
                scenario = try JSONDecoder().decode(Scenario.self, from: data)
            } catch {
                throw ValidationError("\(path) is not a scenario: \(error)")
            }
            if let days { scenario.days = days }
            if let seed { scenario.seed = seed }
            do {
                try scenario.validate()
            } catch {
                throw ValidationError(error.description)
            }
            let run = try Simulator(scenario: scenario, oracleRuns: oracleRuns).run()
            reports.append(Accuracy(scenario: scenario, run: run))
            if let csv {
                do {
                    try Accuracy.csv(run).write(toFile: csv, atomically: true, encoding: .utf8)
                } catch {
                    throw ValidationError("cannot write \(csv): \(error.localizedDescription)")
                }
            }
        }
        if !tableOnly {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(reports), as: UTF8.self))
        }
        print(reports.map(\.table).joined(separator: "\n\n"))
    }
}

extension ScenarioGenerator.Half: ExpressibleByArgument {}

extension Simulate {
    /// Replays `count` generated days of `half` (from `--seed`, 1 by default), `--plays` times
    /// each, and prints a line per day, then the figures the targets are written in.
    func runGenerated(_ count: Int) throws {
        let days = ScenarioGenerator.days(count, of: half, seed: seed ?? 1)
        if let write {
            try FileManager.default.createDirectory(atPath: write, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            for day in days {
                try encoder.encode(day).write(to: URL(fileURLWithPath: "\(write)/\(String(day.seed, radix: 16)).json"))
            }
        }
        let played = days.map { day in
            var day = day
            if let daysOption = self.days { day.days = daysOption }
            return day
        }
        for day in played {
            do {
                try day.validate()
            } catch {
                throw ValidationError("a generated day is not a valid scenario: \(error.description)")
            }
        }
        print(try GeneratedDays.play(played, of: half, plays: plays, oracleRuns: oracleRuns).table)
    }
}
