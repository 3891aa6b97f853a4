import CLupDomain
import Foundation

/// The best estimate of a ticket's entry any estimator could give, as a yardstick for CLup's
/// (issue: "the limit, measured"). At a prediction it plays the rest of the ticket's wait
/// forward many times (Monte Carlo) from the store's true state then — who is inside and since
/// when, who is called or on the way, the bookings due, the queue ahead in its order — with the
/// scenario's own laws for what is not known yet: how long each visit lasts (the spread, the
/// store's bias and each customer's pace), who does not come, who is late and by how much, how
/// long a trip takes, who cancels, who forgets to scan out (likelier, by Bayes, the longer a
/// visit under way has lasted). It knows the laws, never the outcomes: each run draws them
/// afresh. The median of the runs' entries is its prediction (the best one for absolute
/// error), their 10th and 90th percentiles its range.
///
/// Each run is a light model of CLup's calling rules (`QueueCaller`): the ticket's pool is
/// called in order against its share of the places, a party at the head not overtaken; a
/// party at hand is called when its places free and comes to the door; a customer who
/// travels leaves when CLup tells them (`Departure`: its notice ahead of when its estimate at
/// the prediction says, or when places free, whichever comes first) and is let in on arrival;
/// a called ticket not at the door within the grace period frees its places; a booking holds
/// places from half an hour before its entry window until its visit ends, or its window
/// closes. Parties behind the ticket cannot delay it, so they, and customers yet to come, are
/// left out. What it does not model: CLup's later estimates, which move a traveller's notice
/// as the queue goes, and the door's check of the whole capacity across the two pools.
struct Oracle {
    let scenario: Scenario
    let settings: StoreSettings
    let model: VisitModel
    let runs: Int

    /// What is known of a live reservation besides its state on the board.
    struct Known {
        var declaredMinutes: Int
        var issuedAt: Date
        /// CLup's travel time for it (0: at hand).
        var travel: TimeInterval
        /// When CLup's own estimate tells the customer to leave, for one still at home.
        var leaveBy: Date?
    }

    /// The median entry of ticket `target` and the range four runs in five fall in; nil if
    /// it is not waiting in `live` or never reached its turn in any run.
    func predict(_ target: ReservationID, live: [LiveReservation], known: [ReservationID: Known], now: Date,
                 random: inout SeededRandom) -> (entry: Date, range: ClosedRange<Date>)?
    {
        guard let ticket = live.first(where: { $0.id == target && $0.state == .waiting }), runs > 0 else { return nil }
        let pool = ticket.pool
        let places = pool.places(settings)
        let sharing = live.filter { $0.pool == pool }
        guard let last = sharing.firstIndex(where: { $0.id == target }) else { return nil }
        let ahead = sharing[...last].filter { $0.state == .waiting }
        // Looked up once, not once a run.
        let sharingKnown = sharing.map { known[$0.id] }
        let aheadKnown = ahead.map { known[$0.id] }
        var entries: [TimeInterval] = []
        entries.reserveCapacity(runs)
        for _ in 0..<runs {
            if let entry = run(ticket: ticket, ahead: ahead, aheadKnown: aheadKnown, sharing: sharing,
                               sharingKnown: sharingKnown, places: places, now: now, random: &random)
            {
                entries.append(entry.timeIntervalSince(now))
            }
        }
        guard !entries.isEmpty else { return nil }
        entries.sort()
        func quantile(_ q: Double) -> Date {
            now + entries[min(entries.count - 1, Int((Double(entries.count - 1) * q).rounded()))]
        }
        return (quantile(0.5), quantile(0.1)...quantile(0.9))
    }

    // MARK: One run

    /// Places taken or given back at an instant.
    private struct Moment: Comparable {
        var at: Date
        var people: Int

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.at < rhs.at }
    }

    private var grace: TimeInterval { Double(settings.callGraceMinutes) * 60 }

    /// A visit's length, as the scenario draws one.
    private func stay(declaredMinutes: Int, random: inout SeededRandom) -> TimeInterval {
        let bias = exp(scenario.stay.customerBiasSigma * random.normal())
        return max(60, Double(declaredMinutes) * 60 * scenario.stay.meanFactor * bias
            * random.logNormalMeanOne(sigma: scenario.stay.sigma))
    }

    /// When a visit that began at `entered` frees its places, seen at `atLeast`: its end, or,
    /// if its customer forgets to scan out, when CLup closes it. A visit already under way
    /// has lasted longer than some, and is likelier than one beginning to be one left
    /// unscanned: the scenario's rate of those against the chance a visit lasts that long
    /// (Bayes). If it will end, its length is drawn given that it has lasted so far.
    private func exit(entered: Date, declaredMinutes: Int, atLeast: Date, random: inout SeededRandom) -> Date {
        let elapsed = atLeast.timeIntervalSince(entered)
        // A visit's length is log-normal: the customer's bias times the visit's own variation.
        let median = log(Double(declaredMinutes) * 60 * scenario.stay.meanFactor)
            - scenario.stay.sigma * scenario.stay.sigma / 2
        let spread = (scenario.stay.sigma * scenario.stay.sigma
            + scenario.stay.customerBiasSigma * scenario.stay.customerBiasSigma).squareRoot()
        // Visits last a minute at least, so one under way for less is as one beginning.
        let floor = elapsed > 60 && spread > 0 ? (log(elapsed) - median) / spread : -Double.infinity
        let lasts = floor.isFinite ? VisitModel.normalCDF(-floor) : 1
        let rate = scenario.missedScanOutRate
        if rate > 0, random.chance(rate / (rate + (1 - rate) * lasts)) {
            let expected = model.stay(Double(declaredMinutes) * 60)
            return max(atLeast, entered + model.ghostAfter(expected: expected))
        }
        guard floor.isFinite else { return max(atLeast, entered + stay(declaredMinutes: declaredMinutes, random: &random)) }
        return max(atLeast, entered + exp(median + spread * random.normal(above: floor)))
    }

    /// When a customer still at home, whose time to leave by CLup's estimate is `leaveBy`, is
    /// told to go: `Departure.noticeMargin` ahead of it, on the queue timer's turn.
    static func told(toLeaveBy leaveBy: Date, now: Date) -> Date {
        let due = max(now, leaveBy - Departure.noticeMargin)
        return turn(atOrAfter: due)
    }

    /// The queue timer's first turn at `time` or after it (every `Simulator.tick`).
    static func turn(atOrAfter time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 / Simulator.tick).rounded(.up) * Simulator.tick)
    }

    /// When a customer not yet let in at `now` comes, drawn by `draw` (nil: never) given that
    /// they had not come by `now`: drawn again until they come later, or not at all. The law
    /// stays the scenario's; only what has been seen not to happen is left out.
    static func given(notBy now: Date, random: inout SeededRandom, _ draw: (inout SeededRandom) -> Date?) -> Date? {
        for _ in 0..<64 {
            guard let time = draw(&random) else { return nil }
            if time > now { return time }
        }
        return nil  // so unlikely to come now that they are taken not to
    }

    private func lateness(random: inout SeededRandom) -> TimeInterval {
        random.chance(scenario.lateRate) ? random.uniform(scenario.lateMinutes) * 60 : 0
    }

    /// When a reservation that may be cancelled between `from` and `to` (uniformly, by the
    /// scenario's share of customers who cancel) and has not been by `now` will be, if it is.
    private func cancellation(from: Date, to: Date, now: Date, random: inout SeededRandom) -> Date? {
        guard now < to, to > from, scenario.cancellationRate > 0 else { return nil }
        let left = to.timeIntervalSince(max(from, now)) / to.timeIntervalSince(from)
        let probability = scenario.cancellationRate * left / (1 - scenario.cancellationRate * (1 - left))
        guard random.chance(probability) else { return nil }
        return max(from, now) + random.uniform() * to.timeIntervalSince(max(from, now))
    }

    private func run(ticket: LiveReservation, ahead: [LiveReservation], aheadKnown: [Known?], sharing: [LiveReservation],
                     sharingKnown: [Known?], places: Int, now: Date, random: inout SeededRandom) -> Date?
    {
        // Places held now, the holds still to begin (by start) and those under way (by end).
        var held = 0
        var starting = Heap<Moment>()
        var ending = Heap<Moment>()
        func hold(_ people: Int, from: Date, until: Date) {
            guard until > now else { return }
            if from <= now { held += people } else { starting.insert(Moment(at: from, people: people)) }
            ending.insert(Moment(at: until, people: people))
        }
        let before = Double(settings.entryBeforeMinutes) * 60
        let after = Double(settings.entryAfterMinutes) * 60
        for (reservation, facts) in zip(sharing, sharingKnown) {
            let declared = facts?.declaredMinutes ?? Int(reservation.residence / 60)
            switch reservation.state {
            case .inside(let since):
                hold(reservation.people, from: now,
                     until: exit(entered: since, declaredMinutes: declared, atLeast: now, random: &random))
            case .called(let at):
                // Not at the door yet, or they would be inside: drawn given that (a called
                // ticket long unanswered is likelier a no-show).
                let travel = facts?.travel ?? 0
                let arrival = Self.given(notBy: now, random: &random) { random -> Date? in
                    guard !random.chance(scenario.noShowRate) else { return nil }
                    if travel > 0, let left = reservation.leftAt {
                        return left + travel * random.uniform(scenario.travel.factor) + lateness(random: &random)
                    }
                    return at + random.uniform(Scenario.Span(min: 30, max: 120)) + lateness(random: &random)
                }
                if let arrival, arrival <= at + grace {
                    hold(reservation.people, from: now,
                         until: exit(entered: arrival, declaredMinutes: declared, atLeast: arrival, random: &random))
                } else {
                    hold(reservation.people, from: now, until: max(now, at + grace))
                }
            case .booked(let start):
                guard start + after >= now else { continue }
                // The scenario's bookings that are cancelled are, at some time before 15 minutes
                // ahead of their slot: one cancelled before it holds its places holds none.
                let from = max(now, start - before - StoreTraffic.bookingLookahead)
                if let issued = facts?.issuedAt,
                    let cancelled = cancellation(from: issued, to: start - 900, now: now, random: &random),
                    cancelled <= from
                {
                    continue
                }
                // Not let in yet: not come, or come before the window opened.
                let entered = Self.given(notBy: now, random: &random) { random -> Date? in
                    guard !random.chance(scenario.noShowRate) else { return nil }
                    return max(start + max(-before, random.normal() * 180) + lateness(random: &random), start - before)
                }
                if let entered, entered <= start + after {
                    hold(reservation.people, from: from,
                         until: exit(entered: entered, declaredMinutes: declared, atLeast: entered, random: &random))
                } else {
                    hold(reservation.people, from: from, until: start + after)
                }
            case .waiting:
                break
            }
        }

        // The queue ahead, each party's unknowns drawn now.
        struct Party {
            var live: LiveReservation
            var declared: Int
            var travel: TimeInterval
            var leaves: Date?
            var cancels: Date?
            var noShow: Bool
        }
        let queue = zip(ahead, aheadKnown).map { reservation, facts -> Party in
            let isTarget = reservation.id == ticket.id
            return Party(
                live: reservation, declared: facts?.declaredMinutes ?? Int(reservation.residence / 60),
                travel: facts?.travel ?? 0, leaves: reservation.leftAt ?? facts?.leaveBy.map { Self.told(toLeaveBy: $0, now: now) },
                // The ticket measured is one that entered: it neither cancels nor fails to come.
                // Line-ups that are cancelled are, 2 to 30 minutes after they were made.
                cancels: isTarget || reservation.walkIn ? nil
                    : facts.flatMap { cancellation(from: $0.issuedAt + 120, to: $0.issuedAt + 1800, now: now,
                                                   random: &random) },
                noShow: !isTarget && random.chance(scenario.noShowRate))
        }

        var time = now
        var head = 0
        let horizon = now + 8 * 3600
        while time < horizon {
            while let first = starting.peek, first.at <= time {
                _ = starting.pop()
                held += first.people
            }
            while let first = ending.peek, first.at <= time {
                _ = ending.pop()
                held -= first.people
            }
            // A cancelled party leaves the queue; only the one at its head can hold others back.
            while head < queue.count, let cancels = queue[head].cancels, cancels <= time { head += 1 }
            var free = places - held
            while head < queue.count, queue[head].live.people <= free, queue[head].cancels.map({ $0 > time }) ?? true {
                let party = queue[head]
                head += 1
                free -= party.live.people
                held += party.live.people
                // Called now if at hand; one who travels leaves now if CLup has not told them to
                // already, is called as they are about to arrive, and let in when they come.
                let left = min(party.leaves ?? time, time)
                let called = party.travel > 0 ? max(time, left + party.travel - Departure.callMargin) : time
                func comes() -> Date {
                    party.travel > 0
                        ? max(called, left + party.travel * random.uniform(scenario.travel.factor) + lateness(random: &random))
                        : time + random.uniform(Scenario.Span(min: 30, max: 120)) + lateness(random: &random)
                }
                var arrival = comes()
                if party.live.id == ticket.id {
                    // The ticket measured entered: it came within its grace period.
                    for _ in 0..<16 where arrival > called + grace { arrival = comes() }
                    return arrival
                }
                let until = party.noShow || arrival > called + grace
                    ? called + grace
                    : exit(entered: arrival, declaredMinutes: party.declared, atLeast: arrival, random: &random)
                ending.insert(Moment(at: until, people: party.live.people))
            }
            // The next moment anything changes: a hold begins or ends, the party at the head
            // cancels.
            var next = min(horizon, starting.peek?.at ?? horizon, ending.peek?.at ?? horizon)
            if head < queue.count, let cancels = queue[head].cancels, cancels > time { next = min(next, cancels) }
            // CLup calls on its timer's turns.
            time = next + Double(5 - Int(next.timeIntervalSince1970) % 5)
        }
        return nil
    }
}
