import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// A store asked for by id that does not exist (any more): its own error, not an account's.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchStore

    /// As a command line prints it.
    public var description: String { "no store with that id" }
}

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

// MARK: - Users

extension AppDatabase {
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
            return try transaction { transaction in
                let user = try Self.insertUser(
                    email: email, displayName: displayName, passwordHash: passwordHash, role: role,
                    confirmedAt: confirmation == nil ? now : nil, language: language, acceptedTerms: acceptedTerms,
                    now: now, transaction)
                guard let confirmation else { return (user, nil) }
                let queued = try Self.enqueue(confirmation.mail(user), now: now, transaction)
                if case .refused(let retryAt) = queued { throw AccountError.mailRefused(retryAt: retryAt) }
                try Self.issueToken(confirmation.token, purpose: .confirm, userId: user.id, now: now, transaction)
                return (user, queued)
            }
        } catch let error where Self.isDuplicate(error, table: "user", column: "emailKey") {
            throw AccountError.emailTaken
        }
    }

    /// Confirmed customer accounts, one per address, made in one transaction; their ids in the
    /// same order. For tools that need many at once (`clup simulate`): their password is a
    /// string no password hashes to, so nobody can sign in to them.
    public func createCustomers(emails: [String], now: Date) throws -> [UserID] {
        try transaction { transaction in
            try emails.map { email in
                try Self.insertUser(email: email, displayName: "Customer", passwordHash: "none", role: .customer,
                                    confirmedAt: now, language: "en", acceptedTerms: nil, now: now, transaction).id
            }
        }
    }

    /// The columns of `User`, in its order.
    static let userColumns = """
        id, email, displayName, passwordHash, role, emailConfirmedAt, travelMode, loyaltyOptIn, createdAt, notifyEmail,
        notifyPush, language, termsVersion, termsAcceptedAt
        """

    private static func insertUser(
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

    /// The account for an address, compared without case (by its keyed hash).
    public func user(email: String) throws -> User? {
        try reading { transaction in try Self.user(email: email, transaction) }
    }

    static func user(email: String, _ transaction: some SQLTransaction) throws -> User? {
        try transaction.record("""
            SELECT \(unescaped: userColumns) FROM "user" WHERE emailKey = \(LookupKey.email(email))
            """)
    }

    static func user(id: UserID, _ transaction: some SQLTransaction) throws -> User? {
        try transaction.record("SELECT \(unescaped: userColumns) FROM \"user\" WHERE id = \(id)")
    }

    public func updateProfile(userId: UserID, displayName: String, travelMode: TravelMode, loyaltyOptIn: Bool,
                              language: String? = nil) throws {
        try AccountError.check(displayName: displayName)
        try transaction { transaction in
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
        try transaction { transaction in
            let changed = try transaction.execute("""
                UPDATE "user" SET termsVersion = \(version), termsAcceptedAt = \(now) WHERE id = \(userId)
                """)
            guard changed == 1 else { throw AccountError.noSuchUser }
            transaction.changedCredentials()
        }
    }

    /// The channels the customer wants reservation messages on.
    public func updateNotificationChannels(userId: UserID, email: Bool, push: Bool) throws {
        try transaction { transaction in
            try transaction.execute("UPDATE \"user\" SET notifyEmail = \(email), notifyPush = \(push) WHERE id = \(userId)")
            transaction.changedCredentials()
        }
    }

    /// Sets a new password, signs out every other session of the account, and tells the owner.
    public func changePassword(
        userId: UserID, passwordHash: String, keepingSession idHash: String?, now: Date, notice: (User) -> NewOutboxMessage
    ) throws {
        try transaction { transaction in
            guard let user = try transaction.record("""
                UPDATE "user" SET passwordHash = \(passwordHash) WHERE id = \(userId) RETURNING \(unescaped: Self.userColumns)
                """, as: User.self)
            else { throw AccountError.noSuchUser }
            _ = try Self.enqueue(notice(user), now: now, transaction)
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
    /// places for an account that is gone.
    public func deleteUser(id: UserID, now: Date) throws {
        try transaction { transaction in
            // The customer first, then their stores: the order every transaction locks them in.
            try transaction.lockCustomer(id)
            guard let user = try Self.user(id: id, transaction) else { throw AccountError.noSuchUser }
            for row in try transaction.rows("""
                SELECT id, storeId FROM reservation
                WHERE userId = \(id) AND status \(in: Reservation.Status.cancellable.map(\.rawValue)) ORDER BY id
                """)
            {
                let (reservationId, storeId): (ReservationID, StoreID) = (try row.decode(0), try row.decode(1))
                guard try transaction.lockStore(storeId) != nil else { continue }
                try Self.setStatus(.cancelled, .endedAt, to: now, id: reservationId, from: .active, transaction)
                try Self.advanceQueue(storeId: storeId, now: now, transaction)
            }
            let unsent = try transaction.records("""
                SELECT \(unescaped: Self.mailColumns) FROM outboxMessage
                WHERE recipientKey = \(LookupKey.recipient(user.email)) AND sentAt IS NULL
                """, as: OutboxMessage.self).filter { Self.sameAddress($0.recipient, user.email) }
            try transaction.execute("DELETE FROM outboxMessage WHERE id \(in: unsent.map(\.id))")
            try transaction.execute("DELETE FROM signInFailure WHERE account = \(LookupKey.account(user.email))")
            try transaction.execute("DELETE FROM \"user\" WHERE id = \(id)")
            transaction.changedCredentials()
        }
    }

}

// MARK: - Sessions

extension AppDatabase {
    /// Starts a session for `userId`; the caller keeps the random id, the table its hash.
    public func createSession(idHash: String, csrfToken: String, userId: UserID, now: Date) throws -> UserSession {
        try transaction { transaction in
            try transaction.execute("""
                INSERT INTO session (idHash, userId, csrfToken, createdAt, lastSeenAt)
                VALUES (\(idHash), \(userId), \(csrfToken), \(now), \(now))
                """)
            transaction.changedCredentials()
            return UserSession(idHash: idHash, userId: userId, csrfToken: csrfToken, createdAt: now, lastSeenAt: now)
        }
    }

    /// The session and its user, if the session exists; remembered until a session or user
    /// changes where the engine can tell (`remembersCredentials`). One statement, prepared
    /// once per connection, read by position and outside a transaction of its own: a page
    /// thread that does not have it remembered (a customer's first request, or any after
    /// someone signed in) spent more time compiling GRDB's query-interface SQL, and in SQLite's
    /// BEGIN, COMMIT and schema check, than reading the two rows.
    public func session(idHash: String) throws -> (session: UserSession, user: User)? {
        let read = {
            try self.reading(oneStatement: true) { transaction in
                try transaction.row("""
                    SELECT s.idHash, s.userId, s.csrfToken, s.createdAt, s.lastSeenAt,
                           u.id, u.email, u.displayName, u.passwordHash, u.role, u.emailConfirmedAt, u.travelMode,
                           u.loyaltyOptIn, u.createdAt, u.notifyEmail, u.notifyPush, u.language, u.termsVersion,
                           u.termsAcceptedAt
                    FROM session s JOIN "user" u ON u.id = s.userId WHERE s.idHash = \(idHash)
                    """).map(Self.sessionAndUser)
            }
        }
        return remembersCredentials ? try credentials.session(idHash, orRead: read) : try read()
    }

    /// A row of `session(idHash:)`, read by position: decoding the two records by their
    /// columns' names compared each of twenty names, without case, with the row's.
    private static func sessionAndUser(_ row: SQLRow) throws -> (session: UserSession, user: User) {
        let session = UserSession(idHash: try row.decode(0), userId: try row.decode(1), csrfToken: try row.decode(2),
                                  createdAt: try row.decode(3), lastSeenAt: try row.decode(4))
        let user = User(
            id: try row.decode(5), email: try Sealed.open(row.decode(6)), displayName: try Sealed.open(row.decode(7)),
            passwordHash: try row.decode(8), role: try row.decodeRaw(9), emailConfirmedAt: try row.value(10),
            travelMode: try row.decodeRaw(11), loyaltyOptIn: try row.decode(12), createdAt: try row.decode(13),
            notifyEmail: try row.decode(14), notifyPush: try row.decode(15), language: try row.decode(16),
            termsVersion: try row.value(17), termsAcceptedAt: try row.value(18))
        return (session, user)
    }

    public func touchSession(idHash: String, now: Date) throws {
        try transaction { transaction in
            try transaction.execute("UPDATE session SET lastSeenAt = \(now) WHERE idHash = \(idHash)")
            transaction.changedCredentials()
        }
    }

    public func deleteSession(idHash: String) throws {
        try transaction { transaction in
            try transaction.execute("DELETE FROM session WHERE idHash = \(idHash)")
            transaction.changedCredentials()
        }
    }

    /// Signs the account out everywhere.
    public func deleteSessions(userId: UserID) throws {
        try transaction { transaction in
            try transaction.execute("DELETE FROM session WHERE userId = \(userId)")
            transaction.changedCredentials()
        }
    }

    public func sessionCount(userId: UserID) throws -> Int {
        try reading { transaction in try transaction.value("SELECT COUNT(*) FROM session WHERE userId = \(userId)") ?? 0 }
    }
}

// MARK: - Emailed links

extension AppDatabase {
    /// How long an emailed link works.
    public static func lifetime(of purpose: EmailToken.Purpose) -> TimeInterval {
        switch purpose {
        case .confirm: 7 * 24 * 3600
        case .reset: 3600
        }
    }

    static func issueToken(_ token: String, purpose: EmailToken.Purpose, userId: UserID, now: Date,
                           _ transaction: some SQLTransaction) throws
    {
        // A new link replaces any earlier unused one of the same purpose.
        try transaction.execute("""
            DELETE FROM emailToken WHERE userId = \(userId) AND purpose = \(purpose.rawValue) AND usedAt IS NULL
            """)
        try transaction.execute("""
            INSERT INTO emailToken (tokenHash, userId, purpose, expiresAt)
            VALUES (\(Secrets.hash(token)), \(userId), \(purpose.rawValue), \(now + lifetime(of: purpose)))
            """)
    }

    /// Most emails one address receives in an hour: the sign-up and reset forms cannot be used
    /// to flood someone's inbox.
    public static let mailPerRecipientPerHour = 5

    /// Enqueues `message` unless its mailbox has had its hourly share; mail a form asked for
    /// (`requestedBy`) keeps its client's pace (`MailPace`), and may be held back to keep it.
    /// Written once for both engines.
    static func enqueue(_ message: NewOutboxMessage, now: Date, _ transaction: some SQLTransaction) throws -> MailQueueing {
        // Two requests for the same mailbox at once count each other: one waits for the other.
        try transaction.serialize(message.recipientKey, in: mailboxLocks)
        let toMailbox = try transaction.column("""
            SELECT createdAt FROM outboxMessage
            WHERE recipientKey = \(message.recipientKey) AND createdAt > \(now - 3600)
            ORDER BY createdAt DESC LIMIT \(mailPerRecipientPerHour)
            """, as: Date.self).compactMap { $0 }
        if toMailbox.count == mailPerRecipientPerHour, let oldest = toMailbox.last {
            return .refused(retryAt: oldest + 3600)
        }
        var message = message
        if let client = message.requestedBy {
            // And two for the same client: the second reads the mark the first left.
            try transaction.serialize(client, in: paceLocks)
            let mark = try transaction.value("SELECT mark FROM mailPace WHERE client = \(client)", as: Date.self)
            switch MailPace.admit(mark: mark, now: now) {
            case .refused(let retryAt):
                return .refused(retryAt: retryAt)
            case .accepted(let sendAt, let mark):
                // A mark in the past holds nothing back: such rows are forgotten as they pass.
                try transaction.execute("DELETE FROM mailPace WHERE mark < \(now)")
                try transaction.execute("""
                    INSERT INTO mailPace (client, mark) VALUES (\(client), \(mark))
                    ON CONFLICT (client) DO UPDATE SET mark = excluded.mark
                    """)
                message.nextAttemptAt = sendAt
            }
        }
        try insert(message, transaction)
        return .queued(sendAt: message.nextAttemptAt)
    }

    /// Inserts a message into the outbox, without the hourly limits (`enqueue` applies them).
    static func insert(_ message: NewOutboxMessage, _ transaction: some SQLTransaction) throws {
        try transaction.execute("""
            INSERT INTO outboxMessage (recipient, subject, body, createdAt, attempts, nextAttemptAt, recipientKey,
                                       requestedBy, priority, reservationId, noticeKind)
            VALUES (\(Sealed.seal(message.recipient)), \(Sealed.seal(message.subject)), \(Sealed.seal(message.body)),
                    \(message.createdAt), \(message.attempts), \(message.nextAttemptAt), \(message.recipientKey),
                    \(message.requestedBy), \(message.priority.rawValue), \(message.reservationId),
                    \(message.noticeKind?.rawValue))
            """)
    }

    /// The spaces of `SQLTransaction.serialize`'s keys: one per mailbox, one per client asking.
    static let mailboxLocks: Int64 = 7_311_002
    static let paceLocks: Int64 = 7_311_003

    /// Enqueues an email on its own (e.g. "you already have an account").
    @discardableResult
    public func enqueueMail(_ message: NewOutboxMessage, now: Date) throws -> MailQueueing {
        try transaction { transaction in try Self.enqueue(message, now: now, transaction) }
    }

    /// Issues a link for the account at `email` with its email, in one transaction; with no
    /// such account, enqueues `ifNoAccount` instead, so both cases do the same work. Says
    /// whether an account exists (the caller must not reveal it) and what became of the mail
    /// (without `ifNoAccount`, `.refused` at `now` when there is no account).
    @discardableResult
    public func issueLink(
        purpose: EmailToken.Purpose, email: String, token: String, now: Date, mail: (User) -> NewOutboxMessage,
        ifNoAccount: NewOutboxMessage? = nil
    ) throws -> (exists: Bool, mail: MailQueueing) {
        try transaction { transaction in
            guard let user = try Self.user(email: email, transaction) else {
                return (false, try ifNoAccount.map { try Self.enqueue($0, now: now, transaction) } ?? .refused(retryAt: now))
            }
            let queued = try Self.enqueue(mail(user), now: now, transaction)
            if queued.isQueued {
                try Self.issueToken(token, purpose: purpose, userId: user.id, now: now, transaction)
            }
            return (true, queued)
        }
    }

    static let emailTokenColumns = "tokenHash, userId, purpose, expiresAt, usedAt"

    /// Marks a link used and returns its account; a link works once, before it expires. The
    /// row is locked, so two clicks at once use it once.
    private static func consume(_ token: String, purpose: EmailToken.Purpose, now: Date,
                                _ transaction: some SQLTransaction) throws -> User
    {
        guard Secrets.isWellFormed(token),
            let link = try transaction.record("""
                SELECT \(unescaped: emailTokenColumns) FROM emailToken WHERE tokenHash = \(Secrets.hash(token)) \(SQL.forUpdate)
                """, as: EmailToken.self),
            link.purpose == purpose, link.usedAt == nil, link.expiresAt > now,
            let user = try user(id: link.userId, transaction)
        else { throw AccountError.invalidOrExpiredLink }
        try transaction.execute("UPDATE emailToken SET usedAt = \(now) WHERE tokenHash = \(link.tokenHash)")
        return user
    }

    /// Whether a link would work now, without using it: for the page that asks to confirm.
    public func isLinkValid(_ token: String, purpose: EmailToken.Purpose, now: Date) throws -> Bool {
        guard Secrets.isWellFormed(token) else { return false }
        return try reading { transaction in
            guard let link = try transaction.record("""
                SELECT \(unescaped: Self.emailTokenColumns) FROM emailToken WHERE tokenHash = \(Secrets.hash(token))
                """, as: EmailToken.self)
            else { return false }
            return link.purpose == purpose && link.usedAt == nil && link.expiresAt > now
        }
    }

    /// Confirms the address a link was sent to, and ends every session of the account made
    /// before — but the one of the browser confirming (`keeping`), which has just shown it
    /// reads the mailbox: whoever signed up with someone else's address must not be left
    /// holding the confirmed account.
    public func confirmEmail(token: String, keeping sessionHash: String? = nil, now: Date) throws -> User {
        try transaction { transaction in
            var user = try Self.consume(token, purpose: .confirm, now: now, transaction)
            if user.emailConfirmedAt == nil {
                user.emailConfirmedAt = now
                try transaction.execute("UPDATE \"user\" SET emailConfirmedAt = \(now) WHERE id = \(user.id)")
                try transaction.execute("DELETE FROM session WHERE userId = \(user.id) AND idHash <> \(sessionHash ?? "")")
                transaction.changedCredentials()
            }
            return user
        }
    }

    /// Sets the password from a reset link, signs out every session, and clears the failed
    /// sign-ins that may have throttled the account. Following the link also proves the
    /// address, so an unconfirmed account becomes confirmed.
    public func resetPassword(token: String, passwordHash: String, now: Date) throws -> User {
        try transaction { transaction in
            var user = try Self.consume(token, purpose: .reset, now: now, transaction)
            user.passwordHash = passwordHash
            if user.emailConfirmedAt == nil { user.emailConfirmedAt = now }
            try transaction.execute("""
                UPDATE "user" SET passwordHash = \(passwordHash), emailConfirmedAt = \(user.emailConfirmedAt)
                WHERE id = \(user.id)
                """)
            try transaction.execute("DELETE FROM session WHERE userId = \(user.id)")
            try transaction.execute("DELETE FROM signInFailure WHERE account = \(LookupKey.account(user.email))")
            transaction.changedCredentials()
            return user
        }
    }
}

// MARK: - Failed sign-ins

extension AppDatabase {
    /// Seconds `clientAddress` must wait before trying `account` again (`SignInThrottle`, over
    /// the failures it remembers), or nil if it may try now. Accounts' sign-ins and staff PINs
    /// at a kiosk are throttled alike.
    public func signInWait(account: String, clientAddress: String, now: Date) throws -> TimeInterval? {
        let history = try signInFailures(account: account, clientAddress: clientAddress, since: now - SignInThrottle.memory)
        return SignInThrottle.wait(history: history, now: now)
    }

    /// Failed sign-ins since `since`: for the address typed from this client, for that address
    /// from anywhere, and from this client for any address.
    public func signInFailures(account typed: String, clientAddress: String, since: Date) throws -> SignInHistory {
        let account = LookupKey.account(typed)
        return try reading { transaction in
            var history = SignInHistory(pair: [], account: [], client: [])
            for row in try transaction.rows("""
                SELECT account = \(account), clientAddress = \(clientAddress), at FROM signInFailure
                WHERE at >= \(since) AND (account = \(account) OR clientAddress = \(clientAddress)) ORDER BY at
                """)
            {
                let (sameAccount, sameClient, at) = try (row.decode(0, as: Bool.self), row.decode(1, as: Bool.self),
                                                         row.decode(2, as: Date.self))
                if sameAccount && sameClient { history.pair.append(at) }
                if sameAccount { history.account.append(at) }
                if sameClient { history.client.append(at) }
            }
            return history
        }
    }

    /// Records a failure and forgets those older than an hour. The account typed is kept as
    /// its keyed hash: what a stranger typed is nobody's business, and never shown.
    public func recordSignInFailure(account typed: String, clientAddress: String, now: Date) throws {
        let account = LookupKey.account(typed)
        try transaction { transaction in
            // A client's address (IPv6 with a zone) is well under 64 characters, whatever the caller passes.
            try transaction.execute("""
                INSERT INTO signInFailure (account, clientAddress, at)
                VALUES (\(account), \(String(clientAddress.prefix(64))), \(now))
                """)
            try transaction.execute("DELETE FROM signInFailure WHERE at < \(now - SignInThrottle.memory)")
        }
    }

    /// A successful sign-in forgives the failures of that address from that client.
    public func clearSignInFailures(account typed: String, clientAddress: String) throws {
        let account = LookupKey.account(typed)
        try transaction { transaction in
            try transaction.execute("""
                DELETE FROM signInFailure WHERE account = \(account) AND clientAddress = \(clientAddress)
                """)
        }
    }
}

// MARK: - Managers and kiosks

extension AppDatabase {
    /// Lets the account `email` manage the store (a customer becomes a manager). False if it
    /// already did. With `loggedAs`, the store's change log records who added it, and when.
    @discardableResult
    public func assignStore(storeId: StoreID, toManager email: String, now: Date = Date(),
                            loggedAs author: ChangeAuthor? = nil) throws -> Bool
    {
        try transaction { transaction in
            guard let user = try Self.user(email: email, transaction) else { throw AccountError.noSuchUser }
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            if user.role == .customer {
                try transaction.execute("UPDATE \"user\" SET role = 'manager' WHERE id = \(user.id)")
                transaction.changedCredentials()
            }
            let added = try transaction.execute("""
                INSERT INTO managedStore (userId, storeId) VALUES (\(user.id), \(storeId)) ON CONFLICT DO NOTHING
                """)
            guard added > 0 else { return false }
            if let author {
                try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager",
                                      before: Sealed.seal(user.email), after: "added", transaction)
            }
            return true
        }
    }

    /// Stops account `userId` managing the store; a manager of no other store is a customer
    /// again (`demoteManagerOfNoStore`). False if it did not manage it. The store's change log
    /// records who removed it, and when.
    public func removeManager(storeId: StoreID, userId: UserID, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        try transaction { transaction in
            guard let email = try transaction.value("""
                SELECT u.email FROM managedStore m JOIN "user" u ON u.id = m.userId
                WHERE m.storeId = \(storeId) AND m.userId = \(userId)
                """, as: String.self)
            else { return false }
            try transaction.execute("DELETE FROM managedStore WHERE storeId = \(storeId) AND userId = \(userId)")
            try Self.demoteManagerOfNoStore(userId, transaction)
            // The address as the row holds it, sealed.
            try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager", before: email,
                                  after: "removed", transaction)
            return true
        }
    }

    /// A manager left with no store is a customer again (an administrator stays one): the
    /// role is what opens `/manage`, and a role with nothing to manage must not linger.
    /// Written once for both engines.
    static func demoteManagerOfNoStore(_ userId: UserID, _ transaction: some SQLTransaction) throws {
        if try transaction.execute("""
            UPDATE "user" SET role = 'customer'
            WHERE id = \(userId) AND role = 'manager' AND NOT EXISTS (SELECT 1 FROM managedStore WHERE userId = \(userId))
            """) > 0
        {
            transaction.changedCredentials()
        }
    }

    /// The accounts that manage the store, by address (sorted here: the rows hold them sealed).
    public func managers(storeId: StoreID) throws -> [User] {
        try reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: Self.userColumns) FROM "user"
                WHERE id IN (SELECT userId FROM managedStore WHERE storeId = \(storeId))
                """, as: User.self)
        }.sorted(by: Self.byAddress)
    }

    static func byAddress(_ a: User, _ b: User) -> Bool {
        (a.email.lowercased(), a.id.rawValue) < (b.email.lowercased(), b.id.rawValue)
    }

    /// Whether two addresses are the same, as the account table compares them (without case).
    static func sameAddress(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    /// The stores a manager may see and change, in id order.
    public func managedStores(userId: UserID) throws -> [Store] {
        try reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: Self.storeColumns) FROM store
                WHERE id IN (SELECT storeId FROM managedStore WHERE userId = \(userId)) ORDER BY id
                """, as: Store.self)
        }
    }

    public func isManager(userId: UserID, of storeId: StoreID) throws -> Bool {
        try reading { transaction in
            try transaction.exists("SELECT 1 FROM managedStore WHERE userId = \(userId) AND storeId = \(storeId)")
        }
    }

    /// Enrols a kiosk for a store; the caller shows `key` once, the table keeps its hash. With
    /// `loggedAs`, the store's change log records who enrolled it.
    public func enrolKiosk(storeId: StoreID, label: String, key: String, role: KioskRole = .door, now: Date,
                           loggedAs author: ChangeAuthor? = nil) throws -> Kiosk
    {
        try transaction { transaction in
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            guard let kiosk = try transaction.record("""
                INSERT INTO kiosk (storeId, label, keyHash, createdAt, role)
                VALUES (\(storeId), \(label), \(Secrets.hash(key)), \(now), \(role.rawValue))
                RETURNING \(unescaped: Self.kioskColumns)
                """, as: Kiosk.self)
            else { preconditionFailure("INSERT … RETURNING returned no row") }
            if let author {
                try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "kiosk",
                                      before: StoreChange.kiosk(label: label, role: role), after: "enrolled", transaction)
            }
            transaction.changedCredentials()
            return kiosk
        }
    }

    static let kioskColumns = "id, storeId, label, keyHash, createdAt, revokedAt, role"

    /// Revokes a kiosk at once; returns false if there is no such kiosk.
    public func revokeKiosk(id: Int64, now: Date) throws -> Bool {
        try transaction { transaction in
            transaction.changedCredentials()
            return try transaction.execute("UPDATE kiosk SET revokedAt = \(now) WHERE id = \(id) AND revokedAt IS NULL") > 0
        }
    }

    /// The enrolled, unrevoked kiosk a device key belongs to; remembered as sessions are.
    public func kiosk(key: String) throws -> Kiosk? {
        guard Secrets.isWellFormed(key, minimumLength: 32) else { return nil }
        let keyHash = Secrets.hash(key)
        let read = {
            try self.reading(oneStatement: true) { transaction in
                try transaction.record("""
                    SELECT \(unescaped: Self.kioskColumns) FROM kiosk WHERE keyHash = \(keyHash) AND revokedAt IS NULL
                    """, as: Kiosk.self)
            }
        }
        return remembersCredentials ? try credentials.kiosk(keyHash, orRead: read) : try read()
    }

    public func kiosks(storeId: StoreID) throws -> [Kiosk] {
        try reading { transaction in
            try transaction.records("SELECT \(unescaped: Self.kioskColumns) FROM kiosk WHERE storeId = \(storeId) ORDER BY id",
                                    as: Kiosk.self)
        }
    }

    /// The store's staff PIN as stored (an argon2id hash), if its managers set one.
    public func staffPinHash(storeId: StoreID) throws -> String? {
        try staffPin(storeId: storeId)?.pinHash
    }

    /// The store's staff PIN's hash and when it was set.
    public func staffPin(storeId: StoreID) throws -> (pinHash: String, setAt: Date)? {
        try reading { transaction in
            try transaction.row("SELECT pinHash, setAt FROM staffPin WHERE storeId = \(storeId)")
                .map { (try $0.decode(0), try $0.decode(1)) }
        }
    }

    /// Sets (or replaces) the store's staff PIN, noting in the store's changes who did it (never
    /// the PIN). Staff signed in on a kiosk with the old PIN are signed out at their next request:
    /// their pass is bound to the hash it was made with.
    public func setStaffPin(storeId: StoreID, pinHash: String, by userId: UserID?, now: Date) throws {
        try transaction { transaction in
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            try transaction.execute("""
                INSERT INTO staffPin (storeId, pinHash, setAt, setBy) VALUES (\(storeId), \(pinHash), \(now), \(userId))
                ON CONFLICT (storeId) DO UPDATE SET pinHash = excluded.pinHash, setAt = excluded.setAt, setBy = excluded.setBy
                """)
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "staffPin", before: "", after: "set",
                                  transaction)
        }
    }

    /// Revokes the store's kiosk `id` for a manager, noting it in the store's changes; false if
    /// the store has no such active kiosk (another store's is not touched).
    public func revokeKiosk(id: Int64, storeId: StoreID, by userId: UserID?, now: Date) throws -> Bool {
        try transaction { transaction in
            guard let kiosk = try transaction.record("""
                UPDATE kiosk SET revokedAt = \(now) WHERE id = \(id) AND storeId = \(storeId) AND revokedAt IS NULL
                RETURNING \(unescaped: Self.kioskColumns)
                """, as: Kiosk.self)
            else { return false }
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "kiosk",
                                  before: StoreChange.kiosk(label: kiosk.label, role: kiosk.role), after: "revoked",
                                  transaction)
            transaction.changedCredentials()
            return true
        }
    }
}

// MARK: - Outbox

extension AppDatabase {
    /// Takes up to `limit` messages due for sending, the most urgent first (`MailPriority`),
    /// and leases them for `lease`, so two senders never send the same message at once and a
    /// sender that dies mid-way only delays it: the lease runs out and the message is due again.
    ///
    /// Mail about a reservation that has moved past it (a "your turn" for a ticket already
    /// used, a reminder for a booking cancelled) is settled unsent as it comes up, and the next
    /// due message is taken in its place.
    public func claimDueMail(now: Date, lease: TimeInterval = 300, limit: Int = 20) throws -> [OutboxMessage] {
        try transaction { transaction in
            var leased: [OutboxMessage] = []
            while leased.count < limit {
                // Rows another worker's sender is leasing at this moment are skipped, not waited
                // for: two senders never take the same message.
                let due = try transaction.records("""
                    SELECT \(unescaped: Self.mailColumns) FROM outboxMessage
                    WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                    ORDER BY priority, id LIMIT \(limit - leased.count) \(SQL.forUpdateSkipLocked)
                    """, as: OutboxMessage.self)
                if due.isEmpty { break }
                let moot = Set(try transaction.column("""
                    SELECT m.id FROM outboxMessage m JOIN reservation r ON r.id = m.reservationId
                    WHERE m.id \(in: due.map(\.id))
                      AND \(unescaped: Notice.Kind.noLongerAppliesSQL(message: "m", reservation: "r"))
                    """, as: Int64.self).compactMap { $0 })
                try transaction.execute("""
                    UPDATE outboxMessage SET sentAt = \(now), lastError = \(Self.mootMail) WHERE id \(in: Array(moot))
                    """)
                let taken = due.filter { !moot.contains($0.id) }
                try transaction.execute("""
                    UPDATE outboxMessage SET attempts = attempts + 1, nextAttemptAt = \(now + lease)
                    WHERE id \(in: taken.map(\.id))
                    """)
                leased += taken.map { message in
                    var message = message
                    message.attempts += 1
                    message.nextAttemptAt = now + lease
                    return message
                }
            }
            return leased
        }
    }

    static let mailColumns = "id, recipient, subject, body, createdAt, attempts, nextAttemptAt, sentAt, lastError"

    /// What `lastError` says of a message settled without being sent: a newer one about the
    /// same reservation replaced it, or its reservation has moved past it.
    static let supersededMail = "not sent: a newer message about the same reservation replaced it"
    static let mootMail = "not sent: the reservation has moved past it"

    /// How long the oldest mail due has waited at `now`: of the urgent ones, and of all (nil
    /// where none waits). What `/healthz` reads to say the outbox is falling behind.
    public func mailBacklog(now: Date) throws -> (urgent: TimeInterval?, any: TimeInterval?) {
        try reading { transaction in
            let row = try transaction.row("""
                SELECT MIN(CASE WHEN priority = 0 THEN nextAttemptAt END), MIN(nextAttemptAt) FROM outboxMessage
                WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                """)
            let urgent = try row?.value(0, as: Date.self)
            let oldest = try row?.value(1, as: Date.self)
            return (urgent.map { now.timeIntervalSince($0) }, oldest.map { now.timeIntervalSince($0) })
        }
    }

    public func markMailSent(id: Int64, now: Date) throws {
        try transaction { transaction in
            try transaction.execute("UPDATE outboxMessage SET sentAt = \(now), lastError = NULL WHERE id = \(id)")
        }
    }

    public func markMailFailed(id: Int64, error: String, retryAt: Date) throws {
        try transaction { transaction in
            try transaction.execute("""
                UPDATE outboxMessage SET nextAttemptAt = \(retryAt), lastError = \(String(error.prefix(500))) WHERE id = \(id)
                """)
        }
    }

    /// Messages to `recipient`, newest last: for tests and the admin.
    public func mail(to recipient: String) throws -> [OutboxMessage] {
        try reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: Self.mailColumns) FROM outboxMessage
                WHERE recipientKey = \(LookupKey.recipient(recipient)) ORDER BY id
                """, as: OutboxMessage.self).filter { $0.recipient == recipient }
        }
    }
}
