import CLupData
import CLupDomain
import Foundation

/// Replays a scenario's days through CLup's own database code on a simulated clock: line-ups
/// and bookings are made with `reserve`, walk-in tickets with `issueWalkInTicket`, the queue
/// timer's work is `refreshBoard`, `advanceQueues` and `remindBookings` every 5 seconds as in
/// production, and doors are `scan`s. Only the customers are simulated: they come when CLup
/// tells them to (leave now, your turn, the kiosk board), late or not at all as the scenario
/// says, stay as long as they really stay, and sometimes forget to scan out.
///
/// Each waiting ticket's expected entry is read as its page reads it (the board's standing),
/// when it is issued and every 5 minutes while it waits, beside a naive estimate; both are
/// compared with when the customer really entered (`Accuracy`).
public struct Simulator {
    public let scenario: Scenario
    /// Monte Carlo runs of the oracle (`Oracle`) at each prediction; 0: no oracle.
    public var oracleRuns = 0
    /// The first simulated day (a Monday), in the store's zone.
    static let firstDay = Date(timeIntervalSince1970: 1_772_406_000)  // 2026-03-02 00:00 Europe/Rome
    static let zone = TimeZone(identifier: "Europe/Rome")!
    /// The queue timer's period in production.
    static let tick: TimeInterval = 5
    /// Waiting tickets' estimates are read this often.
    static let sampleEvery: TimeInterval = 5 * 60

    /// When a ticket read at `time` is read next: `sampleEvery` later, on the minute, so the
    /// tickets read together share one standing of the store rather than one each (a fifth of
    /// a busy day's run went into working out standings one ticket at a time).
    static func nextSample(after time: Date) -> Date {
        let due = (time + sampleEvery).timeIntervalSince(firstDay)
        return firstDay + (due / 60).rounded(.up) * 60
    }

    public init(scenario: Scenario, oracleRuns: Int = 0) {
        self.scenario = scenario
        self.oracleRuns = oracleRuns
    }

    /// One prediction of a ticket's entry.
    struct Sample {
        var at: Date
        var clup: Date
        var range: ClosedRange<Date>?
        var naive: Date
        /// Whether the range was drawn from the store's measured errors (`VisitModel.entryError`),
        /// not from the exits to wait for.
        var measuredRange = false
        /// The oracle's median entry and range, when it is asked.
        var oracle: Date? = nil
        var oracleRange: ClosedRange<Date>? = nil
    }

    struct Customer {
        enum Kind { case lineUp, booking, walkIn }
        var kind: Kind
        var people: Int
        var declaredMinutes: Int
        var stay: TimeInterval
        /// The customer's own pace, a factor in `stay`.
        var bias: Double
        /// Which of the scenario's regulars this is, once their request is made, and whether
        /// they are still busy with this visit (not yet free to come again).
        var regular: Int?
        var holdsRegular = false
        /// What CLup computes for the trip (0: at hand), and what it really takes.
        var travelMetres: Int?
        var travel: TimeInterval
        var trip: TimeInterval
        var noShow: Bool
        var late: TimeInterval
        var cancels: Bool
        var missesScanOut: Bool
        var slotStart: Date?

        var reservationId: ReservationID?
        var userId: UserID?
        var issuedAt: Date?
        var coming = false
        var enteredAt: Date?
        /// Left the queue (or the booking) without entering.
        var endedAt: Date?
        var samples: [Sample] = []

        var pool: Pool { kind == .walkIn ? .walkIn : .online }
        var inQueue: Bool { issuedAt != nil && enteredAt == nil && endedAt == nil }
    }

    enum Action {
        case request, sample, cancel, confirm, arrive, leave
    }

    struct Event: Comparable {
        var time: Date
        var order: Int
        var action: Action
        var customer: Int

        static func < (lhs: Event, rhs: Event) -> Bool { (lhs.time, lhs.order) < (rhs.time, rhs.order) }
        static func == (lhs: Event, rhs: Event) -> Bool { lhs.time == rhs.time && lhs.order == rhs.order }
    }

    /// What happened, for `Accuracy`.
    public struct Run {
        var customers: [Customer]
        /// Line-ups (online and at the kiosk) refused because the wait was over two hours.
        var longWaitRefusals: [(at: Date, pool: Pool)]
        var otherRefusals: Int
        var bookingsRefused: Int
        /// Visits closed as never scanned out whose customers were still inside.
        var closedWithCustomerInside = 0
        public var seconds: Double
    }

    /// Runs the scenario's days on a scratch database, in named steps: the store is made, the
    /// customers' arrivals drawn and their accounts opened, then the days are played event by
    /// event with the queue timer's ticks between.
    public func run() throws -> Run {
        let started = Date()
        try scenario.validate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-simulate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try AppDatabase.scratch(path: directory.appendingPathComponent("day.sqlite").path)
        let days = try SimulatedDays(self, database: database)
        days.drawArrivals()
        try days.openAccounts()
        try days.play()
        return Run(customers: days.customers, longWaitRefusals: days.longWaitRefusals, otherRefusals: days.otherRefusals,
                   bookingsRefused: days.bookingsRefused, closedWithCustomerInside: days.closedWithCustomerInside,
                   seconds: Date().timeIntervalSince(started))
    }

    /// Bookings further ahead than this are not in the live set yet.
    static let liveReach = AppDatabase.bookingReach

    func makeCustomer(_ kind: Customer.Kind, random: inout SeededRandom) -> Customer {
        let people = random.chance(scenario.twoPeopleShare) ? 2 : 1
        let declared = random.pick(scenario.declaredMinutes)
        let bias = exp(scenario.stay.customerBiasSigma * random.normal())
        let stay = Double(declared) * 60 * scenario.stay.meanFactor * bias * random.logNormalMeanOne(sigma: scenario.stay.sigma)
        var metres: Int?
        var travel: TimeInterval = 0
        if kind == .lineUp, random.chance(scenario.travel.share) {
            // Walking: CLup's own travel time for the distance is the estimate the customer gets.
            let minutes = random.uniform(scenario.travel.minutes)
            metres = Int(minutes * 60 * 4800 / 3600 / 1.3)
            travel = TravelMode.travel(mode: .walking, metres: metres!)
        }
        let trip = travel * random.uniform(scenario.travel.factor)
        return Customer(
            kind: kind, people: people, declaredMinutes: declared, stay: max(60, stay), bias: bias, travelMetres: metres,
            travel: travel, trip: trip, noShow: random.chance(scenario.noShowRate),
            late: random.chance(scenario.lateRate) ? random.uniform(scenario.lateMinutes) * 60 : 0,
            cancels: kind != .walkIn && random.chance(scenario.cancellationRate),
            missesScanOut: random.chance(scenario.missedScanOutRate))
    }
}

/// The people who make a scenario's line-ups and bookings, when they are a known few
/// (`Scenario.regulars`): each keeps their own pace, drawn once, and their account.
struct RegularCustomers {
    private var paces: [Double]
    private var accounts: [UserID?]
    /// Those with nothing active, in no order.
    private var idle: [Int]
    private let sigma: Double
    private var random: SeededRandom

    init(count: Int, seed: UInt64, sigma: Double) {
        // Their own stream, so the paces do not depend on when each is first picked.
        random = SeededRandom(seed: seed ^ 0x5EED_0F_4E6D_1A45)
        self.sigma = sigma
        paces = []
        accounts = []
        idle = []
        for _ in 0..<count { join() }
    }

    func bias(_ regular: Int) -> Double { paces[regular] }
    func account(_ regular: Int) -> UserID? { accounts[regular] }
    mutating func setAccount(_ id: UserID, of regular: Int) { accounts[regular] = id }

    /// One of those with nothing active, at random; someone new joins them if all are busy.
    mutating func pick(random chooser: inout SeededRandom) -> Int {
        if idle.isEmpty { join() }
        let at = Int(chooser.next() % UInt64(idle.count))
        idle.swapAt(at, idle.count - 1)
        return idle.removeLast()
    }

    mutating func release(_ regular: Int) { idle.append(regular) }

    private mutating func join() {
        idle.append(paces.count)
        paces.append(exp(sigma * random.normal()))
        accounts.append(nil)
    }
}

/// A binary min-heap.
struct Heap<Element: Comparable> {
    private var items: [Element] = []

    var isEmpty: Bool { items.isEmpty }
    var peek: Element? { items.first }

    mutating func insert(_ item: Element) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
