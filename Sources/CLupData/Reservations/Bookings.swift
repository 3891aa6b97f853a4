import CLupDomain
import Foundation

/// What a booking's customer answered, or why the answer changed nothing.
public enum BookingReply: Sendable, Equatable {
    case confirmed
    case alreadyConfirmed
    /// Not a booked visit any more (cancelled, expired, used): nothing to confirm.
    case notBooked(ReservationStatus)
    case notFound
}

extension Reservations {
    // MARK: Bookings: reminder, confirmation, no answer

    /// Reminds the customers of bookings starting within `BookingReminder.lead`, and cancels
    /// those reminded `BookingReminder.replyWindow` ago that were not confirmed, freeing their
    /// places. Run by the queue timer: a read through a partial index finds the few bookings
    /// concerned, and only then a transaction decides again from the committed rows (rows
    /// another worker is deciding on are skipped, not waited for).
    @discardableResult
    public func remindBookings(now: Date) throws -> (reminded: Int, cancelled: Int) {
        let condition: SQL = """
            status = 'booked' AND confirmedAt IS NULL AND slotStart <= \(now + BookingReminder.lead)
            AND (remindedAt IS NULL OR remindedAt <= \(now - BookingReminder.replyWindow))
            """
        let due = try database.reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM reservation WHERE \(condition)", as: Int.self) ?? 0
        }
        guard due > 0 else { return (0, 0) }
        return try database.transaction { transaction in
            let rows = try transaction.rows("""
                SELECT id, storeId, remindedAt FROM reservation WHERE \(condition) ORDER BY id \(SQL.forUpdateSkipLocked)
                """)
            var reminded = 0
            var cancelled: Set<StoreID> = []
            for row in rows {
                let (id, storeId, remindedAt): (ReservationID, StoreID, Date?) =
                    (try row.decode(0), try row.decode(1), try row.value(2))
                if remindedAt == nil {
                    try transaction.execute("UPDATE reservation SET remindedAt = \(now) WHERE id = \(id)")
                    try AppDatabase.notice(.reminder, reservationId: id, now: now, transaction)
                    reminded += 1
                } else if try transaction.lockStore(storeId) != nil,
                    try AppDatabase.setStatus(.cancelled, .endedAt, to: now, id: id, from: .booked, transaction)
                {
                    try AppDatabase.notice(.autoCancelled, reservationId: id, reason: .unconfirmed, now: now, transaction)
                    cancelled.insert(storeId)
                }
            }
            for storeId in cancelled.sorted() { try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction) }
            return (reminded, cancelled.count)
        }
    }

    /// Confirms the customer's booking `id` (from its reminder or its ticket).
    public func confirmBooking(id: ReservationID, userId: UserID, now: Date) throws -> BookingReply {
        try database.transaction { transaction in
            guard let reservation = try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation WHERE id = \(id) \(SQL.forUpdate)
                """, transaction).first, reservation.userId == userId
            else { return .notFound }
            guard reservation.status == .booked else { return .notBooked(reservation.status) }
            guard reservation.confirmedAt == nil else { return .alreadyConfirmed }
            try transaction.execute("UPDATE reservation SET confirmedAt = \(now) WHERE id = \(id) AND status = 'booked'")
            return .confirmed
        }
    }

    /// A store's bookings whose slot starts in `from...to`, soonest first.
    public func bookings(storeId: StoreID, from: Date, to: Date) throws -> [Reservation] {
        try database.reading { transaction in
            try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation
                WHERE storeId = \(storeId) AND status = 'booked' AND slotStart BETWEEN \(from) AND \(to)
                ORDER BY slotStart, id
                """, transaction)
        }
    }

    /// Each store's bookings with a slot from `from` up to `to`, not cancelled or expired:
    /// those still to come, those in the store and those done. Stores with none are absent.
    public func bookingCounts(from: Date, to: Date) throws -> [StoreID: Int] {
        try database.reading { transaction in
            Dictionary(uniqueKeysWithValues: try transaction.rows("""
                SELECT storeId, COUNT(*) FROM reservation
                WHERE kind = 'booking' AND slotStart >= \(from) AND slotStart < \(to) AND status IN ('booked', 'inside', 'done')
                GROUP BY storeId
                """).map { (try $0.decode(0, as: StoreID.self), Int(try $0.decode(1, as: Int64.self))) })
        }
    }

    // MARK: Travel

    /// Changes how the customer of line-up `id` travels (R5.2), while it waits or is called;
    /// their travel time, "leave by" and call follow, within the line-up's own rules
    /// (`TravelChange`). `.notChangeable` if it is not theirs or is over.
    public func changeTravelMode(id: ReservationID, userId: UserID, to mode: TravelMode) throws -> TravelChangeOutcome {
        try changeTravel(id: id, userId: userId, mode: mode, metres: nil)
    }

    /// The line-up's travel distance from where the customer now is (its ticket page reports
    /// it, with their consent), within the line-up's own rules (`TravelChange`);
    /// `.notChangeable` unless it is a line-up still waiting that has a travel.
    public func changeTravelDistance(id: ReservationID, userId: UserID, to metres: Int) throws -> TravelChangeOutcome {
        try changeTravel(id: id, userId: userId, mode: nil, metres: metres)
    }

    /// Decided under the store's lock, which the queue timer takes to send a customer off, so
    /// a change never slips in between the two.
    private func changeTravel(id: ReservationID, userId: UserID, mode: TravelMode?, metres: Int?) throws
        -> TravelChangeOutcome
    {
        try database.transaction { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM reservation WHERE id = \(id)", as: StoreID.self),
                try transaction.lockStore(storeId) != nil,
                let reservation = try Reservation.find(id, transaction)
            else { return .notChangeable }
            let (outcome, changed) = TravelChangeOutcome.decide(reservation, userId: userId, mode: mode, metres: metres)
            if let changed {
                try transaction.execute("""
                    UPDATE reservation SET travelMode = \(changed.travelMode?.rawValue), travelMetres = \(changed.travelMetres)
                    WHERE id = \(id)
                    """)
                transaction.changed(reservation: id, of: storeId)
            }
            return outcome
        }
    }
}
