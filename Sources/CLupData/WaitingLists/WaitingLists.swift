import CLupDomain
import Foundation
import GRDB

/// Waiting lists for full slots (`WaitingList`): joining, leaving, the offers made as places
/// come free and their answers. Every decision is made in a transaction from the committed
/// rows: the list's places and the slot's bookings are read and changed together, so two
/// places freed at once go to two different customers, and an offer holds its place until
/// it is answered or lapses.
extension AppDatabase {

    /// Offers the places free in one slot to those waiting for them, in list order; returns
    /// how many offers it made.
    @discardableResult
    static func offerPlaces(storeId: StoreID, slotStart: Date, now: Date, _ transaction: some SQLTransaction) throws
        -> Int
    {
        guard let store = try transaction.lockStore(storeId)?.store,
            let deadline = WaitingList.offerDeadline(now: now, slotStart: slotStart)
        else { return 0 }
        let slot = Slot(start: slotStart, end: slotStart + Double(store.slotMinutes) * 60)
        let booked = try bookedPeople(storeId: storeId, in: [slot], transaction)[slotStart] ?? 0
        let entries = try waitlist(storeId: storeId, slotStart: slotStart, transaction)
        let offers = WaitingList.offers(capacity: store.slotCapacity, booked: booked, entries: entries.map(\.rule))
        for id in offers {
            try transaction.execute("""
                UPDATE waitlist SET status = 'offered', offeredAt = \(now), offerExpiresAt = \(deadline)
                WHERE id = \(id) AND status = 'waiting'
                """)
            try waitlistNotice(.offer, entryId: id, now: now, transaction)
        }
        return offers.count
    }

    /// Ends open entry `id` with `status`, telling its customer unless they ended it themselves.
    static func endEntry(_ id: Int64, as status: WaitingList.Status, now: Date, _ transaction: some SQLTransaction)
        throws
    {
        try transaction.execute("""
            UPDATE waitlist SET status = \(status.rawValue), endedAt = \(now)
            WHERE id = \(id) AND status IN ('waiting', 'offered')
            """)
        switch status {
        case .passed: try waitlistNotice(.passed, entryId: id, now: now, transaction)
        case .closed: try waitlistNotice(.closed, entryId: id, now: now, transaction)
        default: break
        }
    }

    static func waitlistNotice(_ kind: WaitlistNotice.Kind, entryId: Int64, now: Date,
                               _ transaction: some SQLTransaction) throws
    {
        try transaction.execute("""
            INSERT INTO waitlistNotice (waitlistId, kind, createdAt) VALUES (\(entryId), \(kind.rawValue), \(now))
            ON CONFLICT DO NOTHING
            """)
    }

    // MARK: Reading

    /// The open entries of one slot's list, in order.
    static func waitlist(storeId: StoreID, slotStart: Date, _ transaction: some SQLTransaction) throws
        -> [WaitlistEntry]
    {
        try transaction.records(waitlistSQL(storeId: storeId, slotStart: slotStart), as: WaitlistEntry.self)
    }

    static func waitlistSQL(storeId: StoreID, slotStart: Date) -> SQL {
        """
        SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist
        WHERE storeId = \(storeId) AND slotStart = \(slotStart) AND status IN ('waiting', 'offered') ORDER BY id
        """
    }

    static func waitlistEntry(_ id: Int64, _ transaction: some SQLTransaction) throws -> WaitlistEntry? {
        try transaction.record("SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist WHERE id = \(id)",
                               as: WaitlistEntry.self)
    }

    static func openWaitlistEntry(userId: UserID, _ transaction: some SQLTransaction) throws -> WaitlistEntry? {
        try transaction.record("""
            SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist
            WHERE userId = \(userId) AND status IN ('waiting', 'offered')
            """, as: WaitlistEntry.self)
    }

    fileprivate static func place(_ entry: WaitlistEntry, _ transaction: some SQLTransaction) throws -> WaitlistPlace? {
        guard let store = try transaction.record("""
            SELECT \(unescaped: storeColumns) FROM store WHERE id = \(entry.storeId)
            """, as: Store.self)
        else { return nil }
        let ahead = entry.status == .waiting
            ? try transaction.value("""
                SELECT COUNT(*) FROM waitlist WHERE storeId = \(entry.storeId) AND slotStart = \(entry.slotStart)
                AND status = 'waiting' AND id < \(entry.id)
                """, as: Int.self) ?? 0
            : 0
        return WaitlistPlace(entry: entry, store: store, ahead: ahead)
    }
}

extension WaitingLists {
    // MARK: Joining and leaving

    /// Puts the customer on the list of the full slot `request.slotStart`: only a slot that
    /// could be booked if it had room, only when it has none for them, and one list at a time.
    public func joinWaitlist(_ request: WaitlistRequest, now: Date) throws -> WaitlistJoinOutcome {
        try database.transaction { transaction in
            // The customer, then the store: the order every transaction locking both keeps.
            try transaction.lockCustomer(request.userId)
            guard let details = try transaction.lockStore(request.storeId), !details.isRetired else { return .noSuchStore }
            if let open = try AppDatabase.openWaitlistEntry(userId: request.userId, transaction) {
                return open.requestKey == request.requestKey ? .alreadyJoined(open) : .onAnotherList(open)
            }
            let verdict = details.slotCalendar.verdict(start: request.slotStart,
                                                       residence: Double(request.residenceMinutes) * 60, now: now)
            guard case .bookable(let slot) = verdict else { return .slotRefused(verdict) }
            let booked = try AppDatabase.bookedPeople(storeId: request.storeId, in: [slot], transaction)[slot.start] ?? 0
            let entries = try AppDatabase.waitlist(storeId: request.storeId, slotStart: slot.start, transaction)
            if let refusal = WaitingList.joining(people: request.people, capacity: details.store.slotCapacity,
                                                 booked: booked, entries: entries.map(\.rule))
            {
                return .refused(refusal)
            }
            guard let entry = try transaction.record("""
                INSERT INTO waitlist (storeId, userId, slotStart, people, residenceMinutes, status, createdAt, requestKey)
                VALUES (\(request.storeId), \(request.userId), \(slot.start), \(request.people), \(request.residenceMinutes),
                        'waiting', \(now), \(request.requestKey))
                RETURNING \(unescaped: WaitlistEntry.columns)
                """, as: WaitlistEntry.self)
            else { return .noSuchStore }
            return .joined(entry)
        }
    }

    /// Takes the customer's entry `id` off its list (declining an offer, too: the place goes
    /// to the next at once). False if it is not theirs or no longer on the list.
    public func leaveWaitlist(id: Int64, userId: UserID, now: Date) throws -> Bool {
        try database.transaction { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM waitlist WHERE id = \(id)", as: StoreID.self),
                try transaction.lockStore(storeId) != nil,
                let entry = try AppDatabase.waitlistEntry(id, transaction), entry.userId == userId, entry.status.isOpen
            else { return false }
            try AppDatabase.endEntry(id, as: .left, now: now, transaction)
            if entry.status == .offered {
                try AppDatabase.offerPlaces(storeId: entry.storeId, slotStart: entry.slotStart, now: now, transaction)
            }
            return true
        }
    }

    /// Books the place offered to the customer on entry `id`, while the offer is open. Their
    /// other active reservation, if any, is cancelled only if they said so (one at a time).
    public func acceptOffer(id: Int64, userId: UserID, replacingActive: Bool, now: Date) throws -> OfferReply {
        try database.transaction { transaction in
            try transaction.lockCustomer(userId)
            guard let storeId = try transaction.value("SELECT storeId FROM waitlist WHERE id = \(id)", as: StoreID.self),
                let details = try transaction.lockStore(storeId),
                let entry = try AppDatabase.waitlistEntry(id, transaction), entry.userId == userId
            else { return .notFound }
            guard entry.status == .offered, let expires = entry.offerExpiresAt, expires > now else {
                return .notOffered(entry.status == .offered ? .passed : entry.status)
            }
            // The store may have changed its hours since the offer: a slot it no longer offers
            // closes the list instead of being booked.
            guard details.slotCalendar.slot(containing: entry.slotStart, now: now)?.start == entry.slotStart else {
                try AppDatabase.endEntry(id, as: .closed, now: now, transaction)
                return .notOffered(.closed)
            }
            let day = details.openingHours.businessDay(at: entry.slotStart)
            let reads = try ReservationReads(userId: userId, storeId: storeId, day: day, transaction).read(in: transaction)
            let storeRatio = try transaction.traffic(storeId: storeId, now: now).model.ratio
            if let active = reads.active {
                guard replacingActive, active.status != .inside else {
                    guard let store = try AppDatabase.storeDetails(active.storeId, transaction).first?.store else { return .notFound }
                    return .hasActive(ReservationWithStore(reservation: active, store: store))
                }
                if active.storeId != storeId { _ = try transaction.lockStore(active.storeId) }
                try AppDatabase.cancel(active, reason: .replaced, now: now, transaction)
                try AppDatabase.advanceQueue(storeId: active.storeId, now: now, transaction)
            }
            let reservation = try AppDatabase.insert(taking: reads.id, NewReservation(
                storeId: storeId, userId: userId, kind: .booking, walkIn: false, day: day,
                number: reads.number, people: entry.people,
                residenceMinutes: entry.residenceMinutes, travelMode: nil, slotStart: entry.slotStart, status: .booked,
                createdAt: now, requestKey: entry.requestKey, travelMetres: nil, expectedEntry: nil,
                // Chosen minutes ago: no reminder is needed to know they are coming.
                pace: reads.pace(declared: entry.residence, storeRatio: storeRatio),
                confirmedAt: now, remindedAt: now),
                transaction)
            try transaction.execute("""
                UPDATE waitlist SET status = 'accepted', endedAt = \(now), reservationId = \(reservation.id)
                WHERE id = \(id) AND status = 'offered'
                """)
            return .booked(try AppDatabase.reservationAsNow(reservation.id, transaction) ?? reservation)
        }
    }

    // MARK: Offers

    /// Brings every open list up to date: offers that lapsed pass to the next, lists whose
    /// slot is too near for an offer (or no longer offered) close, and places free on a list
    /// are offered. Run by the queue timer, so a place freed in any way — a cancellation, an
    /// unconfirmed booking, a no-show marked at the door, an offer declined — is offered
    /// within seconds. One store per transaction, under its lock: a pass never holds two
    /// stores at once. Returns the offers made, passed on and the entries closed.
    @discardableResult
    public func passWaitingLists(now: Date) throws -> (offered: Int, passed: Int, closed: Int) {
        let stores = try database.reading { transaction in
            try transaction.column("""
                SELECT DISTINCT storeId FROM waitlist WHERE status IN ('waiting', 'offered') ORDER BY storeId
                """, as: StoreID.self).compactMap { $0 }
        }
        var result = (offered: 0, passed: 0, closed: 0)
        for storeId in stores {
            let counts = try database.transaction { transaction in
                var result = (offered: 0, passed: 0, closed: 0)
                guard let details = try transaction.lockStore(storeId) else { return result }
                for id in try transaction.column("""
                    SELECT id FROM waitlist
                    WHERE storeId = \(storeId) AND status = 'offered' AND offerExpiresAt <= \(now) ORDER BY id
                    """, as: Int64.self).compactMap({ $0 })
                {
                    try AppDatabase.endEntry(id, as: .passed, now: now, transaction)
                    result.passed += 1
                }
                for slotStart in try transaction.column("""
                    SELECT DISTINCT slotStart FROM waitlist WHERE storeId = \(storeId) AND status = 'waiting'
                    ORDER BY slotStart
                    """, as: Date.self).compactMap({ $0 })
                {
                    let offered = details.slotCalendar.slot(containing: slotStart, now: now)
                    if offered?.start != slotStart || WaitingList.isOver(slotStart: slotStart, now: now) {
                        for id in try transaction.column("""
                            SELECT id FROM waitlist WHERE storeId = \(storeId) AND slotStart = \(slotStart)
                            AND status = 'waiting' ORDER BY id
                            """, as: Int64.self).compactMap({ $0 })
                        {
                            try AppDatabase.endEntry(id, as: .closed, now: now, transaction)
                            result.closed += 1
                        }
                    } else {
                        result.offered += try AppDatabase.offerPlaces(storeId: storeId, slotStart: slotStart, now: now,
                                                               transaction)
                    }
                }
                return result
            }
            result = (result.offered + counts.offered, result.passed + counts.passed, result.closed + counts.closed)
        }
        return result
    }

    /// Entry `id` with its store and the parties waiting before it.
    public func waitlistPlace(id: Int64) throws -> WaitlistPlace? {
        try database.reading { transaction in try AppDatabase.waitlistEntry(id, transaction).flatMap { try AppDatabase.place($0, transaction) } }
    }

    /// The customer's entry still on a list, if any.
    public func openWaitlistPlace(userId: UserID) throws -> WaitlistPlace? {
        try database.reading { transaction in
            try AppDatabase.openWaitlistEntry(userId: userId, transaction).flatMap { try AppDatabase.place($0, transaction) }
        }
    }

    /// The open lists of a store's slots starting in `slots`, by slot start (for the slot
    /// picker: a slot whose list could take its free places is full to newcomers).
    public func waitlists(storeId: StoreID, in slots: [Slot]) throws -> [Date: [WaitingList.Entry]] {
        guard let first = slots.first, let last = slots.last else { return [:] }
        return try database.reading { transaction in
            var result: [Date: [WaitingList.Entry]] = [:]
            for entry in try transaction.records("""
                SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist
                WHERE storeId = \(storeId) AND slotStart >= \(first.start) AND slotStart < \(last.end)
                AND status IN ('waiting', 'offered') ORDER BY id
                """, as: WaitlistEntry.self)
            {
                result[entry.slotStart, default: []].append(entry.rule)
            }
            return result
        }
    }

    // MARK: Dispatching

    /// Turns pending waiting-list notices into messages, as `dispatchNotices` does for
    /// reservations'; a notice its entry has moved past (an offer already answered) goes to
    /// nobody.
    @discardableResult
    public func dispatchWaitlistNotices(now: Date, limit: Int = 50,
                                        render: @Sendable (WaitlistNoticeSubject) -> RenderedNotice) throws -> Int
    {
        let pending = try database.reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM waitlistNotice WHERE dispatchedAt IS NULL", as: Int.self) ?? 0
        }
        guard pending > 0 else { return 0 }
        return try database.transaction { transaction in
            let notices = try transaction.records("""
                SELECT id, waitlistId, kind, createdAt, dispatchedAt FROM waitlistNotice WHERE dispatchedAt IS NULL
                ORDER BY id LIMIT \(limit) \(SQL.forUpdateSkipLocked)
                """, as: WaitlistNotice.self)
            for notice in notices {
                try transaction.execute("UPDATE waitlistNotice SET dispatchedAt = \(now) WHERE id = \(notice.id)")
                guard let entry = try AppDatabase.waitlistEntry(notice.waitlistId, transaction),
                    entry.status == notice.kind.appliesTo, let user = try AppDatabase.user(id: entry.userId, transaction),
                    let store = try transaction.record("""
                        SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(entry.storeId)
                        """, as: Store.self)
                else { continue }
                let message = render(WaitlistNoticeSubject(notice: notice, entry: entry, store: store, user: user))
                let pushed = try AppDatabase.push(message, to: user, now: now, transaction)
                if user.notifyEmail || pushed == 0 {
                    try AppDatabase.insert(NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body,
                                                     now: now, priority: notice.kind.mailPriority), transaction)
                }
            }
            return notices.count
        }
    }

    /// The notices of waiting-list entry `id`, oldest first.
    public func waitlistNotices(entryId id: Int64) throws -> [WaitlistNotice] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT id, waitlistId, kind, createdAt, dispatchedAt FROM waitlistNotice WHERE waitlistId = \(id) ORDER BY id
                """, as: WaitlistNotice.self)
        }
    }
}

/// Waiting lists for full slots: joining, leaving, offers and their answers.
/// Reached from the database as `waitingLists`; each write is one transaction.
public struct WaitingLists: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Waiting lists for full slots.
    public var waitingLists: WaitingLists { WaitingLists(database: self) }
}
