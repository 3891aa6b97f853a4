import ArgumentParser
import CLupSimulation
import CLupSupport
import Foundation

/// `clup simulate --scenario FILE`: replays the scenario's store days through CLup's own
/// database code on a simulated clock and says how right the entry times shown were (JSON,
/// then a table for people).
struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay store days from a scenario and measure the wait estimate against real entries.")

    @Option(help: "Scenario files (JSON; see Scenarios/ and docs/accuracy.md). Several run one after another.")
    var scenario: [String]

    @Option(help: "Replay this many days instead of the scenario's own number.")
    var days: Int?

    @Option(help: "Use this seed instead of the scenario's own.")
    var seed: UInt64?

    @Flag(help: "Print only the table.")
    var tableOnly = false

    @Option(help: "Also write every prediction measured to this CSV file (the last scenario's, if several).")
    var csv: String?

    func run() throws {
        guard Sodium.ensureInitialized() else { throw ValidationError("libsodium could not be initialised") }
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
            let run = try Simulator(scenario: scenario).run()
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
