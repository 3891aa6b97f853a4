import CLupDomain
import CLupSupport
import Foundation
import PostgresNIO

/// Accounts, sessions, emailed links, failed sign-ins and managers on PostgreSQL: the same
/// named methods as SQLite's in `AppDatabase+Accounts.swift`.
extension PostgresEngine {
    static let userColumns = """
        id, email, displayName, passwordHash, role, emailConfirmedAt, travelMode, loyaltyOptIn, createdAt, notifyEmail,
        notifyPush, language, termsVersion, termsAcceptedAt
        """

    // MARK: Users

    func createAccount(
        email: String, displayName: String, passwordHash: String, role: Role, language: String, acceptedTerms: Int?,
        now: Date, confirmation: (token: String, mail: (User) -> NewOutboxMessage)?
    ) throws -> (user: User, confirmation: MailQueueing?) {
        do {
            return try write { transaction in
                let user = try Self.insertUser(
                    email: email, displayName: displayName, passwordHash: passwordHash, role: role,
                    confirmedAt: confirmation == nil ? now : nil, language: language, acceptedTerms: acceptedTerms,
                    now: now, transaction)
                guard let confirmation else { return (user, nil) }
                let queued = try AppDatabase.enqueue(confirmation.mail(user), now: now, transaction)
                if case .refused(let retryAt) = queued { throw AccountError.mailRefused(retryAt: retryAt) }
                try Self.issueToken(confirmation.token, purpose: .confirm, userId: user.id, now: now, transaction)
                return (user, queued)
            }
        } catch let error as PostgresEngine.Refused where error.sqlState == "23505" && error.constraint == "user_emailkey" {
            throw AccountError.emailTaken
        }
    }

    func createCustomers(emails: [String], now: Date) throws -> [UserID] {
        try write { transaction in
            try emails.map { email in
                try Self.insertUser(email: email, displayName: "Customer", passwordHash: "none", role: .customer,
                                    confirmedAt: now, language: "en", acceptedTerms: nil, now: now, transaction).id
            }
        }
    }

    private static func insertUser(
        email: String, displayName: String, passwordHash: String, role: Role, confirmedAt: Date?, language: String,
        acceptedTerms: Int?, now: Date, _ transaction: PostgresTransaction
    ) throws -> User {
        guard let row = try transaction.row("""
            INSERT INTO "user" (email, displayName, emailKey, passwordHash, role, emailConfirmedAt, createdAt, language,
                                termsVersion, termsAcceptedAt)
            VALUES (\(Sealed.seal(email)), \(Sealed.seal(displayName)),
                    \(LookupKey.email(email)), \(passwordHash), \(role.rawValue), \(confirmedAt), \(now), \(language),
                    \(acceptedTerms), \(acceptedTerms == nil ? nil : now))
            RETURNING \(unescaped: userColumns)
            """)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        transaction.changedCredentials()
        return try row.record()
    }

    /// The account for an address, compared without case (by its keyed hash).
    static func user(email: String, _ transaction: PostgresTransaction) throws -> User? {
        try transaction.row("""
            SELECT \(unescaped: userColumns) FROM "user" WHERE emailKey = \(LookupKey.email(email))
            """)?.record(User.self)
    }

    static func user(id: UserID, _ transaction: PostgresTransaction) throws -> User? {
        try transaction.row("SELECT \(unescaped: userColumns) FROM \"user\" WHERE id = \(id)")?.record(User.self)
    }

    func user(email: String) throws -> User? {
        try read { transaction in try Self.user(email: email, transaction) }
    }

    func updateProfile(userId: UserID, displayName: String, travelMode: TravelMode, loyaltyOptIn: Bool,
                       language: String?) throws
    {
        try write { transaction in
            let changed = try transaction.execute("""
                UPDATE "user" SET displayName = \(Sealed.seal(displayName)), travelMode = \(travelMode.rawValue),
                    loyaltyOptIn = \(loyaltyOptIn), language = COALESCE(\(language), language)
                WHERE id = \(userId)
                """)
            guard changed == 1 else { throw AccountError.noSuchUser }
            transaction.changedCredentials()
        }
    }

    func acceptTerms(userId: UserID, version: Int, now: Date) throws {
        try write { transaction in
            let changed = try transaction.execute("""
                UPDATE "user" SET termsVersion = \(version), termsAcceptedAt = \(now) WHERE id = \(userId)
                """)
            guard changed == 1 else { throw AccountError.noSuchUser }
            transaction.changedCredentials()
        }
    }

    func updateNotificationChannels(userId: UserID, email: Bool, push: Bool) throws {
        try write { transaction in
            try transaction.execute("UPDATE \"user\" SET notifyEmail = \(email), notifyPush = \(push) WHERE id = \(userId)")
            transaction.changedCredentials()
        }
    }

    func changePassword(
        userId: UserID, passwordHash: String, keepingSession idHash: String?, now: Date, notice: (User) -> NewOutboxMessage
    ) throws {
        try write { transaction in
            guard let user = try transaction.row("""
                UPDATE "user" SET passwordHash = \(passwordHash) WHERE id = \(userId) RETURNING \(unescaped: Self.userColumns)
                """)?.record(User.self)
            else { throw AccountError.noSuchUser }
            _ = try AppDatabase.enqueue(notice(user), now: now, transaction)
            try transaction.execute("DELETE FROM session WHERE userId = \(userId) AND idHash <> \(idHash ?? "")")
            transaction.changedCredentials()
        }
    }

    func deleteUser(id: UserID, now: Date) throws {
        try write { transaction in
            // The customer first, then their stores: the order every transaction locks them in.
            _ = try transaction.row("SELECT id FROM \"user\" WHERE id = \(id) FOR UPDATE")
            guard let user = try Self.user(id: id, transaction) else { throw AccountError.noSuchUser }
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
                SELECT \(unescaped: Self.mailColumns) FROM outboxMessage
                WHERE recipientKey = \(LookupKey.recipient(user.email)) AND sentAt IS NULL
                """).map { try $0.record(OutboxMessage.self) }.filter { AppDatabase.sameAddress($0.recipient, user.email) }
            try transaction.execute("DELETE FROM outboxMessage WHERE id = ANY(\(unsent.map(\.id)))")
            try transaction.execute("DELETE FROM signInFailure WHERE account = \(LookupKey.account(user.email))")
            try transaction.execute("DELETE FROM \"user\" WHERE id = \(id)")
            transaction.changedCredentials()
        }
    }

    // MARK: Sessions

    func createSession(idHash: String, csrfToken: String, userId: UserID, now: Date) throws -> UserSession {
        try write { transaction in
            let session = UserSession(idHash: idHash, userId: userId, csrfToken: csrfToken, createdAt: now, lastSeenAt: now)
            try transaction.execute("""
                INSERT INTO session (idHash, userId, csrfToken, createdAt, lastSeenAt)
                VALUES (\(idHash), \(userId), \(csrfToken), \(now), \(now))
                """)
            transaction.changedCredentials()
            return session
        }
    }

    func session(idHash: String) throws -> (session: UserSession, user: User)? {
        try read { transaction in
            guard let session = try transaction.row("""
                SELECT idHash, userId, csrfToken, createdAt, lastSeenAt FROM session WHERE idHash = \(idHash)
                """)?.record(UserSession.self),
                let user = try Self.user(id: session.userId, transaction)
            else { return nil }
            return (session, user)
        }
    }

    func touchSession(idHash: String, now: Date) throws {
        try write { transaction in
            try transaction.execute("UPDATE session SET lastSeenAt = \(now) WHERE idHash = \(idHash)")
            transaction.changedCredentials()
        }
    }

    func deleteSession(idHash: String) throws {
        try write { transaction in
            try transaction.execute("DELETE FROM session WHERE idHash = \(idHash)")
            transaction.changedCredentials()
        }
    }

    func deleteSessions(userId: UserID) throws {
        try write { transaction in
            try transaction.execute("DELETE FROM session WHERE userId = \(userId)")
            transaction.changedCredentials()
        }
    }

    func sessionCount(userId: UserID) throws -> Int {
        try read { transaction in try transaction.value("SELECT COUNT(*) FROM session WHERE userId = \(userId)") ?? 0 }
    }

    // MARK: Emailed links

    static func issueToken(_ token: String, purpose: EmailToken.Purpose, userId: UserID, now: Date,
                           _ transaction: PostgresTransaction) throws
    {
        // A new link replaces any earlier unused one of the same purpose.
        try transaction.execute("""
            DELETE FROM emailToken WHERE userId = \(userId) AND purpose = \(purpose.rawValue) AND usedAt IS NULL
            """)
        try transaction.execute("""
            INSERT INTO emailToken (tokenHash, userId, purpose, expiresAt)
            VALUES (\(Secrets.hash(token)), \(userId), \(purpose.rawValue), \(now + AppDatabase.lifetime(of: purpose)))
            """)
    }

    func enqueueMail(_ message: NewOutboxMessage, now: Date) throws -> MailQueueing {
        try write { transaction in try AppDatabase.enqueue(message, now: now, transaction) }
    }

    func issueLink(
        purpose: EmailToken.Purpose, email: String, token: String, now: Date, mail: (User) -> NewOutboxMessage,
        ifNoAccount: NewOutboxMessage?
    ) throws -> (exists: Bool, mail: MailQueueing) {
        try write { transaction in
            guard let user = try Self.user(email: email, transaction) else {
                return (false, try ifNoAccount.map { try AppDatabase.enqueue($0, now: now, transaction) } ?? .refused(retryAt: now))
            }
            let queued = try AppDatabase.enqueue(mail(user), now: now, transaction)
            if queued.isQueued {
                try Self.issueToken(token, purpose: purpose, userId: user.id, now: now, transaction)
            }
            return (true, queued)
        }
    }

    /// Marks a link used and returns its account; a link works once, before it expires. The
    /// row is locked, so two clicks at once use it once.
    private static func consume(_ token: String, purpose: EmailToken.Purpose, now: Date,
                                _ transaction: PostgresTransaction) throws -> User
    {
        guard Secrets.isWellFormed(token),
            let link = try transaction.row("""
                SELECT tokenHash, userId, purpose, expiresAt, usedAt FROM emailToken
                WHERE tokenHash = \(Secrets.hash(token)) FOR UPDATE
                """)?.record(EmailToken.self),
            link.purpose == purpose, link.usedAt == nil, link.expiresAt > now,
            let user = try user(id: link.userId, transaction)
        else { throw AccountError.invalidOrExpiredLink }
        try transaction.execute("UPDATE emailToken SET usedAt = \(now) WHERE tokenHash = \(link.tokenHash)")
        return user
    }

    func isLinkValid(_ token: String, purpose: EmailToken.Purpose, now: Date) throws -> Bool {
        guard Secrets.isWellFormed(token) else { return false }
        return try read { transaction in
            guard let link = try transaction.row("""
                SELECT tokenHash, userId, purpose, expiresAt, usedAt FROM emailToken WHERE tokenHash = \(Secrets.hash(token))
                """)?.record(EmailToken.self)
            else { return false }
            return link.purpose == purpose && link.usedAt == nil && link.expiresAt > now
        }
    }

    func confirmEmail(token: String, keeping sessionHash: String?, now: Date) throws -> User {
        try write { transaction in
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

    func resetPassword(token: String, passwordHash: String, now: Date) throws -> User {
        try write { transaction in
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

    // MARK: Failed sign-ins

    func signInFailures(account: String, clientAddress: String, since: Date) throws -> SignInHistory {
        try read { transaction in
            let rows = try transaction.rows("""
                SELECT account = \(account), clientAddress = \(clientAddress), at FROM signInFailure
                WHERE at >= \(since) AND (account = \(account) OR clientAddress = \(clientAddress)) ORDER BY at
                """)
            var history = SignInHistory(pair: [], account: [], client: [])
            for row in rows {
                let (sameAccount, sameClient, at) = try (row[0].decode(Bool.self), row[1].decode(Bool.self),
                                                         row[2].decode(Date.self))
                if sameAccount && sameClient { history.pair.append(at) }
                if sameAccount { history.account.append(at) }
                if sameClient { history.client.append(at) }
            }
            return history
        }
    }

    func recordSignInFailure(account: String, clientAddress: String, now: Date) throws {
        try write { transaction in
            try transaction.execute("""
                INSERT INTO signInFailure (account, clientAddress, at)
                VALUES (\(String(account.prefix(254))), \(String(clientAddress.prefix(64))), \(now))
                """)
            try transaction.execute("DELETE FROM signInFailure WHERE at < \(now - SignInThrottle.memory)")
        }
    }

    func clearSignInFailures(account: String, clientAddress: String) throws {
        try write { transaction in
            try transaction.execute("""
                DELETE FROM signInFailure WHERE account = \(account) AND clientAddress = \(clientAddress)
                """)
        }
    }

    // MARK: Managers

    func assignStore(storeId: StoreID, toManager email: String, now: Date, loggedAs author: ChangeAuthor?) throws -> Bool {
        try write { transaction in
            guard let user = try Self.user(email: email, transaction) else { throw AccountError.noSuchUser }
            guard try transaction.row("SELECT 1 FROM store WHERE id = \(storeId)") != nil else {
                throw StoreError.noSuchStore
            }
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

    func removeManager(storeId: StoreID, userId: UserID, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        try write { transaction in
            guard let email = try transaction.value("""
                DELETE FROM managedStore m USING "user" u
                WHERE m.storeId = \(storeId) AND m.userId = \(userId) AND u.id = m.userId RETURNING u.email
                """, as: String.self)
            else { return false }
            try AppDatabase.demoteManagerOfNoStore(userId, transaction)
            // The address as the row holds it, sealed.
            try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager", before: email,
                                  after: "removed", transaction)
            return true
        }
    }

    func managers(storeId: StoreID) throws -> [User] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.userColumns) FROM "user"
                WHERE id IN (SELECT userId FROM managedStore WHERE storeId = \(storeId))
                """).map { try $0.record(User.self) }
        }
    }

    func managedStores(userId: UserID) throws -> [Store] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.storeColumns) FROM store
                WHERE id IN (SELECT storeId FROM managedStore WHERE userId = \(userId)) ORDER BY id
                """).map { try $0.record(Store.self) }
        }
    }

    func isManager(userId: UserID, of storeId: StoreID) throws -> Bool {
        try read { transaction in
            try transaction.row("SELECT 1 FROM managedStore WHERE userId = \(userId) AND storeId = \(storeId)") != nil
        }
    }

    // MARK: Kiosks and staff PINs

    static let kioskColumns = "id, storeId, label, keyHash, createdAt, revokedAt, role"

    func enrolKiosk(storeId: StoreID, label: String, key: String, role: KioskRole, now: Date,
                    loggedAs author: ChangeAuthor?) throws -> Kiosk
    {
        try write { transaction in
            guard try transaction.row("SELECT 1 FROM store WHERE id = \(storeId)") != nil else { throw StoreError.noSuchStore }
            guard let row = try transaction.row("""
                INSERT INTO kiosk (storeId, label, keyHash, createdAt, role)
                VALUES (\(storeId), \(label), \(Secrets.hash(key)), \(now), \(role.rawValue))
                RETURNING \(unescaped: Self.kioskColumns)
                """)
            else { preconditionFailure("INSERT … RETURNING returned no row") }
            if let author {
                try Self.recordChange(storeId: storeId, userId: author.userId, now: now, field: "kiosk",
                                      before: StoreChange.kiosk(label: label, role: role), after: "enrolled", transaction)
            }
            transaction.changedCredentials()
            return try row.record(Kiosk.self)
        }
    }

    func revokeKiosk(id: Int64, now: Date) throws -> Bool {
        try write { transaction in
            transaction.changedCredentials()
            return try transaction.execute("UPDATE kiosk SET revokedAt = \(now) WHERE id = \(id) AND revokedAt IS NULL") > 0
        }
    }

    func revokeKiosk(id: Int64, storeId: StoreID, by userId: UserID?, now: Date) throws -> Bool {
        try write { transaction in
            guard let kiosk = try transaction.row("""
                UPDATE kiosk SET revokedAt = \(now) WHERE id = \(id) AND storeId = \(storeId) AND revokedAt IS NULL
                RETURNING \(unescaped: Self.kioskColumns)
                """)?.record(Kiosk.self)
            else { return false }
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "kiosk",
                                  before: StoreChange.kiosk(label: kiosk.label, role: kiosk.role), after: "revoked",
                                  transaction)
            transaction.changedCredentials()
            return true
        }
    }

    func kiosk(keyHash: String) throws -> Kiosk? {
        try read { transaction in
            try transaction.row("""
                SELECT \(unescaped: Self.kioskColumns) FROM kiosk WHERE keyHash = \(keyHash) AND revokedAt IS NULL
                """)?.record(Kiosk.self)
        }
    }

    func kiosks(storeId: StoreID) throws -> [Kiosk] {
        try read { transaction in
            try transaction.rows("SELECT \(unescaped: Self.kioskColumns) FROM kiosk WHERE storeId = \(storeId) ORDER BY id")
                .map { try $0.record(Kiosk.self) }
        }
    }

    func staffPin(storeId: StoreID) throws -> (pinHash: String, setAt: Date)? {
        try read { transaction in
            try transaction.row("SELECT pinHash, setAt FROM staffPin WHERE storeId = \(storeId)")
                .map { (try $0[0].decode(String.self), try $0[1].decode(Date.self)) }
        }
    }

    func setStaffPin(storeId: StoreID, pinHash: String, by userId: UserID?, now: Date) throws {
        try write { transaction in
            guard try transaction.row("SELECT 1 FROM store WHERE id = \(storeId)") != nil else { throw StoreError.noSuchStore }
            try transaction.execute("""
                INSERT INTO staffPin (storeId, pinHash, setAt, setBy) VALUES (\(storeId), \(pinHash), \(now), \(userId))
                ON CONFLICT (storeId) DO UPDATE SET pinHash = excluded.pinHash, setAt = excluded.setAt, setBy = excluded.setBy
                """)
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "staffPin", before: "", after: "set",
                                  transaction)
        }
    }

    // MARK: Outbox

    static let mailColumns = "id, recipient, subject, body, createdAt, attempts, nextAttemptAt, sentAt, lastError"

    /// Leases the due messages, the most urgent first. Rows another worker's sender is leasing
    /// at this moment are skipped, not waited for: two senders never take the same message.
    /// Mail whose reservation has moved past it is settled unsent first, among the messages
    /// about to be taken, and the next due are taken in its place.
    func claimDueMail(now: Date, lease: TimeInterval, limit: Int) throws -> [OutboxMessage] {
        try write { transaction in
            var leased: [(Int, OutboxMessage)] = []
            while leased.count < limit {
                let wanted = limit - leased.count
                let dropped = try transaction.execute("""
                    WITH head AS (
                        SELECT id, reservationId, noticeKind FROM outboxMessage
                        WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                        ORDER BY priority, id LIMIT \(wanted) FOR UPDATE SKIP LOCKED)
                    UPDATE outboxMessage m SET sentAt = \(now), lastError = \(AppDatabase.mootMail)
                    FROM head JOIN reservation r ON r.id = head.reservationId
                    WHERE m.id = head.id
                      AND \(unescaped: Notice.Kind.noLongerAppliesSQL(message: "head", reservation: "r"))
                    """)
                let rows = try transaction.rows("""
                    WITH due AS (
                        SELECT id, priority, attempts, nextAttemptAt FROM outboxMessage
                        WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                        ORDER BY priority, id LIMIT \(wanted) FOR UPDATE SKIP LOCKED)
                    UPDATE outboxMessage m SET attempts = m.attempts + 1, nextAttemptAt = \(now + lease)
                    FROM due WHERE m.id = due.id
                    RETURNING due.priority, m.id, m.recipient, m.subject, m.body, m.createdAt, m.attempts,
                              m.nextAttemptAt, m.sentAt, m.lastError
                    """)
                leased += try rows.map { (try $0[0].decode(Int.self), try $0.record(OutboxMessage.self)) }
                if rows.isEmpty && dropped == 0 { break }
            }
            // As SQLite's claim returns them: leased (this attempt counted), in the order they are due.
            return leased.sorted { ($0.0, $0.1.id) < ($1.0, $1.1.id) }.map(\.1)
        }
    }

    /// Each outbox's unsent messages by channel and priority (`AppDatabase.outboxGauges`).
    func outboxRows(now: Date) throws -> [(channel: String, priority: String, unsent: Int, oldest: Date?)] {
        try read { transaction in
            try transaction.rows("""
                SELECT 'mail', CAST(priority AS TEXT), COUNT(*), MIN(CASE WHEN nextAttemptAt <= \(now) THEN nextAttemptAt END)
                FROM outboxMessage WHERE sentAt IS NULL GROUP BY priority
                UNION ALL
                SELECT 'push', urgency, COUNT(*), MIN(CASE WHEN nextAttemptAt <= \(now) THEN nextAttemptAt END)
                FROM pushMessage WHERE sentAt IS NULL GROUP BY urgency
                """).map {
                (try $0[0].decode(String.self), try $0[1].decode(String.self), try $0[2].decode(Int.self),
                 try $0[3].decode(Date?.self))
            }
        }
    }

    func mailBacklog(now: Date) throws -> (urgent: TimeInterval?, any: TimeInterval?) {
        try read { transaction in
            let row = try transaction.row("""
                SELECT MIN(CASE WHEN priority = 0 THEN nextAttemptAt END), MIN(nextAttemptAt) FROM outboxMessage
                WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                """)
            let urgent = try row?[0].decode(Date?.self)
            let oldest = try row?[1].decode(Date?.self)
            return (urgent.map { now.timeIntervalSince($0) }, oldest.map { now.timeIntervalSince($0) })
        }
    }

    func markMailSent(id: Int64, now: Date) throws {
        try write { transaction in
            try transaction.execute("UPDATE outboxMessage SET sentAt = \(now), lastError = NULL WHERE id = \(id)")
        }
    }

    func markMailFailed(id: Int64, error: String, retryAt: Date) throws {
        try write { transaction in
            try transaction.execute("""
                UPDATE outboxMessage SET nextAttemptAt = \(retryAt), lastError = \(String(error.prefix(500))) WHERE id = \(id)
                """)
        }
    }

    func mail(to recipient: String) throws -> [OutboxMessage] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.mailColumns) FROM outboxMessage
                WHERE recipientKey = \(LookupKey.recipient(recipient)) ORDER BY id
                """).map { try $0.record(OutboxMessage.self) }.filter { $0.recipient == recipient }
        }
    }
}
