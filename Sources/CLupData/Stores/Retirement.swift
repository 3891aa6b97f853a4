import CLupDomain
import CLupSupport
import Foundation

/// What retiring a store came to.
public enum Retirement: Sendable, Equatable {
    /// Retired: its reservations still to be used were cancelled, their customers told.
    case retired(cancelled: Int)
    /// People are inside: it is retired once they have left.
    case peopleInside(Int)
    case alreadyRetired
}

extension Stores {
    /// Retires the store for good, in one transaction: it leaves every shopper's page (the
    /// board keeps it out of the grid that finds stores, and its pages answer 410), its
    /// reservations still to be used are cancelled with their customers told why and where else
    /// to go (`Notice.Reason.storeRetired`), its kiosks are revoked, and it takes no more
    /// reservations. Its visits, statistics and change log stay, for its managers. Refused while
    /// people are inside.
    public func retire(storeId: StoreID, reason: String, now: Date, loggedAs author: ChangeAuthor) throws -> Retirement {
        try database.transaction { transaction in
            guard let definition = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            guard !definition.isRetired,
                try !transaction.exists("SELECT 1 FROM storeRetirement WHERE storeId = \(storeId)")
            else { return .alreadyRetired }
            let inside = try transaction.peopleInside(storeId: storeId)
            guard inside == 0 else { return .peopleInside(inside) }
            try transaction.execute("""
                INSERT INTO storeRetirement (storeId, retiredAt, reason) VALUES (\(storeId), \(now), \(String(reason.prefix(200))))
                """)
            let active = try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation
                WHERE storeId = \(storeId) AND status \(in: Reservation.Status.cancellable.map(\.rawValue)) ORDER BY id
                """, transaction)
            for reservation in active {
                try AppDatabase.cancel(reservation, reason: .storeRetired, now: now, transaction)
            }
            // Its kiosks stop at once; a retired store's doors hold no places.
            try transaction.execute("DELETE FROM doorLease WHERE storeId = \(storeId)")
            try transaction.execute("UPDATE kiosk SET revokedAt = \(now) WHERE storeId = \(storeId) AND revokedAt IS NULL")
            transaction.changedCredentials()
            try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "store", before: "",
                                         after: "retired", transaction)
            transaction.changed(store: storeId)
            return .retired(cancelled: active.count)
        }
    }
}
