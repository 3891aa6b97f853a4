import Foundation

/// A store's live state worked out once for an instant: its status for shoppers, and for each
/// pool the standing of every waiting ticket and the wait a newcomer would have. One
/// simulation per pool gives them all, since the parties behind a ticket cannot delay it:
/// a ticket's entry in the whole queue's simulation is the entry `QueueStanding.of` finds.
public struct StoreStanding: Sendable, Equatable {
    public struct PoolStanding: Sendable, Equatable {
        /// Waiting tickets in queue order, with people ahead, expected entry (nil: never) and
        /// when the party is given its places (its entry, unless it is still travelling then):
        /// where the simulation resumes after it.
        public var waiting: [(id: ReservationID, peopleAhead: Int, entry: Date?, placed: Date)]
        /// Parties and people waiting.
        public var parties: Int
        public var people: Int
        /// Wait for a new party of one with the typical visit; nil if it could never enter.
        public var newcomerWait: TimeInterval?
        /// The range that wait falls in four times in five (`VisitModel.entryRange`).
        public var newcomerRange: ClosedRange<TimeInterval>?
        /// The simulation after the last waiting ticket: where the next one starts from.
        var tail: WaitEstimator.Simulation
        /// The simulation before the first waiting ticket, and each waiting party: what a
        /// ticket leaving the queue is simulated again from.
        var head: WaitEstimator.Simulation
        var queue: [QueuedParty]

        public static func == (lhs: PoolStanding, rhs: PoolStanding) -> Bool {
            lhs.parties == rhs.parties && lhs.people == rhs.people && lhs.newcomerWait == rhs.newcomerWait
                && lhs.waiting.elementsEqual(rhs.waiting) { $0.id == $1.id && $0.peopleAhead == $1.peopleAhead
                    && $0.entry == $1.entry }
        }

        /// A pool's standing at `now` from its traffic and the ids of its queue, in order.
        init(traffic: StoreTraffic, queueIds: [ReservationID], estimator: WaitEstimator, places: Int, now: Date) {
            tail = WaitEstimator.Simulation(estimator: estimator, traffic: traffic, now: now)
            head = tail
            queue = []
            queue.reserveCapacity(queueIds.count)
            waiting = []
            waiting.reserveCapacity(queueIds.count)
            parties = 0
            people = 0
            for (id, party) in zip(queueIds, traffic.queue) {
                append(id, party, places: places, now: now, updatingNewcomer: false)
            }
            updateNewcomer(places: places, now: now)
        }

        /// The range of the entry of the waiting ticket at `index`.
        func range(at index: Int, now: Date) -> ClosedRange<Date>? {
            let ticket = waiting[index]
            return ticket.entry.map {
                tail.model.entryRange(now: now, placed: ticket.placed, entry: $0, places: tail.places)
            }
        }

        /// The wait, and its range, of a new party of one with the typical visit joining now.
        mutating func updateNewcomer(places: Int, now: Date) {
            guard places > 0 else {
                (newcomerWait, newcomerRange) = (nil, nil)
                return
            }
            var simulation = tail
            guard let entry = simulation.enter(QueuedParty(people: 1, residence: StoreStatus.typicalVisit)) else {
                (newcomerWait, newcomerRange) = (nil, nil)
                return
            }
            newcomerWait = entry.timeIntervalSince(now).rounded()
            let range = tail.model.entryRange(now: now, placed: simulation.clock, entry: entry, places: tail.places)
            newcomerRange = range.lowerBound.timeIntervalSince(now).rounded()...range.upperBound.timeIntervalSince(now).rounded()
        }

        /// Simulates waiting ticket `id` joining the back of the queue.
        mutating func append(_ id: ReservationID, _ party: QueuedParty, places: Int, now: Date, updatingNewcomer: Bool = true) {
            let entry = tail.enter(party)
            waiting.append((id, people, entry, tail.clock))
            queue.append(party)
            parties += 1
            people += party.people
            if updatingNewcomer { updateNewcomer(places: places, now: now) }
        }

        /// Takes the waiting ticket at `index` out of the queue (cancelled, or expired): the
        /// tickets ahead of it keep their entries, and only those behind it are simulated
        /// again, from the state after the one before it (`Simulation.resumed`).
        mutating func removeWaiting(at index: Int, places: Int, now: Date) {
            let leaving = queue[index]
            // Once a party can never enter, nobody behind it can: if that is someone ahead,
            // nothing behind changes but the people ahead.
            if index == 0 || waiting[index - 1].entry != nil {
                var simulation = index == 0
                    ? head
                    : head.resumed(at: waiting[index - 1].placed,
                                   after: (0..<index).map { (waiting[$0].entry!, queue[$0]) })
                for later in (index + 1)..<waiting.count {
                    waiting[later].entry = simulation.enter(queue[later])
                    waiting[later].placed = simulation.clock
                }
                tail = simulation
            }
            for later in (index + 1)..<waiting.count { waiting[later].peopleAhead -= leaving.people }
            waiting.remove(at: index)
            queue.remove(at: index)
            parties -= 1
            people -= leaving.people
            updateNewcomer(places: places, now: now)
        }
    }

    public var at: Date
    public var status: StoreStatus
    public var online: PoolStanding
    public var walkIn: PoolStanding

    public init(live: LiveTraffic, settings: StoreSettings, hours: OpeningHours, now: Date) {
        at = now
        // One pass sorts the live reservations into the two pools' traffic, in queue order.
        var traffic = (online: StoreTraffic(), walkIn: StoreTraffic())
        var queueIds: (online: [ReservationID], walkIn: [ReservationID]) = ([], [])
        for reservation in live.live {
            if reservation.walkIn {
                if traffic.walkIn.add(reservation, settings: settings, model: live.model, now: now) {
                    queueIds.walkIn.append(reservation.id)
                }
            } else if traffic.online.add(reservation, settings: settings, model: live.model, now: now) {
                queueIds.online.append(reservation.id)
            }
        }
        traffic.online.anticipateBookings(settings: settings, model: live.model, now: now)
        traffic.online.orderExits(model: live.model, now: now)
        traffic.walkIn.orderExits(model: live.model, now: now)
        online = PoolStanding(traffic: traffic.online, queueIds: queueIds.online,
                              estimator: live.estimator(settings: settings, pool: .online),
                              places: Pool.online.places(settings), now: now)
        walkIn = PoolStanding(traffic: traffic.walkIn, queueIds: queueIds.walkIn,
                              estimator: live.estimator(settings: settings, pool: .walkIn),
                              places: Pool.walkIn.places(settings), now: now)
        // The status is the online pool's newcomer's: the same simulation, not another one.
        status = StoreStatus(capacity: settings.capacity, hours: hours, peopleInside: live.peopleInside,
                             wait: self.online.newcomerWait, waitRange: self.online.newcomerRange, now: now)
    }

    /// The standing with waiting ticket `party` joined at the back of its pool's queue, at the
    /// same instant: what a recomputation with it would give, in O(log places) rather than a
    /// new simulation of the queue. `party` must come after every waiting ticket of its pool.
    public mutating func appendWaiting(_ party: LiveReservation, settings: StoreSettings, hours: OpeningHours) {
        precondition(party.state == .waiting, "only a waiting ticket joins the back of the queue")
        let queued = party.queued(now: at)
        if party.walkIn {
            walkIn.append(party.id, queued, places: settings.walkInPlaces, now: at)
        } else {
            online.append(party.id, queued, places: settings.onlinePlaces, now: at)
        }
        status = StoreStatus(capacity: settings.capacity, hours: hours, peopleInside: status.peopleInside,
                             wait: online.newcomerWait, waitRange: online.newcomerRange, now: at)
    }

    /// The standing with waiting ticket `id` gone from the queue (cancelled or expired), at
    /// the same instant: what a recomputation without it would give, simulating only the
    /// tickets behind it. False (and nothing changed) if `id` is not waiting here.
    @discardableResult
    public mutating func removeWaiting(_ id: ReservationID, settings: StoreSettings, hours: OpeningHours) -> Bool {
        guard let (pool, index) = position(of: id) else { return false }
        if pool == .walkIn {
            walkIn.removeWaiting(at: index, places: settings.walkInPlaces, now: at)
        } else {
            online.removeWaiting(at: index, places: settings.onlinePlaces, now: at)
        }
        status = StoreStatus(capacity: settings.capacity, hours: hours, peopleInside: status.peopleInside,
                             wait: online.newcomerWait, waitRange: online.newcomerRange, now: at)
        return true
    }

    /// The last waiting ticket of either pool, if any: a ticket after it joins at the back.
    public var lastWaitingId: ReservationID? {
        [online.waiting.last?.id, walkIn.waiting.last?.id].compactMap { $0 }.max()
    }

    /// Whether a new party of one with the typical visit may join `pool`'s queue: the line-up
    /// rule (open, wait within 2 hours, done by closing) on the newcomer's wait.
    public func newcomerDecision(_ pool: Pool) -> LineUpPolicy.Decision {
        let wait = (pool == .online ? online : walkIn).newcomerWait
        return LineUpPolicy.decide(wait: wait, residence: StoreStatus.typicalVisit, openState: status.openState, now: at)
    }

    /// Where waiting ticket `id` stands, or nil if it is not waiting.
    public func standing(of id: ReservationID) -> QueueStanding? {
        guard let (pool, index) = position(of: id) else { return nil }
        let standing = pool == .online ? online : walkIn
        let ticket = standing.waiting[index]
        return QueueStanding(partiesAhead: index, peopleAhead: ticket.peopleAhead, entry: ticket.entry,
                             range: standing.range(at: index, now: at))
    }

    /// The pool and place in its queue of waiting ticket `id`: found by binary search, since
    /// a queue is in id order.
    private func position(of id: ReservationID) -> (Pool, Int)? {
        for (pool, standing) in [(Pool.online, online), (.walkIn, walkIn)] {
            var low = 0
            var high = standing.waiting.count
            while low < high {
                let middle = (low + high) / 2
                if standing.waiting[middle].id < id { low = middle + 1 } else { high = middle }
            }
            if low < standing.waiting.count, standing.waiting[low].id == id { return (pool, low) }
        }
        return nil
    }

    public static func == (lhs: StoreStanding, rhs: StoreStanding) -> Bool {
        lhs.at == rhs.at && lhs.status == rhs.status && lhs.online == rhs.online && lhs.walkIn == rhs.walkIn
    }
}
