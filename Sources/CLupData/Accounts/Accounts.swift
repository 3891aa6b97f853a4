import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// Why an account change was refused, in words for the person.
public enum AccountError: Error, Equatable, Sendable, CustomStringConvertible {
    case emailTaken
    case invalidOrExpiredLink
    case noSuchUser
    /// An address shorter than 3 or longer than 254 characters, or a name not 1 to 60: the
    /// rows hold them sealed, so these bounds are checked here rather than by the table.
    case badEmail
    case badName
    /// A mail the change needs could not be queued (`MailQueueing.refused`): nothing was changed.
    case mailRefused(retryAt: Date)

    static func check(email: String? = nil, displayName: String) throws {
        if let email, !(3...254).contains(email.count) { throw badEmail }
        if !(1...60).contains(displayName.count) { throw badName }
    }

    /// As a command line prints it.
    public var description: String {
        switch self {
        case .emailTaken: "an account with that email address exists already"
        case .invalidOrExpiredLink: "that link is not valid, or has expired"
        case .noSuchUser: "no account with that email address"
        case .badEmail: "an email address has 3 to 254 characters"
        case .badName: "a name has 1 to 60 characters"
        case .mailRefused(let retryAt): "no more mail can be sent to that address before \(retryAt)"
        }
    }
}

extension AppDatabase {

    /// The columns of `User`, in its order.
    static let userColumns = """
        id, email, displayName, passwordHash, role, emailConfirmedAt, travelMode, loyaltyOptIn, createdAt, notifyEmail,
        notifyPush, language, termsVersion, termsAcceptedAt
        """

    fileprivate static func insertUser(
        email: String, displayName: String, passwordHash: String, role: Role, confirmedAt: Date?, language: String,
        acceptedTerms: Int?, now: Date, _ transaction: some SQLTransaction
    ) throws -> User {
        guard let user = try transaction.record("""
            INSERT INTO "user" (email, displayName, emailKey, passwordHash, role, emailConfirmedAt, createdAt, language,
                                termsVersion, termsAcceptedAt)
            VALUES (\(Sealed.seal(email)), \(Sealed.seal(displayName)),
                    \(LookupKey.email(email)), \(passwordHash), \(role.rawValue), \(confirmedAt), \(now), \(language),
                    \(acceptedTerms), \(acceptedTerms == nil ? nil : now))
            RETURNING \(unescaped: userColumns)
            """, as: User.self)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        transaction.changedCredentials()
        return user
    }

    static func user(email: String, _ transaction: some SQLTransaction) throws -> User? {
        try transaction.record("""
            SELECT \(unescaped: userColumns) FROM "user" WHERE emailKey = \(LookupKey.email(email))
            """)
    }

    static func user(id: UserID, _ transaction: some SQLTransaction) throws -> User? {
        try transaction.record("SELECT \(unescaped: userColumns) FROM \"user\" WHERE id = \(id)")
    }

}

extension Accounts {
    /// Creates an account and, in the same transaction, the confirmation link and its email,
    /// so an account never exists without a way to confirm it.
    ///
    /// `acceptedTerms` is the version of the terms of service accepted (sign-up passes the one
    /// its form showed); nil for an account made on someone's behalf, asked at its first
    /// sign-in. Tests and tools that make accounts take the current version by default.
    @discardableResult
    public func createUser(
        email: String, displayName: String, passwordHash: String, role: Role = .customer, language: String = "en",
        acceptedTerms: Int? = TermsOfService.version, now: Date,
        confirmation: (token: String, mail: (User) -> NewOutboxMessage)?
    ) throws -> User {
        try createAccount(email: email, displayName: displayName, passwordHash: passwordHash, role: role,
                          language: language, acceptedTerms: acceptedTerms, now: now, confirmation: confirmation).user
    }

    /// `createUser`, also saying when the confirmation leaves (`MailPace` may hold it back). A
    /// confirmation that cannot be queued at all throws `AccountError.mailRefused` and no
    /// account is made: the page says when to try again, and nobody is left with an account
    /// they cannot confirm.
    public func createAccount(
        email: String, displayName: String, passwordHash: String, role: Role = .customer, language: String = "en",
        acceptedTerms: Int? = TermsOfService.version, now: Date,
        confirmation: (token: String, mail: (User) -> NewOutboxMessage)?
    ) throws -> (user: User, confirmation: MailQueueing?) {
        try AccountError.check(email: email, displayName: displayName)
        do {
            return try database.transaction { transaction in
                let user = try AppDatabase.insertUser(
                    email: email, displayName: displayName, passwordHash: passwordHash, role: role,
                    confirmedAt: confirmation == nil ? now : nil, language: language, acceptedTerms: acceptedTerms,
                    now: now, transaction)
                guard let confirmation else { return (user, nil) }
                let queued = try AppDatabase.enqueue(confirmation.mail(user), now: now, transaction)
                if case .refused(let retryAt) = queued { throw AccountError.mailRefused(retryAt: retryAt) }
                try AppDatabase.issueToken(confirmation.token, purpose: .confirm, userId: user.id, now: now, transaction)
                return (user, queued)
            }
        } catch let error where AppDatabase.isDuplicate(error, table: "user", column: "emailKey") {
            throw AccountError.emailTaken
        }
    }

    /// Confirmed customer accounts, one per address, made in one transaction; their ids in the
    /// same order. For tools that need many at once (`clup simulate`): their password is a
    /// string no password hashes to, so nobody can sign in to them.
    public func createCustomers(emails: [String], now: Date) throws -> [UserID] {
        try database.transaction { transaction in
            try emails.map { email in
                try AppDatabase.insertUser(email: email, displayName: "Customer", passwordHash: "none", role: .customer,
                                    confirmedAt: now, language: "en", acceptedTerms: nil, now: now, transaction).id
            }
        }
    }

    /// The account for an address, compared without case (by its keyed hash).
    public func user(email: String) throws -> User? {
        try database.reading { transaction in try AppDatabase.user(email: email, transaction) }
    }

    public func updateProfile(userId: UserID, displayName: String, travelMode: TravelMode, loyaltyOptIn: Bool,
                              language: String? = nil) throws {
        try AccountError.check(displayName: displayName)
        try database.transaction { transaction in
            let changed = try transaction.execute("""
                UPDATE "user" SET displayName = \(Sealed.seal(displayName)), travelMode = \(travelMode.rawValue),
                    loyaltyOptIn = \(loyaltyOptIn), language = COALESCE(\(language), language)
                WHERE id = \(userId)
                """)
            guard changed == 1 else { throw AccountError.noSuchUser }
            transaction.changedCredentials()
        }
    }

    /// Records that the account accepted version `version` of the terms of service at `now`.
    public func acceptTerms(userId: UserID, version: Int, now: Date) throws {
        try database.transaction { transaction in
            let changed = try transaction.execute("""
                UPDATE "user" SET termsVersion = \(version), termsAcceptedAt = \(now) WHERE id = \(userId)
                """)
            guard changed == 1 else { throw AccountError.noSuchUser }
            transaction.changedCredentials()
        }
    }

    /// The channels the customer wants reservation messages on.
    public func updateNotificationChannels(userId: UserID, email: Bool, push: Bool) throws {
        try database.transaction { transaction in
            try transaction.execute("UPDATE \"user\" SET notifyEmail = \(email), notifyPush = \(push) WHERE id = \(userId)")
            transaction.changedCredentials()
        }
    }

    /// Sets a new password, signs out every other session of the account, and tells the owner.
    public func changePassword(
        userId: UserID, passwordHash: String, keepingSession idHash: String?, now: Date, notice: (User) -> NewOutboxMessage
    ) throws {
        try database.transaction { transaction in
            guard let user = try transaction.record("""
                UPDATE "user" SET passwordHash = \(passwordHash) WHERE id = \(userId) RETURNING \(unescaped: AppDatabase.userColumns)
                """, as: User.self)
            else { throw AccountError.noSuchUser }
            _ = try AppDatabase.enqueue(notice(user), now: now, transaction)
            try transaction.execute("DELETE FROM session WHERE userId = \(userId) AND idHash <> \(idHash ?? "")")
            transaction.changedCredentials()
        }
    }

    /// Removes the account and everything personal with it (sessions, links, pending mail to
    /// it). Anonymous records that point to it keep their statistics and lose the person.
    ///
    /// Its reservations not yet used are cancelled first, as a cancellation by their owner
    /// would be (a party inside stays counted until scanned out): the queue calls the next
    /// party at once, and a booking's place goes to the slot's waiting list at the timer's
    /// next pass. Nobody is told (there is nobody left to tell); nothing is left holding
    /// places for an account that is gone. `farewell`, if given, is mailed to the account's
    /// address after it is gone (an account closed under the terms is told why).
    public func deleteUser(id: UserID, now: Date, farewell: ((User) -> NewOutboxMessage)? = nil) throws {
        try database.transaction { transaction in
            try AppDatabase.deleteUser(id: id, now: now, farewell: farewell, transaction)
        }
    }
}

extension AppDatabase {
    /// `Accounts.deleteUser` inside the caller's transaction; returns the account deleted.
    @discardableResult
    static func deleteUser(id: UserID, now: Date, farewell: ((User) -> NewOutboxMessage)?,
                           _ transaction: some SQLTransaction) throws -> User
    {
        // The customer first, then their stores: the order every transaction locks them in.
        try transaction.lockCustomer(id)
        guard let user = try AppDatabase.user(id: id, transaction) else { throw AccountError.noSuchUser }
        for row in try transaction.rows("""
            SELECT id, storeId FROM reservation
            WHERE userId = \(id) AND status \(in: Reservation.Status.cancellable.map(\.rawValue)) ORDER BY id
            """)
        {
            let (reservationId, storeId): (ReservationID, StoreID) = (try row.decode(0), try row.decode(1))
            guard try transaction.lockStore(storeId) != nil else { continue }
            try AppDatabase.setStatus(.cancelled, .endedAt, to: now, id: reservationId, from: .active, transaction)
            try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
        }
        let unsent = try transaction.records("""
            SELECT \(unescaped: AppDatabase.mailColumns) FROM outboxMessage
            WHERE recipientKey = \(LookupKey.recipient(user.email)) AND sentAt IS NULL
            """, as: OutboxMessage.self).filter { AppDatabase.sameAddress($0.recipient, user.email) }
        try transaction.execute("DELETE FROM outboxMessage WHERE id \(in: unsent.map(\.id))")
        try transaction.execute("DELETE FROM signInFailure WHERE account = \(LookupKey.account(user.email))")
        try transaction.execute("DELETE FROM \"user\" WHERE id = \(id)")
        if let farewell { try AppDatabase.insert(farewell(user), transaction) }
        transaction.changedCredentials()
        return user
    }
}

/// An account's life — signing up and in, sessions, emailed links, failed sign-ins — and a store's
/// staff: its managers, kiosks and staff PIN.
/// Reached from the database as `accounts`; each write is one transaction.
public struct Accounts: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Accounts, sessions, links and a store's staff.
    public var accounts: Accounts { Accounts(database: self) }
}
