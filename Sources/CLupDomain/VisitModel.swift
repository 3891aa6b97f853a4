import Foundation

/// What a store's history says about its customers, for the wait estimate: how long visits
/// really take against what was declared (the ratio, and how much one visit varies around it),
/// how often a called ticket never comes, and how long an at-hand customer takes from the call
/// to the door. Measured in the database as visits end (`storeLoad`). The visits' ratio and
/// spread, and the rate of visits never scanned out, are learned from a store's first visit,
/// shrunk towards what a typical store shows (`prior…`) until its own visits outweigh that; the
/// rest once there are `minimumSamples` of them.
///
/// What the estimate assumes with it (docs/accuracy.md), once measured:
/// - a visit lasts declared × `ratio` × a log-normal factor of spread `spread` (mean 1);
/// - a customer inside who has stayed `e` so far leaves after `E[S | S > e]`, the mean of a
///   visit that has already lasted that long (so someone past their expected exit is not
///   assumed to leave this instant), and at the latest when `VisitModel.ghostAfter` closes the
///   visit of someone who left without scanning out;
/// - a visit is left unscanned with probability `unscannedRate`, and then holds its places
///   until that closing; someone inside long past their expected exit is more and more likely
///   to be such a visit;
/// - a called ticket comes with probability 1 − `noShowRate`; one that does not frees its
///   places when its grace period ends. Places are counted at their expected occupancy.
public struct VisitModel: Sendable, Hashable {
    /// Actual ÷ declared visit length (`ResidenceRatio.value`).
    public var ratio: Double
    /// The declared seconds `ratio` was measured over, its prior's included (0: not known):
    /// what the visits still in progress are weighed against (`withVisitsInProgress`).
    public var ratioWeight: Double = 0
    /// Standard deviation of ln(actual ÷ declared) over measured visits.
    public var spread: Double
    /// Called tickets that expired unused, of those that ended.
    public var noShowRate: Double
    /// Visits never scanned out (closed by `QueueCaller` at `ghostAfter`), of those that ended.
    public var unscannedRate: Double
    /// Mean time from the call to the entry scan, for tickets called where they were (at the
    /// kiosk, or with no journey) that came.
    public var callToDoor: TimeInterval
    /// The store's mean visit, as measured (how fast places free, for the ranges).
    public var meanVisit: TimeInterval
    /// How far real entries fell from the entries expected when tickets were made, once
    /// measured: the ranges are then drawn from it.
    public var entryError: EntryError?

    /// How far a store's entered line-ups fell from the entry expected when their tickets were
    /// taken: the mean (bias) and standard deviation (spread) of `entryError(expected:real:)`.
    public struct EntryError: Sendable, Hashable {
        public var bias: Double
        public var spread: Double

        public init(bias: Double, spread: Double) {
            self.bias = bias
            self.spread = spread
        }
    }

    /// Without a store's measurements (`VisitModel()`, as the estimate's own tests use it), visits
    /// last exactly as declared × ratio and reach the door at once: the plain simulation of exits.
    public static let defaultSpread = 0.0
    public static let defaultCallToDoor: TimeInterval = 0
    /// Calls and entries needed before the no-show rate, the time to the door and the mean
    /// visit replace the defaults.
    public static let minimumSamples = 20
    /// What a store's first visits are taken to be like until its own say otherwise: visits as
    /// long as declared (ratio 1) and varying by 0.35 around that (as in a typical store), both
    /// weighed as `priorVisits` visits; and 2 % never scanned out, weighed as
    /// `priorUnscannedVisits` (a rate of a few in a hundred needs more visits to show). With
    /// n visits measured, each value is (n × measured + weight × prior) ÷ (n + weight).
    public static let priorSpread = 0.35
    public static let priorVisits = 10.0
    public static let priorUnscannedRate = 0.02
    public static let priorUnscannedVisits = 50.0
    /// A store's model before it has measured anything: the priors alone, as a new store's
    /// empty sums give it (the board shares one copy among all such stores).
    public static let newStore = VisitModel(ratio: 1, spread: priorSpread, unscannedRate: priorUnscannedRate)

    public init(ratio: Double = 1, spread: Double = defaultSpread, noShowRate: Double = 0, unscannedRate: Double = 0,
                callToDoor: TimeInterval = defaultCallToDoor, meanVisit: TimeInterval = defaultMeanVisit) {
        self.ratio = ratio
        self.spread = spread
        self.noShowRate = noShowRate
        self.unscannedRate = unscannedRate
        self.callToDoor = callToDoor
        self.meanVisit = meanVisit
    }

    /// Half an hour, as `StoreStatus.typicalVisit`, until visits are measured.
    public static let defaultMeanVisit: TimeInterval = 30 * 60

    public static let standard = VisitModel()

    /// The model from a store's measured sums (each used once it has `minimumSamples`).
    /// `visits` counts the visits in `declaredSeconds` and `actualSeconds`; `loggedVisits`
    /// those in the log sums, which began to be kept later (v15), so an older store has fewer;
    /// `unscannedVisits` the visits closed unscanned and `countedVisits` the measured ones since
    /// those began to be counted (v16).
    public init(visits: Int, declaredSeconds: Double, actualSeconds: Double, loggedVisits: Int, logRatioSum: Double,
                logRatioSquares: Double, calls: Int, noShows: Int, atHandEntries: Int, callToDoorSeconds: Double,
                unscannedVisits: Int = 0, countedVisits: Int = 0) {
        self.init()
        ratio = ResidenceRatio(visits: visits, declaredSeconds: declaredSeconds, actualSeconds: actualSeconds).value
        ratioWeight = visits > 0 ? declaredSeconds * (1 + Self.priorVisits / Double(visits)) : 0
        if visits >= Self.minimumSamples {
            meanVisit = actualSeconds / Double(visits)
        }
        let logged = Double(loggedVisits)
        let variance = logged > 0 ? max(0, logRatioSquares / logged - pow(logRatioSum / logged, 2)) : 0
        let shrunk = (logged * variance + Self.priorVisits * Self.priorSpread * Self.priorSpread) / (logged + Self.priorVisits)
        spread = min(1.2, shrunk.squareRoot())
        if calls >= Self.minimumSamples {
            noShowRate = min(0.9, Double(noShows) / Double(calls))
        }
        let ended = unscannedVisits + countedVisits
        unscannedRate = min(0.5, (Double(unscannedVisits) + Self.priorUnscannedRate * Self.priorUnscannedVisits)
            / (Double(ended) + Self.priorUnscannedVisits))
        if atHandEntries >= Self.minimumSamples {
            callToDoor = min(30 * 60, max(0, callToDoorSeconds / Double(atHandEntries)))
        }
    }

    /// The model with the visits still in progress counted in its ratio.
    ///
    /// The ratio is measured over visits that have ended; on a store's first day, and early in
    /// any day that is much of its history, those are the short ones, and the long ones are
    /// still inside. Each party inside since `since` counts as a visit at least as long as it
    /// has lasted: its expected length given that (`E[S | S > elapsed]`, as `expectedExit`
    /// takes it), weighed by the chance it will be scanned out, against the declared seconds
    /// the ratio was measured over (one round of the EM algorithm for the mean of censored
    /// visits). A store with a long history barely moves.
    public func withVisitsInProgress(_ visits: some Sequence<(since: Date, residence: TimeInterval)>, now: Date)
        -> VisitModel
    {
        guard ratioWeight > 0 else { return self }
        var actual = ratio * ratioWeight
        var declared = ratioWeight
        for visit in visits {
            let elapsed = now.timeIntervalSince(visit.since)
            guard elapsed > 0, visit.residence > 0 else { continue }
            let (length, weight) = expectedLength(elapsed: elapsed, residence: visit.residence)
            actual += weight * length
            declared += weight * visit.residence
        }
        guard declared > ratioWeight else { return self }
        var model = self
        model.ratio = min(ResidenceRatio.bounds.upperBound, max(ResidenceRatio.bounds.lowerBound, actual / declared))
        return model
    }

    /// A visit's expected length given that it has lasted `elapsed`, if it will be scanned out,
    /// and the chance it will be (a visit past its closing counts for nothing).
    func expectedLength(elapsed: TimeInterval, residence: TimeInterval) -> (length: Double, scanned: Double) {
        let mean = stay(residence)
        guard elapsed < ghostAfter(expected: mean) else { return (0, 0) }
        let lasting = lasting(elapsed: elapsed, mean: mean)
        return (lasting.length ?? elapsed, 1 - unscannedProbability(survival: lasting.survival))
    }

    /// For a visit of expected length `mean` still open after `elapsed` (both over 0): the
    /// chance a visit to be scanned out lasts that long, P(S > elapsed), and its expected length
    /// given that, E[S | S > elapsed] — nil far in the tail, where that is the ratio of two tiny
    /// numbers and unstable.
    private func lasting(elapsed: TimeInterval, mean: TimeInterval) -> (survival: Double, length: TimeInterval?) {
        let sigma = spread
        // Visits that do not vary: the declared end, or now for someone past it.
        guard sigma >= 0.01 else { return (elapsed < mean ? 1 : 0, max(mean, elapsed)) }
        let mu = log(mean) - sigma * sigma / 2
        let z = (log(elapsed) - mu) / sigma
        let survival = Self.normalCDF(-z)
        return (survival, survival > 1e-9 ? max(elapsed, mean * Self.normalCDF(sigma - z) / survival) : nil)
    }

    /// A visit still open this long after its expected length (`expected`) is taken to have
    /// left without scanning out, and is closed (`QueueCaller`): past the 99.9th percentile of
    /// a log-normal visit of the store's spread, and at least three times the expected length,
    /// plus half an hour. Three times is that percentile for a spread of about 0.375 (a typical
    /// store's is 0.35); a store whose visits vary more (0.58: five times) would otherwise
    /// close about one visit in a hundred with its customer still inside, and give their
    /// places away with the store full.
    public func ghostAfter(expected: TimeInterval) -> TimeInterval {
        max(3, exp(Self.ghostQuantile * spread - spread * spread / 2)) * expected + 30 * 60
    }

    /// The normal quantile of 99.9 %.
    static let ghostQuantile = 3.09

    /// The expected length of a visit declared as `residence`.
    public func stay(_ residence: TimeInterval) -> TimeInterval {
        residence * ratio
    }

    /// When a party inside since `since`, declared `residence`, is expected to leave, seen at
    /// `now`, as far as its places go: a visit that will be scanned out leaves after
    /// `E[S | S > elapsed]` for a log-normal S of mean `stay(residence)`; one left unscanned holds
    /// its places until it is closed at `ghostAfter`. The longer a visit has lasted, the likelier
    /// it is the second kind (Bayes, from `unscannedRate` and the chance a real visit lasts
    /// that long), and the later its expected end.
    public func expectedExit(since: Date, residence: TimeInterval, now: Date) -> Date {
        let mean = stay(residence)
        let elapsed = now.timeIntervalSince(since)
        let ghostAfter = ghostAfter(expected: mean)
        guard elapsed > 0, mean > 0 else { return since + expectedVisitHold(mean) }
        guard elapsed < ghostAfter else { return now }
        let lasting = lasting(elapsed: elapsed, mean: mean)
        // Far in the tail, a visit that long is expected to end within a few minutes, well
        // before the ghost bound anyway.
        let scanned = lasting.length ?? elapsed + 5 * 60
        let unscanned = unscannedProbability(survival: lasting.survival)
        return since + min(ghostAfter, (1 - unscanned) * scanned + unscanned * ghostAfter)
    }

    /// The chance a visit still open is one that will never be scanned out, when a scanned-out
    /// visit would still be open with probability `survival`.
    func unscannedProbability(survival: Double) -> Double {
        guard unscannedRate > 0 else { return 0 }
        return unscannedRate / (unscannedRate + (1 - unscannedRate) * survival)
    }

    /// How long a visit of expected length `stay` holds its places on average: its length, or
    /// until it is closed when it is never scanned out.
    func expectedVisitHold(_ stay: TimeInterval) -> TimeInterval {
        (1 - unscannedRate) * stay + unscannedRate * ghostAfter(expected: stay)
    }

    /// The places a party holds from its entry, counted at their expected occupancy: a party
    /// that comes holds them for its stay, or, if it will never scan out (`unscanned`), until
    /// its visit is closed; one that never comes (`noShowRate`) until its call's grace ends,
    /// about `grace` after it was expected. `toDoor`: how long it has yet to reach the door.
    ///
    /// Whether a party will scan out is not averaged into its hold: a visit left unscanned
    /// frees its places only hours later, past the waits the estimate is for, so a hold a
    /// little longer for everyone would free places too late in the first hour and too early
    /// after. The queue's simulation picks its own share of such parties instead.
    public func expectedHold(stay: TimeInterval, grace: TimeInterval, toDoor: TimeInterval = 0,
                             unscanned: Bool = false) -> TimeInterval {
        let visit = unscanned ? ghostAfter(expected: stay) : stay
        return (1 - noShowRate) * (toDoor + visit) + noShowRate * grace
    }

    /// How much earlier than one after another at their means varied visits free a place, in
    /// the long run: a place's n-th exit is expected at the sum of n means, but the count of
    /// exits by a time runs ahead of that by half the visits' squared coefficient of variation
    /// (the renewal function's second term, t/μ + (c² − 1)/2, against t/μ − 1/2 for visits
    /// that do not vary). The queue's simulation takes it off the first visit of each place's
    /// run. Nothing until the spread is measured.
    public func renewalLead(stay: TimeInterval) -> TimeInterval {
        (exp(spread * spread) - 1) / 2 * stay
    }

    /// The range a party's real entry falls in about four times in five (the 10th to 90th
    /// percentile), for a party given its places at `placed` and expected at the door at
    /// `entry`, seen at `now`, in a pool of `places` (visits last `meanVisit` on average).
    ///
    /// Waiting for places means waiting for about k = wait × places ÷ meanStay exits. With
    /// many places, exits come close to a Poisson stream, so the k-th comes after a time whose
    /// relative spread is 1/√k; over longer waits the visits of those who enter meanwhile make
    /// exits more regular, as regular as visits are (their coefficient of variation, from
    /// `spread`), and the spread shrinks towards that. The way to the door adds its own: up to
    /// a tenth earlier and a fifth later than the travel time, and a minute either side.
    /// `rangeScale` widens the whole for what the model leaves out (cancellations ahead, late
    /// customers, bookings not yet made); `clup simulate` measures how often real entries fall
    /// inside.
    ///
    /// Once the store has measured its own errors (`entryError`), the range is drawn from them
    /// instead: the bias ± `rangeZ` spreads, each in minutes over √(wait + 10 min). `issuedAt`
    /// is when the ticket was taken (nil, or later than `now`: a newcomer's wait, or not known).
    public func entryRange(now: Date, placed: Date, entry: Date, places: Int, issuedAt: Date? = nil)
        -> ClosedRange<Date>
    {
        if let entryError {
            // Measured: the store's own errors, in minutes over √(expected wait + 10 min),
            // scaled back to this wait. The bias is of estimates made when tickets were taken;
            // a ticket that has waited is estimated again from the queue as it now is, so it
            // carries the bias only in the share of its wait still ahead.
            let wait = max(0, entry.timeIntervalSince(now))
            let waited = issuedAt.map { max(0, now.timeIntervalSince($0)) } ?? 0
            let ahead = wait + waited > 0 ? wait / (wait + waited) : 1
            let scale = Self.entryErrorScale(expectedWait: wait) * 60
            let low = wait + (entryError.bias * ahead - Self.rangeZ * entryError.spread) * scale
            let high = wait + (entryError.bias * ahead + Self.rangeZ * entryError.spread) * scale
            return (now + max(0, low))...(now + max(high, low + 60, 60))
        }
        let meanStay = meanVisit
        let queueWait = max(0, placed.timeIntervalSince(now))
        let toDoor = max(0, entry.timeIntervalSince(max(placed, now)))
        var low = queueWait
        var high = queueWait
        if queueWait > 0, places > 0, meanStay > 0 {
            let exits = max(1, queueWait * Double(places) / meanStay)
            let variation = exp(spread * spread) - 1  // squared coefficient of variation
            let regularity = variation + (1 - variation) * meanStay / (meanStay + queueWait)
            let relative = Self.rangeScale * max(0, regularity).squareRoot() / exits.squareRoot()
            low = queueWait * exp(-Self.z80 * relative)
            high = queueWait * exp(Self.z80 * relative)
        }
        low += 0.9 * toDoor - 60
        high += 1.2 * toDoor + 60
        return (now + max(0, low))...(now + max(high, low, 60))
    }

    /// The error of one entry, as `VisitAccounting` measures it and the ranges use it: minutes
    /// late (negative: early) over √(expected wait in minutes + 10). Waiting for places is
    /// waiting for k exits, and the spread of the k-th grows as √k, so as the square root of
    /// the wait; the 10 minutes keep a wait's last minutes, where what is left is a few exits
    /// and the way to the door, from being held to a point.
    public static func entryError(expected: TimeInterval, real: TimeInterval) -> Double {
        (real - expected) / 60 / entryErrorScale(expectedWait: expected)
    }

    /// √(wait in minutes + 10): what a wait's error is divided by to be measured.
    public static func entryErrorScale(expectedWait: TimeInterval) -> Double {
        ((max(0, expectedWait) + errorOffset) / 60).squareRoot()
    }

    /// Added to waits before their errors are scaled (`entryError`).
    public static let errorOffset: TimeInterval = 10 * 60
    /// How many spreads either side of the bias a measured range reaches. A normal's 10th to
    /// 90th percentile is ±1.28; the errors have heavier tails than a normal's, and those
    /// measured are of tickets that entered, which lag the day. 1.55 brings the tuning half of
    /// the generated days (docs/accuracy.md) to about 82 % of entries in range, at issue and
    /// while waiting alike; 1.4, chosen before the visits in progress were counted in the ratio
    /// (`withVisitsInProgress`), then left them at 75 % and 78 %. A smaller reach for tickets
    /// that have waited (down to 1.3 at the door) moved the days in 75–85 % by one or two.
    static let rangeZ = 1.55
    /// The normal quantile of 90 %: a range from the 10th to the 90th percentile.
    static let z80 = 1.2816
    /// How much wider than the exits alone the range is drawn (see `entryRange`).
    public static let rangeScale = 1.0

    /// The standard normal's distribution function, Φ(x).
    public static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.squareRoot())
    }
}
