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
    /// Messages about a reservation (leave now, your turn…) once dispatched.
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

extension AppDatabase {
    /// Deletes or anonymises what `Retention` says is no longer kept, a batch per transaction;
    /// returns how many rows changed. Sessions past their lifetime are deleted too
    /// (`sessionLifetime`: the longest a session can last).
    @discardableResult
    public func purgePersonalData(now: Date, sessionLifetime: TimeInterval) throws -> Int {
        if let postgres { return try postgres.purgePersonalData(now: now, sessionLifetime: sessionLifetime) }
        let steps: [(sql: String, before: Date)] = [
            ("""
             UPDATE reservation SET userId = NULL WHERE id IN (
                 SELECT id FROM reservation WHERE userId IS NOT NULL AND createdAt < ?
                 AND status IN ('done', 'cancelled', 'expired') LIMIT \(Retention.batch))
             """, now - Retention.reservations),
            ("DELETE FROM outboxMessage WHERE id IN (SELECT id FROM outboxMessage WHERE sentAt < ? LIMIT \(Retention.batch))",
             now - Retention.sentEmails),
            ("""
             DELETE FROM notice WHERE id IN (SELECT id FROM notice WHERE dispatchedAt < ? LIMIT \(Retention.batch))
             """, now - Retention.notices),
            ("DELETE FROM waitlist WHERE id IN (SELECT id FROM waitlist WHERE endedAt < ? LIMIT \(Retention.batch))",
             now - Retention.waitingLists),
            ("""
             DELETE FROM signInFailure WHERE rowid IN (SELECT rowid FROM signInFailure WHERE at < ? LIMIT \(Retention.batch))
             """, now - Retention.signInFailures),
            ("""
             DELETE FROM emailToken WHERE rowid IN (SELECT rowid FROM emailToken WHERE expiresAt < ? LIMIT \(Retention.batch))
             """, now - Retention.emailTokens),
            ("DELETE FROM session WHERE rowid IN (SELECT rowid FROM session WHERE createdAt < ? LIMIT \(Retention.batch))",
             now - sessionLifetime),
            ("DELETE FROM formReply WHERE rowid IN (SELECT rowid FROM formReply WHERE at < ? LIMIT \(Retention.batch))",
             now - Retention.formReplies),
            ("""
             DELETE FROM scanReceipt WHERE (kioskId, scanId) IN (
                 SELECT kioskId, scanId FROM scanReceipt WHERE receivedAt < ? LIMIT \(Retention.batch))
             """, now - Retention.scanReceipts),
            ("DELETE FROM ticketBlock WHERE id IN (SELECT id FROM ticketBlock WHERE createdAt < ? LIMIT \(Retention.batch))",
             now - Retention.ticketBlocks),
        ]
        var changed = 0
        for step in steps {
            while true {
                let count = try write { db in
                    try db.execute(sql: step.sql, arguments: [step.before])
                    return db.changesCount
                }
                changed += count
                if count < Retention.batch { break }
            }
        }
        return changed
    }
}
