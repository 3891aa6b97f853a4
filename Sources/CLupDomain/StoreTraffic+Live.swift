import Foundation

/// A reservation as the wait estimate sees it: the live ones (queued, called, inside) and
/// bookings whose slot is near.
public struct LiveReservation: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        case waiting
        case called(at: Date)
        case inside(since: Date)
        case booked(slotStart: Date)

        public var isCalled: Bool {
            if case .called = self { true } else { false }
        }
    }

    public var id: ReservationID
    /// Its place in the queue (`QueueKey`): its id, or the ticket a priority ticket was placed before.
    public var position: ReservationID
    public var residence: TimeInterval
    /// How long the customer needs to reach the store (0: at hand, as a walk-in is).
    public var travel: TimeInterval

    // A store's board holds one of these for every live ticket, and an exit at 10,000 waiting
    // copies and shifts that array, and a standing reads it through: the rest is stored packed
    // (72 bytes a ticket, from 112), behind the same properties. Times as seconds since the
    // reference date, `Self.none` for none; counts as 32 bits.
    private var stateSeconds: Double
    private var leftAtSeconds: Double
    private var issuedAtSeconds: Double
    private var storedPeople: Int32
    private var storedNumber: Int32
    private var storedDay: Int32
    private var stateKind: StateKind
    /// A ticket taken at the kiosk: it draws on the walk-in share of the capacity.
    public var walkIn: Bool
    /// A priority ticket (`PriorityLane`).
    public var priority: Bool

    private enum StateKind: UInt8, Sendable, Hashable {
        case waiting, called, inside, booked
    }

    private static let none = -Double.infinity

    public var state: State {
        // Built for every ticket wherever a live list is gone through (the queue's plan, at
        // every write, went through 2,000 called tickets in the benchmark calling it).
        @inline(__always) get {
            let time = Date(timeIntervalSinceReferenceDate: stateSeconds)
            return switch stateKind {
            case .waiting: .waiting
            case .called: .called(at: time)
            case .inside: .inside(since: time)
            case .booked: .booked(slotStart: time)
            }
        }
        set {
            switch newValue {
            case .waiting: (stateKind, stateSeconds) = (.waiting, 0)
            case .called(let at): (stateKind, stateSeconds) = (.called, at.timeIntervalSinceReferenceDate)
            case .inside(let since): (stateKind, stateSeconds) = (.inside, since.timeIntervalSinceReferenceDate)
            case .booked(let start): (stateKind, stateSeconds) = (.booked, start.timeIntervalSinceReferenceDate)
            }
        }
    }

    public var people: Int {
        get { Int(storedPeople) }
        set { storedPeople = Int32(clamping: newValue) }
    }

    /// The ticket number shown to people (unique per store and `day`).
    public var number: Int {
        get { Int(storedNumber) }
        set { storedNumber = Int32(clamping: newValue) }
    }

    /// The store-local day the ticket belongs to; a queue never carries over to the next day.
    public var day: Int {
        get { Int(storedDay) }
        set { storedDay = Int32(clamping: newValue) }
    }

    /// When the customer was told to leave for the store, if they were.
    public var leftAt: Date? {
        get { Self.date(leftAtSeconds) }
        set { leftAtSeconds = Self.seconds(newValue) }
    }

    /// When the ticket was taken (nil: not known). How long a ticket has waited decides how much
    /// of the store's measured bias its range carries (`VisitModel.entryRange`).
    public var issuedAt: Date? {
        get { Self.date(issuedAtSeconds) }
        set { issuedAtSeconds = Self.seconds(newValue) }
    }

    private static func date(_ seconds: Double) -> Date? {
        seconds == none ? nil : Date(timeIntervalSinceReferenceDate: seconds)
    }

    private static func seconds(_ date: Date?) -> Double {
        date?.timeIntervalSinceReferenceDate ?? none
    }

    public init(id: ReservationID, state: State, people: Int, residence: TimeInterval, walkIn: Bool = false, number: Int = 0,
                day: Int = 0, travel: TimeInterval = 0, leftAt: Date? = nil, priority: Bool = false,
                position: ReservationID? = nil, issuedAt: Date? = nil)
    {
        self.id = id
        self.position = position ?? id
        self.residence = residence
        self.travel = travel
        stateSeconds = 0
        leftAtSeconds = Self.seconds(leftAt)
        issuedAtSeconds = Self.seconds(issuedAt)
        storedPeople = Int32(clamping: people)
        storedNumber = Int32(clamping: number)
        storedDay = Int32(clamping: day)
        stateKind = .waiting
        self.walkIn = walkIn
        self.priority = priority
        self.state = state
    }

    /// Where the ticket stands in its queue.
    public var queueKey: QueueKey { QueueKey(position: position, priority: priority, id: id) }

    /// A booking not yet used: kept with the bookings, by slot, rather than in the queue.
    public var isBooked: Bool { stateKind == .booked }

    /// A ticket waiting in the queue, neither called nor let in.
    public var isWaiting: Bool { stateKind == .waiting }

    public var pool: Pool { walkIn ? .walkIn : .online }

    /// The earliest time the customer can be at the door, as seen at `now`: a travel time after
    /// they were told to leave, or after now if they have not been yet. Nil: at hand.
    @inline(__always)
    public func arrival(now: Date) -> Date? {
        travel > 0 ? (leftAt ?? now) + travel : nil
    }

    /// The ticket as a party of the queue, as seen at `now`.
    @inline(__always)
    public func queued(now: Date) -> QueuedParty {
        QueuedParty(people: people, residence: residence, arrival: arrival(now: now), issuedAt: issuedAt)
    }
}

/// The two shares of a store's capacity (D4, R22): the places kept for walk-ins, who take a
/// ticket at the kiosk, and the rest, for customers who line up or book online. Each queue is
/// called, and its wait estimated, against its own share; the door only checks the capacity.
public enum Pool: Sendable, Hashable, CaseIterable {
    case online
    case walkIn

    public func places(_ settings: StoreSettings) -> Int {
        switch self {
        case .online: settings.onlinePlaces
        case .walkIn: settings.walkInPlaces
        }
    }
}

/// What a store's history says about how long visits really take: actual ÷ declared
/// residence time, from the first visit, shrunk towards 1 while there are few (`value`).
public struct ResidenceRatio: Sendable, Hashable {
    public var visits: Int
    public var declaredSeconds: Double
    public var actualSeconds: Double

    /// However odd the history, a visit is assumed to take between half and twice what was said.
    public static let bounds: ClosedRange<Double> = 0.5...2

    public init(visits: Int = 0, declaredSeconds: Double = 0, actualSeconds: Double = 0) {
        self.visits = visits
        self.declaredSeconds = declaredSeconds
        self.actualSeconds = actualSeconds
    }

    /// Actual ÷ declared, from the first visit, shrunk towards 1 as if `VisitModel.priorVisits`
    /// more visits of the store's mean declared length had lasted just that long.
    public var value: Double {
        guard visits > 0, declaredSeconds > 0 else { return 1 }
        let prior = VisitModel.priorVisits * declaredSeconds / Double(visits)
        return min(Self.bounds.upperBound, max(Self.bounds.lowerBound, (actualSeconds + prior) / (declaredSeconds + prior)))
    }
}

extension StoreTraffic {
    /// How far ahead a booking is counted as due: its places are held from now when its entry
    /// window opens within this time.
    public static let bookingLookahead: TimeInterval = 30 * 60
    /// Bookings whose places will be held within this time count in the estimate: a wait is
    /// at most two hours (`LineUpPolicy.longestWait`), and a travel time may come on top.
    public static let holdHorizon: TimeInterval = 3 * 3600

    /// When a booking of the slot starting at `slotStart` begins to hold its places: its entry
    /// window's opening, less `bookingLookahead`.
    public static func holdStart(slotStart: Date, settings: StoreSettings) -> Date {
        slotStart - Double(settings.entryBeforeMinutes) * 60 - bookingLookahead
    }

    /// Whether a booking of the slot starting at `slotStart` holds its places at `now`: its hold
    /// has begun and its entry window has not closed. The estimate, the queue's calls and the
    /// line-up decision count held places by this one rule.
    public static func bookingHolds(slotStart: Date, settings: StoreSettings, now: Date) -> Bool {
        slotStart + Double(settings.entryAfterMinutes) * 60 >= now && holdStart(slotStart: slotStart, settings: settings) <= now
    }

    /// The store's traffic at `now` from its live reservations (queue order = `live` order):
    /// people inside leave at entry + residence × ratio; called tickets are on their way and
    /// hold their places (without counting as inside); bookings whose entry window is open or opens within
    /// `bookingLookahead`, and has not closed, hold theirs until the visit's expected end.
    public init(live: some Sequence<LiveReservation>, settings: StoreSettings, model: VisitModel, now: Date) {
        self.init()
        for reservation in live { add(reservation, settings: settings, model: model, now: now) }
        anticipateBookings(settings: settings, model: model, now: now)
        orderExits(model: model, now: now)
    }

    /// Spreads the exits of the parties inside as varied visits spread them.
    ///
    /// Each party's own expected exit is the mean of its remaining visit; but the first of
    /// several varied visits to end comes well before the earliest of their means, and the
    /// last well after the latest. The j-th exit is expected about when the parties' remaining
    /// visits, added up as probabilities, make j − ½ exits: the mean of their distribution
    /// functions is inverted on a grid of times, and the j-th time goes to the party with the
    /// j-th expected exit. A visit that may never be scanned out ends only when it is closed, at
    /// its ghost bound, with the chance `VisitModel.unscannedProbability` gives it. Only with a
    /// measured spread, and at least two parties inside.
    public mutating func orderExits(model: VisitModel, now: Date) {
        let sigma = model.spread
        guard sigma >= 0.01, insideVisits.count >= 2, insideVisits.count == inside.count else { return }
        // Each remaining visit's distribution function, given what has been stayed already,
        // added up over the parties at each time of a grid denser near now, where the first
        // exits are. Plain loops over flat arrays: this runs whenever a standing is computed.
        // Visits declared alike that began within the same second share one function, counted
        // as many times as there are such visits (its time their earliest): a second is
        // nothing beside a visit's spread, and a door letting in a crowd (hundreds inside
        // within a minute) then costs a few functions, not one per party.
        var groups: [Visit: Int] = [:]
        var members: [Visit] = []
        var weights: [Double] = []
        for visit in insideVisits {
            let key = Visit(since: Date(timeIntervalSinceReferenceDate: visit.since.timeIntervalSinceReferenceDate
                                        .rounded(.down)), residence: visit.residence)
            if let group = groups[key] {
                weights[group] += 1
                members[group].since = min(members[group].since, visit.since)
            } else {
                groups[key] = members.count
                members.append(visit)
                weights.append(1)
            }
        }
        let count = members.count
        var elapsed = [Double](repeating: 0, count: count)
        var mus = [Double](repeating: 0, count: count)
        var survived = [Double](repeating: 1, count: count)
        var scanned = [Double](repeating: 1, count: count)  // the chance it will be scanned out, times the visits
        var ghosts = [Double](repeating: 0, count: count)
        var horizon = 0.0
        let scale = 1 / (sigma * 2.squareRoot())
        for (index, visit) in members.enumerated() {
            let mean = model.stay(visit.residence)
            elapsed[index] = max(0, now.timeIntervalSince(visit.since))
            mus[index] = log(max(mean, 1)) - sigma * sigma / 2
            if elapsed[index] > 0 {
                survived[index] = max(1e-12, 0.5 * erfc((log(elapsed[index]) - mus[index]) * scale))
            }
            scanned[index] = weights[index] * (1 - model.unscannedProbability(survival: survived[index]))
            ghosts[index] = model.ghostAfter(expected: mean)
            horizon = max(horizon, ghosts[index] - elapsed[index])
        }
        guard horizon > 0 else { return }
        func exits(by t: Double) -> Double {
            var total = 0.0
            for index in 0..<count {
                let end = elapsed[index] + t
                if end >= ghosts[index] {
                    total += weights[index]
                } else {
                    let survives = UpperTail.value((log(max(end, 1)) - mus[index]) * scale)
                    total += scanned[index] * max(0, 1 - survives / survived[index])
                }
            }
            return total
        }
        let steps = 20
        var times = [0.0]
        var counts = [0.0]
        times.reserveCapacity(steps + 1)
        counts.reserveCapacity(steps + 1)
        for step in 1...steps {
            let fraction = Double(step) / Double(steps)
            let t = horizon * fraction * fraction
            let total = exits(by: t)
            // Where more than one exit falls between two times of the grid (visits that vary
            // little end close together), the interval is cut finer: a straight line across it
            // would put the first of them minutes early.
            if total - counts[counts.count - 1] > 1 {
                let start = times[times.count - 1]
                let parts = 8
                for part in 1..<parts {
                    let between = start + (t - start) * Double(part) / Double(parts)
                    times.append(between)
                    counts.append(exits(by: between))
                }
            }
            times.append(t)
            counts.append(total)
        }
        let last = times.count - 1
        let order = inside.indices.sorted { inside[$0].expectedExit < inside[$1].expectedExit }
        var step = 0
        for (rank, index) in order.enumerated() {
            let target = Double(rank) + 0.5
            while step < last, counts[step + 1] < target { step += 1 }
            guard step < last else { break }
            let (low, high) = (counts[step], counts[step + 1])
            let fraction = high > low ? min(1, max(0, (target - low) / (high - low))) : 0
            inside[index].expectedExit = now + times[step] + fraction * (times[step + 1] - times[step])
        }
    }

    /// Holds for the bookings not made yet that will take places within the horizon.
    ///
    /// Slots less than `SlotCalendar.leadTime` ahead can no longer be booked: their bookings
    /// are final. Slots further ahead are still being booked, and those starting soon after
    /// the lead time will hold places before a ticket waiting now has entered. Each is taken
    /// to end up as booked as the last hour of final slots (people per minute), less what it
    /// already holds; the difference is added as holds, in whole people (what is left over
    /// carries to the next slot), staying the store's mean visit.
    public mutating func anticipateBookings(settings: StoreSettings, model: VisitModel, now: Date) {
        let lead = SlotCalendar.leadTime
        let slot = Double(settings.slotMinutes) * 60
        guard slot > 0 else { return }
        let finalPeople = booked.reduce(0) { total, entry in
            entry.key >= now + lead - 3600 && entry.key < now + lead ? total + entry.value : total
        }
        guard finalPeople > 0 else { return }
        let perSlot = Double(finalPeople) / 3600 * slot
        let before = Double(settings.entryBeforeMinutes) * 60
        let last = now + Self.holdHorizon + before + Self.bookingLookahead
        var start = booked.keys.filter { $0 >= now + lead }.min() ?? (now + lead)
        // Back to the first slot at or after the lead time, on the grid of the slots seen.
        while start - slot >= now + lead { start -= slot }
        var carried = 0.0
        while start < last {
            carried += max(0, perSlot - Double(booked[start] ?? 0))
            let people = Int(carried)
            if people > 0 {
                carried -= Double(people)
                futureHolds.append(FutureHold(people: people, start: Self.holdStart(slotStart: start, settings: settings),
                                              end: start + model.meanVisit))
            }
            start += slot
        }
    }

    /// Counts `reservation` where its state puts it at `now`: a waiting party joins the back of
    /// the queue; a called, inside or due booked one holds its places until its expected exit;
    /// a booking not due yet (or past its window) is left out. Returns whether it was queued.
    @discardableResult
    public mutating func add(_ reservation: LiveReservation, settings: StoreSettings, model: VisitModel, now: Date)
        -> Bool
    {
        let stay = model.stay(reservation.residence)
        switch reservation.state {
        case .waiting:
            queue.append(reservation.queued(now: now))
            return true
        case .called(let at):
            // Not inside yet, but on the way: the place is theirs until they have come and
            // gone, or (a no-show) until the grace period ends.
            let expected = max(max(at, now), reservation.arrival(now: now) ?? (at + model.callToDoor))
            let grace = at + Double(settings.callGraceMinutes) * 60
            let hold = model.expectedHold(stay: stay, grace: max(0, grace.timeIntervalSince(now)),
                                          toDoor: expected.timeIntervalSince(now))
            bookingsDue.append(Occupant(people: reservation.people, expectedExit: now + hold))
        case .inside(let since):
            inside.append(Occupant(people: reservation.people,
                                   expectedExit: model.expectedExit(since: since, residence: reservation.residence, now: now)))
            insideVisits.append(Visit(since: since, residence: reservation.residence))
        case .booked(let slotStart):
            let after = Double(settings.entryAfterMinutes) * 60
            guard slotStart + after >= now else { return false }
            // Comes at its slot and stays, or (a no-show) holds its places until its window closes.
            let leaves = slotStart + model.expectedHold(stay: stay, grace: after)
            let holdStarts = Self.holdStart(slotStart: slotStart, settings: settings)
            booked[slotStart, default: 0] += reservation.people
            if holdStarts <= now {
                bookingsDue.append(Occupant(people: reservation.people, expectedExit: max(leaves, now)))
            } else if holdStarts <= now + Self.holdHorizon {
                futureHolds.append(FutureHold(people: reservation.people, start: holdStarts, end: leaves))
            }
        }
        return false
    }
}

/// The normal distribution's upper tail as `StoreTraffic.orderExits` evaluates it, ½·erfc(x),
/// for every visit inside at each of about a hundred times: from a table of its values and
/// slopes (−e^(−x²)/√π, known exactly) 1/64 apart, joined by cubics: within 10⁻⁹ of `erfc`'s,
/// for less. Beyond the table's right end (a visit far in its tail, a few per cent of the
/// calls) `erfc` itself, so its relative precision holds where the values are tiny; below its
/// left end the tail is 1 to double precision.
enum UpperTail {
    private static let low = -6.0
    private static let high = 3.0
    private static let perUnit = 64.0

    /// Each point's value and its slope times the step, side by side.
    private static let table: [Double] = {
        let count = Int((high - low) * perUnit) + 1
        var table: [Double] = []
        table.reserveCapacity(2 * count)
        for index in 0..<count {
            let x = low + Double(index) / perUnit
            table.append(0.5 * erfc(x))
            table.append(-exp(-x * x) / Double.pi.squareRoot() / perUnit)
        }
        return table
    }()

    @inline(__always)
    static func value(_ x: Double) -> Double {
        guard x < high else { return 0.5 * erfc(x) }
        guard x > low else { return 1 }
        let position = (x - low) * perUnit
        let index = Int(position)
        let t = position - Double(index)
        return table.withUnsafeBufferPointer { table in
            let (y0, m0, y1, m1) = (table[2 * index], table[2 * index + 1], table[2 * index + 2], table[2 * index + 3])
            let t2 = t * t
            let t3 = t2 * t
            return (2 * t3 - 3 * t2 + 1) * y0 + (t3 - 2 * t2 + t) * m0 + (3 * t2 - 2 * t3) * y1 + (t3 - t2) * m1
        }
    }
}

/// Where a queued ticket stands: who is ahead of it and when it is expected to enter.
public struct QueueStanding: Sendable, Equatable {
    public var partiesAhead: Int
    public var peopleAhead: Int
    /// Nil if the party could never enter (larger than the places available).
    public var entry: Date?
    /// The range the real entry falls in four times in five (`VisitModel.entryRange`).
    public var range: ClosedRange<Date>?

    public init(partiesAhead: Int, peopleAhead: Int, entry: Date?, range: ClosedRange<Date>? = nil) {
        self.partiesAhead = partiesAhead
        self.peopleAhead = peopleAhead
        self.entry = entry
        self.range = entry == nil ? nil : range
    }

    /// The standing of waiting reservation `id` among `live` (in queue order), or nil if it is
    /// not waiting. Only the ticket's own pool counts (`estimator` must be that pool's). The
    /// simulation stops at that ticket: those behind cannot delay it.
    public static func of(
        _ id: ReservationID, live: [LiveReservation], settings: StoreSettings, estimator: WaitEstimator, now: Date
    ) -> QueueStanding? {
        guard let ticket = live.first(where: { $0.id == id && $0.state == .waiting }) else { return nil }
        let live = live.filter { $0.pool == ticket.pool }
        let waiting = live.filter { $0.state == .waiting }
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
        let ahead = Set(waiting[..<index].map(\.id))
        var traffic = StoreTraffic(live: live.filter { $0.state != .waiting || ahead.contains($0.id) },
                                   settings: settings, model: estimator.model, now: now)
        traffic.queue.append(waiting[index].queued(now: now))
        var simulation = WaitEstimator.Simulation(estimator: estimator, traffic: traffic, now: now)
        var entry: Date?
        for party in traffic.queue { entry = simulation.enter(party) }
        let range = entry.map {
            estimator.model.entryRange(now: now, placed: simulation.clock, entry: $0, places: estimator.capacity,
                                       issuedAt: waiting[index].issuedAt)
        }
        return QueueStanding(partiesAhead: index, peopleAhead: waiting[..<index].reduce(0) { $0 + $1.people },
                             entry: entry, range: range)
    }
}
