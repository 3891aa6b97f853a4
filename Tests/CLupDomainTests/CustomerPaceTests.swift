import Foundation
import Testing

@testable import CLupDomain

/// A customer's own pace at a store (`CustomerPace`).
@Suite("Customer pace")
struct CustomerPaceTests {
    let half = TimeInterval(30 * 60)

    func visits(_ pairs: [(declared: Double, actual: Double)]) -> [CustomerPace.Visit] {
        pairs.map { CustomerPace.Visit(declared: $0.declared * 60, actual: $0.actual * 60) }
    }

    @Test("someone new, or a store with no visits measured, is taken at the store's ratio")
    func noHistory() {
        #expect(CustomerPace.factor(declared: half, visits: [], storeRatio: 1.3) == 1)
        #expect(CustomerPace.factor(declared: half, visits: visits([(30, 60)]), storeRatio: 0) == 1)
    }

    @Test("a customer's own ratio against the store's counts for n ÷ (n + 4) of its log")
    func shrunkTowardsTheStore() {
        // Twice what they declare, at a store where visits last what is declared.
        let one = CustomerPace.factor(declared: half, visits: visits([(30, 60)]), storeRatio: 1)
        #expect(abs(one - exp(log(2.0) / 5)) < 1e-9)
        let four = CustomerPace.factor(declared: half, visits: visits(Array(repeating: (30, 60), count: 4)), storeRatio: 1)
        #expect(abs(four - 2.0.squareRoot()) < 1e-9)
        // The same customer at a store where everyone stays twice as long is no slower than the rest.
        let slowStore = CustomerPace.factor(declared: half, visits: visits(Array(repeating: (30, 60), count: 4)), storeRatio: 2)
        #expect(abs(slowStore - 1) < 1e-9)
        // Sums, not a mean of ratios: a long visit declared long weighs more than a short one.
        let mixed = CustomerPace.factor(declared: half, visits: visits([(15, 45), (60, 60), (60, 60)]), storeRatio: 1)
        #expect(abs(mixed - exp(3.0 / 7 * log(165.0 / 135))) < 1e-9)
        // Quicker than declared: below one.
        #expect(CustomerPace.factor(declared: half, visits: visits([(60, 20), (60, 25)]), storeRatio: 1) < 1)
    }

    @Test("a few odd visits move the pace at most threefold either way")
    func bounded() {
        let slow = CustomerPace.factor(declared: half, visits: visits(Array(repeating: (15, 180), count: 15)), storeRatio: 1)
        let quick = CustomerPace.factor(declared: 3 * half, visits: visits(Array(repeating: (180, 1), count: 15)), storeRatio: 1)
        #expect(slow == 3 && abs(quick - 1.0 / 3) < 1e-12)
    }

    @Test("declaring one's usual length (the median of the same visits) is taken at its word")
    func usualIsMeasured() {
        // They declared 30 and stayed 45: their usual is 45 min. Declaring it, the visit is
        // expected to last 45 min, not 45 × 1.5, whatever the store's ratio.
        let history = visits(Array(repeating: (30, 45), count: 3))
        let usual = CustomerPace.factor(declared: 45 * 60, visits: history, storeRatio: 1.25)
        #expect(abs(usual * 1.25 - 1) < 1e-9)
        // Declaring 30 again, their history applies.
        let again = CustomerPace.factor(declared: half, visits: history, storeRatio: 1)
        #expect(abs(again - exp(3.0 / 7 * log(1.5))) < 1e-9)
    }
}
