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

    public init(scenario: Scenario) {
        self.scenario = scenario
    }

    /// One prediction of a ticket's entry.
    struct Sample {
        var at: Date
        var clup: Date
        var range: ClosedRange<Date>?
        var naive: Date
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

        var reservationId: Int64?
        var userId: Int64?
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
        public var seconds: Double
    }

    public func run() throws -> Run {
        let started = Date()
        try scenario.validate()
        var random = SeededRandom(seed: scenario.seed)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-simulate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try AppDatabase.scratch(path: directory.appendingPathComponent("day.sqlite").path)
        let settings = StoreSettings(capacity: scenario.store.capacity, walkInPercent: scenario.store.walkInPercent,
                                     slotMinutes: scenario.store.slotMinutes,
                                     callGraceMinutes: scenario.store.callGraceMinutes)
        let opens = Scenario.minutes(scenario.store.opens)!
        let closes = Scenario.minutes(scenario.store.closes)!
        let store = try database.createStore(
            NewStore(name: scenario.name, address: "Simulated", phone: "000", position: GeoPoint(latitude: 45.46, longitude: 9.19),
                     capacity: settings.capacity, timeZone: Self.zone.identifier, settings: settings),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: opens, closes: closes) }, departments: [])

        var customers: [Customer] = []
        var events = Heap<Event>()
        var order = 0
        func schedule(_ action: Action, _ customer: Int, at time: Date) {
            order += 1
            events.insert(Event(time: time, order: order, action: action, customer: customer))
        }

        // Who comes, and when: a Poisson process per window and kind.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone
        for day in 0..<scenario.days {
            let midnight = calendar.date(byAdding: .day, value: day, to: Self.firstDay)!
            for window in scenario.arrivals {
                let from = midnight + Double(Scenario.minutes(window.from)!) * 60
                let to = midnight + Double(Scenario.minutes(window.to)!) * 60
                for (kind, perHour) in [(Customer.Kind.lineUp, window.lineUps), (.walkIn, window.walkIns),
                                        (.booking, window.bookings)] where perHour > 0 {
                    var time = from + random.exponential(rate: perHour / 3600)
                    while time < to {
                        var customer = makeCustomer(kind, random: &random)
                        if kind == .booking {
                            // The slot holding `time`; booked 2 to 8 hours ahead.
                            let slot = TimeInterval(settings.slotMinutes * 60)
                            let start = midnight + (time.timeIntervalSince(midnight) / slot).rounded(.down) * slot
                            customer.slotStart = start
                            customers.append(customer)
                            schedule(.request, customers.count - 1, at: start - random.uniform(Scenario.Span(min: 2.05 * 3600, max: 8 * 3600)))
                        } else {
                            customers.append(customer)
                            schedule(.request, customers.count - 1, at: time)
                        }
                        time += random.exponential(rate: perHour / 3600)
                    }
                }
            }
        }

        // Everyone's account, made ahead in one transaction (one each would cost a transaction
        // each): someone new has their own, a regular keeps theirs.
        var regulars = RegularCustomers(count: scenario.regulars ?? 0, seed: scenario.seed,
                                        sigma: scenario.stay.customerBiasSigma)
        if let count = scenario.regulars {
            let ids = try database.createCustomers(emails: (0..<count).map { "regular\($0)@simulated.invalid" }, now: Self.firstDay)
            for (regular, id) in ids.enumerated() { regulars.setAccount(id, of: regular) }
        } else {
            let online = customers.indices.filter { customers[$0].kind != .walkIn }
            let ids = try database.createCustomers(emails: online.map { "customer\($0)@simulated.invalid" }, now: Self.firstDay)
            for (index, id) in zip(online, ids) { customers[index].userId = id }
        }

        // Ticks run while the store is open (and a little around), events whenever they fall.
        var openings: [ClosedRange<Date>] = []
        for day in 0..<scenario.days {
            let midnight = calendar.date(byAdding: .day, value: day, to: Self.firstDay)!
            openings.append((midnight + Double(opens * 60) - 1800)...(midnight + Double(closes * 60) + 1800))
        }
        let lastTick = openings.last!.upperBound

        var longWaitRefusals: [(at: Date, pool: Pool)] = []
        var otherRefusals = 0
        var bookingsRefused = 0
        var byReservation: [Int64: Int] = [:]
        var pending: Set<Int> = []  // issued, neither entered nor ended
        var atDoor: Set<Int> = []  // came, and waiting to be let in
        var seenVersion = -1
        func release(_ index: Int) {
            if let regular = customers[index].regular, customers[index].holdsRegular {
                regulars.release(regular)
                customers[index].holdsRegular = false
            }
        }
        var lastReminders = Date.distantPast

        func sample(_ index: Int, now: Date) {
            guard let id = customers[index].reservationId,
                  let standing = database.board.standing(of: store.id, now: now),
                  let queued = standing.standing(of: id), let entry = queued.entry else { return }
            let places = Double(customers[index].pool.places(settings))
            let naive = now + max(customers[index].travel,
                                  Double(queued.peopleAhead) * scenario.meanDeclared / max(1, places))
            customers[index].samples.append(Sample(at: now, clup: entry, range: queued.range, naive: naive))
        }

        func issued(_ index: Int, reservationId: Int64, now: Date) {
            customers[index].reservationId = reservationId
            customers[index].issuedAt = now
            byReservation[reservationId] = index
            pending.insert(index)
            guard customers[index].kind != .booking else { return }
            sample(index, now: now)
            schedule(.sample, index, at: Self.nextSample(after: now))
        }

        func tryEnter(_ index: Int, now: Date) throws {
            guard let id = customers[index].reservationId else { return }
            let result = try database.scan(reservationId: id, at: store.id, now: now)
            switch result.verdict {
            case .enter:
                customers[index].enteredAt = now
                atDoor.remove(index)
                pending.remove(index)
                if !customers[index].missesScanOut { schedule(.leave, index, at: now + customers[index].stay) }
            case .refused(.notYetCalled), .refused(.full), .refused(.tooEarly):
                atDoor.insert(index)  // waits at the door; tried again at the next tick
            default:
                atDoor.remove(index)
                customers[index].endedAt = customers[index].endedAt ?? now
                release(index)
                pending.remove(index)
            }
        }

        func handle(_ event: Event) throws {
            let index = event.customer
            let now = event.time
            let customer = customers[index]
            switch event.action {
            case .request:
                let key = "simulated-\(index)"
                switch customer.kind {
                case .walkIn:
                    switch try database.issueWalkInTicket(storeId: store.id, people: customer.people,
                                                          residenceMinutes: customer.declaredMinutes, requestKey: key, now: now) {
                    case .issued(let ticket), .alreadyIssued(let ticket): issued(index, reservationId: ticket.id, now: now)
                    case .refused(.waitTooLong): longWaitRefusals.append((now, .walkIn))
                    default: otherRefusals += 1
                    }
                case .lineUp, .booking:
                    var userId = customer.userId
                    if scenario.regulars != nil {
                        let regular = regulars.pick(random: &random)
                        customers[index].regular = regular
                        customers[index].holdsRegular = true
                        // The visit varies as drawn; the pace is the regular's own.
                        customers[index].stay = max(60, customer.stay / customer.bias * regulars.bias(regular))
                        customers[index].bias = regulars.bias(regular)
                        if let account = regulars.account(regular) {
                            userId = account
                        } else {  // someone who joined the regulars as all were busy
                            let account = try database.createUser(
                                email: "regular\(regular)@simulated.invalid", displayName: "Regular \(regular)",
                                passwordHash: "none", now: now, confirmation: nil).id
                            regulars.setAccount(account, of: regular)
                            userId = account
                        }
                        customers[index].userId = userId
                    }
                    guard let userId else { return }
                    let request = ReservationRequest(
                        storeId: store.id, userId: userId, kind: customer.kind == .lineUp ? .lineUp : .booking,
                        people: customer.people, residenceMinutes: customer.declaredMinutes,
                        travelMode: customer.travelMetres == nil ? nil : .walking, slotStart: customer.slotStart,
                        requestKey: key, travelMetres: customer.travelMetres)
                    switch try database.reserve(request, now: now) {
                    case .created(let reservation):
                        issued(index, reservationId: reservation.id, now: now)
                        if customer.kind == .booking, let start = customer.slotStart {
                            if customer.cancels {
                                let room = max(0, (start - 15 * 60).timeIntervalSince(now))
                                schedule(.cancel, index, at: now + random.uniform() * room)
                            } else {
                                if start.timeIntervalSince(now) > BookingReminder.lead + BookingReminder.lateBookingMargin {
                                    schedule(.confirm, index, at: start - BookingReminder.lead + random.uniform(Scenario.Span(min: 60, max: 1800)))
                                }
                                if !customer.noShow {
                                    let arrival = start + max(-Double(settings.entryBeforeMinutes) * 60, random.normal() * 180) + customer.late
                                    schedule(.arrive, index, at: arrival)
                                }
                            }
                        } else if customer.cancels {
                            schedule(.cancel, index, at: now + random.uniform(Scenario.Span(min: 120, max: 1800)))
                        }
                    case .lineUpRefused(.waitTooLong):
                        longWaitRefusals.append((now, .online))
                        release(index)
                    case .slotFull, .slotRefused:
                        bookingsRefused += 1
                        release(index)
                    default:
                        otherRefusals += 1
                        release(index)
                    }
                }
            case .sample:
                guard customers[index].inQueue, now < lastTick else { return }
                sample(index, now: now)
                schedule(.sample, index, at: Self.nextSample(after: now))
            case .cancel:
                guard customers[index].inQueue, !atDoor.contains(index), let id = customer.reservationId,
                      let userId = customer.userId else { return }
                if try database.cancelReservation(id: id, userId: userId, now: now) {
                    customers[index].endedAt = now
                    release(index)
                    pending.remove(index)
                }
            case .confirm:
                if let id = customer.reservationId, let userId = customer.userId {
                    _ = try database.confirmBooking(id: id, userId: userId, now: now)
                }
            case .arrive:
                guard customers[index].inQueue else { return }
                try tryEnter(index, now: now)
            case .leave:
                _ = try database.scan(reservationId: customer.reservationId, at: store.id, now: now)
                release(index)
            }
        }

        /// The timer's turn, then what customers do about what it changed.
        func tick(now: Date) throws {
            try database.refreshBoard()
            try database.advanceQueues(now: now)
            // Reminders run every minute rather than every turn: they are due hours ahead and
            // answered within an hour, and each look costs a read transaction.
            if now.timeIntervalSince(lastReminders) >= 60 {
                try database.remindBookings(now: now)
                lastReminders = now
            }
            guard !pending.isEmpty, let entry = database.board.entry(store.id) else { return }
            // The board is what pages read; unchanged since the last turn, nobody has news,
            // unless someone waits at the door to be let in.
            guard entry.version != seenVersion || !atDoor.isEmpty else { return }
            seenVersion = entry.version
            let live = entry.live.live
            var seen: Set<Int> = []
            for reservation in live {
                guard let index = byReservation[reservation.id], customers[index].inQueue else { continue }
                seen.insert(index)
                let customer = customers[index]
                switch reservation.state {
                case .waiting where reservation.leftAt != nil && !customer.coming,
                     .called where !customer.coming:
                    // Told to leave (or called, for one at hand or at the kiosk): on the way.
                    customers[index].coming = true
                    guard !customer.noShow else { break }
                    let start = reservation.leftAt ?? now
                    let walk = customer.travel > 0 ? customer.trip : random.uniform(Scenario.Span(min: 30, max: 120))
                    schedule(.arrive, index, at: max(now, start + walk + customer.late))
                case .called where atDoor.contains(index), .booked where atDoor.contains(index):
                    try tryEnter(index, now: now)
                default:
                    break
                }
            }
            // Tickets and bookings that left the live set without entering: expired or cancelled.
            // In order: the order of release decides which regulars are picked next.
            for index in pending.filter({ !seen.contains($0) }).sorted() {
                let customer = customers[index]
                if customer.kind == .booking, let start = customer.slotStart, start.timeIntervalSince(now) > Self.liveReach { continue }
                customers[index].endedAt = now
                release(index)
            }
            pending = pending.filter { customers[$0].inQueue }
            atDoor = atDoor.filter { customers[$0].inQueue }
        }

        var clock = events.peek?.time ?? Self.firstDay
        var nextTick = openings.first!.lowerBound
        var opening = 0
        while opening < openings.count || !events.isEmpty {
            let tickTime: Date? = opening < openings.count ? nextTick : nil
            if let event = events.peek, tickTime == nil || event.time <= tickTime! {
                clock = event.time
                _ = events.pop()
                try handle(event)
            } else if let tickTime {
                clock = tickTime
                try tick(now: clock)
                nextTick = clock + Self.tick
                if nextTick > openings[opening].upperBound {
                    opening += 1
                    if opening < openings.count { nextTick = openings[opening].lowerBound }
                }
            }
        }
        return Run(customers: customers, longWaitRefusals: longWaitRefusals, otherRefusals: otherRefusals,
                   bookingsRefused: bookingsRefused, seconds: Date().timeIntervalSince(started))
    }

    /// Bookings further ahead than this are not in the live set yet.
    static let liveReach = AppDatabase.bookingReach

    private func makeCustomer(_ kind: Customer.Kind, random: inout SeededRandom) -> Customer {
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
    private var accounts: [Int64?]
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
    func account(_ regular: Int) -> Int64? { accounts[regular] }
    mutating func setAccount(_ id: Int64, of regular: Int) { accounts[regular] = id }

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
