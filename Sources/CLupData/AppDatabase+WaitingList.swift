import CLupDomain
import Foundation
import GRDB

/// Waiting lists for full slots (`WaitingList`): joining, leaving, the offers made as places
/// come free and their answers. Every decision is made in a transaction from the committed
/// rows: the list's places and the slot's bookings are read and changed together, so two
/// places freed at once go to two different customers, and an offer holds its place until
/// it is answered or lapses.
extension AppDatabase {
    // MARK: Joining and leaving

    /// Puts the customer on the list of the full slot `request.slotStart`: only a slot that
    /// could be booked if it had room, only when it has none for them, and one list at a time.
    public func joinWaitlist(_ request: WaitlistRequest, now: Date) throws -> WaitlistJoinOutcome {
        if let postgres { return try postgres.joinWaitlist(request, now: now) }
        return try write { db in
            guard let details = try transactionDefinition(storeId: request.storeId, db) else { return .noSuchStore }
            if let open = try Self.openWaitlistEntry(userId: request.userId, db) {
                return open.requestKey == request.requestKey ? .alreadyJoined(open) : .onAnotherList(open)
            }
            let verdict = details.slotCalendar.verdict(start: request.slotStart,
                                                       residence: Double(request.residenceMinutes) * 60, now: now)
            guard case .bookable(let slot) = verdict else { return .slotRefused(verdict) }
            let booked = try Self.bookedPeople(storeId: request.storeId, in: [slot], db)[slot.start] ?? 0
            let entries = try Self.waitlist(storeId: request.storeId, slotStart: slot.start, db)
            if let refusal = WaitingList.joining(people: request.people, capacity: details.store.slotCapacity,
                                                 booked: booked, entries: entries.map(\.rule))
            {
                return .refused(refusal)
            }
            try db.cachedStatement(sql: """
                INSERT INTO waitlist (storeId, userId, slotStart, people, residenceMinutes, status, createdAt, requestKey)
                VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?)
                """).execute(arguments: [request.storeId, request.userId, slot.start.databaseText, request.people,
                                         request.residenceMinutes, now.databaseText, request.requestKey])
            guard let entry = try Self.waitlistEntry(db.lastInsertedRowID, db) else { return .noSuchStore }
            return .joined(entry)
        }
    }

    /// Takes the customer's entry `id` off its list (declining an offer, too: the place goes
    /// to the next at once). False if it is not theirs or no longer on the list.
    public func leaveWaitlist(id: Int64, userId: UserID, now: Date) throws -> Bool {
        if let postgres { return try postgres.leaveWaitlist(id: id, userId: userId, now: now) }
        return try write { db in
            guard let entry = try Self.waitlistEntry(id, db), entry.userId == userId, entry.status.isOpen else {
                return false
            }
            try Self.endEntry(id, as: .left, now: now, db)
            if entry.status == .offered {
                try offerPlaces(storeId: entry.storeId, slotStart: entry.slotStart, now: now, db)
            }
            return true
        }
    }

    /// Books the place offered to the customer on entry `id`, while the offer is open. Their
    /// other active reservation, if any, is cancelled only if they said so (one at a time).
    public func acceptOffer(id: Int64, userId: UserID, replacingActive: Bool, now: Date) throws -> OfferReply {
        if let postgres {
            return try postgres.acceptOffer(id: id, userId: userId, replacingActive: replacingActive, now: now)
        }
        return try write { db in
            guard let entry = try Self.waitlistEntry(id, db), entry.userId == userId else { return .notFound }
            guard entry.status == .offered, let expires = entry.offerExpiresAt, expires > now else {
                return .notOffered(entry.status == .offered ? .passed : entry.status)
            }
            guard let details = try transactionDefinition(storeId: entry.storeId, db) else { return .notFound }
            // The store may have changed its hours since the offer: a slot it no longer offers
            // closes the list instead of being booked.
            guard details.slotCalendar.slot(containing: entry.slotStart, now: now)?.start == entry.slotStart else {
                try Self.endEntry(id, as: .closed, now: now, db)
                return .notOffered(.closed)
            }
            if let active = try Reservation.active(userId: userId, db) {
                guard replacingActive, active.status != .inside else {
                    guard let store = try Store.fetchOne(db, id: active.storeId) else { return .notFound }
                    return .hasActive(ReservationWithStore(reservation: active, store: store))
                }
                try Self.cancel(active, reason: .replaced, now: now, db)
                try advanceQueue(storeId: active.storeId, now: now, db)
            }
            let day = details.openingHours.businessDay(at: entry.slotStart)
            let reservation = try NewReservation(
                storeId: entry.storeId, userId: userId, kind: .booking, walkIn: false, day: day,
                number: try Self.nextNumber(storeId: entry.storeId, day: day, db), people: entry.people,
                residenceMinutes: entry.residenceMinutes, travelMode: nil, slotStart: entry.slotStart, status: .booked,
                createdAt: now, requestKey: entry.requestKey, travelMetres: nil, expectedEntry: nil,
                pace: try Self.pace(userId: userId, storeId: entry.storeId, declared: entry.residence, db)
            ).insert(returning: db)
            // Chosen minutes ago: no reminder is needed to know they are coming.
            try db.cachedStatement(sql: "UPDATE reservation SET confirmedAt = ?, remindedAt = ? WHERE id = ?")
                .execute(arguments: [now.databaseText, now.databaseText, reservation.id])
            try db.cachedStatement(sql: """
                UPDATE waitlist SET status = 'accepted', endedAt = ?, reservationId = ? WHERE id = ? AND status = 'offered'
                """).execute(arguments: [now.databaseText, reservation.id, id])
            return .booked(try Reservation.find(reservation.id, db) ?? reservation)
        }
    }

    // MARK: Offers

    /// Brings every open list up to date: offers that lapsed pass to the next, lists whose
    /// slot is too near for an offer (or no longer offered) close, and places free on a list
    /// are offered. Run by the queue timer, so a place freed in any way — a cancellation, an
    /// unconfirmed booking, a no-show marked at the door, an offer declined — is offered
    /// within seconds. Returns the offers made, passed on and the entries closed.
    @discardableResult
    public func passWaitingLists(now: Date) throws -> (offered: Int, passed: Int, closed: Int) {
        if let postgres { return try postgres.passWaitingLists(now: now) }
        let open = try reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM waitlist WHERE status IN ('waiting', 'offered')") ?? 0
        }
        guard open > 0 else { return (0, 0, 0) }
        return try write { db in
            var result = (offered: 0, passed: 0, closed: 0)
            let lapsed = try Int64.fetchAll(db, sql: """
                SELECT id FROM waitlist WHERE status = 'offered' AND offerExpiresAt <= ? ORDER BY id
                """, arguments: [now.databaseText])
            for id in lapsed {
                try Self.endEntry(id, as: .passed, now: now, db)
                result.passed += 1
            }
            let slots = try Row.fetchAll(db, sql: """
                SELECT DISTINCT storeId, slotStart FROM waitlist WHERE status = 'waiting' ORDER BY storeId, slotStart
                """)
            for row in slots {
                let storeId: StoreID = row["storeId"]
                let slotStart: Date = row["slotStart"]
                let details = try transactionDefinition(storeId: storeId, db)
                let offered = details.flatMap { $0.slotCalendar.slot(containing: slotStart, now: now) }
                if offered?.start != slotStart || WaitingList.isOver(slotStart: slotStart, now: now) {
                    for id in try Int64.fetchAll(db, sql: """
                        SELECT id FROM waitlist WHERE storeId = ? AND slotStart = ? AND status = 'waiting' ORDER BY id
                        """, arguments: [storeId, slotStart.databaseText])
                    {
                        try Self.endEntry(id, as: .closed, now: now, db)
                        result.closed += 1
                    }
                } else {
                    result.offered += try offerPlaces(storeId: storeId, slotStart: slotStart, now: now, db)
                }
            }
            return result
        }
    }

    /// Offers the places free in one slot to those waiting for them, in list order; returns
    /// how many offers it made.
    @discardableResult
    func offerPlaces(storeId: StoreID, slotStart: Date, now: Date, _ db: Database) throws -> Int {
        guard let store = try transactionDefinition(storeId: storeId, db)?.store,
            let deadline = WaitingList.offerDeadline(now: now, slotStart: slotStart)
        else { return 0 }
        let slot = Slot(start: slotStart, end: slotStart + Double(store.slotMinutes) * 60)
        let booked = try Self.bookedPeople(storeId: storeId, in: [slot], db)[slotStart] ?? 0
        let entries = try Self.waitlist(storeId: storeId, slotStart: slotStart, db)
        let offers = WaitingList.offers(capacity: store.slotCapacity, booked: booked, entries: entries.map(\.rule))
        for id in offers {
            try db.cachedStatement(sql: """
                UPDATE waitlist SET status = 'offered', offeredAt = ?, offerExpiresAt = ? WHERE id = ? AND status = 'waiting'
                """).execute(arguments: [now.databaseText, deadline.databaseText, id])
            try Self.waitlistNotice(.offer, entryId: id, now: now, db)
        }
        return offers.count
    }

    /// Ends open entry `id` with `status`, telling its customer unless they ended it themselves.
    static func endEntry(_ id: Int64, as status: WaitingList.Status, now: Date, _ db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE waitlist SET status = ?, endedAt = ? WHERE id = ? AND status IN ('waiting', 'offered')
            """).execute(arguments: [status.rawValue, now.databaseText, id])
        switch status {
        case .passed: try waitlistNotice(.passed, entryId: id, now: now, db)
        case .closed: try waitlistNotice(.closed, entryId: id, now: now, db)
        default: break
        }
    }

    static func waitlistNotice(_ kind: WaitlistNotice.Kind, entryId: Int64, now: Date, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO waitlistNotice (waitlistId, kind, createdAt) VALUES (?, ?, ?)
            """).execute(arguments: [entryId, kind.rawValue, now.databaseText])
    }

    // MARK: Reading

    /// The open entries of one slot's list, in order.
    static func waitlist(storeId: StoreID, slotStart: Date, _ db: Database) throws -> [WaitlistEntry] {
        try WaitlistEntry.fetchAll(db.cachedStatement(sql: """
            SELECT \(WaitlistEntry.columns) FROM waitlist
            WHERE storeId = ? AND slotStart = ? AND status IN ('waiting', 'offered') ORDER BY id
            """), arguments: [storeId, slotStart.databaseText])
    }

    static func waitlistEntry(_ id: Int64, _ db: Database) throws -> WaitlistEntry? {
        try WaitlistEntry.fetchOne(db.cachedStatement(sql: "SELECT \(WaitlistEntry.columns) FROM waitlist WHERE id = ?"),
                                   arguments: [id])
    }

    static func openWaitlistEntry(userId: UserID, _ db: Database) throws -> WaitlistEntry? {
        try WaitlistEntry.fetchOne(db.cachedStatement(sql: """
            SELECT \(WaitlistEntry.columns) FROM waitlist WHERE userId = ? AND status IN ('waiting', 'offered')
            """), arguments: [userId])
    }

    /// Entry `id` with its store and the parties waiting before it.
    public func waitlistPlace(id: Int64) throws -> WaitlistPlace? {
        if let postgres { return try postgres.waitlistPlace(id: id) }
        return try reader.read { db in try Self.waitlistEntry(id, db).flatMap { try Self.place($0, db) } }
    }

    /// The customer's entry still on a list, if any.
    public func openWaitlistPlace(userId: UserID) throws -> WaitlistPlace? {
        if let postgres { return try postgres.openWaitlistPlace(userId: userId) }
        return try reader.read { db in try Self.openWaitlistEntry(userId: userId, db).flatMap { try Self.place($0, db) } }
    }

    private static func place(_ entry: WaitlistEntry, _ db: Database) throws -> WaitlistPlace? {
        guard let store = try Store.fetchOne(db, id: entry.storeId) else { return nil }
        let ahead = entry.status == .waiting
            ? try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM waitlist WHERE storeId = ? AND slotStart = ? AND status = 'waiting' AND id < ?
                """, arguments: [entry.storeId, entry.slotStart.databaseText, entry.id]) ?? 0
            : 0
        return WaitlistPlace(entry: entry, store: store, ahead: ahead)
    }

    /// The open lists of a store's slots starting in `slots`, by slot start (for the slot
    /// picker: a slot whose list could take its free places is full to newcomers).
    public func waitlists(storeId: StoreID, in slots: [Slot]) throws -> [Date: [WaitingList.Entry]] {
        if let postgres { return try postgres.waitlists(storeId: storeId, in: slots) }
        guard let first = slots.first, let last = slots.last else { return [:] }
        return try reader.read { db in
            var result: [Date: [WaitingList.Entry]] = [:]
            for entry in try WaitlistEntry.fetchAll(db, sql: """
                SELECT \(WaitlistEntry.columns) FROM waitlist
                WHERE storeId = ? AND slotStart >= ? AND slotStart < ? AND status IN ('waiting', 'offered') ORDER BY id
                """, arguments: [storeId, first.start.databaseText, last.end.databaseText])
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
        if let postgres { return try postgres.dispatchWaitlistNotices(now: now, limit: limit, render: render) }
        let pending = try reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM waitlistNotice WHERE dispatchedAt IS NULL") ?? 0
        }
        guard pending > 0 else { return 0 }
        return try write { db in
            let notices = try WaitlistNotice.fetchAll(db, sql: """
                SELECT id, waitlistId, kind, createdAt, dispatchedAt FROM waitlistNotice WHERE dispatchedAt IS NULL
                ORDER BY id LIMIT ?
                """, arguments: [limit])
            for notice in notices {
                try db.execute(sql: "UPDATE waitlistNotice SET dispatchedAt = ? WHERE id = ?",
                               arguments: [now.databaseText, notice.id])
                guard let entry = try Self.waitlistEntry(notice.waitlistId, db), entry.status == notice.kind.appliesTo,
                    let user = try User.fetchOne(db, id: entry.userId), let store = try Store.fetchOne(db, id: entry.storeId)
                else { continue }
                let message = render(WaitlistNoticeSubject(notice: notice, entry: entry, store: store, user: user))
                let pushed = try Self.push(message, to: user, now: now, db)
                if user.notifyEmail || pushed == 0 {
                    try NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body, now: now,
                                         priority: notice.kind.mailPriority).insert(db)
                }
            }
            return notices.count
        }
    }

    /// The notices of waiting-list entry `id`, oldest first.
    public func waitlistNotices(entryId id: Int64) throws -> [WaitlistNotice] {
        if let postgres { return try postgres.waitlistNotices(entryId: id) }
        return try reader.read { db in
            try WaitlistNotice.fetchAll(db, sql: """
                SELECT id, waitlistId, kind, createdAt, dispatchedAt FROM waitlistNotice WHERE waitlistId = ? ORDER BY id
                """, arguments: [id])
        }
    }
}
