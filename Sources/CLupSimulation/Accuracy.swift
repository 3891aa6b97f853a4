import CLupDomain
import Foundation

/// How right the entry times shown were: each prediction against the customer's real entry.
public struct Accuracy: Codable, Sendable {
    /// Errors of one predictor over a set of predictions, in minutes (predicted − actual:
    /// positive is a wait overestimated).
    public struct Errors: Codable, Sendable {
        public var predictions: Int
        public var meanAbsolute: Double
        public var p50Absolute: Double
        public var p90Absolute: Double
        public var bias: Double

        init(_ errors: [Double]) {
            predictions = errors.count
            let absolute = errors.map(abs).sorted()
            meanAbsolute = absolute.isEmpty ? 0 : absolute.reduce(0, +) / Double(absolute.count)
            p50Absolute = Self.quantile(absolute, 0.5)
            p90Absolute = Self.quantile(absolute, 0.9)
            bias = errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count)
        }

        static func quantile(_ sorted: [Double], _ q: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
        }
    }

    public struct Comparison: Codable, Sendable {
        public var clup: Errors
        public var naive: Errors
        /// Share of real entries inside the range shown (nil: no range shown), of this many
        /// predictions that showed one.
        public var rangeCoverage: Double?
        public var rangePredictions = 0
        /// The oracle's errors (`Oracle`), when it was run; CLup's mean absolute error over the
        /// same predictions as a ratio of the oracle's (the figure to bring down); and the
        /// share of real entries in the oracle's 10–90 % range.
        public var oracle: Errors?
        public var clupOverOracle: Double?
        public var oracleCoverage: Double?
    }

    public struct TwoHourRule: Codable, Sendable {
        public var lineUps: Int
        public var refusals: Int
        /// Refused, though the queue they would have joined had entered within two hours.
        public var wrongRefusals: Int
        /// Accepted, and really waited more than two hours.
        public var wrongAcceptances: Int
        public var wrongRefusalShare: Double
    }

    public var scenario: String
    public var days: Int
    public var lineUps: Int
    public var walkIns: Int
    public var bookings: Int
    public var entered: Int
    /// Tickets that waited in a queue and then entered: the predictions measured are theirs.
    public var measuredTickets: Int
    public var atIssue: Comparison
    public var whileWaiting: Comparison
    public var twoHourRule: TwoHourRule
    public var bookingsRefused: Int
    public var otherRefusals: Int
    /// Visits closed as never scanned out while their customers were still inside (of
    /// `entered`): each gave places away with its customer in the store.
    public var closedWithCustomerInside: Int
    public var seconds: Double

    public init(scenario: Scenario, run: Simulator.Run) {
        self.scenario = scenario.name
        days = scenario.days
        let issued = run.customers.filter { $0.issuedAt != nil }
        lineUps = issued.filter { $0.kind == .lineUp }.count
        walkIns = issued.filter { $0.kind == .walkIn }.count
        bookings = issued.filter { $0.kind == .booking }.count
        entered = issued.filter { $0.enteredAt != nil }.count
        let measured = issued.filter { $0.enteredAt != nil && !$0.samples.isEmpty && $0.kind != .booking }
        measuredTickets = measured.count

        func comparison(_ pick: (Simulator.Customer) -> [Simulator.Sample]) -> Comparison {
            var clup: [Double] = []
            var naive: [Double] = []
            var ranged = 0
            var inside = 0
            var oracle: [Double] = []
            var clupBesideOracle: [Double] = []
            var oracleInside = 0
            for customer in measured {
                let actual = customer.enteredAt!
                for sample in pick(customer) {
                    clup.append(sample.clup.timeIntervalSince(actual) / 60)
                    naive.append(sample.naive.timeIntervalSince(actual) / 60)
                    if let predicted = sample.oracle {
                        oracle.append(predicted.timeIntervalSince(actual) / 60)
                        clupBesideOracle.append(sample.clup.timeIntervalSince(actual) / 60)
                        if sample.oracleRange?.contains(actual) == true { oracleInside += 1 }
                    }
                    if let range = sample.range {
                        ranged += 1
                        if range.contains(actual) { inside += 1 }
                    }
                }
            }
            var comparison = Comparison(clup: Errors(clup), naive: Errors(naive),
                                        rangeCoverage: ranged == 0 ? nil : Double(inside) / Double(ranged),
                                        rangePredictions: ranged)
            if !oracle.isEmpty {
                let errors = Errors(oracle)
                comparison.oracle = errors
                comparison.clupOverOracle = Errors(clupBesideOracle).meanAbsolute / max(errors.meanAbsolute, 0.01)
                comparison.oracleCoverage = Double(oracleInside) / Double(oracle.count)
            }
            return comparison
        }
        atIssue = comparison { customer in customer.samples.first.map { $0.at == customer.issuedAt ? [$0] : [] } ?? [] }
        whileWaiting = comparison { $0.samples }

        // A refused party would have joined the back of its pool's queue: its real wait is
        // taken as the time until the last party queued then (that did enter) entered.
        var wrongRefusals = 0
        for refusal in run.longWaitRefusals {
            let ahead = issued.filter { customer in
                customer.kind != .booking && customer.pool == refusal.pool && customer.issuedAt! <= refusal.at
                    && (customer.enteredAt ?? customer.endedAt ?? .distantFuture) > refusal.at
            }
            guard let last = ahead.compactMap(\.enteredAt).max() else { continue }
            if last.timeIntervalSince(refusal.at) < LineUpPolicy.longestWait { wrongRefusals += 1 }
        }
        let wrongAcceptances = issued.filter { customer in
            customer.kind != .booking
                && (customer.enteredAt.map { $0.timeIntervalSince(customer.issuedAt!) > LineUpPolicy.longestWait } ?? false)
        }.count
        let attempts = lineUps + walkIns + run.longWaitRefusals.count
        twoHourRule = TwoHourRule(lineUps: attempts, refusals: run.longWaitRefusals.count, wrongRefusals: wrongRefusals,
                                  wrongAcceptances: wrongAcceptances,
                                  wrongRefusalShare: attempts == 0 ? 0 : Double(wrongRefusals) / Double(attempts))
        bookingsRefused = run.bookingsRefused
        otherRefusals = run.otherRefusals
        closedWithCustomerInside = run.closedWithCustomerInside
        seconds = run.seconds
    }

    /// Every prediction measured, one line each, for a closer look (`clup simulate --csv`):
    /// the ticket's kind, party, travel time, when it was issued (seconds into the first day),
    /// which of its predictions it is (0: at issue), and the predicted, real and naive waits and
    /// the range's ends, in seconds from the prediction, whether the range was drawn from the
    /// store's measured errors (1) or from the exits to wait for (0), and the oracle's predicted
    /// wait and range (empty when it did not run).
    public static func csv(_ run: Simulator.Run) -> String {
        var lines = ["kind,people,travel,issued,prediction,predicted,actual,naive,low,high,measured,oracle,oracleLow,oracleHigh"]
        for customer in run.customers where customer.kind != .booking {
            guard let issued = customer.issuedAt, let actual = customer.enteredAt else { continue }
            for (index, sample) in customer.samples.enumerated() {
                let cells: [String] = [
                    "\(customer.kind)", "\(customer.people)", "\(Int(customer.travel))",
                    "\(Int(issued.timeIntervalSince(Simulator.firstDay)))", "\(index)",
                    "\(Int(sample.clup.timeIntervalSince(sample.at)))", "\(Int(actual.timeIntervalSince(sample.at)))",
                    "\(Int(sample.naive.timeIntervalSince(sample.at)))",
                    sample.range.map { "\(Int($0.lowerBound.timeIntervalSince(sample.at)))" } ?? "",
                    sample.range.map { "\(Int($0.upperBound.timeIntervalSince(sample.at)))" } ?? "",
                    sample.measuredRange ? "1" : "0",
                    sample.oracle.map { "\(Int($0.timeIntervalSince(sample.at)))" } ?? "",
                    sample.oracleRange.map { "\(Int($0.lowerBound.timeIntervalSince(sample.at)))" } ?? "",
                    sample.oracleRange.map { "\(Int($0.upperBound.timeIntervalSince(sample.at)))" } ?? "",
                ]
                lines.append(cells.joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A few lines for a person: the two predictors side by side.
    public var table: String {
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        func row(_ cells: [String]) -> String {
            let widths = [15, 7, 12, 6, 6, 6, 6, 9]
            return zip(cells, widths).enumerated().map { index, pair in
                let (cell, width) = pair
                let padding = String(repeating: " ", count: max(0, width - cell.count))
                return index == 0 ? cell + padding : padding + cell
            }.joined()
        }
        var lines = [
            "\(scenario): \(days) day(s), \(lineUps) line-ups, \(walkIns) walk-ins, \(bookings) bookings; "
                + "\(measuredTickets) tickets waited and entered; \(String(format: "%.1f", seconds)) s",
            row(["", "", "predictions", "MAE", "p50", "p90", "bias", "in range"]) + "   (minutes)",
        ]
        for (label, comparison) in [("at issue", atIssue), ("while waiting", whileWaiting)] {
            var predictors = [("CLup", comparison.clup), ("naive", comparison.naive)]
            if let oracle = comparison.oracle { predictors.append(("oracle", oracle)) }
            for (name, errors) in predictors {
                let coverage = switch name {
                case "CLup": comparison.rangeCoverage.map { String(format: "%.0f %%", $0 * 100) } ?? "—"
                case "oracle": comparison.oracleCoverage.map { String(format: "%.0f %%", $0 * 100) } ?? "—"
                default: ""
                }
                lines.append(row([name == "CLup" ? label : "", name, String(errors.predictions), number(errors.meanAbsolute),
                                  number(errors.p50Absolute), number(errors.p90Absolute), number(errors.bias), coverage]))
            }
            if let ratio = comparison.clupOverOracle {
                lines.append(row(["", "CLup/oracle", "", String(format: "%.2f", ratio), "", "", "", ""]))
            }
        }
        lines.append("two-hour rule: \(twoHourRule.refusals) refused of \(twoHourRule.lineUps) line-ups, "
            + "\(twoHourRule.wrongRefusals) wrongly (\(String(format: "%.1f", twoHourRule.wrongRefusalShare * 100)) %), "
            + "\(twoHourRule.wrongAcceptances) accepted waited over 2 h")
        lines.append("visits closed as never scanned out with the customer inside: \(closedWithCustomerInside) of \(entered)")
        return lines.joined(separator: "\n")
    }
}
