import CLupData
import CLupDomain
import Foundation

/// One run of a scenario's days (`Simulator.run`): the simulated store, its customers, the
/// events still to come, and what was refused. Each step is a method: `drawArrivals`,
/// `openAccounts`, then `play`, which takes events (`handle`) and the queue timer's turns
/// (`tick`) in time order.
final class SimulatedDays {
    typealias Customer = Simulator.Customer
    typealias Event = Simulator.Event

    let simulator: Simulator
    var scenario: Scenario { simulator.scenario }
    let database: AppDatabase
    let store: Store
    let settings: StoreSettings
    let opens: Int
    let closes: Int
    let calendar: Calendar
    var random: SeededRandom

    private(set) var customers: [Customer] = []
    private var events = Heap<Event>()
    private var order = 0
    private var regulars: RegularCustomers

    private(set) var longWaitRefusals: [(at: Date, pool: Pool)] = []
    private(set) var otherRefusals = 0
    private(set) var bookingsRefused = 0
    /// Customers who scanned out of a visit already closed as one never scanned out.
    private(set) var closedWithCustomerInside = 0
    private var byReservation: [ReservationID: Int] = [:]
    /// Issued, neither entered nor ended.
    private var pending: Set<Int> = []
    /// Came, and waiting to be let in.
    private var atDoor: Set<Int> = []
    /// The oracle's random stream, its own: CLup's days play out the same with or without it.
    /// And what it is told of each reservation beside the board.
    private var oracleRandom: SeededRandom
    private var known: [ReservationID: Oracle.Known] = [:]
    /// The board's version at the last tick that looked at it.
    private var seenVersion = -1
    private var lastReminders = Date.distantPast

    /// Makes the scenario's store, open every day of the week at the scenario's hours.
    init(_ simulator: Simulator, database: AppDatabase) throws {
        self.simulator = simulator
        self.database = database
        let scenario = simulator.scenario
        random = SeededRandom(seed: scenario.seed)
        settings = StoreSettings(capacity: scenario.store.capacity, walkInPercent: scenario.store.walkInPercent,
                                 slotMinutes: scenario.store.slotMinutes, callGraceMinutes: scenario.store.callGraceMinutes)
        opens = Scenario.minutes(scenario.store.opens)!
        closes = Scenario.minutes(scenario.store.closes)!
        let (opens, closes) = (opens, closes)
        store = try database.stores.createStore(
            NewStore(name: scenario.name, address: "Simulated", phone: "000", position: GeoPoint(latitude: 45.46, longitude: 9.19),
                     capacity: settings.capacity, timeZone: Simulator.zone.identifier, settings: settings),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: opens, closes: closes) }, departments: [])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Simulator.zone
        self.calendar = calendar
        regulars = RegularCustomers(count: scenario.regulars ?? 0, seed: scenario.seed,
                                    sigma: scenario.stay.customerBiasSigma)
        oracleRandom = SeededRandom(seed: scenario.seed ^ 0x0_0AC1_E5EE_D000)
    }

    private func midnight(ofDay day: Int) -> Date {
        calendar.date(byAdding: .day, value: day, to: Simulator.firstDay)!
    }

    private func schedule(_ action: Simulator.Action, _ customer: Int, at time: Date) {
        order += 1
        events.insert(Event(time: time, order: order, action: action, customer: customer))
    }

    // MARK: Steps

    /// Who comes, and when: a Poisson process per window and kind.
    func drawArrivals() {
        for day in 0..<scenario.days {
            let midnight = midnight(ofDay: day)
            for window in scenario.arrivals {
                let from = midnight + Double(Scenario.minutes(window.from)!) * 60
                let to = midnight + Double(Scenario.minutes(window.to)!) * 60
                for (kind, perHour) in [(Customer.Kind.lineUp, window.lineUps), (.walkIn, window.walkIns),
                                        (.booking, window.bookings)] where perHour > 0 {
                    var time = from + random.exponential(rate: perHour / 3600)
                    while time < to {
                        var customer = simulator.makeCustomer(kind, random: &random)
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
    }

    /// Everyone's account, made ahead in one transaction (one each would cost a transaction
    /// each): someone new has their own, a regular keeps theirs.
    func openAccounts() throws {
        if let count = scenario.regulars {
            let ids = try database.accounts.createCustomers(emails: (0..<count).map { "regular\($0)@simulated.invalid" },
                                                   now: Simulator.firstDay)
            for (regular, id) in ids.enumerated() { regulars.setAccount(id, of: regular) }
        } else {
            let online = customers.indices.filter { customers[$0].kind != .walkIn }
            let ids = try database.accounts.createCustomers(emails: online.map { "customer\($0)@simulated.invalid" },
                                                   now: Simulator.firstDay)
            for (index, id) in zip(online, ids) { customers[index].userId = id }
        }
    }

    /// The days, event by event: ticks run while the store is open (and a little around),
    /// events whenever they fall, an event first when both fall at once.
    func play() throws {
        var openings: [ClosedRange<Date>] = []
        for day in 0..<scenario.days {
            let midnight = midnight(ofDay: day)
            openings.append((midnight + Double(opens * 60) - 1800)...(midnight + Double(closes * 60) + 1800))
        }
        let lastTick = openings.last!.upperBound
        var nextTick = openings.first!.lowerBound
        var opening = 0
        while opening < openings.count || !events.isEmpty {
            let tickTime: Date? = opening < openings.count ? nextTick : nil
            if let event = events.peek, tickTime == nil || event.time <= tickTime! {
                _ = events.pop()
                try handle(event, lastTick: lastTick)
            } else if let tickTime {
                try tick(now: tickTime)
                nextTick = tickTime + Simulator.tick
                if nextTick > openings[opening].upperBound {
                    opening += 1
                    if opening < openings.count { nextTick = openings[opening].lowerBound }
                }
            }
        }
    }

    // MARK: Events

    private func handle(_ event: Event, lastTick: Date) throws {
        let index = event.customer
        let now = event.time
        let customer = customers[index]
        switch event.action {
        case .request:
            try request(index, now: now)
        case .sample:
            guard customers[index].inQueue, now < lastTick else { return }
            sample(index, now: now)
            schedule(.sample, index, at: Simulator.nextSample(after: now))
        case .cancel:
            guard customers[index].inQueue, !atDoor.contains(index), let id = customer.reservationId,
                  let userId = customer.userId else { return }
            if try database.reservations.cancelReservation(id: id, userId: userId, now: now) {
                customers[index].endedAt = now
                release(index)
                pending.remove(index)
            }
        case .confirm:
            if let id = customer.reservationId, let userId = customer.userId {
                _ = try database.reservations.confirmBooking(id: id, userId: userId, now: now)
            }
        case .arrive:
            guard customers[index].inQueue else { return }
            try tryEnter(index, now: now)
        case .leave:
            // A visit closed as never scanned out while its customer was still inside (its
            // ticket already used): their places were given to the queue with them in the store.
            if case .refused(.alreadyUsed, _) = try database.doors.scan(reservationId: customer.reservationId, at: store.id,
                                                                  now: now).outcome {
                closedWithCustomerInside += 1
            }
            release(index)
        }
    }

    /// A customer asks for a ticket (walk-in), a place in the queue or a booking, and plans
    /// what they will do with it.
    private func request(_ index: Int, now: Date) throws {
        let customer = customers[index]
        let key = "simulated-\(index)"
        if customer.kind == .walkIn {
            switch try database.doors.issueWalkInTicket(storeId: store.id, people: customer.people,
                                                  residenceMinutes: customer.declaredMinutes, requestKey: key, now: now) {
            case .issued(let ticket), .alreadyIssued(let ticket): issued(index, reservationId: ticket.id, now: now)
            case .refused(.waitTooLong): longWaitRefusals.append((now, .walkIn))
            default: otherRefusals += 1
            }
            return
        }
        guard let userId = try account(for: index, now: now) else { return }
        let request = ReservationRequest(
            storeId: store.id, userId: userId, kind: customer.kind == .lineUp ? .lineUp : .booking,
            people: customer.people, residenceMinutes: customer.declaredMinutes,
            travelMode: customer.travelMetres == nil ? nil : .walking, slotStart: customer.slotStart,
            requestKey: key, travelMetres: customer.travelMetres)
        switch try database.reservations.reserve(request, now: now) {
        case .created(let reservation):
            issued(index, reservationId: reservation.id, now: now)
            if customer.kind == .booking, let start = customer.slotStart {
                planBooking(index, start: start, now: now)
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

    /// The account a line-up or booking is made with: with regulars, one of them, idle,
    /// picked now (someone new joins them if all are busy); otherwise the customer's own.
    private func account(for index: Int, now: Date) throws -> UserID? {
        guard scenario.regulars != nil else { return customers[index].userId }
        let customer = customers[index]
        let regular = regulars.pick(random: &random)
        customers[index].regular = regular
        customers[index].holdsRegular = true
        // The visit varies as drawn; the pace is the regular's own.
        customers[index].stay = max(60, customer.stay / customer.bias * regulars.bias(regular))
        customers[index].bias = regulars.bias(regular)
        var account = regulars.account(regular)
        if account == nil {
            account = try database.accounts.createUser(
                email: "regular\(regular)@simulated.invalid", displayName: "Regular \(regular)",
                passwordHash: "none", now: now, confirmation: nil).id
            regulars.setAccount(account!, of: regular)
        }
        customers[index].userId = account
        return account
    }

    /// A booking made: cancelled some time before its slot, or confirmed when reminded and
    /// come to (early, on time or late), or never come to.
    private func planBooking(_ index: Int, start: Date, now: Date) {
        let customer = customers[index]
        if customer.cancels {
            let room = max(0, (start - 15 * 60).timeIntervalSince(now))
            schedule(.cancel, index, at: now + random.uniform() * room)
            return
        }
        if start.timeIntervalSince(now) > BookingReminder.lead + BookingReminder.lateBookingMargin {
            schedule(.confirm, index, at: start - BookingReminder.lead + random.uniform(Scenario.Span(min: 60, max: 1800)))
        }
        if !customer.noShow {
            let arrival = start + max(-Double(settings.entryBeforeMinutes) * 60, random.normal() * 180) + customer.late
            schedule(.arrive, index, at: arrival)
        }
    }

    private func issued(_ index: Int, reservationId: ReservationID, now: Date) {
        customers[index].reservationId = reservationId
        customers[index].issuedAt = now
        byReservation[reservationId] = index
        let customer = customers[index]
        known[reservationId] = Oracle.Known(declaredMinutes: customer.declaredMinutes, issuedAt: now,
                                            travel: customer.travel)
        pending.insert(index)
        guard customers[index].kind != .booking else { return }
        sample(index, now: now)
        schedule(.sample, index, at: Simulator.nextSample(after: now))
    }

    /// The ticket's expected entry as its page reads it, beside the naive estimate.
    private func sample(_ index: Int, now: Date) {
        guard let id = customers[index].reservationId,
              let standing = database.board.standing(of: store.id, now: now),
              let queued = standing.standing(of: id), let entry = queued.entry else { return }
        let places = Double(customers[index].pool.places(settings))
        let naive = now + max(customers[index].travel,
                              Double(queued.peopleAhead) * scenario.meanDeclared / max(1, places))
        var sample = Simulator.Sample(at: now, clup: entry, range: queued.range, naive: naive)
        sample.measuredRange = database.board.entry(store.id)?.model.entryError != nil
        if simulator.oracleRuns > 0, let live = database.board.entry(store.id)?.live {
            // Those still at home leave when CLup's estimate tells them to.
            for reservation in live.live where reservation.state == .waiting && reservation.travel > 0
                && reservation.leftAt == nil
            {
                known[reservation.id]?.leaveBy = standing.standing(of: reservation.id)?.entry
                    .map { Departure.leaveBy(entry: $0, travel: reservation.travel) }
            }
            let oracle = Oracle(scenario: scenario, settings: settings, model: live.model, runs: simulator.oracleRuns)
            if let predicted = oracle.predict(id, live: live.live, known: known, now: now, random: &oracleRandom) {
                (sample.oracle, sample.oracleRange) = (predicted.entry, predicted.range)
            }
        }
        customers[index].samples.append(sample)
    }

    /// The customer at the door has their code scanned: in, told to wait at the door, or
    /// turned away.
    private func tryEnter(_ index: Int, now: Date) throws {
        guard let id = customers[index].reservationId else { return }
        let result = try database.doors.scan(reservationId: id, at: store.id, now: now)
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

    /// A regular is free to come again once their visit is over (or never happened).
    private func release(_ index: Int) {
        if let regular = customers[index].regular, customers[index].holdsRegular {
            regulars.release(regular)
            customers[index].holdsRegular = false
        }
    }

    // MARK: The queue timer

    /// The timer's turn, then what customers do about what it changed.
    private func tick(now: Date) throws {
        try database.refreshBoard()
        try database.doors.advanceQueues(now: now)
        // Reminders run every minute rather than every turn: they are due hours ahead and
        // answered within an hour, and each look costs a read transaction.
        if now.timeIntervalSince(lastReminders) >= 60 {
            try database.reservations.remindBookings(now: now)
            lastReminders = now
        }
        guard !pending.isEmpty, let entry = database.board.entry(store.id) else { return }
        // The board is what pages read; unchanged since the last turn, nobody has news,
        // unless someone waits at the door to be let in.
        guard entry.version != seenVersion || !atDoor.isEmpty else { return }
        seenVersion = entry.version
        var seen: Set<Int> = []
        for reservation in entry.live.live {
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
            if customer.kind == .booking, let start = customer.slotStart,
               start.timeIntervalSince(now) > Simulator.liveReach { continue }
            customers[index].endedAt = now
            release(index)
        }
        pending = pending.filter { customers[$0].inQueue }
        atDoor = atDoor.filter { customers[$0].inQueue }
    }
}
