import Foundation
import Synchronization

/// Varied store days for judging the wait estimate on days it was never tuned on
/// (docs/accuracy.md, "Generated days"). Each day is drawn from ranges wide enough to hold the
/// days the shipped scenarios do not show: small and large stores, heavy tails (people staying
/// up to 1.5 × what they declare, with a wide spread), lunch and evening bursts, mostly bookings
/// with early leavers, pairs with long stays, regulars.
///
/// A day is decided by its seed alone, and so is its half: **tuning** days are the only ones
/// anything may be tuned on, **held-out** days are only measured. The half comes from a hash of
/// the seed, fixed here once, so no choice made while tuning can move a day from one half to
/// the other.
public enum ScenarioGenerator {
    public enum Half: String, Codable, Sendable, CaseIterable {
        case tuning
        case heldOut = "held-out"
    }

    /// The half the day of `seed` belongs to.
    public static func half(of seed: UInt64) -> Half {
        var hash = SeededRandom(seed: seed ^ 0x48_454C_444F_5554)  // "HELDOUT"
        return hash.next() & 1 == 0 ? .tuning : .heldOut
    }

    /// The first `count` days of `half` among the days of seeds drawn from `seed`, in order.
    public static func days(_ count: Int, of half: Half, seed: UInt64) -> [Scenario] {
        var seeds = SeededRandom(seed: seed)
        var days: [Scenario] = []
        while days.count < count {
            let daySeed = seeds.next()
            if Self.half(of: daySeed) == half { days.append(day(seed: daySeed)) }
        }
        return days
    }

    /// The store day of `seed`.
    public static func day(seed: UInt64) -> Scenario {
        var random = SeededRandom(seed: seed)
        func between(_ low: Double, _ high: Double) -> Double { low + (high - low) * random.uniform() }
        func rounded(_ value: Double, _ places: Double = 100) -> Double { (value * places).rounded() / places }

        // The store: 10–200 places (as many small stores as large), open 10–13 hours.
        let capacity = Int(exp(between(log(10), log(200))).rounded())
        let walkInPercent = Int(between(0, 40).rounded())
        let opens = 7 * 60 + 30 * Int(between(0, 4.99))  // 07:00–09:00
        let closes = min(22 * 60, opens + 60 * Int(between(10, 13.99)))

        // How people behave.
        let declared: [Scenario.Choice]
        switch Int(between(0, 2.99)) {
        case 0: declared = Scenario.usualDeclaredMinutes
        case 1: declared = [.init(minutes: 10, weight: 0.3), .init(minutes: 15, weight: 0.4),
                            .init(minutes: 30, weight: 0.3)]  // a quick shop
        default: declared = [.init(minutes: 30, weight: 0.3), .init(minutes: 60, weight: 0.4),
                             .init(minutes: 90, weight: 0.3)]  // the week's shopping
        }
        let stay = Scenario.Stay(meanFactor: rounded(between(0.6, 1.5)), sigma: rounded(between(0.2, 0.6)),
                                 customerBiasSigma: rounded(between(0.05, 0.3)))
        let twoPeopleShare = rounded(between(0, 0.6))
        let shortest = rounded(between(2, 5), 1)
        let travel = Scenario.Travel(share: rounded(between(0.2, 0.9)),
                                     minutes: .init(min: shortest, max: rounded(between(10, 40), 1)),
                                     factor: .init(min: rounded(between(0.8, 1)), max: rounded(between(1, 1.4))))
        let late = rounded(between(2, 15), 1)

        // Who comes: a base rate from open to an hour before closing, at 50–130 % of what the
        // store lets through, and bursts on top at lunch and in the evening.
        let meanDeclared = Double(declared.reduce(0) { $0 + Double($1.minutes) * $1.weight })
            / declared.reduce(0) { $0 + $1.weight }
        let stayMinutes = meanDeclared * stay.meanFactor
        let partiesPerHour = Double(capacity) * 60 / stayMinutes / (1 + twoPeopleShare)
        let base = partiesPerHour * between(0.5, 1.3)
        let bookingShare = between(0, 0.7)
        func window(_ from: Int, _ to: Int, _ wanted: Double) -> Scenario.Arrivals {
            let parties = min(wanted, 1900)  // a scenario takes at most 2,000 parties an hour per window
            let walkIns = parties * Double(walkInPercent) / 100
            let online = parties - walkIns
            return Scenario.Arrivals(from: clock(from), to: clock(to), lineUps: rounded(online * (1 - bookingShare), 10),
                                     bookings: rounded(online * bookingShare, 10), walkIns: rounded(walkIns, 10))
        }
        var arrivals = [window(opens, closes - 60, base)]
        if random.chance(0.6) { arrivals.append(window(12 * 60, 14 * 60, base * between(0.3, 1.5))) }
        if random.chance(0.6), closes >= 19 * 60 + 30 {
            arrivals.append(window(17 * 60, 19 * 60, base * between(0.3, 1.5)))
        }

        return Scenario(
            name: "Generated day \(String(seed, radix: 16))", seed: seed, days: 1,
            store: .init(capacity: capacity, walkInPercent: walkInPercent, opens: clock(opens), closes: clock(closes)),
            arrivals: arrivals, twoPeopleShare: twoPeopleShare, declaredMinutes: declared, stay: stay, travel: travel,
            noShowRate: rounded(between(0, 0.2)), lateRate: rounded(between(0, 0.3)),
            lateMinutes: .init(min: 1, max: late), cancellationRate: rounded(between(0, 0.1)),
            missedScanOutRate: rounded(between(0, 0.05)),
            regulars: random.chance(0.5) ? nil : Int(between(100, 3000)))
    }

    /// Minutes after midnight as "HH:MM".
    static func clock(_ minutes: Int) -> String {
        String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}

/// The wait estimate over many generated days (`clup simulate --generate`): a line per day, and
/// the figures the evaluation's targets are written in.
///
/// How far a day's range coverage can be from 80 % by luck alone is measured two ways. Always:
/// were each entry in its range with a chance of 80 %, independently of the others, a day of n
/// tickets would land in 75–85 % as often as a binomial says — a ceiling, since entries on a
/// day share its luck (a run of short visits brings everyone in early). With `--plays K`: each
/// day is played K times, the same store and laws with other luck, and the spread of a
/// predictor's coverage over the plays is that shared luck measured; its mean over the plays
/// says how far off 80 % the predictor is on that kind of day.
public struct GeneratedDays: Sendable {
    public var half: ScenarioGenerator.Half
    public var days: [(scenario: Scenario, accuracy: Accuracy)]
    /// For each day, the predictions at issue in each play (its own luck first), when the days
    /// were played more than once; else empty.
    public var plays: [[Accuracy.Comparison]]

    public init(half: ScenarioGenerator.Half, days: [(scenario: Scenario, accuracy: Accuracy)],
                plays: [[Accuracy.Comparison]] = [])
    {
        self.half = half
        self.days = days
        self.plays = plays
    }

    /// Plays each of `days` (of `half`) `plays` times (the day's own seed, then `ScenarioGenerator.luck`),
    /// the days and plays spread over the machine's cores: each play is its own scratch
    /// database and random streams, so the figures are the same as one after another.
    public static func play(_ days: [Scenario], of half: ScenarioGenerator.Half, plays: Int = 1, oracleRuns: Int = 0) throws
        -> GeneratedDays
    {
        // Job j is play j % count of day j / count.
        let count = max(1, plays)
        let results = Mutex([Result<Accuracy, any Error>?](repeating: nil, count: days.count * count))
        DispatchQueue.concurrentPerform(iterations: days.count * count) { job in
            var scenario = days[job / count]
            if job % count > 0 { scenario.seed = ScenarioGenerator.luck(of: scenario.seed, play: job % count) }
            let result = Result { Accuracy(scenario: scenario, run: try Simulator(scenario: scenario, oracleRuns: oracleRuns).run()) }
            results.withLock { $0[job] = result }
        }
        let accuracies = try results.withLock { results in try results.map { try $0!.get() } }
        let byDay = days.indices.map { accuracies[$0 * count..<($0 + 1) * count] }
        return GeneratedDays(half: half, days: zip(days, byDay).map { ($0, $1.first!) },
                             plays: count > 1 ? byDay.map { $0.map(\.atIssue) } : [])
    }

    /// The chance that `predictions` ranges, each holding its entry with a chance of 80 %
    /// independently, hold 75–85 % of them (binomial).
    static func chanceInTarget(predictions n: Int) -> Double {
        guard n > 0 else { return 0 }
        // log k! from a running sum: n is at most a few thousand.
        var logFactorial = [0.0]
        for k in 1...n { logFactorial.append(logFactorial[k - 1] + log(Double(k))) }
        return (0...n).filter { (0.75...0.85).contains(Double($0) / Double(n)) }.reduce(0) { sum, k in
            sum + exp(logFactorial[n] - logFactorial[k] - logFactorial[n - k] + Double(k) * log(0.8) + Double(n - k) * log(0.2))
        }
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    public var table: String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "—" }
        func percent(_ value: Double?) -> String { value.map { String(format: "%.0f %%", $0 * 100) } ?? "—" }
        func ratio(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "—" }
        func row(_ cells: [String]) -> String {
            let widths = [18, 7, 8, 7, 7, 7, 6, 7, 7, 7, 6, 10, 9, 8, 10]
            return zip(cells, widths).enumerated().map { index, pair in
                let (cell, width) = pair
                let padding = String(repeating: " ", count: max(0, width - cell.count))
                return index == 0 ? cell + padding : padding + cell
            }.joined()
        }
        var lines = ["\(days.count) generated days, \(half.rawValue) half (MAE in minutes, and CLup's as a ratio of the "
                        + "oracle's; at issue, then while waiting)",
                     row(["day", "places", "tickets", "CLup", "naive", "oracle", "ratio", "CLup", "naive", "oracle", "ratio",
                          "in range", "waiting", "oracle", "wrong 2h"])]
        for (scenario, accuracy) in days {
            var cells = [String(scenario.name.dropFirst("Generated day ".count)), String(scenario.store.capacity),
                         String(accuracy.measuredTickets)]
            for comparison in [accuracy.atIssue, accuracy.whileWaiting] {
                cells += [number(comparison.clup.meanAbsolute), number(comparison.naive.meanAbsolute),
                          number(comparison.oracle?.meanAbsolute), ratio(comparison.clupOverOracle)]
            }
            cells += [percent(accuracy.atIssue.rangeCoverage), percent(accuracy.whileWaiting.rangeCoverage),
                      percent(accuracy.atIssue.oracleCoverage),
                      String(format: "%.1f %%", accuracy.twoHourRule.wrongRefusalShare * 100)]
            lines.append(row(cells))
        }
        let measured = days.map(\.accuracy).filter { $0.measuredTickets > 0 }
        let clup = measured.map(\.atIssue.clup.meanAbsolute)
        /// How many days' ranges covered 75–85 % of entries, of the days that showed ranges, how
        /// many less and how many more, and the days' mean.
        func daysInTarget(_ coverage: (Accuracy) -> Double?) -> String {
            let coverages = measured.compactMap(coverage)
            let mean = coverages.isEmpty ? 0 : coverages.reduce(0, +) / Double(coverages.count)
            return "\(coverages.filter { (0.75...0.85).contains($0) }.count) of \(coverages.count) days "
                + "(\(coverages.filter { $0 < 0.75 }.count) under, \(coverages.filter { $0 > 0.85 }.count) over; "
                + "mean \(percent(mean)))"
        }
        let naiveFar = measured.filter { $0.atIssue.naive.meanAbsolute > 5 }
        let halved = naiveFar.filter { $0.atIssue.clup.meanAbsolute <= 0.5 * $0.atIssue.naive.meanAbsolute }
        let wrong = measured.map(\.twoHourRule.wrongRefusalShare)
        let ratios = measured.compactMap(\.atIssue.clupOverOracle)
        if !ratios.isEmpty {
            lines.append("at issue: CLup/oracle median \(String(format: "%.2f", Self.median(ratios) ?? 0)), "
                + "worst \(String(format: "%.2f", ratios.max() ?? 0)) over \(ratios.count) days; "
                + "oracle MAE median \(number(Self.median(measured.compactMap { $0.atIssue.oracle?.meanAbsolute })))")
        }
        lines.append("at issue: CLup MAE median \(number(Self.median(clup))), worst \(number(clup.max())); "
            + "CLup/naive median \(String(format: "%.2f", Self.median(measured.map { $0.atIssue.clup.meanAbsolute / max($0.atIssue.naive.meanAbsolute, 0.01) }) ?? 0)); "
            + "ranges covering 75–85 %: \(daysInTarget(\.atIssue.rangeCoverage)); "
            + "naive over 5 min off on \(naiveFar.count) days, CLup at most half of it on \(halved.count); "
            + "wrong two-hour refusals: median \(String(format: "%.1f", (Self.median(wrong) ?? 0) * 100)) %, "
            + "worst \(String(format: "%.1f", (wrong.max() ?? 0) * 100)) %")
        let waitingRatios = measured.compactMap(\.whileWaiting.clupOverOracle)
        lines.append("while waiting: "
            + (waitingRatios.isEmpty ? "" : "CLup/oracle median \(String(format: "%.2f", Self.median(waitingRatios) ?? 0)), "
                + "worst \(String(format: "%.2f", waitingRatios.max() ?? 0)); ")
            + "ranges covering 75–85 %: \(daysInTarget(\.whileWaiting.rangeCoverage))")
        if !ratios.isEmpty {
            // What the best estimate does against the same targets: how far they can be met.
            let oracleHalved = naiveFar.filter { accuracy in
                accuracy.atIssue.oracle.map { $0.meanAbsolute <= 0.5 * accuracy.atIssue.naive.meanAbsolute } ?? false
            }
            lines.append("the oracle: ranges covering 75–85 %: \(daysInTarget(\.atIssue.oracleCoverage)) at issue, "
                + "\(daysInTarget(\.whileWaiting.oracleCoverage)) while waiting; at most half the naive MAE on "
                + "\(oracleHalved.count) of the \(naiveFar.count) days")
        }
        let ranged = measured.map(\.atIssue.rangePredictions).filter { $0 > 0 }
        lines.append("by chance alone: ranges each right 80 % of the time, independently, would cover 75–85 % on "
            + String(format: "%.1f", ranged.map(Self.chanceInTarget(predictions:)).reduce(0, +))
            + " of \(ranged.count) days at issue, at these days' numbers of tickets")
        lines += luck
        let closed = measured.map(\.closedWithCustomerInside)
        lines.append("visits closed as never scanned out with the customer inside: \(closed.reduce(0, +)) of "
            + "\(measured.map(\.entered).reduce(0, +)), on \(closed.filter { $0 > 0 }.count) days")
        return lines.joined(separator: "\n")
    }

    /// The plays of each day, when there were several: CLup's coverage at issue over them (and
    /// the oracle's, when it ran), and what its spread and its mean say about the days in range.
    private var luck: [String] {
        let played = zip(days, plays).filter { $0.1.count > 1 }
        guard !played.isEmpty else { return [] }
        var predictors: [(name: String, column: String, coverage: (Accuracy.Comparison) -> Double?)] =
            [("CLup", "CLup", \.rangeCoverage)]
        if played.contains(where: { $0.1.contains { $0.oracleCoverage != nil } }) {
            predictors.append(("the oracle", "oracle", \.oracleCoverage))
        }
        var lines = ["each day played \(played.map(\.1.count).max()!) times with other luck: coverage at issue "
                        + "(the mean over the plays, its spread in points, plays in 75–85 %)",
                     ("day               " + predictors.map { predictor in
                         String(repeating: " ", count: 10 - predictor.column.count) + predictor.column + "   spread  in range    "
                     }.joined()).trimmingCharacters(in: .whitespaces)
                        + (predictors.count > 1 ? "   CLup/oracle: median (lowest–highest)" : "")]
        var ratioMedians: [Double] = []
        var summaries = predictors.map { _ in (offs: [Double](), spreads: [Double](), inRange: 0, plays: 0, calibrated: 0.0) }
        for ((scenario, _), comparisons) in played {
            var line = String(scenario.name.dropFirst("Generated day ".count)).padding(toLength: 18, withPad: " ", startingAt: 0)
            for (index, predictor) in predictors.enumerated() {
                let coverages = comparisons.compactMap(predictor.coverage)
                guard coverages.count > 1 else {
                    line += String(repeating: " ", count: 9) + "—" + String(repeating: " ", count: 19)
                    continue
                }
                let mean = coverages.reduce(0, +) / Double(coverages.count)
                let spread = (coverages.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(coverages.count - 1)).squareRoot()
                let inRange = coverages.filter { (0.75...0.85).contains($0) }.count
                summaries[index].offs.append(abs(mean - 0.8))
                summaries[index].spreads.append(spread)
                summaries[index].inRange += inRange
                summaries[index].plays += coverages.count
                // A range right 80 % of the time on this day, its coverage spread as this one's is.
                summaries[index].calibrated += spread > 0 ? erf(0.05 / spread / 2.squareRoot()) : 1
                line += String(format: "%8.0f %%%9.1f %6d of %-3d", mean * 100, spread * 100, inRange, coverages.count)
            }
            // How far luck moves the ratio to the bound, for the worst-day target.
            let ratios = comparisons.compactMap(\.clupOverOracle).sorted()
            if ratios.count > 1, let median = Self.median(ratios) {
                ratioMedians.append(median)
                line += String(format: "   %.2f (%.2f–%.2f)", median, ratios.first!, ratios.last!)
            }
            lines.append(line.trimmingCharacters(in: .whitespaces))
        }
        func points(_ value: Double) -> String { String(format: "%.1f", value * 100) }
        for (predictor, summary) in zip(predictors, summaries) where summary.plays > 0 {
            let share = Double(summary.inRange) / Double(summary.plays)
            let count = summary.offs.count
            lines.append("\(predictor.name) over the plays: in 75–85 % in \(String(format: "%.0f", share * 100)) % of plays "
                + "(\(String(format: "%.1f", share * Double(count))) of \(count) days); a day's mean off 80 % by a median of "
                + "\(points(Self.median(summary.offs) ?? 0)) points (over 5 on \(summary.offs.filter { $0 > 0.05 }.count) days), "
                + "its plays spread by a median of \(points(Self.median(summary.spreads) ?? 0)) points; centred on 80 % with "
                + "that spread, \(String(format: "%.1f", summary.calibrated)) of \(count) days would be in range")
        }
        if let median = Self.median(ratioMedians) {
            lines.append("CLup/oracle at issue over the plays: the days' medians have a median of \(String(format: "%.2f", median)), "
                + "the worst \(String(format: "%.2f", ratioMedians.max()!)); over 1.6 on \(ratioMedians.filter { $0 > 1.6 }.count) "
                + "of \(ratioMedians.count) days")
        }
        return lines
    }
}

extension ScenarioGenerator {
    /// The seed of play `play` (1, 2, …) of the day of seed `seed`: the same store and laws
    /// (decided by `seed`), other luck.
    public static func luck(of seed: UInt64, play: Int) -> UInt64 {
        var random = SeededRandom(seed: seed ^ 0x4C55_434B)  // "LUCK"
        var next = seed
        for _ in 0..<play { next = random.next() }
        return next
    }
}
