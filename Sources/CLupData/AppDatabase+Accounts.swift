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
        if let postgres {
            return try postgres.createAccount(email: email, displayName: displayName, passwordHash: passwordHash, role: role,
                                              language: language, acceptedTerms: acceptedTerms, now: now,
                                              confirmation: confirmation)
        }
        do {
            return try write { db in
                let user = try NewUser(
                    email: email, displayName: displayName, emailKey: LookupKey.email(email), passwordHash: passwordHash, role: role,
                    emailConfirmedAt: confirmation == nil ? now : nil, travelMode: .walking, loyaltyOptIn: false,
                    createdAt: now, language: language, termsVersion: acceptedTerms,
                    termsAcceptedAt: acceptedTerms == nil ? nil : now
                ).insertAndFetch(db, as: User.self)
                guard let confirmation else { return (user, nil) }
                let queued = try Self.enqueue(confirmation.mail(user), now: now, db)
                if case .refused(let retryAt) = queued { throw AccountError.mailRefused(retryAt: retryAt) }
                try Self.issueToken(confirmation.token, purpose: .confirm, userId: user.id, now: now, db)
                return (user, queued)
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw AccountError.emailTaken
        }
    }

    /// Confirmed customer accounts, one per address, made in one transaction; their ids in the
    /// same order. For tools that need many at once (`clup simulate`): their password is a
    /// string no password hashes to, so nobody can sign in to them.
    public func createCustomers(emails: [String], now: Date) throws -> [UserID] {
        if let postgres { return try postgres.createCustomers(emails: emails, now: now) }
        return try write { db in
            try emails.map { email in
                try NewUser(
                    email: email, displayName: "Customer", emailKey: LookupKey.email(email), passwordHash: "none",
                    role: .customer, emailConfirmedAt: now,
                    travelMode: .walking, loyaltyOptIn: false, createdAt: now, language: "en"
                ).insertAndFetch(db, as: User.self).id
            }
        }
    }

    /// The account for an address, compared without case (by its keyed hash).
    public func user(email: String) throws -> User? {
        if let postgres { return try postgres.user(email: email) }
        return try reader.read { db in try User.filter(User.Columns.emailKey == LookupKey.email(email)).fetchOne(db) }
    }

    public func updateProfile(userId: UserID, displayName: String, travelMode: TravelMode, loyaltyOptIn: Bool,
                              language: String? = nil) throws {
        try AccountError.check(displayName: displayName)
        if let postgres {
            return try postgres.updateProfile(userId: userId, displayName: displayName, travelMode: travelMode,
                                              loyaltyOptIn: loyaltyOptIn, language: language)
        }
        try write { db in
            guard var user = try User.fetchOne(db, id: userId) else { throw AccountError.noSuchUser }
            user.displayName = displayName
            user.travelMode = travelMode
            user.loyaltyOptIn = loyaltyOptIn
            if let language { user.language = language }
            try user.update(db)
        }
    }

    /// Records that the account accepted version `version` of the terms of service at `now`.
    public func acceptTerms(userId: UserID, version: Int, now: Date) throws {
        if let postgres { return try postgres.acceptTerms(userId: userId, version: version, now: now) }
        try write { db in
            try db.execute(sql: "UPDATE user SET termsVersion = ?, termsAcceptedAt = ? WHERE id = ?",
                           arguments: [version, now, userId])
            guard db.changesCount == 1 else { throw AccountError.noSuchUser }
        }
    }

    /// The channels the customer wants reservation messages on.
    public func updateNotificationChannels(userId: UserID, email: Bool, push: Bool) throws {
        if let postgres { return try postgres.updateNotificationChannels(userId: userId, email: email, push: push) }
        try write { db in
            try db.execute(sql: "UPDATE user SET notifyEmail = ?, notifyPush = ? WHERE id = ?",
                           arguments: [email, push, userId])
        }
    }

    /// Sets a new password, signs out every other session of the account, and tells the owner.
    public func changePassword(
        userId: UserID, passwordHash: String, keepingSession idHash: String?, now: Date, notice: (User) -> NewOutboxMessage
    ) throws {
        if let postgres {
            return try postgres.changePassword(userId: userId, passwordHash: passwordHash, keepingSession: idHash, now: now,
                                               notice: notice)
        }
        try write { db in
            guard var user = try User.fetchOne(db, id: userId) else { throw AccountError.noSuchUser }
            user.passwordHash = passwordHash
            try user.update(db)
            _ = try Self.enqueue(notice(user), now: now, db)
            try UserSession.filter(UserSession.Columns.userId == userId)
                .filter(UserSession.Columns.idHash != (idHash ?? ""))
                .deleteAll(db)
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
        if let postgres { return try postgres.deleteUser(id: id, now: now) }
        try write { db in
            guard let user = try User.fetchOne(db, id: id) else { throw AccountError.noSuchUser }
            let active = try Reservation.filter(Reservation.Columns.userId == id)
                .filter(Reservation.Status.cancellable.map(\.rawValue).contains(Reservation.Columns.status)).fetchAll(db)
            for reservation in active {
                _ = try Reservation.setStatus(.cancelled, .endedAt, to: now, id: reservation.id, from: .active, db)
                try advanceQueue(storeId: reservation.storeId, now: now, db)
            }
            let unsent = try OutboxMessage.filter(OutboxMessage.Columns.recipientKey == LookupKey.recipient(user.email))
                .filter(OutboxMessage.Columns.sentAt == nil).fetchAll(db)
            try OutboxMessage.deleteAll(db, ids: unsent.filter { Self.sameAddress($0.recipient, user.email) }.map(\.id))
            try SignInFailure.filter(SignInFailure.Columns.account == LookupKey.account(user.email)).deleteAll(db)
            _ = try User.deleteOne(db, id: id)
        }
    }

}

// MARK: - Sessions

extension AppDatabase {
    /// Starts a session for `userId`; the caller keeps the random id, the table its hash.
    public func createSession(idHash: String, csrfToken: String, userId: UserID, now: Date) throws -> UserSession {
        if let postgres { return try postgres.createSession(idHash: idHash, csrfToken: csrfToken, userId: userId, now: now) }
        return try write { db in
            let session = UserSession(idHash: idHash, userId: userId, csrfToken: csrfToken, createdAt: now, lastSeenAt: now)
            try session.insert(db)
            return session
        }
    }

    /// The session and its user, if the session exists; remembered until a session or user
    /// changes. Read with one statement prepared once per connection: a page thread that does
    /// not have it remembered (a customer's first request, or any after someone signed in)
    /// spent more time compiling GRDB's query-interface SQL than reading the two rows. One
    /// statement sees one committed state on its own, so it is run without the read
    /// transaction GRDB would wrap around it (its BEGIN, COMMIT and schema check cost as much
    /// as the read).
    public func session(idHash: String) throws -> (session: UserSession, user: User)? {
        // Not remembered on PostgreSQL until the workers tell each other of changes: a session
        // ended on one worker must not live on in another's memory.
        if let postgres { return try postgres.session(idHash: idHash) }
        return try credentials.session(idHash) {
            try reader.unsafeRead { db in
                guard let row = try Row.fetchOne(db.cachedStatement(sql: Self.sessionSQL), arguments: [idHash])
                else { return nil }
                return try Self.sessionAndUser(row)
            }
        }
    }

    /// A session and its account in one row, column by column as `sessionAndUser` reads them.
    private static let sessionSQL = """
        SELECT s.idHash, s.userId, s.csrfToken, s.createdAt, s.lastSeenAt,
               u.id, u.email, u.displayName, u.passwordHash, u.role, u.emailConfirmedAt, u.travelMode, u.loyaltyOptIn,
               u.createdAt, u.notifyEmail, u.notifyPush, u.language, u.termsVersion, u.termsAcceptedAt
        FROM session s JOIN user u ON u.id = s.userId WHERE s.idHash = ?
        """

    /// A row of `sessionSQL`, read by position: decoding the two records by their columns'
    /// names compared each of twenty names, without case, with the row's.
    private static func sessionAndUser(_ row: Row) throws -> (session: UserSession, user: User) {
        let session = UserSession(idHash: try row.decode(atIndex: 0), userId: try row.decode(atIndex: 1),
                                  csrfToken: try row.decode(atIndex: 2), createdAt: try row.decode(atIndex: 3),
                                  lastSeenAt: try row.decode(atIndex: 4))
        let user = User(
            id: try row.decode(atIndex: 5), email: try Sealed.open(row.decode(atIndex: 6)),
            displayName: try Sealed.open(row.decode(atIndex: 7)), passwordHash: try row.decode(atIndex: 8),
            role: try row.decode(atIndex: 9), emailConfirmedAt: try row.decode(atIndex: 10),
            travelMode: try row.decode(atIndex: 11), loyaltyOptIn: try row.decode(atIndex: 12),
            createdAt: try row.decode(atIndex: 13), notifyEmail: try row.decode(atIndex: 14),
            notifyPush: try row.decode(atIndex: 15), language: try row.decode(atIndex: 16),
            termsVersion: try row.decode(atIndex: 17), termsAcceptedAt: try row.decode(atIndex: 18))
        return (session, user)
    }

    public func touchSession(idHash: String, now: Date) throws {
        if let postgres { return try postgres.touchSession(idHash: idHash, now: now) }
        _ = try write { db in
            try UserSession.filter(key: idHash).updateAll(db, UserSession.Columns.lastSeenAt.set(to: now))
        }
    }

    public func deleteSession(idHash: String) throws {
        if let postgres { return try postgres.deleteSession(idHash: idHash) }
        _ = try write { db in try UserSession.deleteOne(db, key: idHash) }
    }

    /// Signs the account out everywhere.
    public func deleteSessions(userId: UserID) throws {
        if let postgres { return try postgres.deleteSessions(userId: userId) }
        _ = try write { db in try UserSession.filter(UserSession.Columns.userId == userId).deleteAll(db) }
    }

    public func sessionCount(userId: UserID) throws -> Int {
        if let postgres { return try postgres.sessionCount(userId: userId) }
        return try reader.read { db in try UserSession.filter(UserSession.Columns.userId == userId).fetchCount(db) }
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

    static func issueToken(_ token: String, purpose: EmailToken.Purpose, userId: UserID, now: Date, _ db: Database) throws {
        // A new link replaces any earlier unused one of the same purpose.
        try EmailToken.filter(EmailToken.Columns.userId == userId && EmailToken.Columns.purpose == purpose)
            .filter(EmailToken.Columns.usedAt == nil).deleteAll(db)
        try EmailToken(tokenHash: Secrets.hash(token), userId: userId, purpose: purpose,
                       expiresAt: now + lifetime(of: purpose), usedAt: nil).insert(db)
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
            SELECT createdAt FROM outboxMessage WHERE recipientKey = ? AND createdAt > ? ORDER BY createdAt DESC LIMIT ?
            """, [message.recipientKey, now - 3600, mailPerRecipientPerHour], as: Date.self).compactMap { $0 }
        if toMailbox.count == mailPerRecipientPerHour, let oldest = toMailbox.last {
            return .refused(retryAt: oldest + 3600)
        }
        var message = message
        if let client = message.requestedBy {
            // And two for the same client: the second reads the mark the first left.
            try transaction.serialize(client, in: paceLocks)
            let mark = try transaction.value("SELECT mark FROM mailPace WHERE client = ?", [client], as: Date.self)
            switch MailPace.admit(mark: mark, now: now) {
            case .refused(let retryAt):
                return .refused(retryAt: retryAt)
            case .accepted(let sendAt, let mark):
                // A mark in the past holds nothing back: such rows are forgotten as they pass.
                try transaction.execute("DELETE FROM mailPace WHERE mark < ?", [now])
                try transaction.execute("""
                    INSERT INTO mailPace (client, mark) VALUES (?, ?) ON CONFLICT (client) DO UPDATE SET mark = excluded.mark
                    """, [client, mark])
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
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [Sealed.seal(message.recipient), Sealed.seal(message.subject), Sealed.seal(message.body), message.createdAt,
                  message.attempts, message.nextAttemptAt, message.recipientKey, message.requestedBy,
                  message.priority.rawValue, message.reservationId, message.noticeKind?.rawValue])
    }

    /// The spaces of `SQLTransaction.serialize`'s keys: one per mailbox, one per client asking.
    static let mailboxLocks: Int64 = 7_311_002
    static let paceLocks: Int64 = 7_311_003

    /// Enqueues an email on its own (e.g. "you already have an account").
    @discardableResult
    public func enqueueMail(_ message: NewOutboxMessage, now: Date) throws -> MailQueueing {
        if let postgres { return try postgres.enqueueMail(message, now: now) }
        return try write { db in try Self.enqueue(message, now: now, db) }
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
        if let postgres {
            return try postgres.issueLink(purpose: purpose, email: email, token: token, now: now, mail: mail,
                                          ifNoAccount: ifNoAccount)
        }
        return try write { db in
            guard let user = try User.filter(User.Columns.emailKey == LookupKey.email(email)).fetchOne(db) else {
                return (false, try ifNoAccount.map { try Self.enqueue($0, now: now, db) } ?? .refused(retryAt: now))
            }
            let queued = try Self.enqueue(mail(user), now: now, db)
            if queued.isQueued {
                try Self.issueToken(token, purpose: purpose, userId: user.id, now: now, db)
            }
            return (true, queued)
        }
    }

    /// Marks a link used and returns its account; a link works once, before it expires.
    private static func consume(_ token: String, purpose: EmailToken.Purpose, now: Date, _ db: Database) throws -> User {
        guard Secrets.isWellFormed(token),
            var link = try EmailToken.fetchOne(db, key: Secrets.hash(token)),
            link.purpose == purpose, link.usedAt == nil, link.expiresAt > now,
            let user = try User.fetchOne(db, id: link.userId)
        else { throw AccountError.invalidOrExpiredLink }
        link.usedAt = now
        try link.update(db)
        return user
    }

    /// Whether a link would work now, without using it: for the page that asks to confirm.
    public func isLinkValid(_ token: String, purpose: EmailToken.Purpose, now: Date) throws -> Bool {
        guard Secrets.isWellFormed(token) else { return false }
        if let postgres { return try postgres.isLinkValid(token, purpose: purpose, now: now) }
        return try reader.read { db in
            guard let link = try EmailToken.fetchOne(db, key: Secrets.hash(token)) else { return false }
            return link.purpose == purpose && link.usedAt == nil && link.expiresAt > now
        }
    }

    /// Confirms the address the link was sent to.
    /// Confirms the address a link was sent to, and ends every session of the account made
    /// before — but the one of the browser confirming (`keeping`), which has just shown it
    /// reads the mailbox: whoever signed up with someone else's address must not be left
    /// holding the confirmed account.
    public func confirmEmail(token: String, keeping sessionHash: String? = nil, now: Date) throws -> User {
        if let postgres { return try postgres.confirmEmail(token: token, keeping: sessionHash, now: now) }
        return try write { db in
            var user = try Self.consume(token, purpose: .confirm, now: now, db)
            if user.emailConfirmedAt == nil {
                user.emailConfirmedAt = now
                try user.update(db)
                try UserSession.filter(UserSession.Columns.userId == user.id)
                    .filter(UserSession.Columns.idHash != (sessionHash ?? "")).deleteAll(db)
            }
            return user
        }
    }

    /// Sets the password from a reset link, signs out every session, and clears the failed
    /// sign-ins that may have throttled the account. Following the link also proves the
    /// address, so an unconfirmed account becomes confirmed.
    public func resetPassword(token: String, passwordHash: String, now: Date) throws -> User {
        if let postgres { return try postgres.resetPassword(token: token, passwordHash: passwordHash, now: now) }
        return try write { db in
            var user = try Self.consume(token, purpose: .reset, now: now, db)
            user.passwordHash = passwordHash
            if user.emailConfirmedAt == nil { user.emailConfirmedAt = now }
            try user.update(db)
            try UserSession.filter(UserSession.Columns.userId == user.id).deleteAll(db)
            try SignInFailure.filter(SignInFailure.Columns.account == LookupKey.account(user.email)).deleteAll(db)
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
        if let postgres { return try postgres.signInFailures(account: account, clientAddress: clientAddress, since: since) }
        return try reader.read { db in
            let recent = SignInFailure.filter(SignInFailure.Columns.at >= since)
            return SignInHistory(
                pair: try recent.filter(SignInFailure.Columns.account == account)
                    .filter(SignInFailure.Columns.clientAddress == clientAddress)
                    .order(SignInFailure.Columns.at).fetchAll(db).map(\.at),
                account: try recent.filter(SignInFailure.Columns.account == account)
                    .order(SignInFailure.Columns.at).fetchAll(db).map(\.at),
                client: try recent.filter(SignInFailure.Columns.clientAddress == clientAddress)
                    .order(SignInFailure.Columns.at).fetchAll(db).map(\.at))
        }
    }

    /// Records a failure and forgets those older than an hour. The account typed is kept as
    /// its keyed hash: what a stranger typed is nobody's business, and never shown.
    public func recordSignInFailure(account typed: String, clientAddress: String, now: Date) throws {
        let account = LookupKey.account(typed)
        if let postgres { return try postgres.recordSignInFailure(account: account, clientAddress: clientAddress, now: now) }
        try write { db in
            // A client's address (IPv6 with a zone) is well under 64 characters, whatever the caller passes.
            try SignInFailure(account: account, clientAddress: String(clientAddress.prefix(64)), at: now)
                .insert(db)
            try SignInFailure.filter(SignInFailure.Columns.at < now - SignInThrottle.memory).deleteAll(db)
        }
    }

    /// A successful sign-in forgives the failures of that address from that client.
    public func clearSignInFailures(account typed: String, clientAddress: String) throws {
        let account = LookupKey.account(typed)
        if let postgres { return try postgres.clearSignInFailures(account: account, clientAddress: clientAddress) }
        _ = try write { db in
            try SignInFailure.filter(SignInFailure.Columns.account == account)
                .filter(SignInFailure.Columns.clientAddress == clientAddress).deleteAll(db)
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
        if let postgres { return try postgres.assignStore(storeId: storeId, toManager: email, now: now, loggedAs: author) }
        return try write { db in
            guard let user = try User.filter(User.Columns.emailKey == LookupKey.email(email)).fetchOne(db) else {
                throw AccountError.noSuchUser
            }
            guard try Store.exists(db, id: storeId) else { throw StoreError.noSuchStore }
            if user.role == .customer {
                try User.filter(id: user.id).updateAll(db, Column("role").set(to: Role.manager.rawValue))
            }
            try ManagedStore(userId: user.id, storeId: storeId).insert(db, onConflict: .ignore)
            guard db.changesCount > 0 else { return false }
            if let author {
                try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager",
                                      before: Sealed.seal(user.email), after: "added", db)
            }
            return true
        }
    }

    /// Stops account `userId` managing the store; a manager of no other store is a customer
    /// again (`demoteManagerOfNoStore`). False if it did not manage it. The store's change log
    /// records who removed it, and when.
    public func removeManager(storeId: StoreID, userId: UserID, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        if let postgres { return try postgres.removeManager(storeId: storeId, userId: userId, now: now, loggedAs: author) }
        return try write { db in
            guard let email = try String.fetchOne(db, sql: """
                SELECT u.email FROM managedStore m JOIN user u ON u.id = m.userId WHERE m.storeId = ? AND m.userId = ?
                """, arguments: [storeId, userId])
            else { return false }
            try db.execute(sql: "DELETE FROM managedStore WHERE storeId = ? AND userId = ?", arguments: [storeId, userId])
            try Self.demoteManagerOfNoStore(userId, db)
            // The address as the row holds it, sealed.
            try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager", before: email,
                                  after: "removed", db)
            return true
        }
    }

    /// A manager left with no store is a customer again (an administrator stays one): the
    /// role is what opens `/manage`, and a role with nothing to manage must not linger.
    /// Written once for both engines.
    static func demoteManagerOfNoStore(_ userId: UserID, _ transaction: some SQLTransaction) throws {
        if try transaction.execute("""
            UPDATE "user" SET role = 'customer'
            WHERE id = ? AND role = 'manager' AND NOT EXISTS (SELECT 1 FROM managedStore WHERE userId = ?)
            """, [userId, userId]) > 0
        {
            transaction.changedCredentials()
        }
    }

    /// The accounts that manage the store, by address (sorted here: the rows hold them sealed).
    public func managers(storeId: StoreID) throws -> [User] {
        if let postgres { return try postgres.managers(storeId: storeId).sorted(by: Self.byAddress) }
        return try reader.read { db in
            try User.fetchAll(db, sql: """
                SELECT u.* FROM user u JOIN managedStore m ON m.userId = u.id WHERE m.storeId = ?
                """, arguments: [storeId])
        }.sorted(by: Self.byAddress)
    }

    static func byAddress(_ a: User, _ b: User) -> Bool {
        (a.email.lowercased(), a.id.rawValue) < (b.email.lowercased(), b.id.rawValue)
    }

    /// Whether two addresses are the same, as the account table compares them (without case).
    static func sameAddress(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    /// The stores a manager may see and change, in id order.
    public func managedStores(userId: UserID) throws -> [Store] {
        if let postgres { return try postgres.managedStores(userId: userId) }
        return try reader.read { db in
            let ids = try ManagedStore.filter(ManagedStore.Columns.userId == userId).fetchAll(db).map(\.storeId)
            return try Store.filter(ids: ids).order(Store.Columns.id).fetchAll(db)
        }
    }

    public func isManager(userId: UserID, of storeId: StoreID) throws -> Bool {
        if let postgres { return try postgres.isManager(userId: userId, of: storeId) }
        return try reader.read { db in
            try ManagedStore.filter(ManagedStore.Columns.userId == userId && ManagedStore.Columns.storeId == storeId)
                .fetchCount(db) > 0
        }
    }

    /// Enrols a kiosk for a store; the caller shows `key` once, the table keeps its hash. With
    /// `loggedAs`, the store's change log records who enrolled it.
    public func enrolKiosk(storeId: StoreID, label: String, key: String, role: KioskRole = .door, now: Date,
                           loggedAs author: ChangeAuthor? = nil) throws -> Kiosk
    {
        if let postgres {
            return try postgres.enrolKiosk(storeId: storeId, label: label, key: key, role: role, now: now, loggedAs: author)
        }
        return try write { db in
            guard try Store.exists(db, id: storeId) else { throw StoreError.noSuchStore }
            let kiosk = try NewKiosk(storeId: storeId, label: label, keyHash: Secrets.hash(key), createdAt: now, role: role)
                .insertAndFetch(db, as: Kiosk.self)
            if let author {
                try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "kiosk",
                                      before: StoreChange.kiosk(label: label, role: role), after: "enrolled", db)
            }
            return kiosk
        }
    }

    /// Revokes a kiosk at once; returns false if there is no such kiosk.
    public func revokeKiosk(id: Int64, now: Date) throws -> Bool {
        if let postgres { return try postgres.revokeKiosk(id: id, now: now) }
        return try write { db in
            try Kiosk.filter(id: id).filter(Kiosk.Columns.revokedAt == nil)
                .updateAll(db, Kiosk.Columns.revokedAt.set(to: now)) > 0
        }
    }

    /// The enrolled, unrevoked kiosk a device key belongs to.
    public func kiosk(key: String) throws -> Kiosk? {
        guard Secrets.isWellFormed(key, minimumLength: 32) else { return nil }
        let keyHash = Secrets.hash(key)
        // Not remembered on PostgreSQL (see `session(idHash:)`): a kiosk revoked on one worker
        // is refused by every worker at once.
        if let postgres { return try postgres.kiosk(keyHash: keyHash) }
        return try credentials.kiosk(keyHash) {
            try reader.read { db in
                try Kiosk.filter(Kiosk.Columns.keyHash == keyHash).filter(Kiosk.Columns.revokedAt == nil).fetchOne(db)
            }
        }
    }

    public func kiosks(storeId: StoreID) throws -> [Kiosk] {
        if let postgres { return try postgres.kiosks(storeId: storeId) }
        return try reader.read { db in try Kiosk.filter(Column("storeId") == storeId).order(Column("id")).fetchAll(db) }
    }

    /// The store's staff PIN as stored (an argon2id hash), if its managers set one.
    public func staffPinHash(storeId: StoreID) throws -> String? {
        try staffPin(storeId: storeId)?.pinHash
    }

    /// The store's staff PIN's hash and when it was set.
    public func staffPin(storeId: StoreID) throws -> (pinHash: String, setAt: Date)? {
        if let postgres { return try postgres.staffPin(storeId: storeId) }
        return try reader.read { db in
            try Row.fetchOne(db, sql: "SELECT pinHash, setAt FROM staffPin WHERE storeId = ?", arguments: [storeId])
                .map { ($0[0], $0[1]) }
        }
    }

    /// Sets (or replaces) the store's staff PIN, noting in the store's changes who did it (never
    /// the PIN). Staff signed in on a kiosk with the old PIN are signed out at their next request:
    /// their pass is bound to the hash it was made with.
    public func setStaffPin(storeId: StoreID, pinHash: String, by userId: UserID?, now: Date) throws {
        if let postgres { return try postgres.setStaffPin(storeId: storeId, pinHash: pinHash, by: userId, now: now) }
        try write { db in
            guard try Store.exists(db, id: storeId) else { throw StoreError.noSuchStore }
            try db.execute(sql: """
                INSERT INTO staffPin (storeId, pinHash, setAt, setBy) VALUES (?, ?, ?, ?)
                ON CONFLICT(storeId) DO UPDATE SET pinHash = excluded.pinHash, setAt = excluded.setAt, setBy = excluded.setBy
                """, arguments: [storeId, pinHash, now.databaseText, userId])
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "staffPin", before: "", after: "set", db)
        }
    }

    /// Revokes the store's kiosk `id` for a manager, noting it in the store's changes; false if
    /// the store has no such active kiosk (another store's is not touched).
    public func revokeKiosk(id: Int64, storeId: StoreID, by userId: UserID?, now: Date) throws -> Bool {
        if let postgres { return try postgres.revokeKiosk(id: id, storeId: storeId, by: userId, now: now) }
        return try write { db in
            guard let kiosk = try Kiosk.filter(id: id).filter(Column("storeId") == storeId)
                .filter(Kiosk.Columns.revokedAt == nil).fetchOne(db)
            else { return false }
            try Kiosk.filter(id: id).updateAll(db, Kiosk.Columns.revokedAt.set(to: now))
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "kiosk",
                                  before: StoreChange.kiosk(label: kiosk.label, role: kiosk.role), after: "revoked", db)
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
        if let postgres { return try postgres.claimDueMail(now: now, lease: lease, limit: limit) }
        return try write { db in
            var leased: [OutboxMessage] = []
            while leased.count < limit {
                let due = try OutboxMessage.filter(OutboxMessage.Columns.sentAt == nil)
                    .filter(OutboxMessage.Columns.nextAttemptAt <= now)
                    .order(Column("priority"), OutboxMessage.Columns.id).limit(limit - leased.count).fetchAll(db)
                if due.isEmpty { break }
                let moot = Set(try Int64.fetchAll(db, sql: """
                    SELECT m.id FROM outboxMessage m JOIN reservation r ON r.id = m.reservationId
                    WHERE m.id IN (\(due.map { String($0.id) }.joined(separator: ",")))
                      AND \(Notice.Kind.noLongerAppliesSQL(message: "m", reservation: "r"))
                    """))
                for var message in due {
                    if moot.contains(message.id) {
                        try db.execute(sql: "UPDATE outboxMessage SET sentAt = ?, lastError = ? WHERE id = ?",
                                       arguments: [now, Self.mootMail, message.id])
                        continue
                    }
                    message.attempts += 1
                    message.nextAttemptAt = now + lease
                    try message.update(db)
                    leased.append(message)
                }
            }
            return leased
        }
    }

    /// What `lastError` says of a message settled without being sent: a newer one about the
    /// same reservation replaced it, or its reservation has moved past it.
    static let supersededMail = "not sent: a newer message about the same reservation replaced it"
    static let mootMail = "not sent: the reservation has moved past it"

    /// How long the oldest mail due has waited at `now`: of the urgent ones, and of all (nil
    /// where none waits). What `/healthz` reads to say the outbox is falling behind.
    public func mailBacklog(now: Date) throws -> (urgent: TimeInterval?, any: TimeInterval?) {
        if let postgres { return try postgres.mailBacklog(now: now) }
        return try reader.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT MIN(CASE WHEN priority = 0 THEN nextAttemptAt END), MIN(nextAttemptAt) FROM outboxMessage
                WHERE sentAt IS NULL AND nextAttemptAt <= ?
                """, arguments: [now])
            let urgent: Date? = row?[0]
            let oldest: Date? = row?[1]
            return (urgent.map { now.timeIntervalSince($0) }, oldest.map { now.timeIntervalSince($0) })
        }
    }

    public func markMailSent(id: Int64, now: Date) throws {
        if let postgres { return try postgres.markMailSent(id: id, now: now) }
        _ = try write { db in
            try OutboxMessage.filter(id: id).updateAll(db, OutboxMessage.Columns.sentAt.set(to: now),
                                                       Column("lastError").set(to: nil))
        }
    }

    public func markMailFailed(id: Int64, error: String, retryAt: Date) throws {
        if let postgres { return try postgres.markMailFailed(id: id, error: error, retryAt: retryAt) }
        _ = try write { db in
            try OutboxMessage.filter(id: id).updateAll(db, OutboxMessage.Columns.nextAttemptAt.set(to: retryAt),
                                                       Column("lastError").set(to: String(error.prefix(500))))
        }
    }

    /// Messages to `recipient`, newest last: for tests and the admin.
    public func mail(to recipient: String) throws -> [OutboxMessage] {
        if let postgres { return try postgres.mail(to: recipient) }
        return try reader.read { db in
            try OutboxMessage.filter(OutboxMessage.Columns.recipientKey == LookupKey.recipient(recipient))
                .order(OutboxMessage.Columns.id).fetchAll(db).filter { $0.recipient == recipient }
        }
    }
}
