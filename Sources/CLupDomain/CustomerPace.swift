import Foundation

/// A customer's own pace at a store: how their past visits there compare with everyone's, as a
/// factor on what they declare for the next one. Someone who always takes twice what they
/// declare is expected to, once their visits say so; someone new is taken at the store's ratio.
///
/// The estimate multiplies the declared length by it before the store's ratio applies
/// (`VisitModel.stay`), so a party's expected stay is declared × ratio × pace.
///
/// What it assumes: a visit lasts declared × the store's ratio × the customer's own factor ×
/// the visit's own variation, all log-normal. A customer's own ratio over n visits is noisy,
/// so it is shrunk towards the store's as a credibility estimate: its log counts for
/// n ÷ (n + `credibility`).
public enum CustomerPace {
    /// One of the customer's past visits at the store.
    public struct Visit: Sendable, Hashable {
        /// What they declared.
        public var declared: TimeInterval
        /// How long it really lasted, entry to exit scan.
        public var actual: TimeInterval

        public init(declared: TimeInterval, actual: TimeInterval) {
            self.declared = declared
            self.actual = actual
        }
    }

    /// The customer's visits that count for as much as the store's ratio: the variance of one
    /// visit's log ratio over the variance of customers' own factors. Visits vary by about 0.35
    /// (log-normal spread) and customers by about half that, so four: a customer's first visit
    /// moves their pace a fifth of the way to what it showed, their twelfth three quarters.
    public static let credibility = 4.0
    /// The most recent visits read: a customer's habits change.
    public static let visitsRead = 15
    /// The factor is kept within these, whatever a few odd visits say.
    public static let bounds: ClosedRange<Double> = (1 / 3)...3

    /// The factor for a visit declared as `declared`, from the customer's most recent `visits`
    /// at a store whose visits last `storeRatio` × declared. 1 without visits.
    ///
    /// A customer who declares exactly their usual length (the median of the same visits, which
    /// the reservation form offers them) has declared what they measured, not a guess: their
    /// visit is expected to last that, whatever the store's ratio.
    public static func factor(declared: TimeInterval, visits: [Visit], storeRatio: Double) -> Double {
        guard !visits.isEmpty, storeRatio > 0, declared > 0 else { return 1 }
        if let usual = ResidenceTime.fromVisits(visits.map(\.actual)), Double(usual * 60) == declared {
            return clamped(1 / storeRatio)
        }
        let declaredSum = visits.reduce(0) { $0 + max(60, $1.declared) }
        let actualSum = visits.reduce(0) { $0 + max(1, $1.actual) }
        let weight = Double(visits.count) / (Double(visits.count) + credibility)
        return clamped(exp(weight * log(actualSum / declaredSum / storeRatio)))
    }

    private static func clamped(_ factor: Double) -> Double {
        min(bounds.upperBound, max(bounds.lowerBound, factor))
    }
}
