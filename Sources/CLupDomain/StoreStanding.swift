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
        /// Where each waiting ticket stands, in queue order (what finds a ticket), and how many
        /// of them are priority tickets (placed off their id's order).
        var keys: [QueueKey]
        var priorityCount = 0
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

        /// A pool's standing at `now` from its traffic and the keys of its queue, in order.
        /// `queueKeys` must be as many as the parties of `traffic.queue`. The queue and its keys
        /// are kept as given (not copied party by party), and one pass simulates them.
        init(traffic: StoreTraffic, queueKeys: [QueueKey], estimator: WaitEstimator, places: Int, now: Date) {
            precondition(queueKeys.count == traffic.queue.count, "a key for each party of the queue")
            tail = WaitEstimator.Simulation(estimator: estimator, traffic: traffic, now: now)
            head = tail
            queue = traffic.queue
            keys = queueKeys
            priorityCount = keys.count { $0.priority }
            parties = queue.count
            people = 0
            waiting = []
            waiting.reserveCapacity(queue.count)
            for (key, party) in zip(keys, queue) { simulate(key, party) }
            updateNewcomer(places: places, now: now)
        }

        /// Simulates the party of waiting ticket `key` entering after those before it, and
        /// records where it stands.
        private mutating func simulate(_ key: QueueKey, _ party: QueuedParty) {
            let entry = tail.enter(party)
            waiting.append((key.id, people, entry, tail.clock))
            people += party.people
        }

        /// The range of the entry of the waiting ticket at `index`.
        func range(at index: Int, now: Date) -> ClosedRange<Date>? {
            let ticket = waiting[index]
            return ticket.entry.map {
                tail.model.entryRange(now: now, placed: ticket.placed, entry: $0, places: tail.places,
                                      issuedAt: queue[index].issuedAt)
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

        /// Simulates waiting ticket `key` joining the back of the queue.
        mutating func append(_ key: QueueKey, _ party: QueuedParty, places: Int, now: Date) {
            simulate(key, party)
            keys.append(key)
            if key.priority { priorityCount += 1 }
            queue.append(party)
            parties += 1
            updateNewcomer(places: places, now: now)
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
            if keys.remove(at: index).priority { priorityCount -= 1 }
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

    public init(live measured: LiveTraffic, settings: StoreSettings, hours: OpeningHours, now: Date) {
        at = now
        let live = measured.countingVisitsInProgress(now: now)
        // One pass sorts the live reservations into the two pools' traffic, in queue order,
        // into arrays sized by a pass counting the waiting first: grown by doubling, a queue of
        // 10,000 was copied a dozen times over (8 % of a standing's time at that length).
        var waiting = (online: 0, walkIn: 0)
        for reservation in live.live {
            guard reservation.isWaiting else { continue }
            if reservation.walkIn { waiting.walkIn += 1 } else { waiting.online += 1 }
        }
        var traffic = (online: StoreTraffic(), walkIn: StoreTraffic())
        traffic.online.queue.reserveCapacity(waiting.online)
        traffic.walkIn.queue.reserveCapacity(waiting.walkIn)
        var queueKeys: (online: [QueueKey], walkIn: [QueueKey]) = ([], [])
        queueKeys.online.reserveCapacity(waiting.online)
        queueKeys.walkIn.reserveCapacity(waiting.walkIn)
        var peopleInside = 0
        for reservation in live.live {
            if case .inside = reservation.state { peopleInside += reservation.people }
            if reservation.walkIn {
                if traffic.walkIn.add(reservation, settings: settings, model: live.model, now: now) {
                    queueKeys.walkIn.append(reservation.queueKey)
                }
            } else if traffic.online.add(reservation, settings: settings, model: live.model, now: now) {
                queueKeys.online.append(reservation.queueKey)
            }
        }
        traffic.online.anticipateBookings(settings: settings, model: live.model, now: now)
        traffic.online.orderExits(model: live.model, now: now)
        traffic.walkIn.orderExits(model: live.model, now: now)
        online = PoolStanding(traffic: traffic.online, queueKeys: queueKeys.online,
                              estimator: live.estimator(settings: settings, pool: .online),
                              places: Pool.online.places(settings), now: now)
        walkIn = PoolStanding(traffic: traffic.walkIn, queueKeys: queueKeys.walkIn,
                              estimator: live.estimator(settings: settings, pool: .walkIn),
                              places: Pool.walkIn.places(settings), now: now)
        // The status is the online pool's newcomer's: the same simulation, not another one.
        status = StoreStatus(capacity: settings.capacity, hours: hours, peopleInside: peopleInside,
                             wait: self.online.newcomerWait, waitRange: self.online.newcomerRange, now: now)
    }

    /// The standing with waiting ticket `party` joined at the back of its pool's queue, at the
    /// same instant: what a recomputation with it would give, in O(log places) rather than a
    /// new simulation of the queue. `party` must come after every waiting ticket of its pool.
    public mutating func appendWaiting(_ party: LiveReservation, settings: StoreSettings, hours: OpeningHours) {
        precondition(party.state == .waiting, "only a waiting ticket joins the back of the queue")
        let queued = party.queued(now: at)
        if party.walkIn {
            walkIn.append(party.queueKey, queued, places: settings.walkInPlaces, now: at)
        } else {
            online.append(party.queueKey, queued, places: settings.onlinePlaces, now: at)
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

    /// Where the last waiting ticket of either pool stands, if any: a ticket after it joins at
    /// the back.
    public var lastWaitingKey: QueueKey? {
        [online.keys.last, walkIn.keys.last].compactMap { $0 }.max()
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
    /// a queue is in key order and an ordinary ticket's key is its id; a priority ticket, placed
    /// elsewhere, by looking through the queue.
    private func position(of id: ReservationID) -> (Pool, Int)? {
        let key = QueueKey(id)
        for (pool, standing) in [(Pool.online, online), (.walkIn, walkIn)] {
            var index = 0
            var high = standing.keys.count
            while index < high {
                let middle = (index + high) / 2
                if standing.keys[middle] < key { index = middle + 1 } else { high = middle }
            }
            if index < standing.keys.count, standing.keys[index].id == id { return (pool, index) }
            if standing.priorityCount > 0, let index = standing.keys.firstIndex(where: { $0.id == id }) {
                return (pool, index)
            }
        }
        return nil
    }

    public static func == (lhs: StoreStanding, rhs: StoreStanding) -> Bool {
        lhs.at == rhs.at && lhs.status == rhs.status && lhs.online == rhs.online && lhs.walkIn == rhs.walkIn
    }
}
