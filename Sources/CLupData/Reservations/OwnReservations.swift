import CLupDomain
import Foundation

/// The reservations a transaction has inserted, as they now are: the steps that follow an
/// insert in the same transaction — the queue's advance deciding on the new ticket, calling it,
/// the answer given to the customer — read them from here instead of asking the database again
/// (on PostgreSQL each was a round trip with the page thread asleep). Nobody else sees them
/// before the commit; the steps that change a reservation (`setStatus`, `sendOff`) keep them
/// current with each value as a read of it would give it back (`SQLTransaction.asStored`).
final class OwnReservations {
    struct Row {
        var reservation: Reservation
        /// The columns a `Reservation` leaves out that the estimate and the statistics read.
        var pace: Double?
        var expectedEntry: Date?
    }

    private var rows: [ReservationID: Row] = [:]

    subscript(id: ReservationID) -> Row? {
        get { rows[id] }
        set { rows[id] = newValue }
    }
}

extension OwnReservations.Row {
    /// `new` inserted with `id`, each time as `stored` gives it back (`SQLTransaction.asStored`):
    /// those of a visit to the millisecond, as its changes of status are stored.
    init(_ new: NewReservation, id: ReservationID, stored: (Date) -> Date = { $0 }) {
        reservation = Reservation(
            id: id, storeId: new.storeId, userId: new.userId, kind: new.kind, walkIn: new.walkIn, day: new.day,
            number: new.number, people: new.people, residenceMinutes: new.residenceMinutes, travelMode: new.travelMode,
            slotStart: new.slotStart.map(stored), status: new.status, createdAt: stored(new.createdAt.toTheMillisecond),
            requestKey: new.requestKey, travelMetres: new.travelMetres, remindedAt: new.remindedAt.map(stored),
            confirmedAt: new.confirmedAt.map(stored), priority: new.priority, queuePosition: new.queuePosition)
        pace = new.pace
        expectedEntry = new.expectedEntry.map { stored($0.toTheMillisecond) }
    }

    /// What the statistics count of it, as `VisitFacts.columns` reads them: times to the
    /// millisecond.
    var facts: VisitFacts {
        let r = reservation
        return VisitFacts(kind: r.kind, walkIn: r.walkIn, people: r.people, residenceMinutes: r.residenceMinutes,
                          travelMetres: r.travelMetres, status: r.status, createdAt: r.createdAt.toTheMillisecond,
                          calledAt: r.calledAt?.toTheMillisecond, enteredAt: r.enteredAt?.toTheMillisecond,
                          exitedAt: r.exitedAt?.toTheMillisecond, endedAt: r.endedAt?.toTheMillisecond,
                          expectedEntry: expectedEntry?.toTheMillisecond, priority: r.priority)
    }

    /// It as the wait estimate sees it, as `AppDatabase.live` reads it from its row.
    var live: LiveReservation? {
        let r = reservation
        return AppDatabase.live(AppDatabase.LiveColumns(
            id: r.id, status: r.status.rawValue, people: r.people, residenceMinutes: r.residenceMinutes,
            calledAt: r.calledAt, enteredAt: r.enteredAt, slotStart: r.slotStart, walkIn: r.walkIn, number: r.number,
            day: r.day, travelMode: r.travelMode?.rawValue, travelMetres: r.travelMetres, leftAt: r.leftAt, pace: pace,
            priority: r.priority, queuePosition: r.queuePosition, createdAt: r.createdAt))
    }
}

extension Date {
    /// The date to the nearest millisecond, as CLup stores and counts the times of a visit.
    var toTheMillisecond: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension AppDatabase {
    /// Reservation `id` as it now is in this transaction: from what the transaction inserted,
    /// if it did, else read.
    static func reservationAsNow(_ id: ReservationID, _ transaction: some SQLTransaction) throws -> Reservation? {
        try transaction.own[id]?.reservation ?? Reservation.find(id, transaction)
    }
}
