import CLupDomain
import CLupSupport
import Foundation

/// Support staff helping customers: they look a customer up by address, cancel a reservation
/// on their behalf with a reason the customer is told, and (administrators) close an account
/// that breaks the terms. Every look-up and every action is logged in the same transaction,
/// with who did it, when and why (`supportAction`); the address and the reason are sealed, and
/// the log outlives the account it names until the retention period ends
/// (`RetentionPolicy.storeChanges`). Reached from the database as `support`.
public struct Support: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    public var support: Support { Support(database: self) }
}

/// One line of the support log.
public struct SupportLogEntry: Sendable, Equatable {
    public enum Action: String, Sendable {
        case lookup, cancel, close
    }

    public var at: Date
    /// Who acted (nil: their account is gone).
    public var staff: String?
    public var action: Action
    /// The address looked up, as typed, or of the account acted on.
    public var email: String
    public var reason: String
    /// For a cancellation: the ticket's number and its store.
    public var ticket: (number: Int, store: String)?

    public static func == (a: Self, b: Self) -> Bool {
        a.at == b.at && a.staff == b.staff && a.action == b.action && a.email == b.email && a.reason == b.reason
            && a.ticket?.number == b.ticket?.number && a.ticket?.store == b.ticket?.store
    }
}

/// What a cancellation for a customer came to.
public enum SupportCancellation: Sendable, Equatable {
    case cancelled(Reservation)
    /// No such reservation of that customer's, or it cannot be cancelled any more (used, ended).
    case notCancellable
}

extension Support {
    /// Looks the account with address `email` up for `staffId`, who gave `reason`, and logs it
    /// (an address with no account too). Returns the account, if there is one.
    public func lookUp(email: String, reason: String, by staffId: UserID, now: Date) throws -> User? {
        try database.transaction { transaction in
            let user = try AppDatabase.user(email: email, transaction)
            try AppDatabase.logSupport(.lookup, staffId: staffId, customerId: user?.id, email: user?.email ?? email,
                                       reservationId: nil, reason: reason, now: now, transaction)
            return user
        }
    }

    /// The account support is helping (after a look-up), if it is still there.
    public func customer(id: UserID) throws -> User? {
        try database.reading { transaction in try AppDatabase.user(id: id, transaction) }
    }

    /// Cancels reservation `reservationId` of customer `customerId` if it is still to be used,
    /// telling the customer `reason` (`Notice.Reason.bySupport`); the place goes to the next in
    /// the queue. Logged with who and why.
    public func cancel(reservationId: ReservationID, of customerId: UserID, reason: String, by staffId: UserID,
                       now: Date) throws -> SupportCancellation
    {
        try database.transaction { transaction in
            // The customer first, then the store: the order every transaction locks them in.
            try transaction.lockCustomer(customerId)
            guard let customer = try AppDatabase.user(id: customerId, transaction),
                let storeId = try transaction.value("""
                    SELECT storeId FROM reservation WHERE id = \(reservationId) AND userId = \(customerId)
                    """, as: StoreID.self),
                try transaction.lockStore(storeId) != nil,
                let reservation = try Reservation.find(reservationId, transaction), reservation.status.isCancellable
            else { return .notCancellable }
            try AppDatabase.logSupport(.cancel, staffId: staffId, customerId: customerId, email: customer.email,
                                       reservationId: reservationId, reason: reason, now: now, transaction)
            try AppDatabase.cancel(reservation, reason: .bySupport, now: now, transaction)
            try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
            return .cancelled(try Reservation.find(reservationId, transaction) ?? reservation)
        }
    }

    /// Closes account `customerId` under the terms, as `Accounts.deleteUser` deletes one, with
    /// `farewell` mailed to its owner; logged with who and why. The account itself is returned
    /// (nil: there was none).
    public func closeAccount(_ customerId: UserID, reason: String, by staffId: UserID, now: Date,
                             farewell: @escaping (User) -> NewOutboxMessage) throws -> User?
    {
        try database.transaction { transaction in
            guard let customer = try AppDatabase.user(id: customerId, transaction) else { return nil }
            try AppDatabase.logSupport(.close, staffId: staffId, customerId: customerId, email: customer.email,
                                       reservationId: nil, reason: reason, now: now, transaction)
            return try AppDatabase.deleteUser(id: customerId, now: now, farewell: farewell, transaction)
        }
    }

    /// The support log, newest first: all of it, or what concerns one customer.
    public func log(customerId: UserID? = nil, limit: Int = 50) throws -> [SupportLogEntry] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT a.at, u.displayName, a.action, a.email, a.reason, r.number, s.name FROM supportAction a
                LEFT JOIN "user" u ON u.id = a.staffId
                LEFT JOIN reservation r ON r.id = a.reservationId LEFT JOIN store s ON s.id = r.storeId
                WHERE \(customerId == nil) OR a.customerId = \(customerId)
                ORDER BY a.at DESC, a.id DESC LIMIT \(limit)
                """).compactMap { row in
                guard let action = SupportLogEntry.Action(rawValue: try row.decode(2)) else { return nil }
                let number: Int? = try row.value(5)
                let store: String? = try row.value(6)
                return SupportLogEntry(
                    at: try row.decode(0), staff: try row.value(1, as: String.self).map(Sealed.open), action: action,
                    email: try Sealed.open(row.decode(3)), reason: try Sealed.open(row.decode(4)),
                    ticket: number.flatMap { number in store.map { (number, $0) } })
            }
        }
    }
}

extension AppDatabase {
    static func logSupport(_ action: SupportLogEntry.Action, staffId: UserID, customerId: UserID?, email: String,
                           reservationId: ReservationID?, reason: String, now: Date, _ transaction: some SQLTransaction)
        throws
    {
        try transaction.execute("""
            INSERT INTO supportAction (staffId, customerId, email, action, reservationId, reason, at)
            VALUES (\(staffId), \(customerId), \(Sealed.seal(String(email.prefix(254)))), \(action.rawValue),
                    \(reservationId), \(Sealed.seal(String(reason.prefix(500)))), \(now))
            """)
    }

    /// Why support cancelled reservation `id`, as the customer is told.
    static func supportReason(reservationId id: ReservationID, _ transaction: some SQLTransaction) throws -> String? {
        try transaction.value("""
            SELECT reason FROM supportAction WHERE reservationId = \(id) AND action = 'cancel' ORDER BY id DESC LIMIT 1
            """, as: String.self).map(Sealed.open)
    }
}
