import Foundation

/// What a store's history says about its customers, for the wait estimate: how long visits
/// really take against what was declared (the ratio, and how much one visit varies around it),
/// how often a called ticket never comes, and how long an at-hand customer takes from the call
/// to the door. Measured in the database as visits end (`storeLoad`); until there are enough
/// of them, the defaults below.
///
/// What the estimate assumes with it (README, "How right is the wait"), once measured:
/// - a visit lasts declared × `ratio` × a log-normal factor of spread `spread` (mean 1);
/// - a customer inside who has stayed `e` so far leaves after `E[S | S > e]`, the mean of a
///   visit that has already lasted that long (so someone past their expected exit is not
///   assumed to leave this instant), and at the latest when `VisitModel.ghostAfter` closes the
///   visit of someone who left without scanning out;
/// - a called ticket comes with probability 1 − `noShowRate`; one that does not frees its
///   places when its grace period ends. Places are counted at their expected occupancy.
public struct VisitModel: Sendable, Hashable {
    /// Actual ÷ declared visit length (`ResidenceRatio.value`).
    public var ratio: Double
    /// Standard deviation of ln(actual ÷ declared) over measured visits.
    public var spread: Double
    /// Called tickets that expired unused, of those that ended.
    public var noShowRate: Double
    /// Mean time from the call to the entry scan, for tickets that came.
    public var callToDoor: TimeInterval

    /// Until a store has measured visits, they are taken to last exactly as declared × ratio
    /// and to reach the door at once: the estimate is then the plain simulation of exits.
    public static let defaultSpread = 0.0
    public static let defaultCallToDoor: TimeInterval = 0
    /// Calls and visits needed before the measured values replace the defaults.
    public static let minimumSamples = 20

    public init(ratio: Double = 1, spread: Double = defaultSpread, noShowRate: Double = 0,
                callToDoor: TimeInterval = defaultCallToDoor) {
        self.ratio = ratio
        self.spread = spread
        self.noShowRate = noShowRate
        self.callToDoor = callToDoor
    }

    public static let standard = VisitModel()

    /// The model from a store's measured sums (each used once it has `minimumSamples`).
    public init(visits: Int, declaredSeconds: Double, actualSeconds: Double, logRatioSum: Double,
                logRatioSquares: Double, calls: Int, noShows: Int, callToDoorSeconds: Double) {
        self.init()
        ratio = ResidenceRatio(visits: visits, declaredSeconds: declaredSeconds, actualSeconds: actualSeconds).value
        if visits >= Self.minimumSamples {
            let mean = logRatioSum / Double(visits)
            let variance = max(0, logRatioSquares / Double(visits) - mean * mean)
            spread = min(1.2, max(0.05, variance.squareRoot()))
        }
        if calls >= Self.minimumSamples {
            noShowRate = min(0.9, Double(noShows) / Double(calls))
            let came = calls - noShows
            if came > 0 { callToDoor = min(30 * 60, max(0, callToDoorSeconds / Double(came))) }
        }
    }

    /// A visit still open this long after its expected length (`expected`) is taken to have
    /// left without scanning out, and is closed (`QueueCaller`): three times the expected
    /// length, plus half an hour. For a log-normal visit of spread 0.4 that is past the
    /// 99.9th percentile.
    public static func ghostAfter(expected: TimeInterval) -> TimeInterval {
        3 * expected + 30 * 60
    }

    /// The expected length of a visit declared as `residence`.
    public func stay(_ residence: TimeInterval) -> TimeInterval {
        residence * ratio
    }

    /// When a party inside since `since`, declared `residence`, is expected to leave, seen at
    /// `now`: `since + E[S | S > elapsed]` for a log-normal S of mean `stay(residence)`, never
    /// later than its visit is closed as a ghost.
    public func expectedExit(since: Date, residence: TimeInterval, now: Date) -> Date {
        let mean = stay(residence)
        let elapsed = now.timeIntervalSince(since)
        let ghost = since + Self.ghostAfter(expected: mean)
        guard elapsed > 0, mean > 0 else { return since + mean }
        guard elapsed < Self.ghostAfter(expected: mean) else { return now }
        let sigma = spread
        // Visits that do not vary: the declared end, or now for someone past it.
        guard sigma >= 0.01 else { return max(since + mean, now) }
        let mu = log(mean) - sigma * sigma / 2
        let z = (log(elapsed) - mu) / sigma
        let survival = Self.normalCDF(-z)
        // Far in the tail the ratio of two tiny numbers is unstable; a visit that long is
        // expected to end within a few minutes, well before the ghost bound anyway.
        let conditional = survival > 1e-9 ? mean * Self.normalCDF(sigma - z) / survival : elapsed + 5 * 60
        return min(ghost, since + max(elapsed, conditional))
    }

    /// The places a party holds from its entry, counted at their expected occupancy: a party
    /// that comes holds them for its stay; one that never comes (`noShowRate`) until its call's
    /// grace ends, about `grace` after it was expected.
    public func expectedHold(stay: TimeInterval, grace: TimeInterval) -> TimeInterval {
        (1 - noShowRate) * stay + noShowRate * grace
    }

    static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.squareRoot())
    }
}
