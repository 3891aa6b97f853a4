import CLupDomain
import Foundation

extension AppDatabase {
    /// The address walk-in ticket `id`'s holder left at the dispenser, opened; nil if none.
    static func walkInContact(_ id: ReservationID, _ transaction: some SQLTransaction) throws -> WalkInContact? {
        try transaction.row("SELECT email, language FROM walkInContact WHERE reservationId = \(id)").map { row in
            WalkInContact(email: try Sealed.open(try row.decode(0)), language: try row.decode(1))
        }
    }
}

extension Privacy {
    /// Forgets the addresses walk-ins left at the dispenser once their visits have ended
    /// (done, expired or cancelled), and the mail sent to them; returns how many. Run every
    /// minute: an address is kept for the visit and no longer.
    @discardableResult
    public func forgetEndedWalkIns() throws -> Int {
        try database.transaction { transaction in
            let ended: SQL = """
                SELECT c.reservationId FROM walkInContact c JOIN reservation r ON r.id = c.reservationId
                WHERE r.status IN ('done', 'expired', 'cancelled')
                """
            try transaction.execute("DELETE FROM outboxMessage WHERE reservationId IN (\(ended))")
            return try transaction.execute("DELETE FROM walkInContact WHERE reservationId IN (\(ended))")
        }
    }
}
