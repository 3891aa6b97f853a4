import Foundation

/// A store day to replay: the store, who comes and when, and how people behave. Read from JSON
/// (`Scenarios/*.json`; docs/accuracy.md). Every field but `name`, `store` and
/// `arrivals` has a default, so a scenario says only what makes it what it is.
public struct Scenario: Codable, Sendable {
    public var name: String
    /// The same seed replays the same days.
    public var seed: UInt64
    /// Days replayed one after another: the store's history (how long visits really take)
    /// carries over, as it does in production.
    public var days: Int
    public var store: StoreShape
    /// Arrival rates by time of day; a time outside every window has none.
    public var arrivals: [Arrivals]
    /// Share of parties of two (the rest are one person, R14).
    public var twoPeopleShare: Double
    /// The visit lengths customers declare, with how often each is chosen.
    public var declaredMinutes: [Choice]
    public var stay: Stay
    public var travel: Travel
    /// Share of tickets and bookings whose customer never comes.
    public var noShowRate: Double
    /// Share of customers who reach the door later than they could, and by how much.
    public var lateRate: Double
    public var lateMinutes: Span
    /// Share of line-ups and bookings cancelled before their turn.
    public var cancellationRate: Double
    /// Share of visits never scanned out at the exit.
    public var missedScanOutRate: Double
    /// How many people make the online line-ups and bookings, when they are a known few: each
    /// line-up or booking is one of them, picked at random among those with nothing active,
    /// who keeps their account and their own pace (`stay.customerBiasSigma`) from one visit
    /// to the next. Nil: each is someone new, with a pace of their own drawn afresh.
    public var regulars: Int?

    public struct StoreShape: Codable, Sendable {
        public var capacity: Int
        public var walkInPercent: Int
        /// "08:00" and "20:00", every day.
        public var opens: String
        public var closes: String
        public var slotMinutes: Int
        public var callGraceMinutes: Int

        enum CodingKeys: String, CodingKey { case capacity, walkInPercent, opens, closes, slotMinutes, callGraceMinutes }

        public init(capacity: Int, walkInPercent: Int = 20, opens: String = "08:00", closes: String = "20:00",
                    slotMinutes: Int = 15, callGraceMinutes: Int = 10)
        {
            self.capacity = capacity
            self.walkInPercent = walkInPercent
            self.opens = opens
            self.closes = closes
            self.slotMinutes = slotMinutes
            self.callGraceMinutes = callGraceMinutes
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            capacity = try c.decode(Int.self, forKey: .capacity)
            walkInPercent = try c.decodeIfPresent(Int.self, forKey: .walkInPercent) ?? 20
            opens = try c.decodeIfPresent(String.self, forKey: .opens) ?? "08:00"
            closes = try c.decodeIfPresent(String.self, forKey: .closes) ?? "20:00"
            slotMinutes = try c.decodeIfPresent(Int.self, forKey: .slotMinutes) ?? 15
            callGraceMinutes = try c.decodeIfPresent(Int.self, forKey: .callGraceMinutes) ?? 10
        }
    }

    /// Parties per hour from `from` to `to` ("HH:MM").
    public struct Arrivals: Codable, Sendable {
        public var from: String
        public var to: String
        public var lineUps: Double
        public var bookings: Double
        public var walkIns: Double

        enum CodingKeys: String, CodingKey { case from, to, lineUps, bookings, walkIns }

        public init(from: String, to: String, lineUps: Double, bookings: Double, walkIns: Double) {
            self.from = from
            self.to = to
            self.lineUps = lineUps
            self.bookings = bookings
            self.walkIns = walkIns
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            from = try c.decode(String.self, forKey: .from)
            to = try c.decode(String.self, forKey: .to)
            lineUps = try c.decodeIfPresent(Double.self, forKey: .lineUps) ?? 0
            bookings = try c.decodeIfPresent(Double.self, forKey: .bookings) ?? 0
            walkIns = try c.decodeIfPresent(Double.self, forKey: .walkIns) ?? 0
        }
    }

    public struct Choice: Codable, Sendable {
        public var minutes: Int
        public var weight: Double
    }

    public struct Span: Codable, Sendable {
        public var min: Double
        public var max: Double
    }

    /// How long visits really take: declared × `meanFactor` × the customer's own bias
    /// (log-normal, median 1, spread `customerBiasSigma`) × the visit's own variation
    /// (log-normal, mean 1, spread `sigma`).
    public struct Stay: Codable, Sendable {
        public var meanFactor: Double
        public var sigma: Double
        public var customerBiasSigma: Double
    }

    /// Online line-ups: `share` of them have to travel, `minutes` away; the trip really takes
    /// the estimate × a factor uniform in `factor`.
    public struct Travel: Codable, Sendable {
        public var share: Double
        public var minutes: Span
        public var factor: Span
    }

    /// A scenario made in code (`ScenarioGenerator`); JSON gives the same defaults.
    init(name: String, seed: UInt64 = 1, days: Int = 1, store: StoreShape, arrivals: [Arrivals],
                twoPeopleShare: Double = 0.3, declaredMinutes: [Choice] = Scenario.usualDeclaredMinutes,
                stay: Stay = Stay(meanFactor: 1, sigma: 0.35, customerBiasSigma: 0.15),
                travel: Travel = Travel(share: 0.6, minutes: Span(min: 3, max: 25), factor: Span(min: 0.85, max: 1.2)),
                noShowRate: Double = 0.05, lateRate: Double = 0.1, lateMinutes: Span = Span(min: 1, max: 6),
                cancellationRate: Double = 0.04, missedScanOutRate: Double = 0.02, regulars: Int? = nil)
    {
        self.name = name
        self.seed = seed
        self.days = days
        self.store = store
        self.arrivals = arrivals
        self.twoPeopleShare = twoPeopleShare
        self.declaredMinutes = declaredMinutes
        self.stay = stay
        self.travel = travel
        self.noShowRate = noShowRate
        self.lateRate = lateRate
        self.lateMinutes = lateMinutes
        self.cancellationRate = cancellationRate
        self.missedScanOutRate = missedScanOutRate
        self.regulars = regulars
    }

    /// The visit lengths customers declare when a scenario does not say.
    public static let usualDeclaredMinutes = [Choice(minutes: 15, weight: 0.3), Choice(minutes: 30, weight: 0.45),
                                              Choice(minutes: 45, weight: 0.15), Choice(minutes: 60, weight: 0.1)]

    enum CodingKeys: String, CodingKey {
        case name, seed, days, store, arrivals, twoPeopleShare, declaredMinutes, stay, travel, noShowRate, lateRate,
             lateMinutes, cancellationRate, missedScanOutRate, regulars
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
        days = try c.decodeIfPresent(Int.self, forKey: .days) ?? 1
        store = try c.decode(StoreShape.self, forKey: .store)
        arrivals = try c.decode([Arrivals].self, forKey: .arrivals)
        twoPeopleShare = try c.decodeIfPresent(Double.self, forKey: .twoPeopleShare) ?? 0.3
        declaredMinutes = try c.decodeIfPresent([Choice].self, forKey: .declaredMinutes) ?? Self.usualDeclaredMinutes
        stay = try c.decodeIfPresent(Stay.self, forKey: .stay) ?? Stay(meanFactor: 1, sigma: 0.35, customerBiasSigma: 0.15)
        travel = try c.decodeIfPresent(Travel.self, forKey: .travel)
            ?? Travel(share: 0.6, minutes: Span(min: 3, max: 25), factor: Span(min: 0.85, max: 1.2))
        noShowRate = try c.decodeIfPresent(Double.self, forKey: .noShowRate) ?? 0.05
        lateRate = try c.decodeIfPresent(Double.self, forKey: .lateRate) ?? 0.1
        lateMinutes = try c.decodeIfPresent(Span.self, forKey: .lateMinutes) ?? Span(min: 1, max: 6)
        cancellationRate = try c.decodeIfPresent(Double.self, forKey: .cancellationRate) ?? 0.04
        missedScanOutRate = try c.decodeIfPresent(Double.self, forKey: .missedScanOutRate) ?? 0.02
        regulars = try c.decodeIfPresent(Int.self, forKey: .regulars)
    }

    /// Checks what JSON cannot: ranges, times, rates. A refusal names the field, as the JSON
    /// spells it, and the value it found.
    public func validate() throws(ScenarioError) {
        func fail(_ field: String, _ text: String) -> ScenarioError {
            ScenarioError(message: "\(name): \(field) \(text)")
        }
        func number(_ value: Double) -> String { String(format: "%g", value) }
        guard (1...1000).contains(store.capacity) else {
            throw fail("store.capacity", "must be 1–1000 people (it is \(store.capacity))")
        }
        guard (0...90).contains(store.walkInPercent) else {
            throw fail("store.walkInPercent", "must be 0–90 (it is \(store.walkInPercent))")
        }
        guard let opens = Self.minutes(store.opens) else { throw fail("store.opens", "must be HH:MM (it is \"\(store.opens)\")") }
        guard let closes = Self.minutes(store.closes) else {
            throw fail("store.closes", "must be HH:MM (it is \"\(store.closes)\")")
        }
        guard opens < closes else { throw fail("store.closes", "must come after store.opens (\(store.closes) ≤ \(store.opens))") }
        guard (1...30).contains(days) else { throw fail("days", "must be 1–30 (it is \(days))") }
        if let regulars, !(1...100_000).contains(regulars) {
            throw fail("regulars", "must be 1–100000 (it is \(regulars))")
        }
        for (index, window) in arrivals.enumerated() {
            let field = "arrivals[\(index)]"
            guard let from = Self.minutes(window.from) else { throw fail(field + ".from", "must be HH:MM (it is \"\(window.from)\")") }
            guard let to = Self.minutes(window.to) else { throw fail(field + ".to", "must be HH:MM (it is \"\(window.to)\")") }
            guard from < to else { throw fail(field + ".to", "must come after its from (\(window.to) ≤ \(window.from))") }
            for (name, rate) in [("lineUps", window.lineUps), ("bookings", window.bookings), ("walkIns", window.walkIns)]
            where !(0...2000).contains(rate) {
                throw fail("\(field).\(name)", "must be 0–2000 parties an hour (it is \(number(rate)))")
            }
        }
        let rates = [("twoPeopleShare", twoPeopleShare), ("noShowRate", noShowRate), ("lateRate", lateRate),
                     ("cancellationRate", cancellationRate), ("missedScanOutRate", missedScanOutRate),
                     ("travel.share", travel.share)]
        for (field, rate) in rates where !(0...1).contains(rate) {
            throw fail(field, "must be 0–1 (it is \(number(rate)))")
        }
        guard !declaredMinutes.isEmpty else { throw fail("declaredMinutes", "needs at least one choice") }
        for (index, choice) in declaredMinutes.enumerated() {
            guard (5...180).contains(choice.minutes) else {
                throw fail("declaredMinutes[\(index)].minutes", "must be 5–180 (it is \(choice.minutes))")
            }
            guard choice.weight > 0 else {
                throw fail("declaredMinutes[\(index)].weight", "must be positive (it is \(number(choice.weight)))")
            }
        }
        guard stay.meanFactor > 0 else { throw fail("stay.meanFactor", "must be positive (it is \(number(stay.meanFactor)))") }
        guard stay.sigma >= 0 else { throw fail("stay.sigma", "must not be negative (it is \(number(stay.sigma)))") }
        guard stay.customerBiasSigma >= 0 else {
            throw fail("stay.customerBiasSigma", "must not be negative (it is \(number(stay.customerBiasSigma)))")
        }
        for (field, span) in [("lateMinutes", lateMinutes), ("travel.minutes", travel.minutes), ("travel.factor", travel.factor)] {
            guard span.min >= 0 else { throw fail(field + ".min", "must not be negative (it is \(number(span.min)))") }
            guard span.max >= span.min else {
                throw fail(field + ".max", "must not be below its min (\(number(span.max)) < \(number(span.min)))")
            }
        }
    }

    /// "HH:MM" as minutes after midnight.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
              (0...24).contains(hours), (0..<60).contains(minutes), hours * 60 + minutes <= 1440 else { return nil }
        return hours * 60 + minutes
    }

    /// The mean declared visit, in seconds: what a naive estimate divides by.
    var meanDeclared: TimeInterval {
        let total = declaredMinutes.reduce(0) { $0 + $1.weight }
        return declaredMinutes.reduce(0) { $0 + Double($1.minutes) * 60 * $1.weight } / total
    }
}

public struct ScenarioError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// SplitMix64: small, fast and seeded, so a scenario replays the same way on every machine.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func uniform(_ span: Scenario.Span) -> Double { span.min + (span.max - span.min) * uniform() }

    mutating func chance(_ probability: Double) -> Bool { uniform() < probability }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u = max(uniform(), 1e-12)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * uniform())
    }

    /// Standard normal given that it exceeds `floor`: drawn afresh until it does near the
    /// middle, and from an exponential above `floor` far in the tail, accepted in proportion
    /// to the normal's density there (Robert, 1995), so a draw far out costs a few tries, not
    /// millions.
    mutating func normal(above floor: Double) -> Double {
        if floor < 0.5 {
            while true {
                let z = normal()
                if z > floor { return z }
            }
        }
        let rate = (floor + (floor * floor + 4).squareRoot()) / 2
        while true {
            let z = floor + exponential(rate: rate)
            if uniform() <= exp(-(z - rate) * (z - rate) / 2) { return z }
        }
    }

    /// Log-normal with the given spread and mean 1.
    mutating func logNormalMeanOne(sigma: Double) -> Double { exp(sigma * normal() - sigma * sigma / 2) }

    /// Exponential with the given rate per second.
    mutating func exponential(rate: Double) -> Double { -log(max(uniform(), 1e-12)) / rate }

    mutating func pick(_ choices: [Scenario.Choice]) -> Int {
        let total = choices.reduce(0) { $0 + $1.weight }
        var left = uniform() * total
        for choice in choices {
            left -= choice.weight
            if left < 0 { return choice.minutes }
        }
        return choices[choices.count - 1].minutes
    }
}
