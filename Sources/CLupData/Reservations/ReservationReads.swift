import CLupDomain
import Foundation

/// What making a reservation reads beside its store — the customer's active reservation, when
/// their latest ones were made (the rate limit), the store's next ticket number on the day,
/// the customer's pace there (their past visits and the store's learned sums), for a booking
/// the slot's waiting list, and on PostgreSQL the new reservation's id — as statements sent
/// together: one round trip on PostgreSQL, where they were seven, and the store's lock
/// (`SQLTransaction.lockStore`) goes with them.
struct ReservationReads {
    var active: Reservation?
    /// When the customer's latest reservations were made, newest first.
    var latest: [Date]
    var number: Int
    /// The customer's pace at the store for a visit of the declared length; nil before their
    /// first visit there (`CustomerPace`).
    var pace: Double?
    /// The waiting list of the booked slot, if a slot is given (`WaitingList`).
    var waitlist: [WaitlistEntry] = []
    /// The new reservation's id, where the engine gives it before the INSERT
    /// (`SQLTransaction.newReservationIdSQL`).
    var id: ReservationID?

    /// What is read, for whom, where and on which day.
    struct Query {
        var userId: UserID
        var storeId: StoreID
        var day: Int
        var slot: Slot?
        var idSQL: SQL?

        init(userId: UserID, storeId: StoreID, day: Int, slot: Slot? = nil, _ transaction: some SQLTransaction) {
            (self.userId, self.storeId, self.day, self.slot) = (userId, storeId, day, slot)
            idSQL = transaction.newReservationIdSQL
        }

        var statements: [SQL] {
            [
                Reservation.activeSQL(userId: userId),
                AppDatabase.latestReservationsSQL(userId: userId),
                AppDatabase.nextNumberSQL(storeId: storeId, day: day),
                AppDatabase.pastVisitsSQL(userId: userId, storeId: storeId),
                "SELECT * FROM storeLoad WHERE storeId = \(storeId)",
            ] + (slot.map { [AppDatabase.waitlistSQL(storeId: storeId, slotStart: $0.start)] } ?? []) + (idSQL.map { [$0] } ?? [])
        }
    }

    init(_ query: Query, declared: TimeInterval, _ transaction: some SQLTransaction) throws {
        try self.init(query, answers: transaction.rows(of: query.statements), declared: declared)
    }

    /// What `query.statements` returned.
    init(_ query: Query, answers: [[SQLRow]], declared: TimeInterval) throws {
        active = try answers[0].first.map(Reservation.init(columnsOf:))
        latest = try answers[1].compactMap { try $0.value(0, as: Date.self) }
        number = try answers[2].first?.value(0, as: Int.self) ?? 1
        let visits = try AppDatabase.visits(answers[3])
        let load = try answers[4].first?.record(StoreLoad.self)
        pace = visits.isEmpty ? nil : CustomerPace.factor(declared: declared, visits: visits, storeRatio: load?.model.ratio ?? 1)
        var rest = answers.dropFirst(5).makeIterator()
        if query.slot != nil { waitlist = try rest.next()?.map { try $0.record(WaitlistEntry.self) } ?? [] }
        if query.idSQL != nil { id = try rest.next()?.first?.value(0, as: ReservationID.self) }
    }

    /// When the customer may reserve again, if they have reserved too often just now.
    func retryAt(now: Date) -> Date? {
        ReservationRate.retryAt(latest: latest, now: now)
    }
}
