import CLupDomain
import Foundation

/// Signed-in browsers: a session's id is the cookie's, kept as its hash.
extension AppDatabase {

    /// A row of `session(idHash:)`, read by position: decoding the two records by their
    /// columns' names compared each of twenty names, without case, with the row's.
    fileprivate static func sessionAndUser(_ row: SQLRow) throws -> (session: UserSession, user: User) {
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
}

extension Accounts {
    /// Starts a session for `userId`; the caller keeps the random id, the table its hash. The
    /// account is in use: a warning that it would be deleted as dormant is taken back.
    public func createSession(idHash: String, csrfToken: String, userId: UserID, now: Date) throws -> UserSession {
        try database.transaction { transaction in
            try transaction.execute("""
                INSERT INTO session (idHash, userId, csrfToken, createdAt, lastSeenAt)
                VALUES (\(idHash), \(userId), \(csrfToken), \(now), \(now))
                """)
            try transaction.execute("""
                UPDATE "user" SET lastSignInAt = \(now), dormantWarnedAt = NULL WHERE id = \(userId)
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
            try self.database.reading(oneStatement: true) { transaction in
                try transaction.row("""
                    SELECT s.idHash, s.userId, s.csrfToken, s.createdAt, s.lastSeenAt,
                           u.id, u.email, u.displayName, u.passwordHash, u.role, u.emailConfirmedAt, u.travelMode,
                           u.loyaltyOptIn, u.createdAt, u.notifyEmail, u.notifyPush, u.language, u.termsVersion,
                           u.termsAcceptedAt
                    FROM session s JOIN "user" u ON u.id = s.userId WHERE s.idHash = \(idHash)
                    """).map(AppDatabase.sessionAndUser)
            }
        }
        return database.remembersCredentials ? try database.credentials.session(idHash, orRead: read) : try read()
    }

    public func touchSession(idHash: String, now: Date) throws {
        try database.transaction { transaction in
            try transaction.execute("UPDATE session SET lastSeenAt = \(now) WHERE idHash = \(idHash)")
            transaction.changedCredentials()
        }
    }

    public func deleteSession(idHash: String) throws {
        try database.transaction { transaction in
            try transaction.execute("DELETE FROM session WHERE idHash = \(idHash)")
            transaction.changedCredentials()
        }
    }

    /// Signs the account out everywhere.
    public func deleteSessions(userId: UserID) throws {
        try database.transaction { transaction in
            try transaction.execute("DELETE FROM session WHERE userId = \(userId)")
            transaction.changedCredentials()
        }
    }

    public func sessionCount(userId: UserID) throws -> Int {
        try database.reading { transaction in try transaction.value("SELECT COUNT(*) FROM session WHERE userId = \(userId)") ?? 0 }
    }
}
