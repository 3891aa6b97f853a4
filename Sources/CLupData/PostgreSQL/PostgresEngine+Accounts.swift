import CLupDomain
import CLupSupport
import Foundation
import PostgresNIO

/// Deleting an account on PostgreSQL, until the reservations it cancels are written once
/// (`AppDatabase.deleteUser`).
extension PostgresEngine {
    func deleteUser(id: UserID, now: Date) throws {
        try write { transaction in
            // The customer first, then their stores: the order every transaction locks them in.
            _ = try transaction.row("SELECT id FROM \"user\" WHERE id = \(id) FOR UPDATE")
            guard let user = try AppDatabase.user(id: id, transaction.statements) else { throw AccountError.noSuchUser }
            // Reservations not yet used cancelled first, silently, as on SQLite (`AppDatabase.deleteUser`).
            for row in try transaction.rows("""
                SELECT id, storeId FROM reservation WHERE userId = \(id) AND status = ANY(\(Reservation.Status.cancellable.map(\.rawValue)))
                ORDER BY id
                """)
            {
                let reservationId = try row[0].decode(ReservationID.self)
                let storeId = try row[1].decode(StoreID.self)
                guard try Self.lockStore(storeId, transaction) != nil else { continue }
                _ = try Self.setStatus(.cancelled, .endedAt, to: now, id: reservationId, from: .active, transaction)
                try Self.advanceQueue(storeId: storeId, now: now, transaction)
            }
            let unsent = try transaction.rows("""
                SELECT \(unescaped: AppDatabase.mailColumns) FROM outboxMessage
                WHERE recipientKey = \(LookupKey.recipient(user.email)) AND sentAt IS NULL
                """).map { try $0.record(OutboxMessage.self) }.filter { AppDatabase.sameAddress($0.recipient, user.email) }
            try transaction.execute("DELETE FROM outboxMessage WHERE id = ANY(\(unsent.map(\.id)))")
            try transaction.execute("DELETE FROM signInFailure WHERE account = \(LookupKey.account(user.email))")
            try transaction.execute("DELETE FROM \"user\" WHERE id = \(id)")
            transaction.changedCredentials()
        }
    }
}
