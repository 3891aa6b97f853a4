import CLupDomain
import Foundation
import GRDB

/// The periods an operator chooses (`clup serve --keep-…`): how long a visit stays linked to
/// its customer, how long an account nobody signs in to is kept, and how long the door log
/// (with the names staff gave) and a store's change log are kept. The privacy page states
/// them and `purgePersonalData` and `retireDormantAccounts` enforce them.
public struct RetentionPolicy: Sendable, Equatable {
    /// A reservation keeps its link to the customer this long after it was made; then it is
    /// anonymous (its store, times and party size stay for the statistics).
    public var visits: TimeInterval
    /// A customer's account nobody has signed in to (or used) for this long is deleted, its
    /// owner warned by email `dormantWarning` before; nil keeps accounts until they are deleted.
    public var dormantAccounts: TimeInterval?
    /// The door log's entries: what staff did at the door, under the name they gave.
    public var doorLog: TimeInterval
    /// A store's change log: who changed what in its settings, hours and staff.
    public var storeChanges: TimeInterval

    public init(visits: TimeInterval = 365 * 86400, dormantAccounts: TimeInterval? = 3 * 365 * 86400,
                doorLog: TimeInterval = 365 * 86400, storeChanges: TimeInterval = 2 * 365 * 86400)
    {
        self.visits = visits
        self.dormantAccounts = dormantAccounts
        self.doorLog = doorLog
        self.storeChanges = storeChanges
    }

    /// How long before deleting a dormant account its owner is warned: 30 days, or half the
    /// period if that is shorter.
    public var dormantWarning: TimeInterval? { dormantAccounts.map { min(30 * 86400, $0 / 2) } }
}

/// How long CLup keeps what it knows about people: the privacy page states these figures and
/// `purgePersonalData` enforces them, so the two cannot disagree. The periods an operator
/// chooses are `RetentionPolicy`'s.
public enum Retention {
    /// Emails sent (their text) are deleted this long after sending.
    public static let sentEmails: TimeInterval = 30 * 86400
    /// Messages about a reservation (leave now, your turn, maintenance around a booking…)
    /// once dispatched.
    public static let notices: TimeInterval = 30 * 86400
    /// A place on a waiting list (and its messages), once it ended: accepted, passed, left or
    /// closed.
    public static let waitingLists: TimeInterval = 30 * 86400
    /// Failed sign-ins (the address typed and the client's IP address), for throttling: as
    /// long as the throttle remembers them.
    public static let signInFailures: TimeInterval = SignInThrottle.memory
    /// Confirmation and reset links once expired or used.
    public static let emailTokens: TimeInterval = 7 * 86400
    /// The one-time keys of forms already done (a retry comes within minutes, not a day).
    public static let formReplies: TimeInterval = 86400
    /// Kiosks' scan ids and their answers: longer than a kiosk keeps scans it could not send.
    public static let scanReceipts: TimeInterval = 7 * 86400
    /// Kiosks' blocks of tickets for printing offline: a ticket is of no use past its day, and a
    /// report of one older than a day is refused.
    public static let ticketBlocks: TimeInterval = 7 * 86400
    /// Rows changed per transaction, so a first purge of a long history never holds the
    /// write lock for long.
    static let batch = 1000
}

extension Privacy {
    /// Deletes or anonymises what `Retention` says is no longer kept, a batch per transaction;
    /// returns how many rows changed. Sessions past their lifetime are deleted too
    /// (`sessionLifetime`: the longest a session can last).
    @discardableResult
    public func purgePersonalData(now: Date, sessionLifetime: TimeInterval, policy: RetentionPolicy = RetentionPolicy())
        throws -> Int
    {
        let batch = Retention.batch
        let steps: [SQL] = [
            """
            UPDATE reservation SET userId = NULL WHERE id IN (
                SELECT id FROM reservation WHERE userId IS NOT NULL AND createdAt < \(now - policy.visits)
                AND status IN ('done', 'cancelled', 'expired') LIMIT \(batch))
            """,
            """
            DELETE FROM doorAction WHERE id IN (SELECT id FROM doorAction WHERE at < \(now - policy.doorLog) LIMIT \(batch))
            """,
            """
            DELETE FROM storeChange WHERE id IN (
                SELECT id FROM storeChange WHERE at < \(now - policy.storeChanges) LIMIT \(batch))
            """,
            // The support log is an audit log too, kept as long as the stores' change logs.
            """
            DELETE FROM supportAction WHERE id IN (
                SELECT id FROM supportAction WHERE at < \(now - policy.storeChanges) LIMIT \(batch))
            """,
            """
            DELETE FROM outboxMessage WHERE id IN (
                SELECT id FROM outboxMessage WHERE sentAt < \(now - Retention.sentEmails) LIMIT \(batch))
            """,
            """
            DELETE FROM notice WHERE id IN (SELECT id FROM notice WHERE dispatchedAt < \(now - Retention.notices) LIMIT \(batch))
            """,
            """
            DELETE FROM maintenanceNotice WHERE id IN (
                SELECT id FROM maintenanceNotice WHERE dispatchedAt < \(now - Retention.notices) LIMIT \(batch))
            """,
            """
            DELETE FROM waitlist WHERE id IN (SELECT id FROM waitlist WHERE endedAt < \(now - Retention.waitingLists) LIMIT \(batch))
            """,
            // Failed sign-ins are an hour's at most (`recordSignInFailure` forgets older ones).
            "DELETE FROM signInFailure WHERE at < \(now - Retention.signInFailures)",
            """
            DELETE FROM emailToken WHERE tokenHash IN (
                SELECT tokenHash FROM emailToken WHERE expiresAt < \(now - Retention.emailTokens) LIMIT \(batch))
            """,
            """
            DELETE FROM session WHERE idHash IN (SELECT idHash FROM session WHERE createdAt < \(now - sessionLifetime) LIMIT \(batch))
            """,
            """
            DELETE FROM formReply WHERE key IN (SELECT key FROM formReply WHERE at < \(now - Retention.formReplies) LIMIT \(batch))
            """,
            """
            DELETE FROM scanReceipt WHERE (kioskId, scanId) IN (
                SELECT kioskId, scanId FROM scanReceipt WHERE receivedAt < \(now - Retention.scanReceipts) LIMIT \(batch))
            """,
            """
            DELETE FROM ticketBlock WHERE id IN (
                SELECT id FROM ticketBlock WHERE createdAt < \(now - Retention.ticketBlocks) LIMIT \(batch))
            """,
        ]
        var changed = 0
        for step in steps {
            while true {
                let count = try database.transaction { transaction in
                    let count = try transaction.execute(step)
                    // Sessions are among what the credential cache keeps.
                    if count > 0 { transaction.changedCredentials() }
                    return count
                }
                changed += count
                if count < batch { break }
            }
        }
        return changed
    }
}

extension Privacy {
    /// Customers' accounts unused for `policy.dormantAccounts`: each owner is warned by email
    /// (`warning` writes it, in their language, with the day it will go) `dormantWarning`
    /// before, and the account is deleted once the period has passed and the warning is that
    /// old. Signing in, or using a session, since keeps the account (and takes the warning
    /// back). Staff accounts and accounts holding a reservation not yet used are never
    /// deleted this way. Returns how many were warned and deleted.
    @discardableResult
    public func retireDormantAccounts(now: Date, policy: RetentionPolicy,
                                      warning: (User, _ deletedOn: Date) -> (subject: String, body: String)) throws
        -> (warned: Int, deleted: Int)
    {
        guard let period = policy.dormantAccounts, let lead = policy.dormantWarning else { return (0, 0) }
        // Unused since `since`: no sign-in, no session seen, nothing active.
        func unused(since: Date) -> SQL {
            """
            u.role = 'customer' AND COALESCE(u.lastSignInAt, u.createdAt) < \(since)
            AND NOT EXISTS (SELECT 1 FROM session s WHERE s.userId = u.id AND s.lastSeenAt >= \(since))
            AND NOT EXISTS (SELECT 1 FROM reservation r WHERE r.userId = u.id
                            AND r.status IN ('waiting', 'called', 'inside', 'booked'))
            """
        }
        // A session used since the warning takes it back.
        try database.transaction { transaction in
            try transaction.execute("""
                UPDATE "user" SET dormantWarnedAt = NULL WHERE dormantWarnedAt IS NOT NULL AND EXISTS (
                    SELECT 1 FROM session s WHERE s.userId = "user".id AND s.lastSeenAt > "user".dormantWarnedAt)
                """)
        }
        let toWarn = try database.reading { transaction in
            try transaction.column("""
                SELECT u.id FROM "user" u WHERE u.dormantWarnedAt IS NULL AND \(unused(since: now - (period - lead)))
                ORDER BY u.id LIMIT \(Retention.batch)
                """, as: UserID.self).compactMap { $0 }
        }
        var warned = 0
        for id in toWarn {
            warned += try database.transaction { transaction in
                guard let user = try AppDatabase.user(id: id, transaction),
                      try transaction.execute("""
                          UPDATE "user" SET dormantWarnedAt = \(now) WHERE id = \(id) AND dormantWarnedAt IS NULL
                          """) == 1
                else { return 0 }
                let (subject, body) = warning(user, now + lead)
                try AppDatabase.insert(NewOutboxMessage(recipient: user.email, subject: subject, body: body, now: now,
                                                        priority: .account), transaction)
                return 1
            }
        }
        let toDelete = try database.reading { transaction in
            try transaction.column("""
                SELECT u.id FROM "user" u WHERE u.dormantWarnedAt <= \(now - lead) AND \(unused(since: now - period))
                ORDER BY u.id LIMIT \(Retention.batch)
                """, as: UserID.self).compactMap { $0 }
        }
        for id in toDelete { try database.accounts.deleteUser(id: id, now: now) }
        return (warned, toDelete.count)
    }
}
