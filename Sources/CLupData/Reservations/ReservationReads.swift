import CLupDomain
import Foundation

/// What making a reservation reads beside its store — the customer's active reservation, when
/// their latest ones were made (the rate limit), the store's next ticket number on the day, and
/// the customer's pace there (their past visits and the store's learned sums) — as five
/// statements sent together: one round trip on PostgreSQL, where they were five.
struct ReservationReads {
    var active: Reservation?
    /// When the customer's latest reservations were made, newest first.
    var latest: [Date]
    var number: Int
    /// The customer's pace at the store for a visit of the declared length; nil before their
    /// first visit there (`CustomerPace`).
    var pace: Double?

    init(userId: UserID, storeId: StoreID, day: Int, declared: TimeInterval, _ transaction: some SQLTransaction) throws {
        let answers = try transaction.rows(of: [
            Reservation.activeSQL(userId: userId),
            AppDatabase.latestReservationsSQL(userId: userId),
            AppDatabase.nextNumberSQL(storeId: storeId, day: day),
            AppDatabase.pastVisitsSQL(userId: userId, storeId: storeId),
            "SELECT * FROM storeLoad WHERE storeId = \(storeId)",
        ])
        active = try answers[0].first.map(Reservation.init(columnsOf:))
        latest = try answers[1].compactMap { try $0.value(0, as: Date.self) }
        number = try answers[2].first?.value(0, as: Int.self) ?? 1
        let visits = try AppDatabase.visits(answers[3])
        let load = try answers[4].first?.record(StoreLoad.self)
        pace = visits.isEmpty ? nil : CustomerPace.factor(declared: declared, visits: visits, storeRatio: load?.model.ratio ?? 1)
    }

    /// When the customer may reserve again, if they have reserved too often just now.
    func retryAt(now: Date) -> Date? {
        ReservationRate.retryAt(latest: latest, now: now)
    }
}
