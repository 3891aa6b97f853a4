import CLupDomain
import CLupSupport
import Foundation

/// Links sent by email to confirm an address or reset a password, each working once.
extension AppDatabase {
    /// How long an emailed link works.
    public static func lifetime(of purpose: EmailToken.Purpose) -> TimeInterval {
        switch purpose {
        case .confirm: 7 * 24 * 3600
        case .reset: 3600
        case .changeEmail: 24 * 3600
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

    static let emailTokenColumns = "tokenHash, userId, purpose, expiresAt, usedAt"

    /// Marks a link used and returns its account; a link works once, before it expires. The
    /// row is locked, so two clicks at once use it once.
    fileprivate static func consume(_ token: String, purpose: EmailToken.Purpose, now: Date,
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
}

extension Accounts {

    /// Issues a link for the account at `email` with its email, in one transaction; with no
    /// such account, enqueues `ifNoAccount` instead, so both cases do the same work. Says
    /// whether an account exists (the caller must not reveal it) and what became of the mail
    /// (without `ifNoAccount`, `.refused` at `now` when there is no account).
    @discardableResult
    public func issueLink(
        purpose: EmailToken.Purpose, email: String, token: String, now: Date, mail: (User) -> NewOutboxMessage,
        ifNoAccount: NewOutboxMessage? = nil
    ) throws -> (exists: Bool, mail: MailQueueing) {
        try database.transaction { transaction in
            guard let user = try AppDatabase.user(email: email, transaction) else {
                return (false, try ifNoAccount.map { try AppDatabase.enqueue($0, now: now, transaction) } ?? .refused(retryAt: now))
            }
            let queued = try AppDatabase.enqueue(mail(user), now: now, transaction)
            if queued.isQueued {
                try AppDatabase.issueToken(token, purpose: purpose, userId: user.id, now: now, transaction)
            }
            return (true, queued)
        }
    }

    /// Whether a link would work now, without using it: for the page that asks to confirm.
    public func isLinkValid(_ token: String, purpose: EmailToken.Purpose, now: Date) throws -> Bool {
        guard Secrets.isWellFormed(token) else { return false }
        return try database.reading { transaction in
            guard let link = try transaction.record("""
                SELECT \(unescaped: AppDatabase.emailTokenColumns) FROM emailToken WHERE tokenHash = \(Secrets.hash(token))
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
        try database.transaction { transaction in
            var user = try AppDatabase.consume(token, purpose: .confirm, now: now, transaction)
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
        try database.transaction { transaction in
            var user = try AppDatabase.consume(token, purpose: .reset, now: now, transaction)
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

extension Accounts {
    /// Starts moving account `userId` to `newEmail`: a link to the new address (`mail`), which
    /// moves it when opened; an earlier request's link stops working. An address that already
    /// has an account gets `taken` instead (its owner learns someone tried), and nothing else
    /// happens: the person asking is told the same either way. The mail keeps the mailbox's
    /// and the client's pace.
    @discardableResult
    public func requestEmailChange(userId: UserID, newEmail: String, token: String, now: Date,
                                   mail: (User) -> NewOutboxMessage, taken: (User) -> NewOutboxMessage) throws
        -> MailQueueing
    {
        try database.transaction { transaction in
            guard let user = try AppDatabase.user(id: userId, transaction) else { throw AccountError.noSuchUser }
            if let owner = try AppDatabase.user(email: newEmail, transaction) {
                return try AppDatabase.enqueue(taken(owner), now: now, transaction)
            }
            let queued = try AppDatabase.enqueue(mail(user), now: now, transaction)
            if queued.isQueued {
                try AppDatabase.issueToken(token, purpose: .changeEmail, userId: userId, now: now, transaction)
                try transaction.execute("""
                    UPDATE emailToken SET newEmail = \(Sealed.seal(newEmail)) WHERE tokenHash = \(Secrets.hash(token))
                    """)
            }
            return queued
        }
    }

    /// The address a change-of-address link would move its account to, if it still works.
    public func pendingEmailChange(token: String, now: Date) throws -> String? {
        guard try isLinkValid(token, purpose: .changeEmail, now: now) else { return nil }
        return try database.reading { transaction in
            try transaction.value("SELECT newEmail FROM emailToken WHERE tokenHash = \(Secrets.hash(token))", as: String.self)
                .map(Sealed.open)
        }
    }

    /// Moves the account a change-of-address link was sent for to the address it was sent to
    /// (now confirmed: the link came through it), and tells the old address (`notice`, given
    /// the account as it was and the new address). Other devices stay signed in: the account's
    /// owner asked, with the password. Throws `invalidOrExpiredLink`, or `emailTaken` when the
    /// address got an account of its own meanwhile.
    public func confirmEmailChange(token: String, now: Date, notice: (User, _ newEmail: String) -> NewOutboxMessage)
        throws -> User
    {
        try database.transaction { transaction in
            let newEmail = try transaction.value("""
                SELECT newEmail FROM emailToken WHERE tokenHash = \(Secrets.hash(token))
                """, as: String.self).map(Sealed.open)
            var user = try AppDatabase.consume(token, purpose: .changeEmail, now: now, transaction)
            guard let newEmail else { throw AccountError.invalidOrExpiredLink }
            guard try AppDatabase.user(email: newEmail, transaction) == nil else { throw AccountError.emailTaken }
            try AppDatabase.insert(notice(user, newEmail), transaction)
            try transaction.execute("""
                UPDATE "user" SET email = \(Sealed.seal(newEmail)), emailKey = \(LookupKey.email(newEmail)),
                    emailConfirmedAt = COALESCE(emailConfirmedAt, \(now))
                WHERE id = \(user.id)
                """)
            try transaction.execute("DELETE FROM emailToken WHERE userId = \(user.id) AND usedAt IS NULL")
            transaction.changedCredentials()
            user.email = newEmail
            if user.emailConfirmedAt == nil { user.emailConfirmedAt = now }
            return user
        }
    }
}
