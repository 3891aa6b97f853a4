import CLupDomain
import Foundation
import PostgresNIO

/// Waiting lists on PostgreSQL: the same named methods as `AppDatabase+WaitingList.swift`.
/// Every decision on a slot's places is taken under its store's row lock (`lockStore`), as a
/// booking's is, so an offer and a newcomer's booking, or two workers' passes, cannot both see
/// the same place free.
extension PostgresEngine {
    func joinWaitlist(_ request: WaitlistRequest, now: Date) throws -> WaitlistJoinOutcome {
        try write { transaction in
            // The customer, then the store: the order every transaction locking both keeps.
            _ = try transaction.row("SELECT id FROM \"user\" WHERE id = \(request.userId) FOR UPDATE")
            guard let details = try Self.lockStore(request.storeId, transaction) else { return .noSuchStore }
            if let open = try Self.openWaitlistEntry(userId: request.userId, transaction) {
                return open.requestKey == request.requestKey ? .alreadyJoined(open) : .onAnotherList(open)
            }
            let verdict = details.slotCalendar.verdict(start: request.slotStart,
                                                       residence: Double(request.residenceMinutes) * 60, now: now)
            guard case .bookable(let slot) = verdict else { return .slotRefused(verdict) }
            let booked = try Self.bookedPeople(storeId: request.storeId, in: [slot], transaction)[slot.start] ?? 0
            let entries = try Self.waitlist(storeId: request.storeId, slotStart: slot.start, transaction)
            if let refusal = WaitingList.joining(people: request.people, capacity: details.store.slotCapacity,
                                                 booked: booked, entries: entries.map(\.rule))
            {
                return .refused(refusal)
            }
            guard let entry = try transaction.row("""
                INSERT INTO waitlist (storeId, userId, slotStart, people, residenceMinutes, status, createdAt, requestKey)
                VALUES (\(request.storeId), \(request.userId), \(slot.start), \(request.people), \(request.residenceMinutes),
                        'waiting', \(now), \(request.requestKey))
                RETURNING \(unescaped: WaitlistEntry.columns)
                """)?.record(WaitlistEntry.self)
            else { return .noSuchStore }
            return .joined(entry)
        }
    }

    func leaveWaitlist(id: Int64, userId: UserID, now: Date) throws -> Bool {
        try write { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM waitlist WHERE id = \(id)", as: StoreID.self),
                try Self.lockStore(storeId, transaction) != nil,
                let entry = try Self.waitlistEntry(id, transaction), entry.userId == userId, entry.status.isOpen
            else { return false }
            try Self.endEntry(id, as: .left, now: now, transaction)
            if entry.status == .offered {
                try Self.offerPlaces(storeId: entry.storeId, slotStart: entry.slotStart, now: now, transaction)
            }
            return true
        }
    }

    func acceptOffer(id: Int64, userId: UserID, replacingActive: Bool, now: Date) throws -> OfferReply {
        try write { transaction in
            _ = try transaction.row("SELECT id FROM \"user\" WHERE id = \(userId) FOR UPDATE")
            guard let storeId = try transaction.value("SELECT storeId FROM waitlist WHERE id = \(id)", as: StoreID.self),
                let details = try Self.lockStore(storeId, transaction),
                let entry = try Self.waitlistEntry(id, transaction), entry.userId == userId
            else { return .notFound }
            guard entry.status == .offered, let expires = entry.offerExpiresAt, expires > now else {
                return .notOffered(entry.status == .offered ? .passed : entry.status)
            }
            guard details.slotCalendar.slot(containing: entry.slotStart, now: now)?.start == entry.slotStart else {
                try Self.endEntry(id, as: .closed, now: now, transaction)
                return .notOffered(.closed)
            }
            if let active = try Self.activeReservation(userId: userId, transaction) {
                guard replacingActive, active.status != .inside else {
                    guard let store = try AppDatabase.storeDetails(active.storeId, transaction.statements).first?.store else {
                        return .notFound
                    }
                    return .hasActive(ReservationWithStore(reservation: active, store: store))
                }
                if active.storeId != storeId { _ = try Self.lockStore(active.storeId, transaction) }
                try Self.cancel(active, reason: .replaced, now: now, transaction)
                try Self.advanceQueue(storeId: active.storeId, now: now, transaction)
            }
            let day = details.openingHours.businessDay(at: entry.slotStart)
            let reservation = try Self.insert(NewReservation(
                storeId: storeId, userId: userId, kind: .booking, walkIn: false, day: day,
                number: try Self.nextNumber(storeId: storeId, day: day, transaction), people: entry.people,
                residenceMinutes: entry.residenceMinutes, travelMode: nil, slotStart: entry.slotStart, status: .booked,
                createdAt: now, requestKey: entry.requestKey, travelMetres: nil, expectedEntry: nil,
                pace: try Self.pace(userId: userId, storeId: storeId, declared: entry.residence, transaction)),
                transaction)
            try transaction.execute("""
                UPDATE reservation SET confirmedAt = \(now), remindedAt = \(now) WHERE id = \(reservation.id)
                """)
            try transaction.execute("""
                UPDATE waitlist SET status = 'accepted', endedAt = \(now), reservationId = \(reservation.id)
                WHERE id = \(id) AND status = 'offered'
                """)
            return .booked(try Self.reservation(reservation.id, transaction) ?? reservation)
        }
    }

    func passWaitingLists(now: Date) throws -> (offered: Int, passed: Int, closed: Int) {
        let stores = try read { transaction in
            try transaction.rows("""
                SELECT DISTINCT storeId FROM waitlist WHERE status IN ('waiting', 'offered') ORDER BY storeId
                """).map { try $0[0].decode(StoreID.self) }
        }
        var result = (offered: 0, passed: 0, closed: 0)
        // One store per transaction, under its lock: a pass never holds two stores at once.
        for storeId in stores {
            let counts = try write { transaction in
                var result = (offered: 0, passed: 0, closed: 0)
                guard let details = try Self.lockStore(storeId, transaction) else { return result }
                for id in try transaction.rows("""
                    SELECT id FROM waitlist
                    WHERE storeId = \(storeId) AND status = 'offered' AND offerExpiresAt <= \(now) ORDER BY id
                    """).map({ try $0[0].decode(Int64.self) })
                {
                    try Self.endEntry(id, as: .passed, now: now, transaction)
                    result.passed += 1
                }
                for slotStart in try transaction.rows("""
                    SELECT DISTINCT slotStart FROM waitlist WHERE storeId = \(storeId) AND status = 'waiting'
                    ORDER BY slotStart
                    """).map({ try $0[0].decode(Date.self) })
                {
                    let offered = details.slotCalendar.slot(containing: slotStart, now: now)
                    if offered?.start != slotStart || WaitingList.isOver(slotStart: slotStart, now: now) {
                        for id in try transaction.rows("""
                            SELECT id FROM waitlist WHERE storeId = \(storeId) AND slotStart = \(slotStart)
                            AND status = 'waiting' ORDER BY id
                            """).map({ try $0[0].decode(Int64.self) })
                        {
                            try Self.endEntry(id, as: .closed, now: now, transaction)
                            result.closed += 1
                        }
                    } else {
                        result.offered += try Self.offerPlaces(storeId: storeId, slotStart: slotStart, now: now,
                                                               transaction)
                    }
                }
                return result
            }
            result = (result.offered + counts.offered, result.passed + counts.passed, result.closed + counts.closed)
        }
        return result
    }

    /// Offers the places free in one slot, in list order; the store's row is locked already.
    @discardableResult
    static func offerPlaces(storeId: StoreID, slotStart: Date, now: Date, _ transaction: PostgresTransaction) throws
        -> Int
    {
        guard let store = try lockStore(storeId, transaction)?.store,
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

    static func endEntry(_ id: Int64, as status: WaitingList.Status, now: Date, _ transaction: PostgresTransaction)
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
                               _ transaction: PostgresTransaction) throws
    {
        try transaction.execute("""
            INSERT INTO waitlistNotice (waitlistId, kind, createdAt) VALUES (\(entryId), \(kind.rawValue), \(now))
            ON CONFLICT DO NOTHING
            """)
    }

    // MARK: Reading

    static func waitlist(storeId: StoreID, slotStart: Date, _ transaction: PostgresTransaction) throws
        -> [WaitlistEntry]
    {
        try transaction.rows("""
            SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist
            WHERE storeId = \(storeId) AND slotStart = \(slotStart) AND status IN ('waiting', 'offered') ORDER BY id
            """).map { try $0.record(WaitlistEntry.self) }
    }

    static func waitlistEntry(_ id: Int64, _ transaction: PostgresTransaction) throws -> WaitlistEntry? {
        try transaction.row("SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist WHERE id = \(id)")?
            .record(WaitlistEntry.self)
    }

    static func openWaitlistEntry(userId: UserID, _ transaction: PostgresTransaction) throws -> WaitlistEntry? {
        try transaction.row("""
            SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist
            WHERE userId = \(userId) AND status IN ('waiting', 'offered')
            """)?.record(WaitlistEntry.self)
    }

    private static func place(_ entry: WaitlistEntry, _ transaction: PostgresTransaction) throws -> WaitlistPlace? {
        guard let store = try AppDatabase.storeDetails(entry.storeId, transaction.statements).first?.store else { return nil }
        let ahead = entry.status == .waiting
            ? try transaction.value("""
                SELECT COUNT(*) FROM waitlist WHERE storeId = \(entry.storeId) AND slotStart = \(entry.slotStart)
                AND status = 'waiting' AND id < \(entry.id)
                """, as: Int.self) ?? 0
            : 0
        return WaitlistPlace(entry: entry, store: store, ahead: ahead)
    }

    func waitlistPlace(id: Int64) throws -> WaitlistPlace? {
        try read { transaction in try Self.waitlistEntry(id, transaction).flatMap { try Self.place($0, transaction) } }
    }

    func openWaitlistPlace(userId: UserID) throws -> WaitlistPlace? {
        try read { transaction in
            try Self.openWaitlistEntry(userId: userId, transaction).flatMap { try Self.place($0, transaction) }
        }
    }

    func waitlists(storeId: StoreID, in slots: [Slot]) throws -> [Date: [WaitingList.Entry]] {
        guard let first = slots.first, let last = slots.last else { return [:] }
        return try read { transaction in
            var result: [Date: [WaitingList.Entry]] = [:]
            for row in try transaction.rows("""
                SELECT \(unescaped: WaitlistEntry.columns) FROM waitlist
                WHERE storeId = \(storeId) AND slotStart >= \(first.start) AND slotStart < \(last.end)
                AND status IN ('waiting', 'offered') ORDER BY id
                """)
            {
                let entry = try row.record(WaitlistEntry.self)
                result[entry.slotStart, default: []].append(entry.rule)
            }
            return result
        }
    }

    // MARK: Dispatching

    func dispatchWaitlistNotices(now: Date, limit: Int, render: @Sendable (WaitlistNoticeSubject) -> RenderedNotice)
        throws -> Int
    {
        let pending = try read { transaction in
            try transaction.value("SELECT COUNT(*) FROM waitlistNotice WHERE dispatchedAt IS NULL", as: Int.self) ?? 0
        }
        guard pending > 0 else { return 0 }
        return try write { transaction in
            let notices = try transaction.rows("""
                SELECT id, waitlistId, kind, createdAt, dispatchedAt FROM waitlistNotice WHERE dispatchedAt IS NULL
                ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """).map { try $0.record(WaitlistNotice.self) }
            for notice in notices {
                try transaction.execute("UPDATE waitlistNotice SET dispatchedAt = \(now) WHERE id = \(notice.id)")
                guard let entry = try Self.waitlistEntry(notice.waitlistId, transaction),
                    entry.status == notice.kind.appliesTo, let user = try AppDatabase.user(id: entry.userId, transaction.statements),
                    let store = try AppDatabase.storeDetails(entry.storeId, transaction.statements).first?.store
                else { continue }
                let message = render(WaitlistNoticeSubject(notice: notice, entry: entry, store: store, user: user))
                let pushed = try Self.push(message, to: user, now: now, transaction)
                if user.notifyEmail || pushed == 0 {
                    try AppDatabase.insert(NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body,
                                                     now: now, priority: notice.kind.mailPriority), transaction.statements)
                }
            }
            return notices.count
        }
    }

    func waitlistNotices(entryId id: Int64) throws -> [WaitlistNotice] {
        try read { transaction in
            try transaction.rows("""
                SELECT id, waitlistId, kind, createdAt, dispatchedAt FROM waitlistNotice WHERE waitlistId = \(id) ORDER BY id
                """).map { try $0.record(WaitlistNotice.self) }
        }
    }
}
