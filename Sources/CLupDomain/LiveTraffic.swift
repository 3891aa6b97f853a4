import Foundation

/// A store's live reservations and what its history says about visits: the input of its wait
/// estimate.
public struct LiveTraffic: Sendable {
    public var live: [LiveReservation]
    public var model: VisitModel

    public static let none = LiveTraffic(live: [], model: .standard)

    public init(live: [LiveReservation], model: VisitModel) {
        self.live = live
        self.model = model
    }

    public init(live: [LiveReservation], ratio: Double) {
        self.init(live: live, model: VisitModel(ratio: ratio))
    }

    public var ratio: Double { model.ratio }

    /// The traffic of one pool: its queue, the people of that pool inside and the places it holds.
    /// Read from `live` through a lazy filter, not a filtered copy: every line-up's
    /// transaction asks for it, and a store's live list runs to thousands of reservations.
    public func traffic(settings: StoreSettings, now: Date, pool: Pool = .online) -> StoreTraffic {
        StoreTraffic(live: live.lazy.filter { $0.pool == pool }, settings: settings, model: model, now: now)
    }

    /// Whether a party of `people` joining `pool`'s queue now would be given its places at
    /// once: the pool's places less those taken now — people inside, tickets called, bookings
    /// whose places are held — and less every waiting party's leave enough for it. Then every
    /// party, it included, is given its places now, none waits for an exit, and the queue's
    /// simulation has nothing to find (`WaitEstimator.waitGivenPlacesNow`): one pass over the
    /// live list, counting, instead of building the store's traffic and simulating its queue,
    /// which a store with room and thousands of customers on their way paid on every line-up.
    /// The places taken are counted as `StoreTraffic.add` counts them. A booking's hold that
    /// may begin at once because its entry window opens sooner than the booking lead time
    /// (`StoreTraffic.anticipateBookings`) leaves the simulation to decide.
    func placesFreeNow(for people: Int, settings: StoreSettings, now: Date, pool: Pool) -> Bool {
        guard Double(settings.entryBeforeMinutes) * 60 + StoreTraffic.bookingLookahead < SlotCalendar.leadTime
        else { return false }
        var taken = 0
        for reservation in live where reservation.pool == pool {
            switch reservation.state {
            case .waiting, .called, .inside:
                taken += reservation.people
            case .booked(let slotStart):
                if StoreTraffic.bookingHolds(slotStart: slotStart, settings: settings, now: now) {
                    taken += reservation.people
                }
            }
        }
        return pool.places(settings) - taken >= people
    }

    /// People booked in `slot`: the bookings that start within it.
    public func peopleBooked(in slot: Slot) -> Int {
        live.reduce(0) { total, reservation in
            if case .booked(let start) = reservation.state, start >= slot.start, start < slot.end {
                total + reservation.people
            } else {
                total
            }
        }
    }

    /// Everyone inside, walk-ins and online customers alike.
    public var peopleInside: Int {
        live.reduce(0) { total, reservation in
            if case .inside = reservation.state { total + reservation.people } else { total }
        }
    }

    /// The traffic with the visits in progress counted in its model's ratio
    /// (`VisitModel.withVisitsInProgress`): what every wait at `now` is estimated from, the
    /// standing's and the line-up decision's alike.
    public func countingVisitsInProgress(now: Date) -> LiveTraffic {
        var counted = self
        counted.model = model.withVisitsInProgress(live.lazy.compactMap { reservation in
            if case .inside(let since) = reservation.state { (since: since, residence: reservation.residence) } else { nil }
        }, now: now)
        return counted
    }

    /// The estimator for a pool's queue: each pool enters on its own share of the capacity.
    public func estimator(settings: StoreSettings, pool: Pool = .online) -> WaitEstimator {
        WaitEstimator(capacity: pool.places(settings), model: model, grace: Double(settings.callGraceMinutes) * 60)
    }

    /// Whether a party of `people` staying `residence` and `travel` away may join `pool`'s
    /// queue now: the one rule the wizard shows and the reservation transaction enforces (and
    /// the kiosk, for walk-ins). The wait counts to the party's entry, so it is never shorter
    /// than its travel: a visit that would end after closing once they have got there is refused.
    public func lineUpDecision(people: Int, residence: TimeInterval, travel: TimeInterval = 0,
                               settings: StoreSettings, hours: OpeningHours, now: Date, pool: Pool = .online)
        -> LineUpPolicy.Decision
    {
        let wait: TimeInterval?
        if placesFreeNow(for: people, settings: settings, now: now, pool: pool) {
            wait = estimator(settings: settings, pool: pool)
                .waitGivenPlacesNow(people: people, residence: residence, travel: travel, now: now)
        } else {
            let counted = countingVisitsInProgress(now: now)
            wait = counted.estimator(settings: settings, pool: pool)
                .waitForNewParty(people: people, residence: residence, travel: travel,
                                 traffic: counted.traffic(settings: settings, now: now, pool: pool), now: now)
        }
        return LineUpPolicy.decide(wait: wait, residence: residence, openState: hours.state(at: now), now: now)
    }
}

extension LiveTraffic {
    /// Whether a party may join `pool`'s queue now, and where: an ordinary one at the back
    /// (`lineUpDecision`); a priority one at the place the store's lane gives it
    /// (`PriorityLane.place`, nil: the back), on the wait it would have there — the queue's
    /// simulation with it in its place, as its ticket's page will show it.
    public func lineUpDecision(people: Int, residence: TimeInterval, priority: Bool, travel: TimeInterval = 0,
                               settings: StoreSettings, hours: OpeningHours, now: Date, pool: Pool)
        -> (LineUpPolicy.Decision, before: ReservationID?)
    {
        guard priority else {
            return (lineUpDecision(people: people, residence: residence, travel: travel, settings: settings, hours: hours,
                                   now: now, pool: pool), nil)
        }
        let before = settings.priority.place(in: live.lazy.filter { $0.pool == pool && $0.isWaiting })
        let party = LiveReservation(id: ReservationID(Int64.max), state: .waiting, people: people, residence: residence,
                                    walkIn: pool == .walkIn, day: hours.businessDay(at: now), travel: travel,
                                    priority: true, position: before)
        var joined = live
        let key = party.queueKey
        joined.insert(party, at: joined.firstIndex { $0.isBooked || $0.queueKey > key } ?? joined.count)
        let standing = StoreStanding(live: LiveTraffic(live: joined, model: model), settings: settings, hours: hours, now: now)
        let wait = standing.standing(of: party.id)?.entry.map { max(0, $0.timeIntervalSince(now)) }
        return (LineUpPolicy.decide(wait: wait, residence: residence, openState: hours.state(at: now), now: now), before)
    }
}

/// The entrance's screen: who is called, who is next, how full the store is.
public struct EntranceBoard: Sendable {
    public var called: [LiveReservation]
    public var waiting: [LiveReservation]
    public var peopleInside: Int
}

extension EntranceBoard {
    /// The board of a store's live traffic, showing the first `next` waiting tickets.
    public init(_ traffic: LiveTraffic, next: Int = 6) {
        let called = traffic.live.filter { if case .called = $0.state { true } else { false } }
        self.init(called: called.sorted { $0.calledAt > $1.calledAt },
                  waiting: Array(traffic.live.filter(\.isWaiting).prefix(next)),
                  peopleInside: traffic.peopleInside)
    }
}

extension LiveReservation {
    /// When the ticket was called, for ordering the board.
    var calledAt: Date {
        if case .called(let at) = state { at } else { .distantPast }
    }
}
