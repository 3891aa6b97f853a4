import CLupDomain
import Foundation

/// The outbox of mail: written in the same transaction as the change it reports, each mailbox and each
/// client asking kept to its pace, and leased to the sender.
extension AppDatabase {
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

    static let mailColumns = "id, recipient, subject, body, createdAt, attempts, nextAttemptAt, sentAt, lastError"

    /// What `lastError` says of a message settled without being sent: a newer one about the
    /// same reservation replaced it, or its reservation has moved past it.
    static let supersededMail = "not sent: a newer message about the same reservation replaced it"
    static let mootMail = "not sent: the reservation has moved past it"
}

extension Notices {

    /// Enqueues an email on its own (e.g. "you already have an account").
    @discardableResult
    public func enqueueMail(_ message: NewOutboxMessage, now: Date) throws -> MailQueueing {
        try database.transaction { transaction in try AppDatabase.enqueue(message, now: now, transaction) }
    }


    /// Takes up to `limit` messages due for sending, the most urgent first (`MailPriority`),
    /// and leases them for `lease`, so two senders never send the same message at once and a
    /// sender that dies mid-way only delays it: the lease runs out and the message is due again.
    ///
    /// Mail about a reservation that has moved past it (a "your turn" for a ticket already
    /// used, a reminder for a booking cancelled) is settled unsent as it comes up, and the next
    /// due message is taken in its place.
    public func claimDueMail(now: Date, lease: TimeInterval = 300, limit: Int = 20) throws -> [OutboxMessage] {
        try database.transaction { transaction in
            var leased: [OutboxMessage] = []
            while leased.count < limit {
                // Rows another worker's sender is leasing at this moment are skipped, not waited
                // for: two senders never take the same message.
                let due = try transaction.records("""
                    SELECT \(unescaped: AppDatabase.mailColumns) FROM outboxMessage
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
                    UPDATE outboxMessage SET sentAt = \(now), lastError = \(AppDatabase.mootMail) WHERE id \(in: Array(moot))
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

    /// How long the oldest mail due has waited at `now`: of the urgent ones, and of all (nil
    /// where none waits). What `/healthz` reads to say the outbox is falling behind.
    public func mailBacklog(now: Date) throws -> (urgent: TimeInterval?, any: TimeInterval?) {
        try database.reading { transaction in
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
        try database.transaction { transaction in
            try transaction.execute("UPDATE outboxMessage SET sentAt = \(now), lastError = NULL WHERE id = \(id)")
        }
    }

    public func markMailFailed(id: Int64, error: String, retryAt: Date) throws {
        try database.transaction { transaction in
            try transaction.execute("""
                UPDATE outboxMessage SET nextAttemptAt = \(retryAt), lastError = \(String(error.prefix(500))) WHERE id = \(id)
                """)
        }
    }

    /// Messages to `recipient`, newest last: for tests and the admin.
    public func mail(to recipient: String) throws -> [OutboxMessage] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.mailColumns) FROM outboxMessage
                WHERE recipientKey = \(LookupKey.recipient(recipient)) ORDER BY id
                """, as: OutboxMessage.self).filter { $0.recipient == recipient }
        }
    }
}
