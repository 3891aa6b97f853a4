import CLupDomain
import Foundation
import GRDB

/// How long CLup keeps what it knows about people: the privacy page states these figures and
/// `purgePersonalData` enforces them, so the two cannot disagree.
public enum Retention {
    /// A reservation keeps its link to the customer this long after it was made; then it is
    /// anonymous (its store, times and party size stay for the statistics).
    public static let reservations: TimeInterval = 365 * 86400
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
    public func purgePersonalData(now: Date, sessionLifetime: TimeInterval) throws -> Int {
        let batch = Retention.batch
        let steps: [SQL] = [
            """
            UPDATE reservation SET userId = NULL WHERE id IN (
                SELECT id FROM reservation WHERE userId IS NOT NULL AND createdAt < \(now - Retention.reservations)
                AND status IN ('done', 'cancelled', 'expired') LIMIT \(batch))
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
